import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import { confirmWrites, type RedisClient as Redis } from './redis-client.js'
import { keys, SESSION_ID_PATTERN } from './keys.js'
import { USERNAME_PATTERN } from '../rules/fields.js'
import { changeRecord, type RecordCache } from './cache.js'
import { defineScript, luaScript, hashScripts } from './script-loader.js'
import { createNameIndex } from './name-index.js'
import { createUsernameFolds } from './username-folds.js'

/** A player's account at the platform, linked to a user here: who signed the proof of it, and the platform's id of the player. */
export interface Identity {
  /** token: a JWT the platform signed (POST /auth/token); oidc: OpenID Connect. */
  method: 'token' | 'oidc'
  /** The token's `iss`, or the OpenID provider's issuer URL. */
  issuer: string
  /** The platform's id of the player (`sub`). */
  subject: string
}

/** How a user signs in, as operators see it: a password, and each identity at a platform. */
export type SignIn = { method: 'password' } | Identity

/** The Redis name of an identity: a digest, so any issuer and subject make a short, safe key. */
function identityDigest ({ method, issuer, subject }: Identity): string {
  return createHash('sha256').update(`${method}\n${issuer}\n${subject}`).digest('base64url').slice(0, 32)
}

function identitiesOf (field: string | undefined): Identity[] {
  if (field === undefined || field === '') return []
  try {
    const parsed: unknown = JSON.parse(field)
    return Array.isArray(parsed) ? parsed.filter((one): one is Identity => typeof one?.issuer === 'string' && typeof one?.subject === 'string' && (one.method === 'token' || one.method === 'oidc')) : []
  } catch {
    return []
  }
}

/** A user as operators see it: never the password hash. */
export interface UserRecord {
  username: string
  is_admin: boolean
  hidden: boolean
  created_at: string
  /** A guest (docs/guide.md#guests): made by the play page, erased when guest_until passes unless claimed first. */
  guest: boolean
  /** When a guest and its play are erased (ISO); null for every other user. */
  guest_until: string | null
  /** How the user signs in; empty for a user with sessions an operator makes only (and a guest). */
  sign_in: SignIn[]
}

export interface StoredUser extends UserRecord {
  /** scrypt hash, or undefined for a user who logs in only through admin-made sessions. */
  passwordHash: string | undefined
  /**
   * Sessions carry the epoch of the user they were made for; ending a
   * user's sessions raises it, so every older session is over at once,
   * also one a login in flight makes a moment later, and ones made before
   * sessions were indexed.
   */
  sessionEpoch: number
  /** The integer id Game Jolt's clients know the user by, once given (ensureUserId). */
  userId: number | undefined
  /** What Game Jolt's clients send as user_token, once the user has one (newGameToken). */
  gameToken: string | undefined
}

/** A guest until someone gives it a password (the field is then emptied). */
function isGuest (hash: Record<string, string>): boolean {
  return hash.guest_until !== undefined && hash.guest_until !== ''
}

function userFromHash (username: string, hash: Record<string, string>): StoredUser | null {
  if (hash.created_at === undefined) return null
  return {
    username,
    is_admin: hash.is_admin === '1',
    hidden: hash.hidden === '1',
    created_at: hash.created_at,
    guest: isGuest(hash),
    guest_until: isGuest(hash) ? new Date(Number(hash.guest_until)).toISOString() : null,
    sign_in: [...(hash.password === undefined || hash.password === '' ? [] : [{ method: 'password' as const }]), ...identitiesOf(hash.identities)],
    passwordHash: hash.password === undefined || hash.password === '' ? undefined : hash.password,
    sessionEpoch: Number(hash.session_epoch ?? 0),
    userId: /^[1-9]\d{0,9}$/.test(hash.user_id ?? '') ? Number(hash.user_id) : undefined,
    gameToken: hash.game_token === undefined || hash.game_token === '' ? undefined : hash.game_token
  }
}

/**
 * A new game token: 26 characters of lowercase base32 (130 random bits),
 * since clients append it to URLs unencoded and gj-unity-api lowercases it.
 */
export function newToken (): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567'
  return Array.from(randomBytes(26), byte => alphabet[byte & 31]).join('')
}

export function publicUser ({ passwordHash: _passwordHash, sessionEpoch: _sessionEpoch, userId: _userId, gameToken: _gameToken, ...user }: StoredUser): UserRecord {
  return user
}

export interface Session {
  sessionId: string
  username: string
  expiresAt: string
}

