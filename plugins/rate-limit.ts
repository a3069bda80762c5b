import fp from 'fastify-plugin'
import rateLimit from '@fastify/rate-limit'
import type { FastifyRequest, preHandlerAsyncHookHandler } from 'fastify'
import { ApiError } from '../src/envelope.js'
import { keys } from '../src/keys.js'

/**
 * Fixed-window limits kept in Redis, so every instance shares the counters
 * (DECISIONS.md section 3). A route picks its policy with
 * `config: { rateLimitPolicy }` and places `fastify.limitRate` in its hook
 * chain where the check order wants it.
 */
export type RateLimitPolicy = 'apiKey' | 'session' | 'login' | 'page'

declare module 'fastify' {
  interface FastifyContextConfig {
    rateLimitPolicy?: RateLimitPolicy
  }
  interface FastifyRequest {
    /** Who is counted: set by the authentication step that precedes the limit. */
    rateLimitSubject?: string
    /** The limit was applied (and its headers set) for this request. */
    rateLimitApplied: boolean
  }
  interface FastifyInstance {
    limitRate: preHandlerAsyncHookHandler
  }
}

export const LOGIN_LIMIT = { max: 10, windowMs: 60_000 }

export default fp(async (fastify) => {
  const { config } = fastify
  const policies: Record<RateLimitPolicy, { max: number, windowMs: number }> = {
    apiKey: { max: config.rateLimitMax, windowMs: config.rateLimitWindowMs },
    session: { max: config.sessionRateLimitMax, windowMs: config.rateLimitWindowMs },
    login: LOGIN_LIMIT,
    page: { max: config.sessionRateLimitMax, windowMs: config.rateLimitWindowMs }
  }
  // Every route that places limitRate in its hooks names its policy.
  const policyOf = (request: FastifyRequest): RateLimitPolicy => request.routeOptions.config.rateLimitPolicy as RateLimitPolicy

  await fastify.register(rateLimit, {
    global: false,
    redis: fastify.redis,
    nameSpace: keys.rateLimitNamespace(),
    max: async (request) => policies[policyOf(request)].max,
    timeWindow: async (request) => policies[policyOf(request)].windowMs,
    keyGenerator: (request) => `${policyOf(request)}:${request.rateLimitSubject ?? `ip:${request.ip}`}`,
    errorResponseBuilder: (_request, context) => new ApiError('rate_limited', `Too many requests; retry in ${Math.max(1, Math.ceil(context.ttl / 1000))} s.`, context.statusCode)
  })
  const limit = fastify.rateLimit()
  fastify.decorateRequest('rateLimitApplied', false)
  fastify.decorate('limitRate', async function (this: unknown, request, reply) {
    request.rateLimitApplied = true
    await limit.call(this as never, request, reply)
  } as preHandlerAsyncHookHandler)

  // A limited route answers with its headers even when the request failed
  // before its turn to be counted (missing_param, not_logged_in, ...): the
  // counter is read, not incremented.
  const peek = fastify.createRateLimit()
  fastify.addHook('onSend', async (request, reply) => {
    if (request.rateLimitApplied || request.routeOptions.config.rateLimitPolicy === undefined) return
    try {
      const state = await peek(request, { increment: false })
      if (state.isAllowed) return
      reply.header('x-ratelimit-limit', state.max)
      reply.header('x-ratelimit-remaining', state.remaining)
      reply.header('x-ratelimit-reset', state.ttlInSeconds)
    } catch {
      // Redis is away: the answer (unavailable) goes out without the headers.
    }
  })
}, { name: 'rate-limit', dependencies: ['config', 'redis'] })
