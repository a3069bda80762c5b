import { MESSAGES, refuse, success, type GamejoltAnswer } from './answers.js'
import type { StoredUser } from '../store/users.js'
import { addScore, fetchScores, scoreRank, scoreTables } from './scores.js'
import { ago, requestUser } from './players.js'
import { checkSession, closeSession, openSessionEndpoint, pingSession } from './sessions.js'
import { addAchieved, fetchTrophies, removeAchieved } from './trophies.js'
import { dataKeys, fetchData, removeData, setData, updateData } from './data-store.js'
import type { Endpoint } from './request.js'
import type { EndpointHandler, GamejoltCall } from './call.js'

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

/** friends: this service keeps no friends, so every user has none (an empty list, not a failure). */
async function friends (call: GamejoltCall): Promise<GamejoltAnswer> {
  await requestUser(call)
  return success({ friends: [] })
}

/**
 * The endpoints whose work is one script call that also counts the
 * request's rate limit (over it, the work does not run); the others count
 * it first, in a call of its own.
 */
export const COUNTED_IN_SCRIPT: ReadonlySet<Endpoint> = new Set(['scores/add', 'sessions/ping', 'data-store/set', 'data-store/update', 'data-store/remove'])

/** Every endpoint but batch, which the route runs itself. */
export const HANDLERS: Partial<Record<Endpoint, EndpointHandler>> = {
  time,
  'users/auth': usersAuth,
  users: usersFetch,
  'scores/tables': scoreTables,
  'scores/add': addScore,
  scores: fetchScores,
  'scores/get-rank': scoreRank,
  'sessions/open': openSessionEndpoint,
  'sessions/ping': pingSession,
  'sessions/check': checkSession,
  'sessions/close': closeSession,
  friends,
  trophies: fetchTrophies,
  'trophies/add-achieved': addAchieved,
  'trophies/remove-achieved': removeAchieved,
  'data-store': fetchData,
  'data-store/set': setData,
  'data-store/update': updateData,
  'data-store/remove': removeData,
  'data-store/get-keys': dataKeys
}
