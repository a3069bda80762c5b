import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { GameRecord } from '../rules/games.js'
import type { GamejoltLink } from '../store/gamejolt.js'
import { MESSAGES, refuse, success, type GamejoltAnswer } from './answers.js'
import type { StoredUser } from '../store/users.js'
import type { Endpoint, GamejoltVersion } from './request.js'

/**
 * What an endpoint works with: the game (approved, its API on), the
 * request's fields (decoded, signature checked) and the service.
 */
export interface GamejoltCall {
  fastify: FastifyInstance
  request: FastifyRequest
  game: GameRecord
  link: GamejoltLink
  version: GamejoltVersion
  fields: Record<string, string>
}

export type EndpointHandler = (call: GamejoltCall) => Promise<GamejoltAnswer>

/** The server's clock, in UTC (docs/gamejolt.md#time): Game Jolt answers in its own zone, this service in UTC. */
async function time (): Promise<GamejoltAnswer> {
  const now = new Date()
  return success({
    timestamp: Math.floor(now.getTime() / 1000),
    timezone: 'UTC',
    year: String(now.getUTCFullYear()),
    month: String(now.getUTCMonth() + 1),
    day: String(now.getUTCDate()),
    hour: String(now.getUTCHours()),
    minute: String(now.getUTCMinutes()),
    second: String(now.getUTCSeconds())
  })
}

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

/** The user a request names by username and user_token (any letter case), or Game Jolt's "no such user". */
async function requestUser ({ fastify, fields }: GamejoltCall): Promise<StoredUser> {
  const username = fields.username ?? ''
  const token = fields.user_token ?? ''
  if (username === '' || token === '') refuse(MESSAGES.noUser)
  return await fastify.users.byGameToken(username, token) ?? refuse(MESSAGES.noUser)
}

/** users/auth: whether the username and token name a user. */
async function usersAuth (call: GamejoltCall): Promise<GamejoltAnswer> {
  await requestUser(call)
  return success()
}

/** Most users one users fetch answers (a comma list longer than this is cut). */
const MAX_USERS_FETCHED = 100

/**
 * users (fetch): users by `username` or `user_id`, each a comma list, in
 * the order asked; unknown ones left out. This service keeps no avatar,
 * website or description, and not when a user last logged in: those are
 * empty (the timestamp 0).
 */
async function usersFetch ({ fastify, fields, game }: GamejoltCall): Promise<GamejoltAnswer> {
  const names = fields.username ?? ''
  const ids = fields.user_id ?? ''
  if (names === '' && ids === '') refuse(MESSAGES.usersNeedOne)
  const found: StoredUser[] = []
  if (ids !== '') {
    for (const id of ids.split(',').slice(0, MAX_USERS_FETCHED)) {
      const user = /^\d{1,10}$/.test(id.trim()) ? await fastify.users.byUserId(Number(id.trim())) : null
      if (user !== null) found.push(user)
    }
  } else {
    for (const name of names.split(',').slice(0, MAX_USERS_FETCHED)) {
      const holder = await fastify.users.nameHolder(name.trim())
      const user = holder === null ? null : await fastify.users.user(holder)
      if (user !== null) found.push(user)
    }
  }
  if (found.length === 0) refuse(MESSAGES.noSuchUser)
  const users = await Promise.all(found.map(async user => {
    const signedUp = Date.parse(user.created_at)
    return {
      id: String(await fastify.users.ensureUserId(user)),
      type: game.developer === user.username ? 'Developer' : 'User',
      username: user.username,
      avatar_url: '',
      signed_up: ago(signedUp),
      signed_up_timestamp: Math.floor(signedUp / 1000),
      last_logged_in: '',
      last_logged_in_timestamp: 0,
      status: 'Active',
      developer_name: user.username,
      developer_website: '',
      developer_description: ''
    }
  }))
  return success({ users })
}

/** The endpoints built so far; the others answer that they are not served yet. */
export const HANDLERS: Partial<Record<Endpoint, EndpointHandler>> = {
  time,
  'users/auth': usersAuth,
  users: usersFetch
}
