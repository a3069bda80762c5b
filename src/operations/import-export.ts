import { ApiError, type ErrorCode } from '../errors.js'
import { parseMeta, parseScore } from '../rules/fields.js'
import { parsePlayerName } from '../rules/player-name.js'
import type { ImportedEntry, ListedEntry } from '../store/board-format.js'

/*
 * The file formats of a board's export and import (docs/guide.md#export-and-import).
 * An export line is an import line: NDJSON objects with player_name, score,
 * achieved_at (ISO 8601 UTC, ms) and meta (the JSON text sent with the best,
 * or null), plus rank, hidden, hidden_user and run_verified_seconds (the
 * verified play of the run the best came from, or null), which an import
 * ignores (an imported entry comes from no run). CSV
 * has the same columns, for spreadsheets.
 */

export type ExportFormat = 'csv' | 'ndjson'

export const EXPORT_COLUMNS = ['rank', 'player_name', 'score', 'achieved_at', 'hidden', 'hidden_user', 'meta', 'run_verified_seconds'] as const

function exportRecord (entry: ListedEntry): Record<(typeof EXPORT_COLUMNS)[number], unknown> {
  return { rank: entry.rank, player_name: entry.player_name, score: entry.best_score, achieved_at: entry.created_at, hidden: entry.hidden, hidden_user: entry.hidden_user, meta: entry.meta, run_verified_seconds: entry.run_verified_seconds }
}

/**
 * A CSV cell (RFC 4180): quoted when it holds a quote, comma or line break.
 * Text that a spreadsheet would run as a formula (=, +, -, @, tab, CR first)
 * gets a leading apostrophe, as OWASP advises; numbers are written as numbers.
 */
function csvCell (value: unknown): string {
  if (value === null || value === undefined) return ''
  if (typeof value !== 'string') return String(value)
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}

/** A file's header: the CSV header row (NDJSON has none). */
export function exportHeader (format: ExportFormat, columns: readonly string[] = EXPORT_COLUMNS): string {
  return format === 'csv' ? `${columns.join(',')}\r\n` : ''
}

/** Records as a file's lines: NDJSON objects, or CSV rows of `columns`. */
function fileLines<Column extends string> (format: ExportFormat, columns: readonly Column[], records: Array<Record<Column, unknown>>): string {
  if (format === 'ndjson') return records.map(record => `${JSON.stringify(record)}\n`).join('')
  return records.map(record => `${columns.map(column => csvCell(record[column])).join(',')}\r\n`).join('')
}

export function exportLines (format: ExportFormat, entries: ListedEntry[]): string {
  return fileLines(format, EXPORT_COLUMNS, entries.map(exportRecord))
}

/** The columns of an export of a game's achievement unlocks (docs/interface.md#achievements-operators). */
export const UNLOCK_COLUMNS = ['player_name', 'achievement_id', 'unlocked_at'] as const
export type UnlockRecord = Record<(typeof UNLOCK_COLUMNS)[number], string>

export function unlockLines (format: ExportFormat, unlocks: UnlockRecord[]): string {
  return fileLines(format, UNLOCK_COLUMNS, unlocks)
}

/** The columns of an export of a game's ratings (docs/ratings.md#operators), as the ratings listing answers them. */
export const RATING_COLUMNS = ['username', 'stars', 'play_at_rating_seconds', 'playtime_seconds', 'rated_at'] as const
export type RatingRecord = Record<(typeof RATING_COLUMNS)[number], unknown>

export function ratingLines (format: ExportFormat, ratings: RatingRecord[]): string {
  return fileLines(format, RATING_COLUMNS, ratings)
}

/** The longest import line taken (a meta is at most 2048 bytes, escaped at most 6 times that). */
export const IMPORT_MAX_LINE_BYTES = 16_384

/** A line of an import, by its number (from 1). */
export interface ImportLine {
  number: number
  text: string
  /** Longer than IMPORT_MAX_LINE_BYTES: its text is not kept. */
  tooLong: boolean
  /** Its bytes are not UTF-8: its text is not kept (decoding would turn different bytes into the same U+FFFD). */
  notUtf8?: boolean
}

export class ImportTooLarge extends Error {
  constructor (readonly lines: number) {
    super('import body too large')
  }
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true })
const NEWLINE = 0x0a

/** One line's bytes (without its newline) as an ImportLine: decoded strictly, a trailing CR dropped. */
function lineOf (number: number, parts: Buffer[], bytes: number): ImportLine {
  if (bytes > IMPORT_MAX_LINE_BYTES) return { number, text: '', tooLong: true }
  let text: string
  try {
    text = strictUtf8.decode(parts.length === 1 ? parts[0] : Buffer.concat(parts))
  } catch {
    return { number, text: '', tooLong: false, notUtf8: true }
  }
  return { number, text: text.endsWith('\r') ? text.slice(0, -1) : text, tooLong: false }
}

/**
 * The lines of a body as it arrives. Lines are cut at the newline byte
 * (which is never part of a longer UTF-8 sequence, so a character split
 * across chunks stays whole) and each is decoded on its own, strictly: a
 * line that is not UTF-8 is reported, never stored with U+FFFD in it. A line
 * too long is reported (not kept) and skipped to its end. Throws
 * ImportTooLarge once more than `maxBytes` arrived, whatever the headers said.
 */
