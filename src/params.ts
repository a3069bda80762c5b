import { ApiError, fail } from './envelope.js'

/**
 * Request parameters and the rule for each field (DECISIONS.md sections 1-2).
 * Everything here treats its input as hostile: maps are null-prototype, a
 * repeated parameter is refused, and a value that is not plain text is refused.
 */

/** A query or form value whose percent-encoding is broken. */
export class MalformedValue {
  constructor (readonly raw: string) {}
}

export type RawValue = string | string[] | MalformedValue
export type RawParams = Record<string, RawValue>
/** Plain text parameters by name, each sent once. */
export type Params = Record<string, string>

function decodeComponent (text: string): string | MalformedValue {
  const plus = text.includes('+') ? text.replace(/\+/g, ' ') : text
  if (!plus.includes('%')) return plus
  try {
    return decodeURIComponent(plus)
  } catch {
    return new MalformedValue(text)
  }
}

/**
 * Parses `a=1&b=2` as application/x-www-form-urlencoded text. It never throws:
 * a broken escape becomes a MalformedValue and a repeated name an array, so
 * the caller reports either with the right code.
 */
export function parseUrlEncoded (text: string): RawParams {
  const result: RawParams = Object.create(null)
  if (text === '') return result
  for (const pair of text.split('&')) {
    if (pair === '') continue
    const eq = pair.indexOf('=')
    const name = decodeComponent(eq === -1 ? pair : pair.slice(0, eq))
    const value = decodeComponent(eq === -1 ? '' : pair.slice(eq + 1))
    // A name that cannot be decoded is kept raw, so its value is still seen as malformed.
    const key = typeof name === 'string' ? name : name.raw
    const stored = typeof name === 'string' ? value : name
    const previous = result[key]
    if (previous === undefined) result[key] = stored
    else if (Array.isArray(previous)) previous.push(String(stored))
    else result[key] = [String(previous), String(stored)]
  }
  return result
}

/** The body parser used by @fastify/formbody: a broken escape is a bad body. */
export function parseFormBody (text: string): RawParams {
  const params = parseUrlEncoded(text)
  for (const name in params) {
    if (params[name] instanceof MalformedValue) throw new ApiError('invalid_body', 'The form body has a malformed percent-encoding.')
  }
  return params
}

function copyInto (target: Params, source: unknown, where: 'query' | 'body'): void {
  if (source === undefined || source === null) return
  if (typeof source !== 'object') fail('invalid_body')
  for (const name of Object.keys(source)) {
    const value: unknown = (source as Record<string, unknown>)[name]
    if (value instanceof MalformedValue) fail('invalid_param', `Parameter "${printable(name)}" has a malformed percent-encoding.`)
    if (Array.isArray(value) || Object.hasOwn(target, name)) fail('invalid_param', `Parameter "${printable(name)}" was sent more than once.`)
    if (typeof value !== 'string') fail('invalid_param', `Parameter "${printable(name)}" must be a plain form field in the ${where}.`)
    target[name] = value
  }
}

/** Query and body parameters merged; a name sent twice anywhere is refused. */
export function collectParams (query: unknown, body: unknown): Params {
  const params: Params = Object.create(null)
  copyInto(params, query, 'query')
  copyInto(params, body, 'body')
  return params
}

/** A parameter name as it may appear inside an error message. */
function printable (name: string): string {
  const visible = name.replace(/[^\x20-\x7e]/g, '?')
  return visible.length > 40 ? `${visible.slice(0, 40)}...` : visible
}

/** missing_param for the first required parameter that is absent or empty. */
export function requireParams (params: Params, names: readonly string[]): void {
  for (const name of names) {
    if (params[name] === undefined || params[name] === '') fail('missing_param', `Parameter "${name}" is required.`)
  }
}

/** A parameter that requireParams has already checked to be present and non-empty. */
export function param (params: Params, name: string): string {
  return params[name] as string
}

/** The value of an optional parameter; an empty value counts as absent. */
export function optional (params: Params, name: string): string | undefined {
  const value = params[name]
  return value === undefined || value === '' ? undefined : value
}

export const GAME_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/
export const USERNAME_PATTERN = /^[A-Za-z0-9_.-]{1,30}$/

export function isGameId (value: string): boolean {
  return GAME_ID_PATTERN.test(value)
}

/**
 * A character that shows something: a letter, digit, punctuation or symbol
 * (emoji are symbols) that Unicode does not tell renderers to ignore (the
 * Hangul fillers are letters that draw nothing). White space, marks on their
 * own and format characters (zero-width space, joiners) show nothing.
 */
const SHOWS = /[\p{L}\p{N}\p{P}\p{S}]/u
const IGNORED = /\p{Default_Ignorable_Code_Point}/u

function hasVisible (value: string): boolean {
  for (const char of value) if (SHOWS.test(char) && !IGNORED.test(char)) return true
  return false
}

/**
 * 1 to 30 code points (one emoji is one character), no control characters,
 * no bidirectional controls (U+061C, U+200E/F, U+202A-202E, U+2066-2069:
 * they reorder what is shown, so "alice" can display as someone else's name),
 * and at least one visible character. Zero-width joiners inside emoji
 * sequences are kept: they are part of the emoji.
 */
export function parsePlayerName (value: string): string {
  const length = [...value].length
  if (length < 1 || length > 30 || /[\p{Cc}\p{Bidi_Control}]/u.test(value) || !hasVisible(value)) fail('invalid_player_name')
  return value
}

/** A base-10 integer within the exact range of a double; `007` is 7 and `-0` is 0. */
export function parseScore (value: string): number {
  if (!/^-?\d+$/.test(value)) fail('invalid_score')
  const score = Number(value)
  if (!Number.isSafeInteger(score)) fail('invalid_score')
  return score === 0 ? 0 : score
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
