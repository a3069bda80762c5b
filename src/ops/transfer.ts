import { StringDecoder } from 'node:string_decoder'
import { ApiError, type ErrorCode } from '../http/envelope.js'
import { parseMeta, parsePlayerName, parseScore } from '../http/params.js'
import type { ImportedEntry, ListedEntry } from '../store/leaderboard.js'

/*
 * The file formats of a board's export and import (docs/guide.md#export-and-import).
 * An export line is an import line: NDJSON objects with player_name, score,
 * achieved_at (ISO 8601 UTC, ms) and meta (the JSON text sent with the best,
 * or null), plus rank, hidden and hidden_user, which an import ignores. CSV
 * has the same columns, for spreadsheets.
 */

export type ExportFormat = 'csv' | 'ndjson'

export const EXPORT_COLUMNS = ['rank', 'player_name', 'score', 'achieved_at', 'hidden', 'hidden_user', 'meta'] as const

function exportRecord (entry: ListedEntry): Record<(typeof EXPORT_COLUMNS)[number], unknown> {
  return { rank: entry.rank, player_name: entry.player_name, score: entry.best_score, achieved_at: entry.created_at, hidden: entry.hidden, hidden_user: entry.hidden_user, meta: entry.meta }
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

export function exportHeader (format: ExportFormat): string {
  return format === 'csv' ? `${EXPORT_COLUMNS.join(',')}\r\n` : ''
}

export function exportLines (format: ExportFormat, entries: ListedEntry[]): string {
  if (format === 'ndjson') return entries.map(entry => `${JSON.stringify(exportRecord(entry))}\n`).join('')
  return entries.map(entry => `${EXPORT_COLUMNS.map(column => csvCell(exportRecord(entry)[column])).join(',')}\r\n`).join('')
}

/** The longest import line taken (a meta is at most 2048 bytes, escaped at most 6 times that). */
export const IMPORT_MAX_LINE_BYTES = 16_384

/** A line of an import, by its number (from 1). */
export interface ImportLine {
  number: number
  text: string
  /** Longer than IMPORT_MAX_LINE_BYTES: its text is not kept. */
  tooLong: boolean
}

/** The body went past the import's byte limit after `lines` lines. */
export class ImportTooLarge extends Error {
  constructor (readonly lines: number) {
    super('import body too large')
  }
}

/**
 * The lines of a body as it arrives, decoded as UTF-8 across chunk
 * boundaries; a line too long is reported (not kept) and skipped to its end.
 * Throws ImportTooLarge once more than `maxBytes` arrived, whatever the
 * headers said.
 */
export async function * importLines (body: AsyncIterable<Buffer | string>, maxBytes: number): AsyncGenerator<ImportLine> {
  const decoder = new StringDecoder('utf8')
  let bytes = 0
  let number = 0
  let pending = ''
  let skipping = false
  for await (const chunk of body) {
    bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length
    if (bytes > maxBytes) throw new ImportTooLarge(number)
    pending += typeof chunk === 'string' ? chunk : decoder.write(chunk)
    let newline = pending.indexOf('\n')
    while (newline !== -1) {
      const text = pending.slice(0, newline)
      pending = pending.slice(newline + 1)
      number++
      if (skipping) {
        skipping = false
        yield { number, text: '', tooLong: true }
      } else {
        yield { number, text: text.endsWith('\r') ? text.slice(0, -1) : text, tooLong: Buffer.byteLength(text) > IMPORT_MAX_LINE_BYTES }
      }
      newline = pending.indexOf('\n')
    }
    if (pending.length > IMPORT_MAX_LINE_BYTES) {
      skipping = true
      pending = ''
    }
  }
  pending += decoder.end()
  if (skipping) yield { number: number + 1, text: '', tooLong: true }
  else if (pending.trim() !== '') yield { number: number + 1, text: pending.endsWith('\r') ? pending.slice(0, -1) : pending, tooLong: Buffer.byteLength(pending) > IMPORT_MAX_LINE_BYTES }
}

/** A refused line, as the import's answer lists it. */
export interface RefusedLine {
  line: number
  error: ErrorCode
  message: string
}

const IMPORT_FIELDS = new Set(['player_name', 'score', 'achieved_at', 'meta', 'rank', 'hidden', 'hidden_user'])
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/
/** Times an import may give: from 1970 to five minutes from now (13 digits of ms). */
const FUTURE_TOLERANCE_MS = 5 * 60_000

/** An import line as an entry, or why it is refused. `now` is the import's start, the time of a line without achieved_at. */
export function importEntryOf (line: ImportLine, now: number): ImportedEntry | RefusedLine {
  const refuse = (error: ErrorCode, message: string): RefusedLine => ({ line: line.number, error, message })
  if (line.tooLong) return refuse('invalid_body', `Line ${line.number} is longer than ${IMPORT_MAX_LINE_BYTES} bytes.`)
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
      ms = typeof at === 'number' && Number.isSafeInteger(at) ? at : typeof at === 'string' && ISO_TIME.test(at) ? Date.parse(at) : NaN
      if (!Number.isFinite(ms) || ms < 0 || ms > now + FUTURE_TOLERANCE_MS) return refuse('invalid_param', `Line ${line.number}: "achieved_at" must be an ISO 8601 time (or ms since 1970) not in the future.`)
    }
    const metaText = fields.meta === undefined || fields.meta === null ? undefined : typeof fields.meta === 'string' ? fields.meta : JSON.stringify(fields.meta)
    return { player, score, ms, meta: parseMeta(metaText) }
  } catch (error) {
    if (error instanceof ApiError) return refuse(error.code, `Line ${line.number}: ${error.message}`)
    throw error
  }
}
