import { keys } from '../store/keys.js'
import type { StoredUser } from '../store/users.js'
import { MESSAGES, refuse, success, type GamejoltAnswer } from './answers.js'
import type { GamejoltCall } from './call.js'
import { requestUser } from './players.js'

/*
 * Game Jolt's sessions are play time, and proof of play
 * (docs/gamejolt.md#sessions): a ping credits the user's play in the game
 * as the play page's reports do (the same totals, under the same
 * wall-clock rule), and on a game that keeps runs an open session is the
 * user's run, which vouches for the scores made during it.
 */

/** A session not pinged for this long is over (Game Jolt's 120 s). */
export const SESSION_TIMEOUT_MS = 120_000

interface OpenSession { lastPingMs: number, runId: string }

/** The user's open session in the game, or null; one past its time is closed here. */
async function openSession ({ fastify, game }: GamejoltCall, user: StoredUser): Promise<OpenSession | null> {
  const kept = await fastify.redis.hget(keys.gamejoltSessions(game.game_id), user.username)
  if (kept === null) return null
  const [last, runId] = kept.split('|')
  const session = { lastPingMs: Number(last), runId: runId ?? '' }
  if (!Number.isFinite(session.lastPingMs) || Date.now() - session.lastPingMs > SESSION_TIMEOUT_MS) {
    await fastify.redis.hdel(keys.gamejoltSessions(game.game_id), user.username)
    return null
  }
  return session
}

/** The run of the user's open session, for a score: undefined without one (or on a game without runs). */
export async function sessionRun (call: GamejoltCall, user: StoredUser): Promise<string | undefined> {
  if (call.game.runs === 'off') return undefined
  const session = await openSession(call, user)
  return session === null || session.runId === '' ? undefined : session.runId
}

/** sessions/open: a new session (an open one is closed first), and on a game that keeps runs, a new run. */
export async function openSessionEndpoint (call: GamejoltCall): Promise<GamejoltAnswer> {
  const { fastify, game } = call
  const user = await requestUser(call)
  let runId = ''
  if (game.runs !== 'off') {
    const run = await fastify.runs.startForSession(game.game_id, user.username)
    if ('retryAfterS' in run) refuse(`Too many sessions opened this minute; retry in ${run.retryAfterS} s.`)
    runId = run.run_id
  }
  await fastify.redis.hset(keys.gamejoltSessions(game.game_id), user.username, `${Date.now()}|${runId}`)
  return success()
}

/** sessions/ping: the play since the last ping (at most 120 s) credited; a session past its time is over. One script call (lua/gamejolt-ping.lua). */
export async function pingSession (call: GamejoltCall): Promise<GamejoltAnswer> {
  const user = await requestUser(call)
  if (!await call.fastify.playtime.sessionPing(call.game, user.username, SESSION_TIMEOUT_MS, call.limits)) refuse(MESSAGES.noSession)
  return success()
}

/** sessions/check: whether the user has an open session: `success` says it, with no message when not (Game Jolt's way). */
export async function checkSession (call: GamejoltCall): Promise<GamejoltAnswer> {
  const user = await requestUser(call)
  return await openSession(call, user) === null ? { success: false } : success()
}

/** sessions/close: the session ends (its play was credited by its pings). */
export async function closeSession (call: GamejoltCall): Promise<GamejoltAnswer> {
  const user = await requestUser(call)
  if (await openSession(call, user) === null) refuse(MESSAGES.noSession)
  await call.fastify.redis.hdel(keys.gamejoltSessions(call.game.game_id), user.username)
  return success()
}
