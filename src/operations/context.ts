import { type Static } from '@sinclair/typebox'
import { fail } from '../errors.js'
import type { Leaderboard } from '../store/leaderboard.js'
import type { ErasedFromGame } from '../store/board-format.js'
import { gameInTheMaking, type RecordStore } from '../store/games-and-keys.js'
import { type GameRecord, type KeyRecord } from '../rules/games.js'
import { type UserStore } from '../store/users.js'
import { type Actor, type AuditEntry, type AuditLog } from '../store/audit.js'
import { decodeCursor, encodeCursor } from '../lib/cursor.js'
import { type Activity } from '../store/activity.js'
import type { Ratings } from '../store/ratings.js'
import type { Playtime } from '../store/playtime.js'
import type { HeldScore, ReviewQueue } from '../store/review.js'
import { type StoredWebhook, type WebhookStore } from '../store/webhooks.js'
import { type Events } from '../store/events.js'
import { type BoardStore } from '../store/named-boards.js'
import { type AchievementStore } from '../store/achievements.js'
import { type GamejoltStore } from '../store/gamejolt.js'
import { DEFAULT_BOARD, NO_BOARDS } from '../rules/boards.js'
import { gamejoltIdOf } from '../rules/gamejolt-ids.js'
import { Auditor, ListPage, PublicKey, WEBHOOK_ID_PATTERN, publicKey } from './answers.js'
import { BoardQuery, cursors, schemas } from './input.js'

export interface AdminDeps {
  records: RecordStore
  /** The games' named boards (docs/decisions/0070-named-boards-one-game-many-boards-in-its.md). */
  namedBoards: BoardStore
  /** The games' achievements (docs/decisions/0071-achievements-settings-in-the-games-slot-unlocks-in.md). */
  achievements: AchievementStore
  review: ReviewQueue
  webhooks: WebhookStore
  events: Events
  /** WEBHOOK_ALLOW_PRIVATE: receivers on loopback and private addresses are allowed. */
  webhookAllowPrivate: boolean
  users: UserStore
  leaderboard: Leaderboard
  sessionTtlS: number
  /** GUEST_TTL_S: how long a guest lasts. */
  guestTtlS: number
  sessionCookie: string
  audit: AuditLog
  ratings: Ratings
  playtime: Playtime
  activity: Activity
  /** The games' Game Jolt API settings (docs/gamejolt.md). */
  gamejolt: GamejoltStore
}

/** How many board scripts run at once while a user's hidden flag is applied to every game. */
const BOARD_BATCH = 200

/**
 * What every operation works with: the stores, the actor's audit, and the
 * helpers that several resources share. One per actor (createAdmin().as).
 */
