/**
 * Client SDK of the ranking service, for external games and sites: `submit`
 * (signed with HMAC-SHA256 through WebCrypto, in browsers and in Node 20+),
 * `top`, `me`, `around` and `players` on the all-time board, a period's or a
 * season's, the game's `periods` and `seasons`, and `live`, a board that
 * updates itself (Server-Sent Events). No runtime dependencies.
 *
 * Keep `apiSecret` on a server you control: a secret shipped inside a
 * browser game can be read by any player, who can then submit any score.
 */

import type { AchievementUnlocks, AchievementsResult, AroundResult, BoardChoice, BoardSubmitted, ErrorCode, MeResult, PeriodsResult, RunReported, RunStarted, SeasonsResult, SubmitResult, TopResult, Unlocked } from './answers.js'

export type * from './answers.js'
// How a board's scores are shown (docs/interface.md#score-formats).
export { DEFAULT_SCORE_FORMAT, SCORE_FORMAT_TYPES, formatScore, type ScoreFormat, type ScoreFormatType } from './format.js'

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

/** A live board: close() ends it; `closed` resolves once it has ended for good. */
export interface LiveBoard {
  close: () => void
  readonly closed: Promise<void>
}

export interface LiveHandlers {
  /** Each new top: at once, then whenever the board changes. */
  onTop: (top: TopResult) => void
  /**
   * A failure. After a passing one (network_error, rate_limited,
   * unavailable, the service closing the stream) the board reconnects by
   * itself; after any other (invalid_key, invalid_param...) it has ended.
   */
  onError?: (error: RankingError) => void
  /** The game's achievement unlocks, as they happen (hidden achievements masked). */
  onAchievement?: (unlocks: AchievementUnlocks) => void
}

/** The failures after which a live board connects again by itself. */
const PASSING: ReadonlySet<ErrorCode> = new Set(['network_error', 'rate_limited', 'unavailable', 'internal_error'])

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

/**
 * The five signed values, exactly as sent, joined by `|`, and for a score
 * to a named board its id as a sixth (docs/interface.md#signature): the v1
 * text for the game's own board, whether `board` is absent or `default`.
 */
export function signatureBase (fields: { api_key: string, game_id: string, player_name: string, score: string, ts: string, board?: string }): string {
  const values = [fields.api_key, fields.game_id, fields.player_name, fields.score, fields.ts]
  if (fields.board !== undefined && fields.board !== 'default') values.push(fields.board)
  return values.join('|')
}

const encoder = new TextEncoder()

