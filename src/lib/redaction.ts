/*
 * What the logs may show of a request and of an error: secrets in a URL
 * (query values, admin path segments) replaced, errors without the
 * properties libraries attach. The logger's serializers use them
 * (src/server-options.ts).
 */

/**
 * Parameters whose values must never reach a log line, by their decoded name
 * in lower case with everything but letters taken out (so `SIGN`, `%73ign`
 * and `sign%00` are all `sign`); and any name that speaks of a secret.
 * Game Jolt's `user_token` is a token, and so is `gjapi_token` in a hosted
 * game's address (the play page names its player so); a batch's
 * `requests[]` carry their sub-requests whole, tokens included.
 */
const SECRET_PARAMS = new Set(['apikey', 'apisecret', 'sign', 'password', 'sessionid', 'privatekey', 'requests'])
const SECRET_WORDS = /password|secret|token/
/** Admin collections whose next path segment is a secret (an API key, a session id). */
const SECRET_COLLECTIONS = new Set(['keys', 'sessions'])

function decodeOr (raw: string, fallback: string | null): string | null {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '))
  } catch {
    return fallback
  }
}

function isSecretName (raw: string): boolean {
  const name = decodeOr(raw, null)
  if (name === null) return true // a name that cannot be decoded hides its value
  const letters = name.toLowerCase().replace(/[^a-z]/g, '')
  return SECRET_PARAMS.has(letters) || SECRET_WORDS.test(letters)
}

/** `/admin/keys/<key>` and `/admin/sessions/<id>` however spelled: any case, doubled slashes, percent-encoded letters. */
function redactPath (path: string): string {
  const segments = path.split('/')
  let previous: string[] = []
  for (const [index, segment] of segments.entries()) {
    if (segment === '') continue
    if (previous[0] === 'admin' && SECRET_COLLECTIONS.has(previous[1] ?? '')) segments[index] = '[redacted]'
    previous = [previous[1] ?? '', (decodeOr(segment, segment) as string).toLowerCase()]
  }
  return segments.join('/')
}

/**
 * A query string as it may be logged: the value of every parameter whose name
 * is secret, up to the next `&` (where the parser ends it). A secret named
 * after a `;` (some parsers split there too) is hidden up to the same `&`, so
 * no reading of the query shows any of it.
 */
function redactQuery (query: string): string {
  return query.split('&').map(pair => {
    const equals = pair.indexOf('=')
    if (equals !== -1 && isSecretName(pair.slice(0, equals))) return `${pair.slice(0, equals)}=[redacted]`
    for (const match of pair.matchAll(/;([^;=]*)=/g)) {
      if (isSecretName(match[1] as string)) return `${pair.slice(0, match.index + match[0].length)}[redacted]`
    }
    return pair
  }).join('&')
}

/** A URL as it may be logged: secret admin path segments and secret query values replaced. */
export function redactUrl (url: string): string {
  const query = url.indexOf('?')
  if (query === -1) return redactPath(url)
  return `${redactPath(url.slice(0, query))}?${redactQuery(url.slice(query + 1))}`
}

/**
 * Errors as logs show them: what went wrong and where, never the extra
 * properties libraries attach (Node's `rawPacket` holds the raw request with
 * its Authorization and Cookie headers; ioredis's `command` holds a script's
 * arguments, secrets included).
 */
export function serializeError (error: Error & { code?: unknown, statusCode?: unknown }): { type: string, message: string, stack: string, [key: string]: unknown } {
  if (!(error instanceof Error)) return { type: typeof error, message: String(error), stack: '' }
  return { type: error.name, message: error.message, stack: error.stack ?? '', code: error.code, statusCode: error.statusCode }
}
