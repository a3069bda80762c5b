/**
 * Client SDK of the ranking service, for external games and sites: `submit`
 * (signed with HMAC-SHA256 through WebCrypto, in browsers and in Node 20+),
 * `top` and `me`. No runtime dependencies.
 *
 * Keep `apiSecret` on a server you control: a secret shipped inside a
 * browser game can be read by any player, who can then submit any score.
 */

/**
 * Every error code the service answers with (docs/interface.md#error-codes;
 * the service defines them in src/http/envelope.ts, and
 * test/sdk-package.test.ts checks this list against the service's OpenAPI
 * document), plus `network_error`: the request did not get a JSON envelope
 * back. Written out here so the published package stands on its own.
 */
export type ErrorCode =
  | 'missing_param'
  | 'invalid_key'
  | 'key_revoked'
  | 'key_game_mismatch'
  | 'invalid_game'
  | 'invalid_signature'
  | 'expired_ts'
  | 'rate_limited'
  | 'not_logged_in'
  | 'invalid_stars'
  | 'invalid_score'
  | 'invalid_player_name'
  | 'invalid_meta'
  | 'invalid_seconds'
  | 'invalid_param'
  | 'unknown_action'
  | 'method_not_allowed'
  | 'not_found'
  | 'invalid_body'
  | 'payload_too_large'
  | 'forbidden_origin'
  | 'unauthorized'
  | 'already_exists'
  | 'invalid_credentials'
  | 'quota_exceeded'
  | 'unavailable'
  | 'internal_error'
  | 'network_error'

export class RankingError extends Error {
  readonly code: ErrorCode
  /** Seconds to wait, from `Retry-After`, when code is rate_limited. */
  readonly retryAfter: number | undefined

  constructor (code: ErrorCode, message: string, retryAfter?: number) {
    super(message)
    this.name = 'RankingError'
    this.code = code
    this.retryAfter = retryAfter
  }
}

export interface SubmitResult {
  score: number
  improved: boolean
  best_score: number
  /** null while the player is hidden. */
  rank: number | null
}

export interface BoardItem {
  rank: number
  player_name: string
  score: number
  /** ISO 8601 UTC with milliseconds: when the best score was reached. */
  created_at: string
}

export interface TopResult {
  game_id: string
  total: number
  items: BoardItem[]
}

export interface Standing {
  player_name: string
  best_score: number | null
  rank: number | null
}

export interface RankingClientOptions {
  /** e.g. https://games.example.com */
  baseUrl: string
  apiKey: string
  /** Needed by submit only. Server side only: see the note at the top. */
  apiSecret?: string
  /** Added to this machine's clock when signing, for players whose clock is wrong. */
  clockOffsetMs?: number
  /** This machine's clock in ms (default Date.now), if the game keeps its own. */
  now?: () => number
  /** Another fetch (tests, old runtimes). */
  fetch?: typeof fetch
}

/** The five signed values, exactly as sent, joined by `|` (docs/interface.md#signature). */
export function signatureBase (fields: { api_key: string, game_id: string, player_name: string, score: string, ts: string }): string {
  return [fields.api_key, fields.game_id, fields.player_name, fields.score, fields.ts].join('|')
}

const encoder = new TextEncoder()

/** Lowercase hex HMAC-SHA256 of `text` keyed with `secret`, through WebCrypto. */
export async function hmacSha256Hex (secret: string, text: string): Promise<string> {
  const subtle = globalThis.crypto?.subtle
  if (subtle === undefined) throw new RankingError('network_error', 'WebCrypto (crypto.subtle) is not available here; use HTTPS or Node 20+.')
  const key = await subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign'])
  const signature = new Uint8Array(await subtle.sign('HMAC', key, encoder.encode(text)))
  return Array.from(signature, byte => byte.toString(16).padStart(2, '0')).join('')
}

export function createRankingClient (options: RankingClientOptions) {
  const baseUrl = options.baseUrl.replace(/\/+$/, '')
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis)
  let clockOffsetMs = options.clockOffsetMs ?? 0
  const now = options.now ?? Date.now

  async function call<T> (method: 'GET' | 'POST', action: string, fields: Record<string, string>): Promise<T> {
    const query = new URLSearchParams({ action })
    const body = new URLSearchParams(fields)
    let response: Response
    try {
      response = method === 'GET'
        ? await doFetch(`${baseUrl}/api/rank?${query.toString()}&${body.toString()}`)
        : await doFetch(`${baseUrl}/api/rank?${query.toString()}`, { method: 'POST', body })
    } catch (error) {
      throw new RankingError('network_error', `The ranking service could not be reached: ${(error as Error).message}`)
    }
    let envelope: { ok: true, data: T } | { ok: false, error: ErrorCode, message: string }
    try {
      envelope = await response.json()
    } catch {
      throw new RankingError('network_error', `The ranking service answered HTTP ${response.status} without a JSON envelope.`)
    }
    if (envelope.ok) return envelope.data
    const retryAfter = response.headers.get('retry-after')
    throw new RankingError(envelope.error, envelope.message, retryAfter === null ? undefined : Number(retryAfter))
  }

  return {
    /** Submits a score; resolves with the stored best and rank, rejects with a RankingError. */
    async submit (input: { gameId: string, playerName: string, score: number | bigint | string, meta?: unknown }): Promise<SubmitResult> {
      if (options.apiSecret === undefined) throw new RankingError('missing_param', 'submit needs apiSecret (on a server you control).')
      const fields = {
        api_key: options.apiKey,
        game_id: input.gameId,
        player_name: input.playerName,
        score: String(input.score),
        ts: String(Math.floor((now() + clockOffsetMs) / 1000))
      }
      const sign = await hmacSha256Hex(options.apiSecret, signatureBase(fields))
      const body: Record<string, string> = { ...fields, sign }
      if (input.meta !== undefined) body.meta = typeof input.meta === 'string' ? input.meta : JSON.stringify(input.meta)
      return await call<SubmitResult>('POST', 'submit', body)
    },

    async top (input: { gameId: string, limit?: number, offset?: number }): Promise<TopResult> {
      const fields: Record<string, string> = { api_key: options.apiKey, game_id: input.gameId }
      if (input.limit !== undefined) fields.limit = String(input.limit)
      if (input.offset !== undefined) fields.offset = String(input.offset)
      return await call<TopResult>('GET', 'top', fields)
    },

    async me (input: { gameId: string, playerName: string }): Promise<Standing> {
      return await call<Standing>('GET', 'me', { api_key: options.apiKey, game_id: input.gameId, player_name: input.playerName })
    },

    /**
     * Measures this machine's clock against the service's (the `Date` header
     * of /healthz) and signs with the difference from then on. Returns it in ms.
     */
    async syncClock (): Promise<number> {
      const before = now()
      let response: Response
      try {
        response = await doFetch(`${baseUrl}/healthz`)
      } catch (error) {
        throw new RankingError('network_error', `The ranking service could not be reached: ${(error as Error).message}`)
      }
      const after = now()
      // A page on another origin cannot read the Date header unless the
      // service exposes it (CORS): that page gets this error too.
      const serverDate = Date.parse(response.headers.get('date') ?? '')
      if (Number.isNaN(serverDate)) throw new RankingError('network_error', 'The service sent no Date header (or, across origins, did not expose it).')
      // The Date header has whole seconds: aim at the middle of the second.
      clockOffsetMs = serverDate + 500 - (before + after) / 2
      return clockOffsetMs
    },

    get clockOffsetMs (): number {
      return clockOffsetMs
    }
  }
}

export type RankingClient = ReturnType<typeof createRankingClient>
