import { ApiError } from '../errors.js'
import type { PeriodKind } from './periods.js'
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
  score_min: number | null
  score_max: number | null
  review_above: number | null
  review_below: number | null
  review_factor: number | null
  /** An archived board is read as before and takes no new scores. */
  archived: boolean
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
  score_min: null,
  score_max: null,
  review_above: null,
  review_below: null,
  review_factor: null,
  ...DEFAULT_DISPLAY,
  archived: false
} as const satisfies Omit<BoardSettings, 'name'>

/**
 * A named board as the board rules read a game: the game's record with the
 * board's settings in place of the game's own (order, periods, score bounds,
 * review rules), so choosing a board, checking a score's range and storing
 * it work as they do on the default board.
 */
export function gameWithBoard (game: GameRecord, board: NamedBoard): GameRecord {
  return {
    ...game,
    order: board.order,
    periods: board.periods,
    score_min: board.score_min,
    score_max: board.score_max,
    review_above: board.review_above,
    review_below: board.review_below,
    review_factor: board.review_factor,
    score_format: board.score_format,
    score_decimals: board.score_decimals,
    score_unit: board.score_unit
  }
}
