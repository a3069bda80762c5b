import { ApiError, fail } from '../errors.js'

/**
 * Request parameters: the query and form parsers, one map of a request's
 * parameters, and reading a parameter from it. Everything here treats its
 * input as hostile: maps are null-prototype, a repeated parameter is refused,
 * and a value that is not plain text is refused. The rule for each field is
 * in src/rules/.
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
    // A malformed value wins over a repeat: the encoding is checked first (docs/interface.md#check-order).
    if (previous === undefined || stored instanceof MalformedValue) result[key] = stored
    else if (previous instanceof MalformedValue) continue
    else if (Array.isArray(previous)) previous.push(stored)
    else result[key] = [previous, stored]
  }
  return result
}

let lastQuery: { text: string, params: RawParams } | undefined

/**
 * The parser of query strings, for the router's `action` constraint and for
 * Fastify (its querystringParser). The router derives the action first and
 * Fastify parses the query right after, synchronously, for the same request:
 * the second call takes the first one's result, once, so a request's query
 * is parsed once. Handed over once only, so no two requests share an object.
 */
export function parseQuery (text: string): RawParams {
  if (lastQuery !== undefined && lastQuery.text === text) {
    const { params } = lastQuery
    lastQuery = undefined
    return params
  }
  const params = parseUrlEncoded(text)
  lastQuery = { text, params }
  return params
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
