import { createHash } from 'node:crypto'
import { isIP } from 'node:net'
import fp from 'fastify-plugin'
import rateLimit, { normalizeIP, type FastifyRateLimitStoreCtor } from '@fastify/rate-limit'
import type { FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify'
import { ApiError } from '../../src/errors.js'
import { keys } from '../../src/store/keys.js'
import { createLimitStore, limitState, type Counter, type Limits, type LimitState } from '../../src/store/limits.js'
import type { KeyRecord } from '../../src/rules/games.js'
import { child, metrics } from '../../src/lib/metrics.js'

type StoreCallback = (error: Error | null, result: { current: number, ttl: number }) => void

/**
 * Every rate limit of the service, in one place (docs/interface.md#rate-limits and
 * docs/security.md). Fixed windows kept in Redis by @fastify/rate-limit, so
 * every instance shares the counters. A limit counts a subject:
 *
 * | limit         | subject                         | max per window                            |
 * |---------------|---------------------------------|-------------------------------------------|
 * | apiKey        | (api_key, address), or address  | RATE_LIMIT_MAX                            |
 * |               | for an unknown key              |                                           |
 * | apiKeyTotal   | a key's signed submits, across  | RATE_LIMIT_MAX × RATE_LIMIT_KEY_MULTIPLE  |
 * |               | addresses (public-action.ts)    |                                           |
 * | session       | user                            | SESSION_RATE_LIMIT_MAX                    |
 * | page          | address (the play page's board) | SESSION_RATE_LIMIT_MAX                    |
 * | loginAddress  | address                         | LOGIN_ADDRESS_RATE_LIMIT_MAX              |
 * | loginUsername | username, across addresses      | LOGIN_RATE_LIMIT_MAX                      |
 * | adminFailures | address; only wrong admin tokens| ADMIN_FAILURE_LIMIT                       |
 * | signupAddress | address, per hour               | SIGNUP_ADDRESS_RATE_LIMIT_MAX             |
 * | signupAll     | sign-ups whose proof of work    | SIGNUP_RATE_LIMIT_MAX                     |
 * |               | holds, from everywhere          |                                           |
 * | signinAddress | address (platform sign-ins)     | LOGIN_ADDRESS_RATE_LIMIT_MAX              |
 * | guestAddress  | address, per hour               | GUEST_ADDRESS_RATE_LIMIT_MAX              |
 * | guestAll      | guests made, from everywhere    | GUEST_RATE_LIMIT_MAX                      |
 *
 * An address is the client's IPv4 address, or its IPv6 /64 (one customer's
 * network gets one /64, so counting single IPv6 addresses counts nothing).
 */
export type LimitName = 'apiKey' | 'apiKeyTotal' | 'session' | 'page' | 'loginAddress' | 'loginUsername' | 'adminFailures' | 'signupAddress' | 'signupAll' | 'guestAddress' | 'guestAll' | 'signinAddress'

/** The limit whose counter a route's early failures report in their headers. */
export type RateLimitPolicy = 'apiKey' | 'session' | 'page' | 'loginAddress' | 'signupAddress' | 'guestAddress' | 'signinAddress'

export interface Limit { max: number, windowMs: number }

export const ADMIN_FAILURE_LIMIT: Limit = { max: 10, windowMs: 60_000 }

/**
 * The address a client is counted by: IPv4, or the /64 of an IPv6 address
 * (IPv4-mapped ones are IPv4). Behind a trusted proxy the address comes from
 * X-Forwarded-For, which may hold any text: that is counted by a short hash,
 * so no header can make a long Redis key.
 */
export function clientAddress (request: FastifyRequest): string {
  // A client that has already gone has no address (its closed socket forgot
  // it); what is answered to it goes nowhere, so it is counted as one of its own.
  if ((request.ip as string | undefined) === undefined) return 'gone'
  if (isIP(request.ip) === 0) return `text-${createHash('sha256').update(request.ip).digest('base64url').slice(0, 16)}`
  return normalizeIP(request.ip, 64)
}

/** Who the per-username login limit counts: hashed, so any text a client sent makes a safe key name. */
export function loginUsernameSubject (username: string): string {
  return createHash('sha256').update(username).digest('base64url').slice(0, 22)
}

declare module 'fastify' {
  interface FastifyContextConfig {
    rateLimitPolicy?: RateLimitPolicy
  }
  interface FastifyRequest {
    /** Who the route's own limit counts: set by the authentication step that precedes it. */
    rateLimitSubject?: string
    /** The route's limit was applied (and its headers set) for this request. */
    rateLimitApplied: boolean
  }
  interface FastifyInstance {
    /** preHandler: the route's limit (its rateLimitPolicy), after authentication set the subject. */
    limitRate: preHandlerAsyncHookHandler
    rateLimits: {
      /**
       * Counts the request against one limit; over it, rate_limited with
       * Retry-After. `headers` also sets x-ratelimit-* (the route's main limit).
       */
      enforce: (request: FastifyRequest, reply: FastifyReply, name: LimitName, subject: string, options?: { headers?: boolean }) => Promise<void>
      /**
       * The limits of an API-key request: the (key, address) counter, or the
       * address's for an unknown key, with the key's own rate_limit when it
       * has one; countKeyTotal adds the key's total once a signature holds.
       * Counted in its action's one script call, or by `settle` (below).
       */
      apiKey: (request: FastifyRequest, key: KeyRecord | null) => Limits & { countKeyTotal: () => void }
      /** The limits of one counted subject under a limit (Game Jolt's API: per game and address), to count in an action's script call or by `settle`. */
      limitsOf: (name: LimitName, subject: string) => Limits
      /**
       * Answers an API-key request's limits: counts them if no script call
       * did, sets x-ratelimit-*, and over a limit answers rate_limited with
       * Retry-After.
       */
      settle: (request: FastifyRequest, reply: FastifyReply, limits: Limits) => Promise<void>
      /** Counts without judging (for limits that count failures only). */
      count: (request: FastifyRequest, name: LimitName, subject: string) => Promise<LimitState>
      /** Reads a counter without counting. */
      peek: (request: FastifyRequest, name: LimitName, subject: string) => Promise<LimitState>
    }
  }
}

export default fp(async (fastify) => {
  const { config } = fastify
  const window = config.rateLimitWindowMs
  const limits: Record<LimitName, Limit> = {
    apiKey: { max: config.rateLimitMax, windowMs: window },
    apiKeyTotal: { max: config.rateLimitMax * config.rateLimitKeyMultiple, windowMs: window },
    session: { max: config.sessionRateLimitMax, windowMs: window },
    page: { max: config.sessionRateLimitMax, windowMs: window },
    loginAddress: { max: config.loginAddressRateLimitMax, windowMs: 60_000 },
    loginUsername: { max: config.loginRateLimitMax, windowMs: 60_000 },
    adminFailures: ADMIN_FAILURE_LIMIT,
    signupAddress: { max: config.signupAddressRateLimitMax, windowMs: 3_600_000 },
    signupAll: { max: config.signupRateLimitMax, windowMs: 60_000 },
    guestAddress: { max: config.guestAddressRateLimitMax, windowMs: 3_600_000 },
    guestAll: { max: config.guestRateLimitMax, windowMs: 60_000 },
    signinAddress: { max: config.loginAddressRateLimitMax, windowMs: 60_000 }
  }
  const counterOf = (name: LimitName, subject: string, max = limits[name].max): Counter =>
    ({ key: keys.rateLimitCounter(name, subject), max, windowMs: limits[name].windowMs })

  // @fastify/rate-limit counts through the one counting rule of store/limits.ts.
  const store = createLimitStore(fastify.redis)
  class Store {
    incr (key: string, callback: StoreCallback, windowMs: number, max: number): void {
      const limits: Limits = { counters: [{ key, max, windowMs }] }
      // Over the max is the plugin's to judge, from the count.
      const counted = (): void => { callback(null, { current: limits.counts?.[0] ?? 0, ttl: limits.counts?.[1] ?? 0 }) }
      store.count(limits).then(counted, (error: Error) => { callback(error, { current: 0, ttl: 0 }) })
    }

    read (key: string, callback: StoreCallback): void {
      store.peek(key).then(counted => { callback(null, counted) }, (error: Error) => { callback(error, { current: 0, ttl: 0 }) })
    }

    child (): Store {
      return this
    }
  }

  // Which counter and which limit a call means is handed over per call, through
  // this map (calls never overlap for one request: each is awaited before the next).
  const calls = new WeakMap<FastifyRequest, Counter>()
  const call = (request: FastifyRequest): Counter => calls.get(request) as Counter
  await fastify.register(rateLimit, {
    global: false,
    store: Store as unknown as FastifyRateLimitStoreCtor,
    keyGenerator: (request) => call(request).key,
    max: async (request) => call(request).max,
    timeWindow: async (request) => call(request).windowMs
  })
  const counter = fastify.createRateLimit()

  async function read (request: FastifyRequest, name: LimitName, subject: string, increment: boolean): Promise<LimitState> {
    calls.set(request, counterOf(name, subject))
    const state = await counter(request, { increment })
    calls.delete(request)
    // No allow list is configured, so every call reports a counter.
    if (state.isAllowed) throw new Error('rate limit without a counter')
    return { max: state.max, remaining: state.remaining, ttlInSeconds: Math.max(1, state.ttlInSeconds), exceeded: state.isExceeded }
  }

  function setHeaders (reply: FastifyReply, state: LimitState): void {
    reply.header('x-ratelimit-limit', state.max)
    reply.header('x-ratelimit-remaining', state.remaining)
    reply.header('x-ratelimit-reset', state.ttlInSeconds)
  }

  function refuse (reply: FastifyReply, state: LimitState, name: LimitName): never {
    child(metrics.rateLimited, name).inc()
    setHeaders(reply, state)
    reply.header('retry-after', state.ttlInSeconds)
    throw new ApiError('rate_limited', `Too many requests; retry in ${state.ttlInSeconds} s.`)
  }

  const rateLimits: typeof fastify.rateLimits = {
    async enforce (request, reply, name, subject, options = {}) {
      const state = await read(request, name, subject, true)
      if (state.exceeded) refuse(reply, state, name)
      if (options.headers === true) setHeaders(reply, state)
    },
    apiKey (request, key) {
      const address = clientAddress(request)
      const max = key?.rate_limit ?? limits.apiKey.max
      const counters = [key === null
        ? counterOf('apiKey', `ip:${address}`)
        : counterOf('apiKey', keys.apiKeyLimitSubject(key.game_id, key.api_key, address), max)]
      return {
        counters,
        countKeyTotal () {
          if (key !== null) counters.push(counterOf('apiKeyTotal', keys.apiKeyLimitSubject(key.game_id, key.api_key), max * config.rateLimitKeyMultiple))
        }
      }
    },
    limitsOf: (name, subject) => ({ counters: [counterOf(name, subject)] }),
    async settle (request, reply, limits) {
      request.rateLimitApplied = true
      if (limits.counts === undefined) await store.count(limits)
      const counts = limits.counts as number[]
      const states = limits.counters.slice(0, counts.length / 2).map((one, i) => limitState(one, counts[2 * i] as number, counts[2 * i + 1] as number))
      const last = states[states.length - 1] as LimitState
      if (last.exceeded) refuse(reply, last, states.length === 1 ? 'apiKey' : 'apiKeyTotal')
      setHeaders(reply, states[0] as LimitState)
    },
    count: async (request, name, subject) => await read(request, name, subject, true),
    peek: async (request, name, subject) => await read(request, name, subject, false)
  }
  fastify.decorate('rateLimits', rateLimits)

  /** The subject of the route's own limit: set by authentication, else the address. */
  const subjectOf = (request: FastifyRequest): string => request.rateLimitSubject ?? `ip:${clientAddress(request)}`
  const policyOf = (request: FastifyRequest): RateLimitPolicy => request.routeOptions.config.rateLimitPolicy as RateLimitPolicy

  fastify.decorateRequest('rateLimitApplied', false)
  fastify.decorate('limitRate', async function (request: FastifyRequest, reply: FastifyReply) {
    request.rateLimitApplied = true
    await rateLimits.enforce(request, reply, policyOf(request), subjectOf(request), { headers: true })
    // A username's attempts across addresses, counted only for requests the
    // address limit let through, so one busy address cannot lock a user out
    // alone. Hashed, so any text the client sent makes a safe key name.
    if (policyOf(request) === 'loginAddress') {
      await rateLimits.enforce(request, reply, 'loginUsername', loginUsernameSubject(request.fields.username ?? ''))
    }
  } as preHandlerAsyncHookHandler)

  // A limited route answers with its headers even when the request failed
  // before its turn to be counted (missing_param, not_logged_in, ...): the
  // counter is read, not incremented. Not for a client that has gone
  // (a body cut off mid-way): nobody reads those headers.
  fastify.addHook('onSend', (request, reply, payload, done) => {
    if (request.rateLimitApplied || request.routeOptions.config.rateLimitPolicy === undefined || request.raw.socket.destroyed) {
      done(null, payload)
      return
    }
    rateLimits.peek(request, policyOf(request), subjectOf(request)).then(
      (state) => { setHeaders(reply, state) },
      // Redis is away: the answer (unavailable) goes out without the headers.
      () => {}
    ).finally(() => { done(null, payload) })
  })
}, { name: 'rate-limit', dependencies: ['config', 'redis'] })
