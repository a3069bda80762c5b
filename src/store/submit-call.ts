import { boardScopes, entryBucket, keys } from './keys.js'
import { periodExpiry } from './board-choice.js'
import { boardChosenBy } from './named-boards.js'
import type { Board } from '../rules/boards.js'
import { TS_TOLERANCE_S } from '../rules/fields.js'
import { boardScoreOf, type Signed } from './board-format.js'
import type { GameRecord } from '../rules/games.js'
import { fail } from '../errors.js'
import { invalidRun } from './runs.js'
import { rankOrNull, type SubmitResult } from './board-format.js'
import type { Period, PeriodKind } from '../rules/periods.js'
import type { PeriodStanding } from '../../sdk/answers.js'
import { MAX_TOTAL, REVIEW_QUEUE_MAX } from './board-context.js'
import type { PackedCounter } from './limits.js'

/**
 * The calls of the submit scripts, each built in one place: which keys
 * route it and what it carries, by name. A packed call is one JSON
 * argument (cjson in the script, as BullMQ packs its calls), so a submit
 * costs Redis two values on the wire instead of one per key and argument,
 * and the script names the game's other keys itself from the game id
 * (lua/includes: KEY, made from keys.ts).
 */

/** When a signed submit's replay marker may go (ms): once its ts has left the window. */
export function seenUntil (signed: Signed | undefined): number {
  return signed === undefined ? 0 : (Number(signed.ts) + TS_TOLERANCE_S + 1) * 1000
}

/** Any text as Redis would have stored it (a lone surrogate is U+FFFD in UTF-8 too), before JSON carries it. */
const asStored = (text: string | undefined): string | undefined => text === undefined ? undefined : Buffer.from(text, 'utf8').toString('utf8')

/**
 * The fields of a submit that every board of it shares, as the submit
 * scripts read them: the game, the player and their entries bucket, meta,
 * the caps, the signature. A call spreads them last: V8 builds an object
 * literal that spreads first and adds properties after it ten times slower
 * (about 17 µs against 1.7 µs a call here, JSON.stringify included), which
 * a CPU profile of the submit showed.
 */
function requestPart (game: GameRecord, player: string, meta: string | undefined, signed: Signed | undefined): Record<string, unknown> {
  return {
    game: game.game_id,
    player,
    bucket: entryBucket(player),
    meta: asStored(meta),
    max_entries: game.max_entries,
    max_meta_bytes: game.max_meta_bytes,
    ts: signed?.ts ?? '',
    sign: signed?.sign.slice(0, 32) ?? '',
    seen_until: seenUntil(signed)
  }
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
  /** Game Jolt's text fields sent with the score, kept beside the best they came with. */
  text?: GamejoltText
}

/** lua/submit-plain.lua's call: the game's record routes it; every field it reads is named here. */
export function plainSubmitCall (game: GameRecord, submit: PlainSubmit, counters: PackedCounter[]): { keys: string[], args: string[] } {
  const { player, score, meta, signed, at, total, text } = submit
  return {
    keys: [keys.game(game.game_id)],
    args: [JSON.stringify({
      // What moved() checks the record against: the order chosen by, and the current season.
      order: game.order,
      season: String(game.season),
      keys_season: game.season,
      scope: boardScopes.season(game.season),
      score: String(score),
      board_score: boardScoreOf(score, game.order),
      at,
      total,
      text: textPart(text),
      limits: counters,
      ...requestPart(game, player, meta, signed),
    })]
  }
}

/**
 * The run a score comes from: `byKey` for API-key mode (a run started with
 * a key), and `key` the API key it must have been started with (submit-run),
 * none for any of the game's keys.
 */
export interface ScoreRun { id: string, byKey: boolean, key?: string }

/** A score for one board by lua/submit.lua (includes/submit-board.lua): a submit with all a game may use, or the approval of a held score. */
export interface FullSubmit {
  player: string
  score: number
  meta: string | undefined
  signed: Signed | undefined
  /** The season whose keys take the score (a held score's may have closed since). */
  season: number
  /** The instant to store at (ms); '' for the Redis clock. */
  at: number | ''
  /** The board's current periods at `at`. */
  periods: Period[]
  /** A held score to approve: its id and the decision's note. */
  approve?: { id: string, note: string }
  run?: ScoreRun
  /** Game Jolt's text fields sent with the score (docs/gamejolt.md#scores), kept beside the best they came with. */
  text?: GamejoltText
}

/** A Game Jolt score's text fields: its display text and its extra data. */
export interface GamejoltText { score: string, extra_data: string }
/** The text fields as both submit scripts store them: one JSON text, after the best's time and value. */
function textPart (text: GamejoltText | undefined): string | undefined {
  return text === undefined ? undefined : JSON.stringify({ score: asStored(text.score), extra_data: asStored(text.extra_data) })
}

/** A period as includes/submit-board.lua reads it: its bounds (ms), when its keys expire (ms), its kind and id, its keys' scope. */
function periodPart (board: Board, period: Period): { start: number, reset: number, expires: number, kind: PeriodKind, id: string, scope: string } {
  return {
    start: period.startsAt,
    reset: period.resetsAt,
    expires: periodExpiry(board.rules, period),
    kind: period.kind,
    id: period.id,
    scope: boardScopes.of(board) + boardScopes.period(period.kind, period.id)
  }
}

