import type { RedisClient as Redis } from './redis-client.js'
import { fail } from '../http/envelope.js'
import { keys } from './keys.js'
import { TS_TOLERANCE_S } from '../http/params.js'
import { defineLimitedScript, defineScript, luaSource } from './scripts.js'
import type { Limits } from './limits.js'
import { child, metrics } from '../ops/metrics.js'

/*
 * Board order (docs/interface.md#ranking-rule): best score descending, then earlier
 * achievement time (server clock, ms), then player_name by UTF-8 bytes.
 *
 * Why not ZADD GT + ZREVRANK on member = player_name: scores use the whole
 * exact range of a double (±2^53-1), so the time cannot be folded into the
 * score, and ZREVRANK breaks ties by member in *descending* byte order, the
 * opposite of the name rule. So the tie-breakers go into the member and the
 * direction is flipped instead:
 *
 *   score  = -best            (ascending order of -best = descending best)
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

const TIME_DIGITS = 13

/**
 * The stored forms the scripts write, for bulk loading (bench/) outside the
 * scripts: the board member, its score, and the entries-hash value.
 */
export const encode = {
  member: (ms: number, player: string): string => `${String(ms).padStart(TIME_DIGITS, '0')}${player}`,
  boardScore: (best: number): string => String(negate(String(best))),
  entry: (best: number, ms: number): string => `${best}|${String(ms).padStart(TIME_DIGITS, '0')}`
}

/** The board scripts (src/store/lua/, each file says what it returns). */
const SUBMIT = luaSource('submit', { TIME_DIGITS })
const ME = luaSource('me')
const TOP = luaSource('top')
const SET_VISIBILITY = luaSource('set-visibility')
const ENTRY = luaSource('entry')
const DELETE_ENTRY = luaSource('delete-entry')

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
}

/** What bounds the storage of one game (its record's settings, or the defaults). */
export interface GameCaps {
  maxEntries: number
  maxMetaBytes: number
}

/** A signed submit's `ts` and `sign`: what makes a replay recognisable. */
export interface Signed {
  ts: string
  sign: string
}

export interface SubmitResult {
  improved: boolean
  bestScore: number
  /** 1-based; null while the player is hidden. */
  rank: number | null
  totalPlayers: number
}

export interface PlayerStanding {
  bestScore: number | null
  rank: number | null
  totalPlayers: number
}

export interface BoardItem {
  rank: number
  player_name: string
  score: number
  created_at: string
}

/** -0 and 0 are both 0 in JSON, but keep the number plain. */
function negate (text: string): number {
  return 0 - Number(text)
}

/**
 * The ISO time of a stored 13-digit ms, remembered: a top list shows the
 * same entries to every reader, and Date's toISOString was the largest cost
 * of serving one in the profile (bench/RESULTS.md). Forgotten wholesale when
 * full, which is cheap and keeps memory bounded.
 */
const isoTimes = new Map<string, string>()
const ISO_TIMES_MAX = 100_000

function isoFromMs (ms: string): string {
  let iso = isoTimes.get(ms)
  if (iso === undefined) {
    if (isoTimes.size >= ISO_TIMES_MAX) isoTimes.clear()
    iso = new Date(Number(ms)).toISOString()
    isoTimes.set(ms, iso)
  }
  return iso
}

function rankOrNull (zeroBased: number): number | null {
  return zeroBased < 0 ? null : zeroBased + 1
}