export async function * importLines (body: AsyncIterable<Buffer | string>, maxBytes: number): AsyncGenerator<ImportLine> {
  let bytes = 0
  let number = 0
  // The current line's bytes so far; past IMPORT_MAX_LINE_BYTES only their count is kept.
  let parts: Buffer[] = []
  let length = 0
  for await (const chunk of body) {
    const data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk
    bytes += data.length
    if (bytes > maxBytes) throw new ImportTooLarge(number)
    let start = 0
    for (let newline = data.indexOf(NEWLINE); newline !== -1; newline = data.indexOf(NEWLINE, start)) {
      const piece = data.subarray(start, newline)
      yield lineOf(++number, length + piece.length > IMPORT_MAX_LINE_BYTES ? [] : [...parts, piece], length + piece.length)
      parts = []
      length = 0
      start = newline + 1
    }
    const rest = data.subarray(start)
    length += rest.length
    parts = length > IMPORT_MAX_LINE_BYTES ? [] : [...parts, rest]
  }
  if (length === 0) return
  const last = lineOf(number + 1, parts, length)
  if (last.tooLong || last.notUtf8 === true || last.text.trim() !== '') yield last
}

/** A refused line, as the import's answer lists it. */
export interface RefusedLine {
  line: number
  error: ErrorCode
  message: string
}

const IMPORT_FIELDS = new Set(['player_name', 'score', 'achieved_at', 'meta', 'rank', 'hidden', 'hidden_user', 'run_verified_seconds'])
const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,3})?)?(?:Z|[+-](\d{2}):(\d{2}))$/

/** An ISO 8601 time in ms, or NaN: every field must exist (Date.parse takes 2020-02-31 as March 2). */
function isoTimeMs (text: string): number {
  const fields = ISO_TIME.exec(text)
  if (fields === null) return NaN
  const [year, month, day, hour, minute, second = 0, offsetHours = 0, offsetMinutes = 0] = fields.slice(1).map(field => field === undefined ? undefined : Number(field)) as number[]
  const daysInMonth = new Date(Date.UTC(year as number, month as number, 0)).getUTCDate()
  const exists = (month as number) >= 1 && (month as number) <= 12 && (day as number) >= 1 && (day as number) <= daysInMonth &&
    (hour as number) <= 23 && (minute as number) <= 59 && second <= 59 && offsetHours <= 23 && offsetMinutes <= 59
  return exists ? Date.parse(text) : NaN
}
/** Times an import may give: from 1970 to five minutes from now (13 digits of ms). */
const FUTURE_TOLERANCE_MS = 5 * 60_000

/** An import line as an entry, or why it is refused. `now` is the import's start, the time of a line without achieved_at. */
export function importEntryOf (line: ImportLine, now: number): ImportedEntry | RefusedLine {
  const refuse = (error: ErrorCode, message: string): RefusedLine => ({ line: line.number, error, message })
  if (line.tooLong) return refuse('invalid_body', `Line ${line.number} is longer than ${IMPORT_MAX_LINE_BYTES} bytes.`)
  if (line.notUtf8 === true) return refuse('invalid_body', `Line ${line.number} is not UTF-8 text.`)
  let record: unknown
  try {
    record = JSON.parse(line.text)
  } catch {
    return refuse('invalid_body', `Line ${line.number} is not JSON.`)
  }
  if (record === null || typeof record !== 'object' || Array.isArray(record)) return refuse('invalid_body', `Line ${line.number} is not a JSON object.`)
  const fields = record as Record<string, unknown>
  for (const name of Object.keys(fields)) {
    if (!IMPORT_FIELDS.has(name)) return refuse('invalid_param', `Line ${line.number}: unknown field "${name.slice(0, 40)}".`)
  }
  try {
    if (typeof fields.player_name !== 'string') return refuse('missing_param', `Line ${line.number}: "player_name" is required, as text.`)
    const player = parsePlayerName(fields.player_name)
    const scoreText = typeof fields.score === 'number' && Number.isInteger(fields.score) ? String(fields.score) : fields.score
    if (typeof scoreText !== 'string') return refuse('invalid_score', `Line ${line.number}: "score" must be an integer within plus or minus 9007199254740991.`)
    const score = parseScore(scoreText)
    let ms = now
    const at = fields.achieved_at
    if (at !== undefined && at !== null) {
      ms = typeof at === 'number' && Number.isSafeInteger(at) ? at : typeof at === 'string' ? isoTimeMs(at) : NaN
      if (!Number.isFinite(ms) || ms < 0 || ms > now + FUTURE_TOLERANCE_MS) return refuse('invalid_param', `Line ${line.number}: "achieved_at" must be an ISO 8601 time (or ms since 1970) not in the future.`)
    }
    const metaText = fields.meta === undefined || fields.meta === null ? undefined : typeof fields.meta === 'string' ? fields.meta : JSON.stringify(fields.meta)
    return { player, score, ms, meta: parseMeta(metaText) }
  } catch (error) {
    if (error instanceof ApiError) return refuse(error.code, `Line ${line.number}: ${error.message}`)
    throw error
  }
}
