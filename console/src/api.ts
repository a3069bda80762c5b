/*
 * The operator API as the console calls it: the token kept for this tab only
 * (sessionStorage, gone when the tab closes) and sent as the bearer header,
 * never in a URL; every failure turned into a sentence for the page.
 */
const TOKEN = 'ranking-console-token'

export function savedToken (): string | null {
  return sessionStorage.getItem(TOKEN)
}
export function saveToken (token: string): void {
  sessionStorage.setItem(TOKEN, token)
}
export function forgetToken (): void {
  sessionStorage.removeItem(TOKEN)
}

/** An answer of the operator API that was not ok, as the page shows it. */
export class ApiProblem extends Error {
  constructor (readonly code: string, message: string) {
    super(message)
  }
}

/** What each error code means to an operator, when the service sent no message of its own. */
const SENTENCES: Record<string, string> = {
  unauthorized: 'This token is not one of the service\'s operator tokens. Sign in again.',
  forbidden: 'This token is a viewer\'s: it can look, but not change anything.',
  not_found: 'That no longer exists. It may have been deleted by someone else.',
  rate_limited: 'Too many requests just now. Wait a moment and try again.',
  unavailable: 'The service cannot reach its database right now. Try again in a moment.',
  internal_error: 'The service failed to do that. Its log says why.'
}

/** The sentence for an error answer: the service's message, which is already one, or ours. */
function sentenceOf (code: string, message: unknown): string {
  if (typeof message === 'string' && message !== '') return message
  return SENTENCES[code] ?? `The service refused that (${code}).`
}

type Query = Record<string, string | number | boolean | undefined | null>

export function withQuery (path: string, query: Query = {}): string {
  const search = new URLSearchParams()
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== null && value !== '') search.set(name, String(value))
  const text = search.toString()
  return text === '' ? path : `${path}?${text}`
}

/**
 * Calls the operator API; resolves with `data`, rejects with an ApiProblem
 * whose message is a sentence. A Blob (a file) is sent as its bytes, with
 * its type; anything else as JSON.
 */
export async function api<T = any> (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown, token = savedToken()): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' }
  if (token !== null) headers.authorization = `Bearer ${token}`
  const file = body instanceof Blob
  if (body !== undefined) headers['content-type'] = file ? (body.type === '' ? 'application/octet-stream' : body.type) : 'application/json'
  let response: Response
  try {
    response = await fetch(path, { method, headers, body: body === undefined ? undefined : file ? body : JSON.stringify(body), credentials: 'omit', cache: 'no-store' })
  } catch {
    throw new ApiProblem('offline', 'The service did not answer. Check that it is running and that this computer is online.')
  }
  let answer: { ok?: boolean, data?: T, error?: string, message?: string }
  try {
    answer = await response.json()
  } catch {
    throw new ApiProblem('bad_answer', `The service answered with something that is not the API's (HTTP ${response.status}).`)
  }
  if (answer.ok === true) return answer.data as T
  const code = typeof answer.error === 'string' ? answer.error : 'unknown'
  throw new ApiProblem(code, sentenceOf(code, answer.message))
}

export const gamePath = (gameId: string, rest = ''): string => `/admin/games/${encodeURIComponent(gameId)}${rest}`

/**
 * A file the operator API sends as an attachment (an export), read whole
 * (for what the console shows or saves), with the name the service gives
 * it; a failure before it (the JSON envelope) as an ApiProblem.
 */
export async function apiFile (path: string, token = savedToken()): Promise<{ blob: Blob, filename: string }> {
  let response: Response
  try {
    response = await fetch(path, { headers: token === null ? {} : { authorization: `Bearer ${token}` }, credentials: 'omit', cache: 'no-store' })
  } catch {
    throw new ApiProblem('offline', 'The service did not answer. Check that it is running and that this computer is online.')
  }
  if ((response.headers.get('content-type') ?? '').startsWith('application/json')) {
    const answer = await response.json().catch(() => ({})) as { error?: string, message?: string }
    const code = typeof answer.error === 'string' ? answer.error : 'unknown'
    throw new ApiProblem(code, sentenceOf(code, answer.message))
  }
  if (!response.ok) throw new ApiProblem('bad_answer', `The service answered with something that is not the API's (HTTP ${response.status}).`)
  const filename = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? 'export'
  return { blob: await response.blob(), filename }
}

/** Saves a file as the browser's download. */
export function saveFile ({ blob, filename }: { blob: Blob, filename: string }): void {
  const url = URL.createObjectURL(blob)
  const link = document.createElement('a')
  link.href = url
  link.download = filename
  link.click()
  setTimeout(() => { URL.revokeObjectURL(url) }, 10_000)
}
