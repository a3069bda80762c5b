import { TIME_DIGITS } from './keys.js'
import type { BoardOrder } from '../rules/games.js'
import type { PeriodKind } from '../rules/periods.js'
import type { BoardRef } from './board-choice.js'
// The answers' shapes are the SDK's: one definition for the service, its clients and the console.
import type { BoardItem, PeriodStanding } from '../../sdk/answers.js'

/*
 * Board order (docs/interface.md#ranking-rule): best score descending (or
 * ascending, for a game whose `order` is asc), then earlier
 * achievement time (server clock, ms), then player_name by UTF-8 bytes.
 *
 * Why not ZADD GT + ZREVRANK on member = player_name: scores use the whole
 * exact range of a double (±2^53-1), so the time cannot be folded into the
 * score, and ZREVRANK breaks ties by member in *descending* byte order, the
 * opposite of the name rule. So the tie-breakers go into the member and the
 * direction is flipped instead:
 *
 *   score  = -best            (ascending order of -best = descending best;
 *                              a game in asc order stores best itself)
 *   member = 13-digit ms time ++ player_name
 *
 * ZRANK/ZRANGE (ascending, ties by member bytes ascending) then give exactly
 * the board order, and ranks are unique. Because the member changes when the
 * best improves, "best only" is a compare-and-swap in the script (the ZADD GT
 * idea, written out), kept atomic with the entry hash.
 *
 * The entries hash keeps every stored best ("best|ms"), hidden or not; the
 * board holds only the visible ones, so hidden players are not counted and
 * push nobody down. A player is hidden when named in the board's own hidden
 * set or in the board's copy of the hidden users; both live in the game's
 * slot, so every script decides visibility atomically.
 */

/**
 * The stored forms the scripts write, for bulk loading (bench/) outside the
 * scripts: the board member, its score, and the entries-hash value.
 */
export const encode = {
  member: (ms: number, player: string): string => `${String(ms).padStart(TIME_DIGITS, '0')}${player}`,
  boardScore: (best: number, order: BoardOrder = 'desc'): string => boardScoreOf(best, order),
  entry: (best: number, ms: number): string => `${best}|${String(ms).padStart(TIME_DIGITS, '0')}`
}

/** A board entry as operators see it (docs/interface.md#operator-api). */
export interface BoardEntry {
  player_name: string
  best_score: number
  created_at: string
  meta: string | null
  /** The entry's own (per-board) flag. */
  hidden: boolean
  /** null when the entry or its user is hidden. */
  rank: number | null
  /** The season of the all-time board the entry is in: the current one, or the newest closed one that holds it. */
  season_id: number
  /** A named board's entry names its board (docs/decisions/0070-named-boards-one-game-many-boards-in-its.md); the game's own board's has none. */
  board?: string
}

/** An entry in an operator's listing of a board: hidden ones too, marked, with their meta. */
export interface ListedEntry {
  /** null while hidden. */
  rank: number | null
  player_name: string
  best_score: number
  created_at: string
  /** The meta sent with the best (seasons only: period boards keep none). */
  meta: string | null
  /** Hidden on this game's boards. */
  hidden: boolean
  /** Hidden as a user, on every game's boards. */
  hidden_user: boolean
  /** For a best that came from a run (docs/interface.md#runs), the run's verified play then; read while the game keeps runs. */
  run_verified_seconds: number | null
}

/**
 * Where a listing in board order goes on: the next visible rank (0-based)
 * and the last visible member listed, which is where it goes on while that
 * entry is still there; the board score and member of the last entry
 * listed, visible or hidden.
 */
export interface ListPlace {
  visibleFrom: number
  lastVisible: string
  lastScore: string
  lastMember: string
}

/** Where a search by name goes on: the entries bucket, and the last name listed from it. */
export interface SearchPlace {
  bucket: number
  after: string
}

/** Board order of two stored entries: board score, then member bytes. */
export function compareStored (aScore: string, aMember: string, bScore: string, bMember: string): number {
  const difference = Number(aScore) - Number(bScore)
  return difference !== 0 ? Math.sign(difference) : Buffer.compare(Buffer.from(aMember, 'utf8'), Buffer.from(bMember, 'utf8'))
}

/** An entry to import: a player's best elsewhere, and when it was achieved (ms). */
export interface ImportedEntry {
  player: string
  score: number
  ms: number
  meta: string | undefined
}

/** What became of an imported entry: a new player, a better best, nothing (not better), or refused by a cap. */
export type ImportOutcome = 'new' | 'improved' | 'unchanged' | 'full_entries' | 'full_meta'

/** What an erasure removed from one game. */
export interface ErasedFromGame {
  /** Board entries (one per season or period board that held one). */
  entries: number
  metas: number
  /** Held scores, pending or decided. */
  held: number
  /** 1 when the user had rated the game. */
  ratings: number
  playtimeSeconds: number
  /** Achievements the person had unlocked (docs/decisions/0071-achievements-settings-in-the-games-slot-unlocks-in.md). */
  achievements: number
}

/** A signed submit's `ts` and `sign`: what makes a replay recognisable. */
export interface Signed {
  ts: string
  sign: string
}

export interface SubmitResult {
  improved: boolean
  /** null only when a held score was the player's first. */
  bestScore: number | null
  /** 1-based; null while the player is hidden. */
  rank: number | null
  totalPlayers: number
  /** Each current period board of a game that keeps periods. */
  periods: Partial<Record<PeriodKind, PeriodStanding>>
  /** Held for review (fair play): on no board; the standing above is unchanged. */
  held: boolean
  /** The achievements this submit unlocked (docs/decisions/0071-achievements-settings-in-the-games-slot-unlocks-in.md), when it unlocked any. */
  unlocked?: string[]
}

export interface PlayerStanding {
  bestScore: number | null
  rank: number | null
  totalPlayers: number
  board: BoardRef
}

/** A player and the entries around them. */
export interface Neighbourhood {
  player: { player_name: string, best_score: number | null, rank: number | null, top_percent: number | null }
  total: number
  items: BoardItem[]
  board: BoardRef
}

/** -0 and 0 are both 0 in JSON, but keep the number plain. */
export function negate (text: string): number {
  return 0 - Number(text)
}

export function boardScoreOf (best: number, order: BoardOrder): string {
  return order === 'asc' ? String(best) : String(negate(String(best)))
}

/** A score as stored on a board, read back. */
export function scoreOf (boardScore: string, order: BoardOrder): number {
  return order === 'asc' ? Number(boardScore) : negate(boardScore)
}

/** A rank as a percentage of the board, 2 decimals: rank 1 of 200 is the top 0.5%. */
export function topPercent (rank: number | null, total: number): number | null {
  return rank === null || total === 0 ? null : Math.round(rank / total * 10_000) / 100
}

/**
 * The ISO time of a stored 13-digit ms, remembered: a top list shows the
 * same entries to every reader, and toISOString is costly
 * (docs/decisions/0062-hot-path-choices-measured.md). Forgotten wholesale when
 * full, which is cheap and keeps memory bounded.
 */
const isoTimes = new Map<string, string>()
const ISO_TIMES_MAX = 100_000

export function isoFromMs (ms: string): string {
  let iso = isoTimes.get(ms)
  if (iso === undefined) {
    if (isoTimes.size >= ISO_TIMES_MAX) isoTimes.clear()
    iso = new Date(Number(ms)).toISOString()
    isoTimes.set(ms, iso)
  }
  return iso
}

export function rankOrNull (zeroBased: number): number | null {
  return zeroBased < 0 ? null : zeroBased + 1
}
