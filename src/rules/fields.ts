import { ApiError, fail } from '../errors.js'
import { optional, type Params } from '../lib/params.js'
import { isPlayerName } from './player-name.js'
import { PERIOD_KINDS, type PeriodKind } from './periods.js'
import { DEFAULT_BOARD, isBoardId } from './boards.js'

/**
 * The rule for each request field (docs/interface.md#field-rules); the
 * parameters themselves are read in src/lib/params.ts.
 */

/** What a request asks for: `board` (a named board's id; none: the game's own), `period` (all or a kind), `period_id`, `season_id` (parseBoardChoice). */
export interface BoardChoice {
  board?: string
  period?: 'all' | PeriodKind
  periodId?: string
  seasonId?: number
}

export const GAME_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/
export const USERNAME_PATTERN = /^[A-Za-z0-9_.-]{1,30}$/
/** A username's folded form: names that differ only in letter case are one name (a new user may not take `DEMO` beside `demo`). */
export const foldUsername = (username: string): string => username.toLowerCase()
/** The names the play page gives guests (`guest-` and digits): nobody signs up or signs in under one. */
export const GUEST_NAME_PATTERN = /^guest-/i

/**
 * The username a platform's display name suggests at a first sign-in
 * (docs/signin.md#names): accents dropped (José: Jose), spaces as `_`, any
 * other character outside `A-Z a-z 0-9 _ . -` left out, a leading `guest-`
 * too, cut to 30 characters; `player` when nothing is left.
 */
export function usernameFromDisplayName (name: string | null): string {
  const cleaned = (name ?? '').normalize('NFKD').replace(/\p{M}/gu, '').trim().replace(/\s+/gu, '_').replace(/[^A-Za-z0-9_.-]/g, '').replace(/^(guest-)+/i, '').slice(0, 30)
  return cleaned === '' ? 'player' : cleaned
}

/**
 * The usernames tried in turn for a first sign-in whose suggested name is
 * taken: the name, then the name with -2 to -9, then with a dash and six
 * random digits (each cut so the whole fits 30 characters).
 */
export function usernameCandidates (base: string, random: () => number): string[] {
  const suffixed = (suffix: string): string => `${base.slice(0, 30 - suffix.length)}${suffix}`
  const numbered = Array.from({ length: 8 }, (_, i) => suffixed(`-${i + 2}`))
  const randomized = Array.from({ length: 3 }, () => suffixed(`-${String(random()).padStart(6, '0')}`))
  return [base, ...numbered, ...randomized]
}

export function isGameId (value: string): boolean {
  return GAME_ID_PATTERN.test(value)
}

/** A base-10 integer within the exact range of a double; `007` is 7 and `-0` is 0. */
export function parseScore (value: string): number {
  if (!/^-?\d+$/.test(value)) fail('invalid_score')
  const score = Number(value)
  if (!Number.isSafeInteger(score)) fail('invalid_score')
  return score === 0 ? 0 : score
}

/** How many boards one submit may carry scores for (board=a,b,c&score=1,2,3). */
export const SUBMIT_BOARDS_MAX = 10

/**
 * A submit of several boards' scores (docs/interface.md#one-submit-several-boards):
 * `board` a comma list of 2 to SUBMIT_BOARDS_MAX different board ids
 * (`default` for the game's own) and `score` as many scores, in the same
 * order. Undefined for a submit of one score (no comma in either), which
 * reads them as before. Each board's id is undefined for the game's own.
 */
export function parseBoardScores (params: Params): Array<{ board: string | undefined, score: number }> | undefined {
  const boards = optional(params, 'board')
  const scores = optional(params, 'score') ?? ''
  if (boards === undefined || !boards.includes(',')) return undefined
  const ids = boards.split(',')
  const values = scores.split(',')
  if (ids.length > SUBMIT_BOARDS_MAX) fail('invalid_param', `Parameter "board" is not valid: at most ${SUBMIT_BOARDS_MAX} boards in one submit.`)
  if (values.length !== ids.length) fail('invalid_param', `Parameter "score" is not valid: ${ids.length} boards need ${ids.length} scores, comma-separated in the same order (${values.length} given).`)
  const seen = new Set<string>()
  return ids.map((id, index) => {
    if (id !== DEFAULT_BOARD && !isBoardId(id)) fail('invalid_param', `Parameter "board" is not valid: item ${index + 1} is not a board id (1 to 32 of a-z 0-9 _ -, or default for the game's own board).`)
    if (seen.has(id)) fail('invalid_param', `Parameter "board" is not valid: board "${id}" is named twice.`)
    seen.add(id)
    let score: number
    try {
      score = parseScore(values[index] as string)
    } catch {
      throw new ApiError('invalid_score', `score ${index + 1} (for board "${id}") must be a base-10 integer within plus or minus 9007199254740991.`)
    }
    return { board: id === DEFAULT_BOARD ? undefined : id, score }
  })
}

export const META_MAX_BYTES = 2048

