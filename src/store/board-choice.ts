import { fail } from '../errors.js'
import { boardScopes } from './keys.js'
import { PERIOD_KINDS, keptPeriods, periodAt, periodOfId, type Period, type PeriodKind } from '../rules/periods.js'
import type { BoardChoice } from '../rules/fields.js'
import type { GameRecord } from '../rules/games.js'
import { boardOf, noSuchBoard, type NamedBoard } from '../rules/boards.js'

/*
 * A game's boards (docs/guide.md, seasons and periods): the all-time board,
 * whose current season is what v1 reads and writes, its closed seasons, and
 * a board for each calendar period of each kind the game keeps. Each is the
 * same structure under its own key scope (keys.ts, boardScopes), in the
 * game's slot. This module decides which board a request means, from the
 * game's settings and an instant; the scripts check the settings they were
 * chosen by (`order`, `season`) and answer "moved" when those changed since.
 */

/**
 * A request's board: what it asked for, and the board that means for the
 * game record the request was checked against (a script that finds the
 * record moved on has the choice made again from the fresh one).
 */
export interface ChosenBoard {
  choice: BoardChoice
  board: BoardRef
}

/** One board of a game, resolved. */
export interface BoardRef {
  /** The key scope of its keys (keys.ts). */
  scope: string
  /** The season its script checks is still the current one; '' checks none (a period, a closed season). */
  season: string
  /** A calendar period's board: which one. */
  period?: Period
  /** A season read by its id: which one. */
  seasonId?: number
  /** A named board's (docs/decisions/0070-named-boards-one-game-many-boards-in-its.md): its settings when chosen. */
  named?: NamedBoard
}

/** The current season of the all-time board: v1's board. */
function currentSeason (game: GameRecord): BoardRef {
  return { scope: boardScopes.season(game.season), season: String(game.season) }
}

const ID_KINDS: Array<[RegExp, PeriodKind]> = [[/^\d{4}-\d{2}-\d{2}$/, 'daily'], [/^\d{4}-W\d{2}$/, 'weekly'], [/^\d{4}-\d{2}$/, 'monthly']]

function periodBoard (period: Period): BoardRef {
  return { scope: boardScopes.period(period.kind, period.id), season: '', period }
}

function keptKind (game: GameRecord, kind: PeriodKind, owner: string): void {
  if (!game.periods.includes(kind)) {
    const kept = game.periods.length === 0 ? 'none' : game.periods.join(', ')
    fail('invalid_param', `Parameter "period" is not valid: ${owner} keeps no ${kind} board (its periods: ${kept}).`)
  }
}

/** The game as a board's rules read it (Board.rules). */
export function boardView (game: GameRecord, board: BoardRef): GameRecord {
  return boardOf(game, board.named).rules
}

/**
 * The board a request means, at `now` (ms), of the game's own board or, for
 * a choice that names one, of the named board `named` (the caller's lookup:
 * undefined when the game has no such board, which is invalid_param): its
 * keys under the board's scope, chosen by its own settings (periods).
 */
export function chooseAnyBoard (game: GameRecord, choice: BoardChoice, now: number, named: NamedBoard | undefined): BoardRef {
  if (choice.board === undefined) return chooseBoard(game, choice, now)
  if (named === undefined || named.board_id !== choice.board) throw noSuchBoard(choice.board)
  const board = chooseBoard(boardOf(game, named).rules, choice, now, `board "${named.board_id}"`)
  return { ...board, scope: boardScopes.named(named.board_id) + board.scope, named }
}

/**
 * The board a request means on the game's own board, at `now` (ms). Without a choice: the current
 * season. Anything a request cannot read is invalid_param, naming the
 * parameter: a kind the game does not keep, a period id that is malformed,
 * not kept any more or not begun, a season that does not exist.
 */