/**
 * lua/submit.lua's call (includes/submit-board.lua reads it): the game's
 * record routes it, and one JSON argument names every field; the script
 * names the keys from the game id and the scopes.
 */
export function fullSubmitCall (game: GameRecord, board: Board, submit: FullSubmit, counters: PackedCounter[]): { keys: string[], args: string[] } {
  const { player, score, meta, signed, season, at, periods, approve, run, text } = submit
  return {
    keys: [keys.game(game.game_id)],
    args: [JSON.stringify({
      chosen: boardChosenBy(board),
      // A held score of a season closed since goes to that season: '' tells the script it is not the current one.
      season: season === game.season ? String(season) : '',
      keys_season: season,
      scope: boardScopes.of(board) + boardScopes.season(season),
      score: String(score),
      board_score: boardScoreOf(score, board.order),
      at,
      periods: periods.map(period => periodPart(board, period)),
      approve: approve === undefined ? undefined : { id: approve.id, note: asStored(approve.note) },
      run: run === undefined ? undefined : { id: run.id, key: run.key ?? '', by_key: run.byKey },
      text: textPart(text),
      limits: counters,
      ...requestPart(game, player, meta, signed),
    })]
  }
}

/** One board's part of a submit of several (lua/submit-many.lua): the board, its score, its current periods. */
export interface BoardPart { board: Board, score: number, periods: Period[] }

/**
 * lua/submit-many.lua's call: the game's record routes it, and one JSON
 * argument names the request's fields once and each board's (what it was
 * chosen by, its score, its keys' scope, its replay marker's board, its
 * periods).
 */
export function manySubmitCall (game: GameRecord, parts: BoardPart[], submit: { player: string, meta: string | undefined, signed: Signed | undefined, at: number | '' }, counters: PackedCounter[]): { keys: string[], args: string[] } {
  const { player, meta, signed, at } = submit
  return {
    keys: [keys.game(game.game_id)],
    args: [JSON.stringify({
      season: String(game.season),
      keys_season: game.season,
      at,
      boards: parts.map(({ board, score, periods }) => ({
        chosen: boardChosenBy(board),
        score: String(score),
        board_score: boardScoreOf(score, board.order),
        scope: boardScopes.of(board) + boardScopes.season(game.season),
        seen_board: board.board_id,
        periods: periods.map(period => periodPart(board, period))
      })),
      limits: counters,
      ...requestPart(game, player, meta, signed),
    })]
  }
}

/** What the submit script answered for one board: the standing (on it and its `periods`), or the refusal as an ApiError. */
export function submitResultOf (game: GameRecord, reply: Array<string | number>, periods: Period[]): SubmitResult {
  const [answered, improved, best, , rank, total] = reply
  // A replay of a held submit is answered as held, and counted as a replay.
  const outcome = answered === 'held-again' ? 'held' : answered
  if (outcome === 'stale') fail('expired_ts', 'This submission was signed before its entry was deleted (or accepted before it); sign a new one.')
  if (outcome === 'closed') fail('expired_ts', 'This submission was accepted in a season that has closed since; sign a new one to play in the new season.')
  if (outcome === 'archived') fail('invalid_param', 'Parameter "board" is not valid: that board is archived; it takes no new scores.')
  if (outcome === 'overflow') fail('invalid_score', `The board's total would pass ${MAX_TOTAL}: nothing was stored.`)
  if (outcome === 'full_entries') fail('quota_exceeded', `This game's board is full (max_entries ${game.max_entries}); an operator can raise it.`)
  if (outcome === 'full_meta') fail('quota_exceeded', `This game's meta storage is full (max_meta_bytes ${game.max_meta_bytes}); submit without meta, or ask an operator to raise it.`)
  if (outcome === 'full_review') fail('quota_exceeded', `This game holds ${REVIEW_QUEUE_MAX} scores for review already; an operator must decide some first.`)
  if (outcome === 'run_required') fail('run_required', 'This game takes a score only with the run_id of the run that earned it (action=run-start).')
  if (outcome === 'invalid_run') invalidRun(String(improved))
  if (outcome === 'implausible') {
    fail('implausible_score', improved === 'run_short'
      ? `The run has ${String(best)} s of verified play; this game needs ${game.min_run_seconds} s before a score counts. Nothing was stored.`
      : `The score is more than ${String(best)} s of verified play allow at this game's ${game.max_score_rate ?? 0} per second. Nothing was stored.`)
  }
  if (outcome === 'decided') fail('not_found', String(improved) === 'unknown' ? 'No such held score.' : `That held score is no longer pending: it was ${String(improved)}.`)
  const standings: Partial<Record<PeriodKind, PeriodStanding>> = {}
  periods.forEach((period, i) => {
    const [periodImproved, periodBest, periodRank] = reply.slice(6 + 3 * i, 9 + 3 * i)
    standings[period.kind] = { best_score: periodBest === '' ? null : Number(periodBest), rank: rankOrNull(periodRank as number), improved: periodImproved === 1 }
  })
  // A game with achievements answers the ones this submit unlocked after the periods.
  const unlocked = reply[6 + 3 * periods.length] as unknown as string[] | undefined
  return { improved: improved === 1, bestScore: best === '' ? null : Number(best), rank: rankOrNull(rank as number ?? -1), totalPlayers: total as number ?? 0, periods: standings, held: outcome === 'held', ...(unlocked === undefined || unlocked.length === 0 ? {} : { unlocked }) }
}