export function createLeaderboard (redis: Redis) {
  // The high-traffic actions count their rate limits in the same call (store/limits.ts).
  const submitScript = defineLimitedScript<[string, number?, string?, string?, number?, number?]>(redis, 'rankSubmit', SUBMIT, { writes: true })
  const meScript = defineLimitedScript<[string, string, number, number]>(redis, 'rankMe', ME)
  const topScript = defineLimitedScript<[number, ...string[]]>(redis, 'rankTop', TOP)
  const visibilityScript = defineScript<number>(redis, 'rankSetVisibility', SET_VISIBILITY, { writes: true })
  const entryScript = defineScript<[string, string, string, number, number, number] | []>(redis, 'rankEntry', ENTRY)
  const deleteScript = defineScript<number>(redis, 'rankDeleteEntry', DELETE_ENTRY, { writes: true })
  const entryKeys = (gameId: string, player: string): string[] => [keys.board(gameId), keys.entries(gameId, player), keys.meta(gameId, player), keys.hiddenPlayers(gameId)]

  return {
    /**
     * One atomic script call: replay and deletion checks (signed submits),
     * the game's caps, compare, store, rank, count. A replay answers the
     * current standing with improved false; a refusal is expired_ts or
     * quota_exceeded, and stores nothing. `limits` are counted first, in the
     * same call (rate_limited when over: nothing stored).
     */
    async submit (gameId: string, player: string, score: number, meta: string | undefined, caps: GameCaps, signed?: Signed, limits?: Limits): Promise<SubmitResult> {
      const [outcome, improved, best, , rank, total] = await submitScript(
        [...entryKeys(gameId, player), keys.boardHiddenUsers(gameId), keys.usage(gameId),
          keys.seenSubmission(gameId, signed?.sign ?? ''), keys.deletedPlayer(gameId, player)],
        [player, String(score), String(negate(String(score))), meta ?? '', meta === undefined ? '0' : '1',
          caps.maxEntries, caps.maxMetaBytes, signed?.ts ?? '', signed === undefined ? 0 : (Number(signed.ts) + TS_TOLERANCE_S + 1) * 1000],
        limits
      )
      if (outcome === 'stale') fail('expired_ts', 'This submission was signed before its entry was deleted; sign a new one.')
      if (outcome === 'full_entries') fail('quota_exceeded', `This game's board is full (max_entries ${caps.maxEntries}); an operator can raise it.`)
      if (outcome === 'full_meta') fail('quota_exceeded', `This game's meta storage is full (max_meta_bytes ${caps.maxMetaBytes}); submit without meta, or ask an operator to raise it.`)
      child(metrics.submits, signed === undefined ? 'session' : 'api_key', outcome === 'replay' ? 'replay' : improved === 1 ? 'improved' : 'unchanged').inc()
      return { improved: improved === 1, bestScore: Number(best), rank: rankOrNull(rank ?? -1), totalPlayers: total ?? 0 }
    },

    async standing (gameId: string, player: string, limits?: Limits): Promise<PlayerStanding> {
      const [best, , rank, total] = await meScript([keys.board(gameId), keys.entries(gameId, player)], [player], limits)
      return { bestScore: best === '' ? null : Number(best), rank: rankOrNull(rank), totalPlayers: total }
    },

    async top (gameId: string, offset: number, limit: number, limits?: Limits): Promise<{ total: number, items: BoardItem[] }> {
      const [total, ...page] = await topScript([keys.board(gameId)], [offset, offset + limit - 1], limits)
      const items: BoardItem[] = []
      for (let i = 0; i < page.length; i += 2) {
        const member = page[i] as string
        items.push({
          rank: offset + i / 2 + 1,
          player_name: member.slice(TIME_DIGITS),
          score: negate(page[i + 1] as string),
          created_at: isoFromMs(member.slice(0, TIME_DIGITS))
        })
      }
      return { total, items }
    },

    /**
     * Sets the board's own hidden flag of a player and/or the board's copy of
     * the user's flag (undefined keeps either), then puts the entry on or off
     * the board. Returns false when the player has no entry on this board.
     */
    async setVisibility (gameId: string, player: string, flags: { boardHidden?: boolean, userHidden?: boolean }): Promise<boolean> {
      const flag = (value: boolean | undefined): string => value === undefined ? '' : value ? '1' : '0'
      return await visibilityScript(
        [keys.board(gameId), keys.entries(gameId, player), keys.hiddenPlayers(gameId), keys.boardHiddenUsers(gameId)],
        [player, flag(flags.boardHidden), flag(flags.userHidden)]
      ) === 1
    },

    async entry (gameId: string, player: string): Promise<BoardEntry | null> {
      const reply = await entryScript(entryKeys(gameId, player), [player])
      if (reply.length === 0) return null
      const [best, ms, meta, boardHidden, rank, hasMeta] = reply
      return {
        player_name: player,
        best_score: Number(best),
        created_at: isoFromMs(ms),
        meta: hasMeta === 1 ? meta : null,
        hidden: boardHidden === 1,
        rank: rankOrNull(rank)
      }
    },

    async deleteEntry (gameId: string, player: string): Promise<boolean> {
      // Remembered as long as a submit signed before the deletion could still arrive.
      return await deleteScript([...entryKeys(gameId, player), keys.usage(gameId), keys.deletedPlayer(gameId, player)], [player, 2 * TS_TOLERANCE_S + 1]) === 1
    }
  }
}

export type Leaderboard = ReturnType<typeof createLeaderboard>
