import { boardScopes, entryBucket, keys, reviewKeys } from './keys.js'
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
}

/** What the full submit script checks a game's achievements with (lua/includes/achievements.lua): their thresholds, the player's unlocks, their counts. */
export const achievementKeys = (gameId: string, player: string): string[] => [keys.achievementRules(gameId), keys.achieved(gameId, player), keys.achievementCounts(gameId)]

/**
 * lua/submit.lua's call, positional as includes/submit-board.lua reads it
 * (its header lists each key and argument): the game's keys, the board's,
 * each period's, the run's; then the arguments, each period's, the run.
 * The rate-limit counters are appended by store/limits.ts.
 */
export function fullSubmitCall (game: GameRecord, board: Board, submit: FullSubmit): { keys: string[], args: Array<string | number> } {
  const { player, score, meta, signed, season, at, periods, approve, run } = submit
  const gameId = game.game_id
  const prefix = boardScopes.of(board)
  const scope = prefix + boardScopes.season(season)
  const periodKeys = periods.flatMap(period => {
    const periodScope = prefix + boardScopes.period(period.kind, period.id)
    return [keys.board(gameId, periodScope), keys.entries(gameId, player, periodScope)]
  })
  return {
    keys: [keys.game(gameId), keys.board(gameId, scope), keys.entries(gameId, player, scope), keys.meta(gameId, player, scope),
      keys.hiddenPlayers(gameId), keys.boardHiddenUsers(gameId), keys.usage(gameId, scope),
      keys.seenSubmission(gameId, signed?.sign ?? ''), keys.deletedPlayer(gameId, player), keys.live(gameId), keys.boardsVersion(gameId),
      ...reviewKeys(gameId), keys.reviewSequence(gameId), keys.events(gameId), keys.boards(gameId), ...achievementKeys(gameId, player), ...periodKeys,
      // A submit without a run (every v1 one) sends neither; an approval sends both (its held score may be a run's).
      ...(run === undefined && approve === undefined ? [] : [keys.playerRuns(gameId, player, run?.byKey), keys.entryRun(gameId, player, scope)])],
    // A held score of a season closed since goes to that season: '' tells the script it is not the current one.
    args: [boardChosenBy(board), season === game.season ? String(season) : '', player, String(score), boardScoreOf(score, board.order), meta ?? '', meta === undefined ? '0' : '1',
      game.max_entries, game.max_meta_bytes, signed?.ts ?? '', seenUntil(signed), at,
      periods.length, approve?.id ?? '', approve?.note ?? '', season,
      // The run is always sent ('' for none): the rate-limit counters follow the arguments.
      ...periods.flatMap(period => [period.startsAt, period.resetsAt, periodExpiry(board.rules, period), period.kind, period.id]), run?.id ?? '', run?.key ?? '']
  }
}

/** One board's part of a submit of several (lua/submit-many.lua): the board, its score, its current periods. */
export interface BoardPart { board: Board, score: number, periods: Period[] }

/**
 * lua/submit-many.lua's call, positional as it reads it (its header lists
 * each key and argument): the game's keys, then each board's keys (its
 * season's, each period's); the request's arguments, then each board's
 * (what it was chosen by, the score, its periods). The rate-limit counters
 * are appended by store/limits.ts.
 */
export function manySubmitCall (game: GameRecord, parts: BoardPart[], submit: { player: string, meta: string | undefined, signed: Signed | undefined, at: number | '' }): { keys: string[], args: Array<string | number> } {
  const { player, meta, signed, at } = submit
  const gameId = game.game_id
  return {
    keys: [
      keys.game(gameId), keys.hiddenPlayers(gameId), keys.boardHiddenUsers(gameId), keys.deletedPlayer(gameId, player), keys.live(gameId), keys.boardsVersion(gameId),
      ...reviewKeys(gameId), keys.reviewSequence(gameId), keys.events(gameId), keys.boards(gameId), ...achievementKeys(gameId, player),
      ...parts.flatMap(({ board, periods }) => {
        const prefix = boardScopes.of(board)
        const scope = prefix + boardScopes.season(game.season)
        return [
          keys.board(gameId, scope), keys.entries(gameId, player, scope), keys.meta(gameId, player, scope), keys.usage(gameId, scope), keys.seenSubmission(gameId, signed?.sign ?? '', board.board_id),
          ...periods.flatMap(period => {
            const periodScope = prefix + boardScopes.period(period.kind, period.id)
            return [keys.board(gameId, periodScope), keys.entries(gameId, player, periodScope)]
          })
        ]
      })
    ],
    args: [
      String(game.season), player, meta ?? '', meta === undefined ? '0' : '1', game.max_entries, game.max_meta_bytes,
      signed?.ts ?? '', seenUntil(signed), at, game.season, parts.length,
      ...parts.flatMap(({ board, score, periods }) => [
        boardChosenBy(board), String(score), boardScoreOf(score, board.order), periods.length,
        ...periods.flatMap(period => [period.startsAt, period.resetsAt, periodExpiry(board.rules, period), period.kind, period.id])
      ])
    ]
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
