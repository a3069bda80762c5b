import { randomBytes } from 'node:crypto'
import type { Redis } from 'ioredis'
import { keys, SESSION_ID_PATTERN } from '../keys.js'
import { USERNAME_PATTERN } from '../params.js'
import { invalidate, type RecordCache } from './cache.js'
import { hashScripts } from './scripts.js'

/** A user as operators see it: never the password hash. */
export interface UserRecord {
  username: string
  is_admin: boolean
  hidden: boolean
  created_at: string
}

export interface StoredUser extends UserRecord {
  /** scrypt hash, or undefined for a user who logs in only through admin-made sessions. */
  passwordHash: string | undefined
}

function userFromHash (username: string, hash: Record<string, string>): StoredUser | null {
  if (hash.created_at === undefined) return null
  return {
    username,
    is_admin: hash.is_admin === '1',
    hidden: hash.hidden === '1',
    created_at: hash.created_at,
    passwordHash: hash.password === undefined || hash.password === '' ? undefined : hash.password
  }
}

export function publicUser ({ passwordHash: _passwordHash, ...user }: StoredUser): UserRecord {
  return user
}

export interface Session {
  sessionId: string
  username: string
  expiresAt: string
}

/**
 * Users and login sessions in Redis (layout in keys.ts). With a cache, users
 * and sessions found are kept in process (a session no longer than its TTL)
 * and every write here invalidates them on every instance (store/cache.ts).
 */
export function createUserStore (redis: Redis, cache?: RecordCache) {
  const { createHash, updateHash } = hashScripts(redis)

  return {
    async user (username: string): Promise<StoredUser | null> {
      if (!USERNAME_PATTERN.test(username)) return null
      const cached = cache?.get<StoredUser>('user', username)
      if (cached !== undefined) return cached
      const stamp = cache?.stamp() ?? 0
      const user = userFromHash(username, await redis.hgetall(keys.user(username)))
      if (user !== null) cache?.set('user', username, user, stamp)
      return user
    },

    /** Keeps the set of hidden usernames that new games copy (see keys.boardHiddenUsers). */
    async setHiddenUser (username: string, hidden: boolean): Promise<void> {
      if (hidden) await redis.sadd(keys.hiddenUsers(), username)
      else await redis.srem(keys.hiddenUsers(), username)
    },

    async createUser (user: StoredUser): Promise<StoredUser | null> {
      const created = await createHash([keys.user(user.username)], [
        'password', user.passwordHash ?? '', 'is_admin', user.is_admin ? '1' : '0', 'hidden', user.hidden ? '1' : '0', 'created_at', user.created_at
      ])
      if (created === 0) return null
      await invalidate(redis, cache, 'user', user.username)
      await redis.sadd(keys.users(), user.username)
      return user
    },

    async updateUser (username: string, changes: { passwordHash?: string, is_admin?: boolean, hidden?: boolean }): Promise<StoredUser | null> {
      if (!USERNAME_PATTERN.test(username)) return null
      const fields: string[] = []
      if (changes.passwordHash !== undefined) fields.push('password', changes.passwordHash)
      if (changes.is_admin !== undefined) fields.push('is_admin', changes.is_admin ? '1' : '0')
      if (changes.hidden !== undefined) fields.push('hidden', changes.hidden ? '1' : '0')
      if (await updateHash([keys.user(username)], fields) === 0) return null
      await invalidate(redis, cache, 'user', username)
      return await this.user(username)
    },

    /** A new opaque session id of 256 random bits, stored with its TTL. */
    async createSession (username: string, ttlSeconds: number): Promise<Session> {
      const sessionId = randomBytes(32).toString('base64url')
      await redis.set(keys.session(sessionId), username, 'EX', ttlSeconds)
      return { sessionId, username, expiresAt: new Date(Date.now() + ttlSeconds * 1000).toISOString() }
    },

    /** The username of a live session, or null. */
    async sessionUser (sessionId: string): Promise<string | null> {
      if (!SESSION_ID_PATTERN.test(sessionId)) return null
      const cached = cache?.get<string>('session', sessionId)
      if (cached !== undefined) return cached
      const stamp = cache?.stamp() ?? 0
      const replies = await redis.pipeline().get(keys.session(sessionId)).pttl(keys.session(sessionId)).exec() ?? []
      for (const [error] of replies) if (error !== null) throw error
      const [[, username], [, ttlMs]] = replies as [[null, string | null], [null, number]]
      // Cached no longer than Redis keeps the session.
      if (username !== null && ttlMs > 0) cache?.set('session', sessionId, username, stamp, Date.now() + ttlMs)
      return username
    },

    /** True when a session was there to delete. */
    async deleteSession (sessionId: string): Promise<boolean> {
      if (!SESSION_ID_PATTERN.test(sessionId)) return false
      const deleted = await redis.del(keys.session(sessionId)) === 1
      await invalidate(redis, cache, 'session', sessionId)
      return deleted
    }
  }
}

export type UserStore = ReturnType<typeof createUserStore>
