import { fail } from '../errors.js'
import { USERNAME_PATTERN, usernameCandidates, usernameFromDisplayName } from '../rules/fields.js'
import { hashPassword } from '../store/passwords.js'
import { randomInt } from 'node:crypto'
import { publicUser, type Identity, type Session, type StoredUser, type UserRecord } from '../store/users.js'
import { guestsWelcome, type GameRecord } from '../rules/games.js'
import { decodeCursor, encodeCursor } from '../lib/cursor.js'
import type { DataItemSize } from '../store/gamejolt.js'
import { ErasureCounts, ListPage, auditedUser, namePage } from './answers.js'
import { OperationContext } from './context.js'
import { now } from './games.js'
import { cursors, readInput, schemas } from './input.js'

/** Users and their sessions: listing, creating, changing, hiding, logging out, erasing. */

/** How long after a guest is erased the sweep looks for what a request in flight stored meanwhile. */
const GUEST_STRAGGLERS_MS = 60_000

/** The most saved items a user's record lists for one game (their keys and sizes; an operator pages through the rest). */
const MAX_SAVED_LISTED = 1000

/** How many generated names a new guest tries before giving up. */
const GUEST_NAME_ATTEMPTS = 5

/** What a user has in one game: their all-time standing, their rating, their play time, their saves (Game Jolt data store items: keys and sizes). */
export interface UserInGame { game_id: string, best_score: number | null, rank: number | null, stars: number | null, playtime_seconds: number, saved_items: DataItemSize[] }