export function chooseBoard (game: GameRecord, choice: BoardChoice, now: number, owner = 'this game'): BoardRef {
  const { periodId, seasonId } = choice
  const period = choice.period ?? 'all'
  if (seasonId !== undefined) {
    if (period !== 'all' || periodId !== undefined) fail('invalid_param', 'Parameter "season_id" reads the all-time board: it does not go with a period or "period_id".')
    if (seasonId > game.season) fail('invalid_param', `Parameter "season_id" is not valid: this game's seasons are 1 to ${game.season}.`)
    return { scope: boardScopes.season(seasonId), season: seasonId === game.season ? String(game.season) : '', seasonId }
  }
  if (periodId !== undefined) {
    const kind = ID_KINDS.find(([form]) => form.test(periodId))?.[1]
    if (kind === undefined) fail('invalid_param', 'Parameter "period_id" is not valid: a day (2026-11-23), an ISO week (2026-W48) or a month (2026-11).')
    if (choice.period !== undefined && choice.period !== kind) fail('invalid_param', `Parameter "period_id" names a ${kind} period, not ${period === 'all' ? 'the all-time board' : `a ${period} one`}.`)
    keptKind(game, kind, owner)
    const named = periodOfId(kind, periodId, game.timezone)
    if (named === undefined) fail('invalid_param', `Parameter "period_id" is not valid: ${periodId} is not a ${kind} period on the calendar.`)
    if (named.startsAt > now) fail('invalid_param', `Parameter "period_id" is not valid: ${periodId} has not begun.`)
    const oldest = keptPeriodsOf(game, kind, now).at(-1) as Period
    if (named.startsAt < oldest.startsAt) fail('invalid_param', `Parameter "period_id" is not valid: ${periodId} is no longer kept (this game keeps ${game.keep_periods} past ${kind} periods).`)
    return periodBoard(named)
  }
  if (period === 'all') return currentSeason(game)
  keptKind(game, period, owner)
  return periodBoard(currentPeriod(game, period, now))
}

/** The current period of a kind, remembered per zone until it ends (a submit asks for it every time). */
const current = new Map<string, Period>()

export function currentPeriod (game: GameRecord, kind: PeriodKind, now: number): Period {
  const key = `${kind} ${game.timezone}`
  const known = current.get(key)
  if (known !== undefined && now >= known.startsAt && now < known.resetsAt) return known
  const period = periodAt(kind, game.timezone, now)
  if (current.size > 10_000) current.clear()
  current.set(key, period)
  return period
}

const kept = new Map<string, Period[]>()

/**
 * The current period of a kind and the past ones kept, newest first;
 * remembered per zone, keep and current period: a request naming an archive
 * asks for them, and working them out takes keep_periods + 1 calendar reads.
 */
export function keptPeriodsOf (game: GameRecord, kind: PeriodKind, now: number): Period[] {
  const key = `${kind} ${game.timezone} ${game.keep_periods} ${currentPeriod(game, kind, now).id}`
  let periods = kept.get(key)
  if (periods === undefined) {
    periods = keptPeriods(kind, game.timezone, now, game.keep_periods)
    if (kept.size > 1000) kept.clear()
    kept.set(key, periods)
  }
  return periods
}

/**
 * Every board of every period kind that may hold entries now, kept by the
 * game or not, and the next one of each kind (operators' hide and delete
 * reach them all).
 */
export function everyPeriodBoard (game: GameRecord, now: number): BoardRef[] {
  return PERIOD_KINDS.flatMap(kind => {
    const periods = keptPeriodsOf(game, kind, now)
    return [periodAt(kind, game.timezone, periods[0]!.resetsAt), ...periods].map(periodBoard)
  })
}

const expiries = new Map<string, number>()

/**
 * When a period's keys may go (ms): once `keep_periods + 1` newer periods
 * have begun after it, it is no longer kept. Remembered per period.
 */
export function periodExpiry (game: GameRecord, period: Period): number {
  const key = `${period.kind} ${period.id} ${game.timezone} ${game.keep_periods}`
  let expiry = expiries.get(key)
  if (expiry === undefined) {
    let later = period
    for (let i = 0; i < game.keep_periods; i++) later = periodAt(period.kind, game.timezone, later.resetsAt)
    expiry = later.resetsAt
    if (expiries.size > 10_000) expiries.clear()
    expiries.set(key, expiry)
  }
  return expiry
}

/**
 * Every scope a board's keys may be under (the game's own board when
 * `named` is undefined; a named board's begin with its boardScopes.named):
 * each season from the board's first to the one after the current, newest
 * first, and every period board that may hold entries (everyPeriodBoard).
 * What an operator's hide, delete or erasure and a board's deletion reach.
 */
export function everyScopeOf (game: GameRecord, named: NamedBoard | undefined, now: number): { seasons: string[], periods: string[] } {
  const board = boardOf(game, named)
  const prefix = boardScopes.of(board)
  const seasons: string[] = []
  for (let season = game.season + 1; season >= (named?.first_season ?? 1); season--) seasons.push(prefix + boardScopes.season(season))
  const periods = everyPeriodBoard(board.rules, now).map(period => prefix + period.scope)
  return { seasons, periods }
}
