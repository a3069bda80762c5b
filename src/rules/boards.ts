import { ApiError } from '../errors.js'
import type { PeriodKind, PeriodsSince } from './periods.js'
import type { BoardOrder, GameRecord } from './games.js'
import { DEFAULT_DISPLAY, type DisplaySettings } from './score-format.js'

/*
 * Named boards (docs/decisions/0070-named-boards-one-game-many-boards-in-its.md): a game's boards beside its default
 * one, each with its own order, operator, periods, score bounds and review
 * rules. The default board is the v1 board, whose settings are the game's
 * own; a request that names no board, or `default`, means it.
 */

/** The name a request may give the default board. */
export const DEFAULT_BOARD = 'default'

/** How many named boards a game may have. */
export const MAX_BOARDS = 1000

/** 1 to 32 of a-z 0-9 _ -, beginning with a letter or digit: part of Redis key names and URL paths, so no `:`, `{`, `}`, `/` or `.`. */
export const BOARD_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,31}$/

/** The answer to a request naming a board the game does not have (`parameter` is where it was named). */
export function noSuchBoard (boardId: string, parameter = 'board'): ApiError {
  return new ApiError('invalid_param', `Parameter "${parameter}" is not valid: this game has no board "${boardId}".`)
}

/** A named board's id, as a request or an operator gives it: the pattern, and not the default board's name. */
export function isBoardId (text: string): boolean {
  return BOARD_ID_PATTERN.test(text) && text !== DEFAULT_BOARD
}

/**
 * What a board does with an accepted score: `best` keeps the better of the
 * stored and the new one (v1's rule), `latest` keeps the new one, `sum` adds
 * it to the stored total.
 */
export const BOARD_OPERATORS = ['best', 'latest', 'sum'] as const
export type BoardOperator = typeof BOARD_OPERATORS[number]

/** A named board's settings, as operators see them and as stored (JSON in keys.boards). */
/** Its display settings (score_format, score_decimals, score_unit) are its own (docs/decisions/0072-score-formats-raw-in-the-api-shown-by.md). */
export interface NamedBoard extends DisplaySettings {
  board_id: string
  /** What players see: 1 to 64 characters. */
  name: string
  order: BoardOrder
  operator: BoardOperator
  /** The calendar boards kept beside its all-time one, in PERIOD_KINDS order (the game's time zone and keep_periods). */
  periods: PeriodKind[]
  /** When it began keeping each of them (rules/periods.ts keptDuring). */
  periods_since: PeriodsSince
  score_min: number | null
  score_max: number | null
  review_above: number | null
  review_below: number | null
  review_factor: number | null
  /** An archived board is read as before and takes no new scores. */
  archived: boolean
  /** Its table id in Game Jolt's API (docs/gamejolt.md#scores): the operator's, else made of its id. */
  gamejolt_id: number
  created_at: string
  /** The game's season when the board was made: its order and operator may change only while that season is current and the board is empty. */
  first_season: number
}

/** A game's named boards by id, as a request finds them (empty when it names none). */
export type Boards = ReadonlyMap<string, NamedBoard>
export const NO_BOARDS: Boards = new Map()

/** The settings a board may be made with or changed to (board_id and the dates are the service's). */
export type BoardSettings = Omit<NamedBoard, 'board_id' | 'created_at' | 'first_season'>

/** A new board's settings when the operator gives only its id. */
export const DEFAULT_BOARD_SETTINGS = {
  order: 'desc',
  operator: 'best',
  periods: [],
  periods_since: {},
  score_min: null,
  score_max: null,
  review_above: null,
  review_below: null,
  review_factor: null,
  ...DEFAULT_DISPLAY,
  archived: false
} as const satisfies Omit<BoardSettings, 'name' | 'gamejolt_id'>

/**
 * One board of a game: its own (`default`, v1's, whose settings are the
 * game's) or a named one. What the rest of the code reads of a board,
 * whichever it is.
 */
export interface Board {
  /** `default` for the game's own. */
  board_id: string
  /** The named board's record; none for the game's own. */
  named: NamedBoard | undefined
  order: BoardOrder
  operator: BoardOperator
  periods: PeriodKind[]
  /** An archived board is read as before and takes no new scores (the game's own never is). */
  archived: boolean
  /**
   * The game as this board's rules read it: the board's settings (order,
   * periods, score bounds, review rules, display) in place of the game's,
   * so choosing a period, checking a score's range and storing it work as
   * they do on the default board.
   */
  rules: GameRecord
}

/** The board `named` of the game, or the game's own. */
export function boardOf (game: GameRecord, named?: NamedBoard): Board {
  if (named === undefined) return { board_id: DEFAULT_BOARD, named, order: game.order, operator: 'best', periods: game.periods, archived: false, rules: game }
  return {
    board_id: named.board_id,
    named,
    order: named.order,
    operator: named.operator,
    periods: named.periods,
    archived: named.archived,
    rules: {
      ...game,
      order: named.order,
      periods: named.periods,
      periods_since: named.periods_since,
      score_min: named.score_min,
      score_max: named.score_max,
      review_above: named.review_above,
      review_below: named.review_below,
      review_factor: named.review_factor,
      score_format: named.score_format,
      score_decimals: named.score_decimals,
      score_unit: named.score_unit
    }
  }
}

/** What an answer says of the board it is about: a named board's id; nothing for the game's own, so a v1 answer keeps its exact fields. */
export function answeredBoard (named: NamedBoard | undefined): { board?: string } {
  return named === undefined ? {} : { board: named.board_id }
}
