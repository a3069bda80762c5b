import { MalformedValue, type RawParams } from '../lib/params.js'
import { FORMATS, type GamejoltFormat, refuse } from './answers.js'

/*
 * A Game Jolt request as it arrives (docs/gamejolt.md#paths): its version,
 * its endpoint under every spelling clients use, its parameters (query and
 * POST fields, each once, `requests[]` a list) and what its signature covers.
 */

export const VERSIONS = ['v1', 'v1_1', 'v1_2'] as const
export type GamejoltVersion = typeof VERSIONS[number]

/** The endpoints, by the name this service gives each. */
export const ENDPOINTS = [
  'users/auth', 'users', 'sessions/open', 'sessions/ping', 'sessions/check', 'sessions/close',
  'scores/add', 'scores', 'scores/tables', 'scores/get-rank',
  'trophies', 'trophies/add-achieved', 'trophies/remove-achieved',
  'data-store', 'data-store/set', 'data-store/update', 'data-store/remove', 'data-store/get-keys',
  'friends', 'time', 'batch'
] as const
export type Endpoint = typeof ENDPOINTS[number]

/** The endpoints a trailing `fetch` names too: GameMaker's `scores/fetch`, `data-store/fetch/`. */
const FETCHED = new Set<string>(['users', 'scores', 'trophies', 'data-store', 'friends', 'time'])

/**
 * The endpoint a path names below the version, however spelled: with or
 * without slashes around it, `_` for `-` (`data_store`, `add_achieved`,
 * `get_keys`, `get_rank`), any letter case, `/fetch` after a fetch.
 */
export function endpointOf (path: string): Endpoint | undefined {
  let name = path.replace(/^\/+|\/+$/g, '').replace(/\/{2,}/g, '/').replace(/_/g, '-').toLowerCase()
  if (name.endsWith('/fetch') && FETCHED.has(name.slice(0, -'/fetch'.length))) name = name.slice(0, -'/fetch'.length)
  // gj-unity-api 2.3 asks the time as get-time.
  if (name === 'get-time') name = 'time'
  return (ENDPOINTS as readonly string[]).includes(name) ? name as Endpoint : undefined
}

/** The parameters of a request: plain text by name; the batch's `requests[]` a list. */
export interface GamejoltParams {
  fields: Record<string, string>
  requests: string[]
}

/**
 * The query and POST fields as one map. A name sent twice with different
 * values is refused, as in the rest of the service (Game Jolt's PHP would
 * keep one of them silently), except `requests[]`, the batch's list.
 */
export function paramsOf (query: RawParams, post: ReadonlyArray<readonly [string, string]>): GamejoltParams {
  const fields: Record<string, string> = Object.create(null)
  const requests: string[] = []
  const add = (name: string, value: string): void => {
    if (name === 'requests[]') {
      requests.push(value)
      return
    }
    // The same value twice is one (gamejolt-ts-sdk sends username and user_token twice in a hosted build).
    if (Object.hasOwn(fields, name) && fields[name] !== value) refuse(`The parameter ${name.slice(0, 40)} was sent more than once, with different values.`)
    fields[name] = value
  }
  for (const name of Object.keys(query)) {
    const value = query[name] as string | string[] | MalformedValue
    if (value instanceof MalformedValue) refuse(`The parameter ${name.slice(0, 40)} has a malformed percent-encoding.`)
    for (const one of Array.isArray(value) ? value : [value]) add(name, one)
  }
  for (const [name, value] of post) add(name, value)
  return { fields, requests }
}

/** The POST fields of a form body, in the order sent (the signature wants each pair so); null for a malformed one. */
export function postFieldsOf (body: string): Array<[string, string]> | null {
  const decode = (text: string): string => decodeURIComponent(text.replace(/\+/g, ' '))
  const pairs: Array<[string, string]> = []
  try {
    for (const pair of body.split('&')) {
      if (pair === '') continue
      const eq = pair.indexOf('=')
      pairs.push([decode(eq === -1 ? pair : pair.slice(0, eq)), decode(eq === -1 ? '' : pair.slice(eq + 1))])
    }
  } catch {
    return null
  }
  return pairs
}

/** The format asked for: json unless one of the others is named. */
export function formatOf (fields: Record<string, string>): GamejoltFormat {
  const asked = fields.format?.toLowerCase()
  return (FORMATS as readonly string[]).includes(asked ?? '') ? asked as GamejoltFormat : 'json'
}