export function operationContext ({ records, namedBoards, achievements, review, webhooks, events, webhookAllowPrivate, users, leaderboard, sessionTtlS, guestTtlS, sessionCookie, audit: auditLog, ratings, playtime, activity, gamejolt }: AdminDeps, actor: Actor) {
  const audit: Auditor = async (change, unmasked) => { await auditLog.record(actor, change, unmasked) }

  /**
   * A user's flag applies to every board: each board keeps its own copy of
   * the hidden users (one small script per game), so submits decide
   * visibility atomically in the game's slot. Games made later copy the
   * global set when they are created.
   */
  async function applyUserHidden (username: string, hidden: boolean): Promise<void> {
    await users.setHiddenUser(username, hidden)
    await forEveryGame(async game => { await leaderboard.setVisibility(game, username, { userHidden: hidden }) })
  }

  /**
   * Runs `step` on every game, BOARD_BATCH at once, each game read afresh; a
   * game whose record is still being made is taken as it will be (its keys
   * exist: its copy of the hidden users). Returns what each step returned.
   */
  async function forEveryGame<T> (step: (game: GameRecord) => Promise<T>): Promise<T[]> {
    const games = await records.gameIds()
    const results: T[] = []
    for (let i = 0; i < games.length; i += BOARD_BATCH) {
      results.push(...await Promise.all(games.slice(i, i + BOARD_BATCH).map(async gameId => await step(await records.game(gameId, { fresh: true }) ?? gameInTheMaking(gameId)))))
    }
    return results
  }

  /**
   * Refuses a Game Jolt table or trophy id that another of the game's
   * boards or achievements answers to (docs/gamejolt.md#ids): builds name
   * them by these ids, so one id names one record. `except` is the record
   * being changed (`default`: the game's own board).
   */
  async function checkGamejoltIdFree (game: GameRecord, kind: 'table' | 'trophy', id: number, except: string): Promise<void> {
    const taken = kind === 'trophy'
      ? [...(await achievements.achievements(game.game_id, { fresh: true })).values()].filter(one => one.achievement_id !== except).map(one => one.gamejolt_id)
      : [...[...(await namedBoards.boards(game.game_id, { fresh: true })).values()].filter(one => one.board_id !== except).map(one => one.gamejolt_id),
          ...(except === DEFAULT_BOARD ? [] : [(await gamejolt.ofGame(game.game_id))?.primary_table_id ?? gamejoltIdOf(DEFAULT_BOARD)])]
    if (taken.includes(id)) fail('invalid_param', `Parameter "gamejolt_id" is not valid: another ${kind === 'trophy' ? 'achievement' : 'board'} of this game answers to ${id}.`)
  }

  function notPending (status: string): never {
    fail('not_found', status === 'unknown' ? 'No such held score.' : `That held score is no longer pending: it was ${status}.`)
  }

  async function pendingHeld (gameId: string, heldId: string): Promise<HeldScore> {
    const held = await review.held(gameId, heldId)
    if (held === null) notPending('unknown')
    if (held.status !== 'pending') notPending(held.status)
    return held
  }

  async function existingWebhook (gameId: string, webhookId: string): Promise<StoredWebhook> {
    return (WEBHOOK_ID_PATTERN.test(webhookId) ? await webhooks.get(gameId, webhookId) : null) ?? fail('not_found', 'No such webhook for this game.')
  }

  /**
   * Erases a person from every game: one script per game (in its slot),
   * BOARD_BATCH games at once. Returns the sums, and how many games held
   * something of theirs.
   */
  async function eraseFromEveryGame (player: string, user: boolean): Promise<ErasedFromGame & { games: number }> {
    const total = { entries: 0, metas: 0, held: 0, ratings: 0, playtimeSeconds: 0, achievements: 0, games: 0 }
    // A user's Game Jolt data store items and session go too (docs/gamejolt.md#data-store).
    for (const one of await forEveryGame(async game => {
      const erased = await leaderboard.erasePlayer(game, player, { user })
      if (user) await gamejolt.eraseOwner(game.game_id, player)
      return erased
    })) {
      total.entries += one.entries
      total.metas += one.metas
      total.held += one.held
      total.ratings += one.ratings
      total.playtimeSeconds += one.playtimeSeconds
      total.achievements += one.achievements
      if (one.entries + one.held + one.ratings + one.playtimeSeconds + one.achievements > 0) total.games++
    }
    return total
  }

  /** A page of the audit log (a game's, or with null everyone's) from a query already checked. */
  async function auditPage (gameId: string | null, query: Static<typeof schemas.gameAudit>): Promise<ListPage<AuditEntry>> {
    const from = query.cursor === undefined ? null : decodeCursor(cursors.audit, query.cursor).id
    const { items, next } = await auditLog.list(gameId, from, query.limit ?? 50, { action: query.action, actor: query.actor })
    return { items, next_cursor: next === null ? null : encodeCursor({ k: 'audit', id: next }) }
  }

  /** A key's change, recorded with the key before and after; not_found for no such key. */
  async function changeKey (action: string, apiKey: string, changes: Partial<Pick<KeyRecord, 'revoked' | 'rate_limit'>>, audit: Auditor): Promise<PublicKey> {
    const before = await records.key(apiKey) ?? fail('not_found', 'No such API key.')
    const key = await records.updateKey(apiKey, changes) ?? fail('not_found', 'No such API key.')
    await audit({ action, game_id: key.game_id, target: apiKey, before: publicKey(before), after: publicKey(key) })
    return publicKey(key)
  }

  /** The board a listing's query names (BoardQuery), or invalid_param. */
  /** The board an operator's request names (a named board read afresh: unknown is invalid_param), as a public read chooses it. */
  async function chooseBoard (game: GameRecord, query: { board?: string, period?: Static<typeof BoardQuery.period>, period_id?: string, season_id?: number }): Promise<ReturnType<Leaderboard['choose']>> {
    const board = query.board === DEFAULT_BOARD ? undefined : query.board
    const boards = board === undefined ? NO_BOARDS : await namedBoards.boards(game.game_id, { fresh: true })
    return leaderboard.choose(game, { board, period: query.period, periodId: query.period_id, seasonId: query.season_id }, boards)
  }

  /** The game read afresh: an operator's change must start from the stored record, not a cached one. */
  async function existingGame (gameId: string): Promise<GameRecord> {
    return await records.game(gameId, { fresh: true }) ?? fail('not_found', 'No such game.')
  }

  return { records, namedBoards, achievements, review, webhooks, events, webhookAllowPrivate, users, leaderboard, sessionTtlS, guestTtlS, sessionCookie, auditLog, ratings, playtime, activity, gamejolt, audit, applyUserHidden, forEveryGame, notPending, pendingHeld, existingWebhook, eraseFromEveryGame, checkGamejoltIdFree, auditPage, changeKey, chooseBoard, existingGame }
}

export type OperationContext = ReturnType<typeof operationContext>