/** What a session record names: its user, and the user's session epoch when it was made. */
export interface SessionOwner {
  username: string
  epoch: number
}

/** `<epoch>:<username>`; a record made before epochs existed holds the bare username (epoch 0). */
function sessionValue (owner: SessionOwner): string {
  return `${owner.epoch}:${owner.username}`
}

function sessionOwner (value: string): SessionOwner {
  const colon = value.indexOf(':')
  return colon === -1 ? { username: value, epoch: 0 } : { username: value.slice(colon + 1), epoch: Number(value.slice(0, colon)) }
}

/**
 * Sessions one user may have at once (docs/interface.md#sessions): a new one
 * past it ends the user's oldest, so logging in again and again cannot keep
 * an unbounded number alive (a login a minute for the 30-day TTL would be
 * over 40,000), and a user who logs in everywhere keeps the recent ones.
 */
export const MAX_SESSIONS_PER_USER = 20

const NEXT_SESSION_EPOCH = luaScript('next-session-epoch')
const INDEX_SESSION = luaScript('index-session')
const HIDE_GUEST = luaScript('hide-guest')

/**
 * Users and login sessions in Redis (layout in keys.ts). With a cache, users
 * and sessions found are kept in process (a session no longer than its TTL)
 * and every write here invalidates them on every instance (store/cache.ts).
 */
