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

/** Never in a name: controls, line and paragraph separators, bidirectional controls, lone surrogates. */
const NEVER = /[\p{Cc}\p{Zl}\p{Zp}\p{Bidi_Control}\p{Cs}]/u
/** Characters that draw nothing, or change how their neighbours draw (Unicode's default-ignorables and format characters). */
const INVISIBLE = /[\p{Default_Ignorable_Code_Point}\p{Cf}]/u
/** A character that draws something: a letter, digit, punctuation or symbol (emoji are symbols). */
const SHOWS = /[\p{L}\p{N}\p{P}\p{S}]/u
/** Symbols that draw a blank all the same. */
const BLANKS = new Set(['\u2800', '\u{1D159}'])

const ZWJ = '\u200D'
const ZWNJ = '\u200C'
const BLACK_FLAG = '\u{1F3F4}'
const EMOJI_BEFORE_JOINER = /[\p{Extended_Pictographic}\p{Emoji_Modifier}\uFE0F]/u
const EMOJI = /\p{Extended_Pictographic}/u
/** Letters of scripts where a zero-width non-joiner changes how letters join (Arabic, Persian, Indic...). */
const JOINING_LETTER = /(?![\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}])\p{L}/u
const isTag = (char: string): boolean => char >= '\u{E0020}' && char <= '\u{E007F}'
const isVariationSelector = (char: string): boolean => char >= '\uFE00' && char <= '\uFE0F'

/**
 * An invisible character is kept only where it is part of what is drawn: a
 * joiner inside an emoji sequence, a non-joiner between letters of a script
 * that uses it, a variation selector after an emoji, the tags of a
 * subdivision flag. Anywhere else it only makes one name look like another
 * ("al\u200Bice" draws as "alice").
 */
function invisibleBelongs (chars: string[], index: number): boolean {
  const char = chars[index] as string
  const before = chars[index - 1] ?? ''
  const after = chars[index + 1] ?? ''
  if (char === ZWJ) return EMOJI_BEFORE_JOINER.test(before) && EMOJI.test(after)
  if (char === ZWNJ) return JOINING_LETTER.test(before) && JOINING_LETTER.test(after)
  if (isVariationSelector(char)) return /\p{Emoji}/u.test(before)
  if (isTag(char)) {
    let start = index
    while (start > 0 && isTag(chars[start - 1] as string)) start--
    return chars[start - 1] === BLACK_FLAG
  }
  return false
}

/**
 * 1 to 30 code points (one emoji is one character), at least one of which is
 * drawn; no control, separator or bidirectional character (they reorder what
 * is shown, so "alice" can display as someone else's name); invisible
 * characters only where they belong to what is drawn (invisibleBelongs).
 */
export function parsePlayerName (value: string): string {
  const chars = [...value]
  if (chars.length < 1 || chars.length > 30 || NEVER.test(value)) fail('invalid_player_name')
  let drawn = false
  for (const [index, char] of chars.entries()) {
    if (INVISIBLE.test(char)) {
      if (!invisibleBelongs(chars, index)) fail('invalid_player_name')
    } else if (SHOWS.test(char) && !BLANKS.has(char)) {
      drawn = true
    }
  }
  if (!drawn) fail('invalid_player_name')
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