export function parseMeta (value: string | undefined): string | undefined {
  if (value === undefined) return undefined
  if (Buffer.byteLength(value, 'utf8') > META_MAX_BYTES) fail('invalid_meta')
  try {
    JSON.parse(value)
  } catch {
    fail('invalid_meta')
  }
  return value
}

export const TOP_DEFAULT_LIMIT = 20
export const TOP_MAX_LIMIT = 100

export function parseLimit (value: string | undefined): number {
  if (value === undefined) return TOP_DEFAULT_LIMIT
  if (!/^\d+$/.test(value) || Number(value) === 0) fail('invalid_param', 'limit must be a positive integer.')
  return Math.min(Number(value), TOP_MAX_LIMIT)
}

export function parseOffset (value: string | undefined): number {
  if (value === undefined) return 0
  if (!/^\d+$/.test(value)) fail('invalid_param', 'offset must be a non-negative integer.')
  return Math.min(Number(value), Number.MAX_SAFE_INTEGER)
}

/** Digits only, like scores: `05` is 5. */
function integerIn (value: string, min: number, max: number): number | undefined {
  if (!/^\d+$/.test(value)) return undefined
  const number = Number(value)
  return number >= min && number <= max ? number : undefined
}

export function parseStars (value: string): number {
  return integerIn(value, 1, 10) ?? fail('invalid_stars')
}

export function parseSeconds (value: string): number {
  return integerIn(value, 1, 300) ?? fail('invalid_seconds')
}

export const TS_TOLERANCE_S = 300

/** `ts` in whole UNIX seconds within ±300 s of the server clock. */
export function checkTimestamp (value: string, nowMs: number = Date.now()): void {
  if (!/^-?\d+$/.test(value)) fail('invalid_param', 'ts must be an integer UNIX time in seconds.')
  if (!(Math.abs(Math.floor(nowMs / 1000) - Number(value)) <= TS_TOLERANCE_S)) fail('expired_ts')
}

/** `period`, `period_id` and `season_id`: which board a request reads (src/store/board-choice.ts decides whether the game has it). */
export function parseBoardChoice (params: Params): BoardChoice {
  const choice: BoardChoice = {}
  const board = optional(params, 'board')
  if (board !== undefined && board !== DEFAULT_BOARD) {
    if (!isBoardId(board)) fail('invalid_param', 'Parameter "board" is not valid: a board id (1 to 32 of a-z 0-9 _ -), or default for the game\'s own board.')
    choice.board = board
  }
  const period = optional(params, 'period')
  if (period !== undefined) {
    if (period !== 'all' && !(PERIOD_KINDS as readonly string[]).includes(period)) fail('invalid_param', 'Parameter "period" must be one of all, daily, weekly, monthly.')
    choice.period = period as BoardChoice['period']
  }
  const periodId = optional(params, 'period_id')
  if (periodId !== undefined) choice.periodId = periodId
  const seasonId = optional(params, 'season_id')
  if (seasonId !== undefined) choice.seasonId = integerIn(seasonId, 1, 1_000_000_000) ?? fail('invalid_param', 'Parameter "season_id" must be a season number (a positive integer).')
  return choice
}

export const AROUND_DEFAULT = 5
export const AROUND_MAX = 50

/** `before` or `after` of `around`: how many entries on that side of the player. */
export function parseNeighbours (params: Params, name: 'before' | 'after'): number {
  const value = optional(params, name)
  if (value === undefined) return AROUND_DEFAULT
  return integerIn(value, 0, AROUND_MAX) ?? fail('invalid_param', `Parameter "${name}" must be an integer from 0 to ${AROUND_MAX}.`)
}

export const PLAYERS_MAX = 100

/** `player_names`: a JSON array of up to 100 player names, each sent once (repeats are dropped). */
export function parsePlayerNames (value: string | undefined): string[] {
  if (value === undefined) return []
  let names: unknown
  try {
    names = JSON.parse(value)
  } catch {
    names = undefined
  }
  if (!Array.isArray(names) || names.length > PLAYERS_MAX) fail('invalid_param', `Parameter "player_names" must be a JSON array of at most ${PLAYERS_MAX} player names.`)
  names.forEach((name: unknown, index) => {
    if (typeof name !== 'string' || !isPlayerName(name)) fail('invalid_param', `Parameter "player_names" is not valid: item ${index + 1} is not a player name (1 to 30 characters, at least one of them visible).`)
  })
  return [...new Set(names as string[])]
}

/** A run id (docs/interface.md#runs): 22 base64url characters; anything else names no run (invalid_run). */
export const RUN_ID_PATTERN = /^[A-Za-z0-9_-]{22}$/

/** The optional run_id of a submit or a play-time report: absent is undefined; malformed is invalid_run. */
export function parseRunId (value: string | undefined): string | undefined {
  if (value === undefined) return undefined
  if (!RUN_ID_PATTERN.test(value)) fail('invalid_run', 'run_id is malformed: a run_id is the 22 characters run-start answered.')
  return value
}
