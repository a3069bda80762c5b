import { boardScopes, entryBucket, keys } from './keys.js'
import { TS_TOLERANCE_S } from '../rules/fields.js'
import { boardScoreOf, type Signed } from './board-format.js'
import type { GameRecord } from '../rules/games.js'

/**
 * The calls of the submit scripts, each built in one place: which keys
 * route it and what it carries, by name. A packed call is one JSON
 * argument (cjson in the script, as BullMQ packs its calls), so a submit
 * costs Redis two values on the wire instead of one per key and argument,
 * and the script names the game's other keys itself from the game id
 * (lua/includes: KEY, made from keys.ts).
 */

/** A counter as lua/includes/limits.lua's countLimits takes it: key, max, window (ms), whether its end is known. */
export type PackedCounter = [string, number, number, boolean]

/** When a signed submit's replay marker may go (ms): once its ts has left the window. */
export function seenUntil (signed: Signed | undefined): number {
  return signed === undefined ? 0 : (Number(signed.ts) + TS_TOLERANCE_S + 1) * 1000
}

/** A score for the game's own board by lua/submit-plain.lua. */
export interface PlainSubmit {
  player: string
  score: number
  meta: string | undefined
  signed: Signed | undefined
  /** The instant to store at (ms); none for the Redis clock. */
  at: number | undefined
  /** Whether the answer carries the board's visible total (submit-self answers it; submit does not). */
  total: boolean
}

/** lua/submit-plain.lua's call: the game's record routes it; every field it reads is named here. */
export function plainSubmitCall (game: GameRecord, submit: PlainSubmit, counters: PackedCounter[]): { keys: string[], args: string[] } {
  const { player, score, meta, signed, at, total } = submit
  return {
    keys: [keys.game(game.game_id)],
    args: [JSON.stringify({
      game: game.game_id,
      // What moved() checks the record against: the order chosen by, and the current season.
      order: game.order,
      season: String(game.season),
      keys_season: game.season,
      scope: boardScopes.season(game.season),
      player,
      bucket: entryBucket(player),
      score: String(score),
      board_score: boardScoreOf(score, game.order),
      // Any text, as Redis would have stored it (a lone surrogate is U+FFFD in UTF-8 too).
      meta: meta === undefined ? undefined : Buffer.from(meta, 'utf8').toString('utf8'),
      max_entries: game.max_entries,
      max_meta_bytes: game.max_meta_bytes,
      ts: signed?.ts ?? '',
      sign: signed?.sign.slice(0, 32) ?? '',
      seen_until: seenUntil(signed),
      at,
      total,
      limits: counters
    })]
  }
}