/** Adds the board choice to a request's fields, as the service names them. */
function withBoardChoice (fields: Record<string, string>, choice: BoardChoice): Record<string, string> {
  if (choice.board !== undefined) fields.board = choice.board
  if (choice.period !== undefined) fields.period = choice.period
  if (choice.periodId !== undefined) fields.period_id = choice.periodId
  if (choice.seasonId !== undefined) fields.season_id = String(choice.seasonId)
  return fields
}

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
    /**
     * Starts a run of a player (docs/interface.md#runs), signed like a submit:
     * the game session a score is tied to. Send its runId with the play
     * reports (reportRun) and the player's submit. Without apiSecret (a
     * browser game of a game that allows submit-run) it is started unsigned.
     */
    async startRun (input: { gameId: string, playerName: string }): Promise<RunStarted> {
      if (options.apiSecret === undefined) return await call<RunStarted>('POST', 'run-start', { api_key: options.apiKey, game_id: input.gameId, player_name: input.playerName })
      const fields = {
        api_key: options.apiKey,
        game_id: input.gameId,
        player_name: input.playerName,
        ts: String(Math.floor((now() + clockOffsetMs) / 1000))
      }
      // Signed like a submit, with the text run-start where the score goes.
      const sign = await hmacSha256Hex(options.apiSecret, signatureBase({ ...fields, score: 'run-start' }))
      return await call<RunStarted>('POST', 'run-start', { ...fields, sign })
    },

    /**
     * Reports the play of a run since the last report (1 to 300 seconds):
     * its verified play grows under the wall-clock rule. Report every 30 s
     * or so while the game is played, and once just before submitting.
     */
    async reportRun (input: { gameId: string, playerName: string, runId: string, seconds: number }): Promise<RunReported> {
      return await call<RunReported>('POST', 'run-report', { api_key: options.apiKey, game_id: input.gameId, player_name: input.playerName, run_id: input.runId, seconds: String(input.seconds) })
    },

    /**
     * Submits the score of a run without the secret: for a browser game
     * without a server, of a game whose operator allows submit-run. Only the
     * run's plausibility rules and the review queue guard such scores.
     */
    async submitRun (input: { gameId: string, playerName: string, runId: string, score: number | bigint | string, meta?: unknown }): Promise<SubmitResult> {
      const body: Record<string, string> = { api_key: options.apiKey, game_id: input.gameId, player_name: input.playerName, run_id: input.runId, score: String(input.score) }
      if (input.meta !== undefined) body.meta = typeof input.meta === 'string' ? input.meta : JSON.stringify(input.meta)
      return await call<SubmitResult>('POST', 'submit-run', body)
    },

    /**
     * Submits a score (to a named board with `board`; with the run that
     * earned it, when given); resolves with the stored best and rank,
     * rejects with a RankingError.
     */
    async submit (input: { gameId: string, playerName: string, score: number | bigint | string, board?: string, meta?: unknown, runId?: string }): Promise<SubmitResult> {
      if (options.apiSecret === undefined) throw new RankingError('missing_param', 'submit needs apiSecret (on a server you control).')
      const fields: { api_key: string, game_id: string, player_name: string, score: string, ts: string, board?: string } = {
        api_key: options.apiKey,
        game_id: input.gameId,
        player_name: input.playerName,
        score: String(input.score),
        ts: String(Math.floor((now() + clockOffsetMs) / 1000))
      }
      if (input.board !== undefined) fields.board = input.board
      const sign = await hmacSha256Hex(options.apiSecret, signatureBase(fields))
      const body: Record<string, string> = { ...fields, sign }
      if (input.meta !== undefined) body.meta = typeof input.meta === 'string' ? input.meta : JSON.stringify(input.meta)
      if (input.runId !== undefined) body.run_id = input.runId
      return await call<SubmitResult>('POST', 'submit', body)
    },

    /**
     * Submits one score for each of 2 to 10 boards ('default' for the game's
     * own) in one signed request, stored in one step: each board takes or
     * refuses its score on its own, and the answer gives each board's part
     * in the order given (docs/interface.md#one-submit-several-boards).
     */
    async submitBoards (input: { gameId: string, playerName: string, scores: Array<{ board: string, score: number | bigint | string }>, meta?: unknown }): Promise<{ boards: BoardSubmitted[] }> {
      if (options.apiSecret === undefined) throw new RankingError('missing_param', 'submitBoards needs apiSecret (on a server you control).')
      const fields = {
        api_key: options.apiKey,
        game_id: input.gameId,
        player_name: input.playerName,
        score: input.scores.map(({ score }) => String(score)).join(','),
        ts: String(Math.floor((now() + clockOffsetMs) / 1000)),
        board: input.scores.map(({ board }) => board).join(',')
      }
      const sign = await hmacSha256Hex(options.apiSecret, signatureBase(fields))
      const body: Record<string, string> = { ...fields, sign }
      if (input.meta !== undefined) body.meta = typeof input.meta === 'string' ? input.meta : JSON.stringify(input.meta)
      return await call<{ boards: BoardSubmitted[] }>('POST', 'submit', body)
    },

    /**
     * The game's achievements, with a player's unlocks when `playerName` is
     * given: signed with apiSecret (on a server), the hidden ones the player
     * unlocked are shown; without it, every hidden one is masked.
     */
    async achievements (input: { gameId: string, playerName?: string }): Promise<AchievementsResult> {
      const fields: Record<string, string> = { api_key: options.apiKey, game_id: input.gameId }
      if (input.playerName === undefined) return await call<AchievementsResult>('GET', 'achievements', fields)
      fields.player_name = input.playerName
      if (options.apiSecret === undefined) return await call<AchievementsResult>('GET', 'achievements', fields)
      const ts = String(Math.floor((now() + clockOffsetMs) / 1000))
      // Signed like a submit, with the text achievements where the score goes.
      const sign = await hmacSha256Hex(options.apiSecret, signatureBase({ api_key: options.apiKey, game_id: input.gameId, player_name: input.playerName, score: 'achievements', ts }))
      return await call<AchievementsResult>('GET', 'achievements', { ...fields, ts, sign })
    },

    /** Unlocks an achievement for a player (once: again answers unlocked false), with the run it was earned in where the game keeps runs. */
    async unlock (input: { gameId: string, playerName: string, achievementId: string, runId?: string }): Promise<Unlocked> {
      if (options.apiSecret === undefined) throw new RankingError('missing_param', 'unlock needs apiSecret (on a server you control).')
      const fields = { api_key: options.apiKey, game_id: input.gameId, player_name: input.playerName, achievement_id: input.achievementId, ts: String(Math.floor((now() + clockOffsetMs) / 1000)) }
      // Signed like a submit, with unlock:<id> where the score goes: a signature unlocks no other achievement.
      const sign = await hmacSha256Hex(options.apiSecret, signatureBase({ ...fields, score: `unlock:${input.achievementId}` }))
      return await call<Unlocked>('POST', 'unlock', { ...fields, ...(input.runId === undefined ? {} : { run_id: input.runId }), sign })
    },

    async top (input: BoardChoice & { gameId: string, limit?: number, offset?: number }): Promise<TopResult> {
      const fields: Record<string, string> = { api_key: options.apiKey, game_id: input.gameId }
      if (input.limit !== undefined) fields.limit = String(input.limit)
      if (input.offset !== undefined) fields.offset = String(input.offset)
      return await call<TopResult>('GET', 'top', withBoardChoice(fields, input))
    },

    async me (input: BoardChoice & { gameId: string, playerName: string }): Promise<MeResult> {
      return await call<MeResult>('GET', 'me', withBoardChoice({ api_key: options.apiKey, game_id: input.gameId, player_name: input.playerName }, input))
    },

    /** A player and the entries above (`before`) and below (`after`) them, 0 to 50 each (default 5). */
    async around (input: BoardChoice & { gameId: string, playerName: string, before?: number, after?: number }): Promise<AroundResult> {
      const fields: Record<string, string> = { api_key: options.apiKey, game_id: input.gameId, player_name: input.playerName }
      if (input.before !== undefined) fields.before = String(input.before)
      if (input.after !== undefined) fields.after = String(input.after)
      return await call<AroundResult>('GET', 'around', withBoardChoice(fields, input))
    },

    /**
     * The named players (friends, up to 100) in board order, each with their
     * rank on the whole board; names not on the board are left out. Sent as
     * a form body (POST), which holds any 100 names where a URL may not.
     */
    async players (input: BoardChoice & { gameId: string, playerNames: readonly string[] }): Promise<TopResult> {
      const fields = { api_key: options.apiKey, game_id: input.gameId, player_names: JSON.stringify(input.playerNames) }
      return await call<TopResult>('POST', 'players', withBoardChoice(fields, input))
    },

    /** The periods the game (or its named board `board`) keeps, current and past, with their bounds. */
    async periods (input: { gameId: string, board?: string }): Promise<PeriodsResult> {
      return await call<PeriodsResult>('GET', 'periods', withBoardChoice({ api_key: options.apiKey, game_id: input.gameId }, { board: input.board }))
    },

    /** The seasons of the all-time board, oldest first (a named board's from the season it was made in). */
    async seasons (input: { gameId: string, board?: string }): Promise<SeasonsResult> {
      return await call<SeasonsResult>('GET', 'seasons', withBoardChoice({ api_key: options.apiKey, game_id: input.gameId }, { board: input.board }))
    },

    /**
     * A board that updates itself: `onTop` gets the top at once, then again
     * whenever it changes (Server-Sent Events, read with fetch in Node 20+
     * and browsers). It reconnects after the service closes the stream or a
     * passing failure, waiting what the service asks (`retry`, or
     * Retry-After), and ends on any other failure or on close().
     */
    live (input: BoardChoice & { gameId: string, limit?: number }, handlers: LiveHandlers): LiveBoard {
      const fields: Record<string, string> = { action: 'live', api_key: options.apiKey, game_id: input.gameId }
      if (input.limit !== undefined) fields.limit = String(input.limit)
      const url = `${baseUrl}/api/rank?${new URLSearchParams(withBoardChoice(fields, input)).toString()}`
      const controller = new AbortController()
      let retryMs = 2000
      const fail = (error: RankingError): boolean => {
        handlers.onError?.(error)
        if (error.retryAfter !== undefined) retryMs = Math.max(retryMs, error.retryAfter * 1000)
        return PASSING.has(error.code)
      }
      /** One connection; true when the board should connect again. */
      async function connect (): Promise<boolean> {
        let response: Response
        try {
          response = await doFetch(url, { headers: { accept: 'text/event-stream' }, signal: controller.signal })
        } catch (error) {
          return !controller.signal.aborted && fail(new RankingError('network_error', `The ranking service could not be reached: ${(error as Error).message}`))
        }
        if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream') || response.body === null) {
          const envelope = await response.json().catch(() => null) as { ok: boolean, error: ErrorCode, message: string } | null
          const retryAfter = response.headers.get('retry-after')
          return fail(envelope === null || envelope.ok
            ? new RankingError('network_error', `The ranking service answered HTTP ${response.status} without a stream.`)
            : new RankingError(envelope.error, envelope.message, retryAfter === null ? undefined : Number(retryAfter)))
        }
        const decoder = new TextDecoder()
        let buffered = ''
        let event = 'message'
        let data: string[] = []
        try {
          for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
            buffered += decoder.decode(chunk, { stream: true })
            let newline: number
            while ((newline = buffered.indexOf('\n')) >= 0) {
              const line = buffered.slice(0, newline).replace(/\r$/, '')
              buffered = buffered.slice(newline + 1)
              if (line === '') {
                if (data.length > 0 && event === 'top') handlers.onTop(JSON.parse(data.join('\n')) as TopResult)
                if (data.length > 0 && event === 'achievement.unlocked') handlers.onAchievement?.(JSON.parse(data.join('\n')) as AchievementUnlocks)
                if (data.length > 0 && event === 'error') {
                  const envelope = JSON.parse(data.join('\n')) as { error: ErrorCode, message: string }
                  return fail(new RankingError(envelope.error, envelope.message))
                }
                event = 'message'
                data = []
              } else if (line.startsWith('data:')) {
                data.push(line.slice(5).replace(/^ /, ''))
              } else if (line.startsWith('event:')) {
                event = line.slice(6).trim()
              } else if (line.startsWith('retry:') && /^\d+$/.test(line.slice(6).trim())) {
                retryMs = Number(line.slice(6).trim())
              }
            }
          }
        } catch (error) {
          if (controller.signal.aborted) return false
          return fail(new RankingError('network_error', `The live board's connection dropped: ${(error as Error).message}`))
        }
        // The service ended the stream (it is restarting): connect again.
        return !controller.signal.aborted
      }
      const closed = (async () => {
        while (await connect()) {
          await new Promise<void>(resolve => {
            const timer = setTimeout(resolve, retryMs)
            controller.signal.addEventListener('abort', () => { clearTimeout(timer); resolve() }, { once: true })
          })
          if (controller.signal.aborted) return
        }
      })()
      return { close: () => { controller.abort() }, closed }
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
