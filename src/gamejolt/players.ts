import type { StoredUser } from '../store/users.js'
import { MESSAGES, refuse } from './answers.js'
import type { GamejoltCall } from './call.js'
import { admitGuest } from '../routes/public-action.js'

/* Game Jolt's players, as its endpoints name them, and its way of saying when. */

/** How long ago, in Game Jolt's words: `2 days ago`, `1 week ago`, `5 minutes ago`. */
export function ago (thenMs: number, nowMs = Date.now()): string {
  const seconds = Math.max(0, Math.floor((nowMs - thenMs) / 1000))
  const units: Array<[string, number]> = [['year', 31_536_000], ['month', 2_592_000], ['week', 604_800], ['day', 86_400], ['hour', 3600], ['minute', 60], ['second', 1]]
  for (const [unit, size] of units) {
    const count = Math.floor(seconds / size)
    if (count >= 1) return `${count} ${unit}${count === 1 ? '' : 's'} ago`
  }
  return '0 seconds ago'
}

/**
 * The user a request names by username and user_token (any letter case), or
 * Game Jolt's "no such user". A guest of the play page (a hosted build
 * logged in by the page) is admitted to the game as on our own API: only a
 * game that takes guests, and the game noted for its claim.
 */
export async function requestUser ({ fastify, fields, game }: GamejoltCall): Promise<StoredUser> {
  const username = fields.username ?? ''
  const token = fields.user_token ?? ''
  if (username === '' || token === '') refuse(MESSAGES.noUser)
  const user = await fastify.users.byGameToken(username, token) ?? refuse(MESSAGES.noUser)
  if (user.guest) await admitGuest(fastify, user, game)
  return user
}
