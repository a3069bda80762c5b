import { createHash, timingSafeEqual } from 'node:crypto'

/*
 * Game Jolt's request signature (docs/gamejolt.md#signatures): MD5 or SHA-1,
 * told apart by length, of the request's URL without its signature pair,
 * then the POST fields sorted by name (`name` + `value`, each element of an
 * array field under its name without `[]`), then the game's private key.
 *
 * The clients agree on that and on little else: some sign the URL they send,
 * byte for byte; some sign raw values their HTTP stack then percent-encodes
 * (spaces as `%20` or `+`); the docs' own examples are signed over
 * `http://api.gamejolt.com` while sent to `https://`; a hosted HTML5 build
 * signs Game Jolt's address and reaches this one. So the signature is
 * checked against each way a client may have written the same request, and
 * every one of them ends with the private key: a wrong key matches none.
 */

/** What a private key may look like: Game Jolt's are 32 hex digits; a game keeps its own. */
export const GAMEJOLT_KEY_PATTERN = /^[\x21-\x7e]{8,128}$/

/** The hosts a client may have signed besides the one it reached: Game Jolt's own. */
const GAMEJOLT_HOSTS = ['api.gamejolt.com', 'gamejolt.com']

/** A request as it arrived, for its signature. */
export interface SignedRequest {
  /** The path as the client sent it, `/api/game/v1_2/scores/add/` (a batch's sub-request: `/scores/add/`). */
  path: string
  /** The query as the client sent it, without `?`, the signature pair included. */
  query: string
  /** What began the query: `?`, or `&` in a URL that has no `?` (GameJolt.NET without a table id). */
  separator?: '?' | '&'
  /** The hosts (with port) the client may have addressed: the request's own, the public origin's. */
  hosts: readonly string[]
  /** POST fields in the order sent, decoded; a repeated array field (`requests[]`) once per element. */
  post: ReadonlyArray<readonly [string, string]>
  /** Whether POST fields may be left out of the signature (v1 and v1_1 allowed it). */
  postUnsigned: boolean
  /** A batch's sub-request: signed over its path, without a scheme and host. */
  relative: boolean
}

/** The query without its `signature` pair (and the pair itself, for the parameters after it). */
function withoutSignature (query: string): { before: string, after: string } {
  const pairs = query === '' ? [] : query.split('&')
  const at = pairs.findIndex(pair => pair.split('=', 1)[0] === 'signature')
  if (at === -1) return { before: pairs.join('&'), after: '' }
  return { before: pairs.slice(0, at).join('&'), after: pairs.slice(at + 1).join('&') }
}

function decodeOr (text: string, plus: boolean): string | null {
  try {
    return decodeURIComponent(plus ? text.replace(/\+/g, ' ') : text)
  } catch {
    return null
  }
}

/**
 * The ways a client may have written a query it sent as `query`: as sent;
 * with its values decoded (it signed raw values; its HTTP stack encoded
 * them, spaces as %20, or as + which then means a space); decoded and
 * encoded again as JavaScript's encodeURIComponent writes it (a stack that
 * normalised what the client had encoded).
 */
function queryForms (query: string): string[] {
  if (query === '') return ['']
  const pairs = query.split('&').map(pair => {
    const eq = pair.indexOf('=')
    return eq === -1 ? [pair, null] as const : [pair.slice(0, eq), pair.slice(eq + 1)] as const
  })
  const forms = new Set([query])
  for (const plus of [false, true]) {
    const decoded = pairs.map(([name, value]) => [decodeOr(name, plus), value === null ? null : decodeOr(value, plus)] as const)
    if (decoded.some(([name, value], i) => name === null || (value === null && pairs[i]?.[1] !== null))) continue
    forms.add(decoded.map(([name, value]) => value === null ? name : `${name as string}=${value}`).join('&'))
    forms.add(decoded.map(([name, value]) => value === null ? encodeURIComponent(name as string) : `${encodeURIComponent(name as string)}=${encodeURIComponent(value)}`).join('&'))
  }
  return [...forms]
}

/** The POST part of what is signed: fields sorted by name (an array field's `[]` left out), name and value, nothing between. */
export function signedPostFields (post: ReadonlyArray<readonly [string, string]>): string {
  return post
    .map(([name, value]) => [name.endsWith('[]') ? name.slice(0, -2) : name, value] as const)
    // Sorted by name only, so an array's elements keep their order (a stable sort).
    .sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0)
    .map(([name, value]) => `${name}${value}`)
    .join('')
}

/** Every text a client may have hashed for this request, before the private key. */
export function signedTexts (request: SignedRequest): string[] {
  const { before, after } = withoutSignature(request.query)
  // Parameters after the signature pair that a client may add once it has signed: only the format.
  const queries = [before === '' ? after : after === '' ? before : `${before}&${after}`]
  if (/^format=[a-z]+$/.test(after)) queries.push(before)
  const prefixes = request.relative
    ? ['']
    : [...new Set([...request.hosts, ...GAMEJOLT_HOSTS])].flatMap(host => [`http://${host}`, `https://${host}`])
  const posts = [signedPostFields(request.post), ...(request.postUnsigned && request.post.length > 0 ? [''] : [])]
  const texts = new Set<string>()
  for (const query of queries) {
    for (const form of queryForms(query)) {
      for (const prefix of prefixes) {
        const url = `${prefix}${request.path}${form === '' ? '' : `${request.separator ?? '?'}${form}`}`
        for (const post of posts) texts.add(`${url}${post}`)
      }
    }
  }
  return [...texts]
}

/** Whether `signature` (MD5 or SHA-1, hex, any case) signs the request with `privateKey`. */
export function gamejoltSignatureMatches (request: SignedRequest, privateKey: string, signature: string): boolean {
  const algorithm = signature.length === 32 ? 'md5' : signature.length === 40 ? 'sha1' : null
  if (algorithm === null || !/^[0-9a-fA-F]+$/.test(signature)) return false
  const given = Buffer.from(signature.toLowerCase(), 'latin1')
  // The likeliest forms come first, so a good signature costs a hash or two; each comparison is constant-time.
  for (const text of signedTexts(request)) {
    const digest = Buffer.from(createHash(algorithm).update(`${text}${privateKey}`, 'utf8').digest('hex'), 'latin1')
    if (timingSafeEqual(digest, given)) return true
  }
  return false
}