export function usersOperations ({ users, records, sessionTtlS, guestTtlS, sessionCookie, ratings, playtime, leaderboard, audit, applyUserHidden, eraseFromEveryGame, forEveryGame, gamejolt }: OperationContext) {
  /**
   * A guest, everywhere it played: its record and sessions, then its play in
   * each game (the erasure's script), then the list of its games. Never a
   * user who is not a guest (an operator gave the guest a password, or the
   * name was taken when the guest was made). False when there was nothing.
   */
  async function eraseGuest (guest: string): Promise<boolean> {
    const user = await users.user(guest)
    if (user !== null && !user.guest) return false
    await users.eraseUser(guest)
    for (const gameId of await users.guestGames(guest)) {
      const game = await records.game(gameId, { fresh: true })
      if (game !== null) await leaderboard.erasePlayer(game, guest, { user: true })
    }
    await users.forgetGuestGames(guest)
    return user !== null
  }

  /**
   * Whether a new account may take `username` (sign-up): not when a user
   * has it, in any letter case (store/username-folds.ts), nor when it is a
   * player's name in any game (an entry on any board, hidden, a held
   * score): boards share one namespace for API-key players and users, and
   * the account would own that player's scores.
   */
  async function nameTaken (username: string): Promise<boolean> {
    if (await users.user(username) !== null || await users.nameHolder(username) !== null) return true
    return (await forEveryGame(async game => await leaderboard.playerKnown(game, username))).some(Boolean)
  }

  return {
    /** Users in name order; by name prefix, hidden or not, administrators or not. */
    async listUsers (input?: unknown): Promise<ListPage<UserRecord>> {
      const query = readInput(schemas.listUsers, input)
      const from = query.cursor === undefined ? '' : decodeCursor(cursors.names('users'), query.cursor).after
      const { items, next } = await namePage(
        async (after, count) => await users.usernamesPage(after, query.prefix ?? '', count),
        async names => await Promise.all(names.map(async name => await users.user(name))),
        user => (query.hidden === undefined || user.hidden === query.hidden) && (query.is_admin === undefined || user.is_admin === query.is_admin) && (query.guest === undefined || user.guest === query.guest),
        from, query.limit ?? 50, query.hidden !== undefined || query.is_admin !== undefined || query.guest !== undefined)
      return { items: items.map(publicUser), next_cursor: next === null ? null : encodeCursor({ k: 'users', after: next }) }
    },

    /**
     * Everything kept about a user, for the user (GET /auth/account) and an
     * operator (GET /admin/users/:username/export): the record, and each
     * game where they have a best score, a rating, play time or saved items,
     * in game id order.
     */
    async userData (username: string): Promise<UserRecord & { games: UserInGame[] }> {
      const user = await users.user(username) ?? fail('not_found', 'No such user.')
      const games = await forEveryGame(async (game): Promise<UserInGame> => {
        const [standing, rating, seconds, saved] = await Promise.all([
          leaderboard.standing(game, leaderboard.choose(game, {}), username),
          ratings.read(game, username),
          playtime.ofUser(game.game_id, username),
          gamejolt.dataItems(game.game_id, user.username, '', MAX_SAVED_LISTED)
        ])
        return { game_id: game.game_id, best_score: standing.bestScore, rank: standing.rank, stars: rating.mine, playtime_seconds: seconds, saved_items: saved.items }
      })
      const played = games.filter(game => game.best_score !== null || game.stars !== null || game.playtime_seconds > 0 || game.saved_items.length > 0)
      return { ...publicUser(user), games: played.sort((a, b) => a.game_id < b.game_id ? -1 : 1) }
    },

    nameTaken,

    /**
     * A new guest for the play page of `game` (docs/guide.md#guests): a
     * generated name (`guest-` and six digits, retried while taken, also by
     * a player of this game), no password, erased after GUEST_TTL_S unless
     * claimed; and its session, which lasts as long. Not audited: guests
     * come and go by the thousand; the claim that keeps one is.
     */
    async createGuest (game: GameRecord): Promise<{ user: StoredUser, session: Session }> {
      guestsWelcome(game)
      for (let attempt = 1; attempt <= GUEST_NAME_ATTEMPTS; attempt++) {
        const username = `guest-${String(randomInt(1_000_000)).padStart(6, '0')}`
        if (await leaderboard.playerKnown(game, username)) continue
        const user = await users.createUser({ username, passwordHash: undefined, is_admin: false, hidden: false, created_at: now(), guestUntilMs: Date.now() + guestTtlS * 1000 })
        if (user !== null) return { user, session: await users.createSession(user, guestTtlS) }
      }
      return fail('unavailable', 'No guest name is free right now; retry in a moment.')
    },

    /**
     * A guest's play becomes the user's, game by game (one script call each,
     * lua/claim-player.lua), then the guest is erased: its record, sessions
     * and whatever it did after the claim began. Audited as the user's.
     */
    async claimGuest (guest: string, username: string): Promise<{ games: number, boards: number, ratings: number, playtime_seconds: number, held: number }> {
      const claimed = { games: 0, boards: 0, ratings: 0, playtime_seconds: 0, held: 0 }
      // Game by game; the guest stays until every game is done, so a claim cut short (Redis away) is claimed again by the next sign-in.
      for (const gameId of await users.guestGames(guest)) {
        const game = await records.game(gameId, { fresh: true })
        if (game === null) continue
        const moved = await leaderboard.claimPlayer(game, guest, username)
        await gamejolt.moveOwner(game.game_id, guest, username)
        claimed.games++
        claimed.boards += moved.boards
        claimed.ratings += moved.rated
        claimed.playtime_seconds += moved.playtimeSeconds
        claimed.held += moved.held
      }
      await eraseGuest(guest)
      // A request of the guest's still in flight may store something after this: the sweep looks once more.
      await users.scheduleGuest(guest, Date.now() + GUEST_STRAGGLERS_MS)
      await audit({ action: 'user.claim_guest', game_id: null, target: username, before: null, after: claimed })
      return claimed
    },

    /**
     * Erases up to `count` guests whose time is up, with their play in the
     * games they played (the erasure of an operator, without its audit
     * entry: an expiry is the documented lifetime, not anyone's change).
     * Returns how many went.
     */
    async expireGuests (count = 100): Promise<{ erased: number, failed: number }> {
      const outcome = { erased: 0, failed: 0 }
      for (const guest of await users.expiredGuests(Date.now(), count)) {
        try {
          // Erased: one more look later, for a request that was in flight; nothing left: done with it.
          if (await eraseGuest(guest)) {
            await users.scheduleGuest(guest, Date.now() + GUEST_STRAGGLERS_MS)
            outcome.erased++
          } else {
            await users.forgetGuest(guest)
          }
        } catch {
          // One guest that cannot be erased now does not hold up the others; it is tried again next time.
          outcome.failed++
        }
      }
      return outcome
    },

    /**
     * The user a platform's identity signs in as (docs/signin.md): the one
     * linked to it, else a new user made for it, without a password, under
     * the first free name of usernameCandidates (free: no user, no player
     * of any game). Two first sign-ins at once make one link: the loser's
     * user is removed again. The new user is audited as the player's.
     */
    async signInWithIdentity (identity: Identity, displayName: string | null): Promise<StoredUser> {
      const linked = await users.identityOwner(identity)
      const existing = linked === null ? null : await users.user(linked)
      if (existing !== null) return existing
      for (const username of usernameCandidates(usernameFromDisplayName(displayName), () => randomInt(1_000_000))) {
        if (await nameTaken(username)) continue
        const made = await users.createUser({ username, passwordHash: undefined, is_admin: false, hidden: false, created_at: now(), identity })
        if (made === null) continue
        const owner = await users.linkIdentity(identity, username)
        if (owner !== username) {
          await users.eraseUser(username)
          return await users.user(owner) ?? fail('unavailable', 'The sign-in met another at the same moment; retry.')
        }
        await audit({ action: 'user.create', game_id: null, target: username, before: null, after: auditedUser(made) })
        return made
      }
      return fail('unavailable', 'No free username was found for this player; retry in a moment.')
    },

    /** One user, never the password hash. */
    async user (username: string): Promise<UserRecord> {
      return publicUser(await users.user(username) ?? fail('not_found', 'No such user.'))
    },

    async createUser (input: unknown): Promise<UserRecord> {
      const body = readInput(schemas.createUser, input)
      const user = await users.createUser({
        username: body.username,
        passwordHash: body.password === undefined ? undefined : await hashPassword(body.password),
        is_admin: body.is_admin ?? false,
        hidden: body.hidden ?? false,
        created_at: now()
      })
      if (user === null) {
        const holder = await users.nameHolder(body.username)
        if (holder !== null && holder !== body.username) fail('already_exists', `The username "${body.username}" is taken: user "${holder}" has it, and names that differ only in letter case are one name.`)
        fail('already_exists', `User "${body.username}" already exists.`)
      }
      // Scores submitted under this name before the user existed leave the boards too.
      if (user.hidden) await applyUserHidden(user.username, true)
      await audit({ action: 'user.create', game_id: null, target: user.username, before: null, after: auditedUser(user) })
      return publicUser(user)
    },

    async updateUser (username: string, input: unknown): Promise<UserRecord> {
      const body = readInput(schemas.updateUser, input)
      const before = await users.user(username)
      const user = before === null
        ? null
        : await users.updateUser(username, {
          passwordHash: body.password === undefined ? undefined : await hashPassword(body.password),
          is_admin: body.is_admin,
          hidden: body.hidden
        })
      if (user === null) fail('not_found', 'No such user.')
      if (body.hidden !== undefined) await applyUserHidden(username, body.hidden)
      // Whoever knew the old password may hold a session: a new password ends them all.
      if (body.password !== undefined) await users.endSessions(username)
      await audit({ action: 'user.update', game_id: null, target: username, before: before === null ? null : auditedUser(before), after: auditedUser(user) },
        { before: before === null ? null : auditedUser(before, true), after: auditedUser(user, true) })
      return publicUser(user)
    },

    /** When each of a user's live sessions expires, soonest first; the session ids stay secret. */
    async userSessions (username: string, input?: unknown): Promise<{ username: string, sessions: Array<{ expires_at: string }>, next_cursor: string | null }> {
      const query = readInput(schemas.listSessions, input)
      if (await users.user(username) === null) fail('not_found', 'No such user.')
      const after = query.cursor === undefined ? null : decodeCursor(cursors.sessions, query.cursor)
      const { sessions, next } = await users.sessionsOf(username, after === null ? null : { expiry: after.e, seen: after.n }, query.limit ?? 50)
      return { username, sessions, next_cursor: next === null ? null : encodeCursor({ k: 'sessions', e: next.expiry, n: next.seen }) }
    },

    /** Logs a user out everywhere. */
    async endUserSessions (username: string, input?: unknown): Promise<{ ended: number }> {
      readInput(schemas.none, input)
      if (await users.user(username) === null) fail('not_found', 'No such user.')
      const ended = await users.endSessions(username)
      await audit({ action: 'user.sessions_end', game_id: null, target: username, before: null, after: { ended } })
      return { ended }
    },

    /**
     * The user's game token for Game Jolt's clients (docs/gamejolt.md#players-and-tokens):
     * a new one, the previous one stops working at once. `made`: the
     * user's current one instead, made only when they have none.
     */
    async gameToken (username: string, input?: unknown, { current = false } = {}): Promise<{ username: string, game_token: string }> {
      readInput(schemas.none, input)
      const user = await users.user(username) ?? fail('not_found', 'No such user.')
      if (current && user.gameToken !== undefined) return { username: user.username, game_token: user.gameToken }
      const token = await users.newGameToken(user) ?? fail('not_found', 'No such user.')
      await audit({ action: 'user.game_token', game_id: null, target: user.username, before: null, after: { username: user.username, game_token: token } })
      return { username: user.username, game_token: token }
    },

    /** For a platform with its own login: a session for an existing user. */
    async createSession (input: unknown): Promise<{ session_id: string, cookie_name: string, expires_at: string }> {
      const body = readInput(schemas.createSession, input)
      const user = await users.user(body.username) ?? fail('not_found', 'No such user.')
      const session = await users.createSession(user, sessionTtlS)
      const made = { session_id: session.sessionId, cookie_name: sessionCookie, expires_at: session.expiresAt }
      await audit({ action: 'session.create', game_id: null, target: user.username, before: null, after: made })
      return made
    },

    async deleteSession (sessionId: string, input?: unknown): Promise<Record<string, never>> {
      readInput(schemas.none, input)
      const owner = await users.session(sessionId)
      if (!await users.deleteSession(sessionId)) fail('not_found', 'No such session.')
      await audit({ action: 'session.delete', game_id: null, target: owner?.username ?? null, before: { session_id: sessionId }, after: null })
      return {}
    },

    /**
   * Erases a user everywhere (docs/guide.md#erasure): their sessions and
   * record first (so they make nothing new), then, in every game, their
   * entries on every board, meta, held scores, rating and play time, with
   * the games' sums corrected. Idempotent: a second call counts zeros. The
   * audit entry keeps the counts, not the name.
   */
    async eraseUser (username: string, input?: unknown): Promise<ErasureCounts & { user: number, sessions: number, ratings: number, playtime_seconds: number }> {
      const body = readInput(schemas.eraseUser, input)
      if (!body.erase) fail('invalid_param', 'Parameter "erase" must be true: deleting a user erases them everywhere (entries, ratings, play time, sessions) and cannot be undone.')
      if (!USERNAME_PATTERN.test(username)) fail('invalid_param', 'Parameter "username" is not valid: 1 to 30 characters from A-Z a-z 0-9 _ . -.')
      const account = await users.eraseUser(username)
      const erased = await eraseFromEveryGame(username, true)
      const counts = { user: account.user ? 1 : 0, sessions: account.sessions, games: erased.games, entries: erased.entries, metas: erased.metas, held: erased.held, ratings: erased.ratings, playtime_seconds: erased.playtimeSeconds, achievements: erased.achievements }
      await audit({ action: 'user.erase', game_id: null, target: null, before: null, after: counts })
      return counts
    }
  }
}