export function createUserStore (redis: Redis, cache?: RecordCache) {
  const { createHash, updateHash } = hashScripts(redis)
  const indexSession = defineScript<string[]>(redis, 'rankIndexSession', INDEX_SESSION, { writes: true })
  const nextSessionEpoch = defineScript<number>(redis, 'rankNextSessionEpoch', NEXT_SESSION_EPOCH, { writes: true })
  const hideGuestScript = defineScript<number>(redis, 'rankHideGuest', HIDE_GUEST, { writes: true })
  const userIndex = createNameIndex(redis, keys.users(), keys.userIndex())
  const folds = createUsernameFolds(redis)

  /** Deletes session records (each in a slot of its own) and tells every instance; returns how many existed. */
  async function deleteSessions (sessionIds: string[]): Promise<number> {
    const deleted = await Promise.all(sessionIds.map(async sessionId => {
      return await changeRecord(redis, cache, 'session', sessionId, async () => {
        const existed = await redis.del(keys.session(sessionId))
        await confirmWrites(redis, [keys.session(sessionId)])
        return existed
      })
    }))
    return deleted.reduce((sum, count) => sum + count, 0)
  }

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

    /** The user who has `username` in any letter case (itself included), or null: a new user may not take it (store/username-folds.ts). */
    async nameHolder (username: string): Promise<string | null> {
      return await folds.holder(username)
    },

    /** Up to `count` usernames in byte order after `after` ('' for the first), beginning with `prefix`. */
    async usernamesPage (after: string, prefix: string, count: number): Promise<string[]> {
      return await userIndex.page(after, prefix, count)
    },

    /** Keeps the set of hidden usernames that new games copy (see keys.boardHiddenUsers). */
    async setHiddenUser (username: string, hidden: boolean): Promise<void> {
      if (hidden) await redis.sadd(keys.hiddenUsers(), username)
      else await redis.srem(keys.hiddenUsers(), username)
      await confirmWrites(redis, [keys.hiddenUsers()])
    },

    /** The new user; null when the name is taken, by a user of that name or of the same name in another letter case. */
    async createUser (user: Omit<StoredUser, 'sessionEpoch' | 'guest' | 'guest_until' | 'sign_in' | 'userId' | 'gameToken'> & { guestUntilMs?: number, identity?: Identity }): Promise<StoredUser | null> {
      // A user made again after an erasure must not take over a session of the erased one
      // (one from before sessions were indexed, or made while the erasure ran): its
      // sessions begin at an epoch no earlier session of that name can carry.
      const sessionEpoch = Date.now()
      // A guest is indexed for its expiry first: every guest that exists is one the sweep finds (which spares a name that is no guest's).
      if (user.guestUntilMs !== undefined) await redis.zadd(keys.guests(), user.guestUntilMs, user.username)
      const created = await changeRecord(redis, cache, 'user', user.username, async () => await createHash([keys.user(user.username)], [
        'password', user.passwordHash ?? '', 'is_admin', user.is_admin ? '1' : '0', 'hidden', user.hidden ? '1' : '0', 'created_at', user.created_at,
        'session_epoch', String(sessionEpoch), ...user.guestUntilMs === undefined ? [] : ['guest_until', String(user.guestUntilMs)],
        ...user.identity === undefined ? [] : ['identities', JSON.stringify([user.identity])]
      ]))
      if (created === 0) return null
      // One name whatever its letter case: the record is taken back when another user has it in another case.
      if (await folds.claim(user.username) !== null) {
        await changeRecord(redis, cache, 'user', user.username, async () => await redis.del(keys.user(user.username)))
        return null
      }
      await redis.sadd(keys.users(), user.username)
      await userIndex.add(user.username)
      await confirmWrites(redis, [keys.guests(), keys.users(), keys.userIndex(), keys.usernameFolds()])
      const { guestUntilMs, identity, ...made } = user
      const signIn: SignIn[] = [...(user.passwordHash === undefined ? [] : [{ method: 'password' as const }]), ...(identity === undefined ? [] : [identity])]
      return { ...made, guest: guestUntilMs !== undefined, guest_until: guestUntilMs === undefined ? null : new Date(guestUntilMs).toISOString(), sign_in: signIn, sessionEpoch, userId: undefined, gameToken: undefined }
    },

    /**
     * The user's integer id, given the first time it is needed: the next of
     * a sequence, kept in the user's record and indexed by id. Two callers
     * at once may each draw a number; the first written is the user's.
     */
    async ensureUserId (user: StoredUser): Promise<number> {
      if (user.userId !== undefined) return user.userId
      const drawn = await redis.incr(keys.userIdSequence())
      const id = await changeRecord(redis, cache, 'user', user.username, async () => {
        await redis.hsetnx(keys.user(user.username), 'user_id', String(drawn))
        return Number(await redis.hget(keys.user(user.username), 'user_id'))
      })
      await redis.hset(keys.userIds(), String(id), user.username)
      await confirmWrites(redis, [keys.user(user.username), keys.userIds()])
      return id
    },

    /** The user an integer id names, or null (an id whose user was erased names no one). */
    async byUserId (userId: number): Promise<StoredUser | null> {
      if (!Number.isSafeInteger(userId) || userId < 1) return null
      const username = await redis.hget(keys.userIds(), String(userId))
      const user = username === null ? null : await this.user(username)
      return user?.userId === userId ? user : null
    },

    /** A new game token for the user (the previous one stops working at once); null when there is no such user. */
    async newGameToken (user: StoredUser): Promise<string | null> {
      await this.ensureUserId(user)
      const token = newToken()
      const written = await changeRecord(redis, cache, 'user', user.username, async () => await updateHash([keys.user(user.username)], ['game_token', token]))
      return written === 0 ? null : token
    },

    /**
     * The user a Game Jolt client names by username (in any letter case)
     * and game token (lowercased, as gj-unity-api sends it), or null.
     */
    async byGameToken (username: string, token: string): Promise<StoredUser | null> {
      if (!USERNAME_PATTERN.test(username) || token === '') return null
      const holder = await folds.holder(username)
      const user = holder === null ? null : await this.user(holder)
      if (user?.gameToken === undefined) return null
      const given = Buffer.from(token.toLowerCase())
      const kept = Buffer.from(user.gameToken)
      return given.length === kept.length && timingSafeEqual(given, kept) ? user : null
    },

    /** The username an identity is linked to, or null. */
    async identityOwner (identity: Identity): Promise<string | null> {
      return await redis.get(keys.identity(identityDigest(identity)))
    },

    /**
     * Links an identity to a user made with it (createUser's `identity`),
     * unless another user has it already: the first link wins, also between
     * two first sign-ins at once. Returns the username that has it.
     */
    async linkIdentity (identity: Identity, username: string): Promise<string> {
      const key = keys.identity(identityDigest(identity))
      if (await redis.set(key, username, 'NX') === 'OK') {
        await confirmWrites(redis, [key])
        return username
      }
      return await redis.get(key) ?? username
    },

    /** Notes that a guest plays `gameId` (the games a claim or an expiry visits); true the first time. */
    async admitGuest (username: string, gameId: string): Promise<boolean> {
      return await redis.sadd(keys.guestGames(username), gameId) === 1
    },

    /** Takes back admitGuest, for a game the guest may not play after all. */
    async unadmitGuest (username: string, gameId: string): Promise<void> {
      await redis.srem(keys.guestGames(username), gameId)
    },

    /** Puts a guest in a game's copy of hidden users (a game that keeps guests unlisted): nothing it stores there is shown. */
    async hideGuest (username: string, gameId: string): Promise<void> {
      await hideGuestScript([keys.game(gameId), keys.boardHiddenUsers(gameId)], [username])
    },

    /** The games a guest played, in no order. */
    async guestGames (username: string): Promise<string[]> {
      return USERNAME_PATTERN.test(username) ? await redis.smembers(keys.guestGames(username)) : []
    },

    /** When the sweep looks at a guest (or what is left of one) next. */
    async scheduleGuest (username: string, atMs: number): Promise<void> {
      await redis.zadd(keys.guests(), atMs, username)
    },

    /** The sweep is done with a guest. */
    async forgetGuest (username: string): Promise<void> {
      await redis.zrem(keys.guests(), username)
    },

    /** The list of a guest's games, once its play there is erased or claimed. */
    async forgetGuestGames (username: string): Promise<void> {
      if (USERNAME_PATTERN.test(username)) await redis.del(keys.guestGames(username))
    },

    /** Up to `count` guests whose time ended before `nowMs`, soonest first. */
    async expiredGuests (nowMs: number, count: number): Promise<string[]> {
      return await redis.zrangebyscore(keys.guests(), '-inf', nowMs, 'LIMIT', 0, count)
    },

    async updateUser (username: string, changes: { passwordHash?: string, is_admin?: boolean, hidden?: boolean }): Promise<StoredUser | null> {
      if (!USERNAME_PATTERN.test(username)) return null
      const fields: string[] = []
      // A guest given a password is a user from then on: its end is gone.
      if (changes.passwordHash !== undefined) fields.push('password', changes.passwordHash, 'guest_until', '')
      if (changes.is_admin !== undefined) fields.push('is_admin', changes.is_admin ? '1' : '0')
      if (changes.hidden !== undefined) fields.push('hidden', changes.hidden ? '1' : '0')
      if (await changeRecord(redis, cache, 'user', username, async () => await updateHash([keys.user(username)], fields)) === 0) return null
      return await this.user(username)
    },

    /**
     * A new opaque session id of 256 random bits for the user as read before
     * (its session epoch then), stored with its TTL and indexed under the
     * user. The index is written first: a session that exists is always one
     * an operator can find and end. Past MAX_SESSIONS_PER_USER, the user's
     * oldest sessions are ended, on every instance.
     */
    async createSession (user: StoredUser, ttlSeconds: number): Promise<Session> {
      const sessionId = randomBytes(32).toString('base64url')
      const now = Date.now()
      const expiresAtMs = now + ttlSeconds * 1000
      const oldest = await indexSession([keys.userSessions(user.username)], [sessionId, expiresAtMs, now, MAX_SESSIONS_PER_USER])
      await redis.set(keys.session(sessionId), sessionValue({ username: user.username, epoch: user.sessionEpoch }), 'EX', ttlSeconds)
      await deleteSessions(oldest)
      await confirmWrites(redis, [keys.session(sessionId)])
      return { sessionId, username: user.username, expiresAt: new Date(expiresAtMs).toISOString() }
    },

    /**
     * When each of a user's live sessions expires, soonest first (the ids
     * stay secret), from `after`: the expiry (ms) of the last one listed and
     * how many were listed at that expiry. `next` is where the following page
     * begins, null after the last; sessions that expire meantime shift nothing.
     */
    async sessionsOf (username: string, after: { expiry: number, seen: number } | null = null, count = 1000): Promise<{ sessions: Array<{ expires_at: string }>, next: { expiry: number, seen: number } | null }> {
      if (!USERNAME_PATTERN.test(username)) return { sessions: [], next: null }
      const from = Math.max(Date.now(), after?.expiry ?? 0)
      const skip = after !== null && after.expiry >= Date.now() ? after.seen : 0
      const replies = await redis.zrangebyscore(keys.userSessions(username), from, '+inf', 'WITHSCORES', 'LIMIT', skip, count + 1)
      const expiries: number[] = []
      for (let i = 1; i < replies.length; i += 2) expiries.push(Number(replies[i]))
      const listed = expiries.slice(0, count)
      const last = listed[listed.length - 1]
      const next = expiries.length > count && last !== undefined
        ? { expiry: last, seen: listed.filter(expiry => expiry === last).length + (last === from ? skip : 0) }
        : null
      return { sessions: listed.map(expiry => ({ expires_at: new Date(expiry).toISOString() })), next }
    },

    /**
     * A player's own live sessions (at most MAX_SESSIONS_PER_USER), soonest
     * to expire first, each saying whether it is `currentId`, the one asking;
     * the ids themselves stay here.
     */
    async ownSessions (username: string, currentId: string): Promise<Array<{ expires_at: string, current: boolean }>> {
      if (!USERNAME_PATTERN.test(username)) return []
      const replies = await redis.zrangebyscore(keys.userSessions(username), Date.now(), '+inf', 'WITHSCORES')
      const sessions: Array<{ expires_at: string, current: boolean }> = []
      for (let i = 0; i + 1 < replies.length; i += 2) sessions.push({ expires_at: new Date(Number(replies[i + 1])).toISOString(), current: replies[i] === currentId })
      return sessions
    },

    /**
     * Ends all of a user's sessions, on every instance: raises the user's
     * session epoch (which ends them, also any a login in flight makes with
     * the epoch it read), then deletes the indexed session records. Returns
     * how many indexed sessions were deleted.
     */
    async endSessions (username: string): Promise<number> {
      if (!USERNAME_PATTERN.test(username)) return 0
      if (await changeRecord(redis, cache, 'user', username, async () => await nextSessionEpoch([keys.user(username)], [])) === -1) return 0
      const index = keys.userSessions(username)
      const sessionIds = await redis.zrange(index, 0, -1)
      if (sessionIds.length === 0) return 0
      const ended = await deleteSessions(sessionIds)
      await redis.zrem(index, ...sessionIds)
      await confirmWrites(redis, [index])
      return ended
    },

    /**
     * Removes the user everywhere in the user store: their indexed sessions
     * (each record deleted and forgotten by every instance), the session
     * index, the user's record and their place in the sets of users and of
     * hidden users. Idempotent; `user` says whether a record was there.
     */
    async eraseUser (username: string): Promise<{ user: boolean, sessions: number }> {
      if (!USERNAME_PATTERN.test(username)) return { user: false, sessions: 0 }
      const index = keys.userSessions(username)
      const sessions = await deleteSessions(await redis.zrange(index, 0, -1))
      // The identities that lead to the user, while the record still names them (each only if it is still theirs).
      const identityKeys = identitiesOf(await redis.hget(keys.user(username), 'identities') ?? undefined).map(identity => keys.identity(identityDigest(identity)))
      for (const key of identityKeys) if (await redis.get(key) === username) await redis.del(key)
      const existed = await changeRecord(redis, cache, 'user', username, async () => await redis.del(keys.user(username)))
      // The user's request counter names them too, for the rest of its window.
      await redis.del(index)
      await redis.del(keys.rateLimitCounter('session', keys.userLimitSubject(username)))
      await redis.srem(keys.users(), username)
      await redis.srem(keys.hiddenUsers(), username)
      await userIndex.remove(username)
      await folds.release(username)
      // A guest's list of games and its place in the sweep stay: the sweep erases its play in those games, then forgets it.
      await confirmWrites(redis, [keys.user(username), index, keys.users(), keys.hiddenUsers(), keys.userIndex(), keys.usernameFolds(), ...identityKeys])
      return { user: existed === 1, sessions }
    },

    /**
     * Who a session record names, or null. The caller compares the epoch
     * with the user's (a session from before the user's sessions were ended
     * is over).
     */
    async session (sessionId: string): Promise<SessionOwner | null> {
      if (!SESSION_ID_PATTERN.test(sessionId)) return null
      const cached = cache?.get<SessionOwner>('session', sessionId)
      if (cached !== undefined) return cached
      const stamp = cache?.stamp() ?? 0
      const replies = await redis.pipeline().get(keys.session(sessionId)).pttl(keys.session(sessionId)).exec() ?? []
      for (const [error] of replies) if (error !== null) throw error
      const [[, value], [, ttlMs]] = replies as [[null, string | null], [null, number]]
      if (value === null) return null
      const owner = sessionOwner(value)
      // Cached no longer than Redis keeps the session.
      if (ttlMs > 0) cache?.set('session', sessionId, owner, stamp, Date.now() + ttlMs)
      return owner
    },

    /** True when a session was there to delete. */
    async deleteSession (sessionId: string): Promise<boolean> {
      if (!SESSION_ID_PATTERN.test(sessionId)) return false
      const value = await redis.get(keys.session(sessionId))
      const deleted = await deleteSessions([sessionId]) === 1
      if (value !== null) {
        const index = keys.userSessions(sessionOwner(value).username)
        await redis.zrem(index, sessionId)
        await confirmWrites(redis, [index])
      }
      return deleted
    }
  }
}

export type UserStore = ReturnType<typeof createUserStore>
