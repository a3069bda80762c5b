import { createHash, timingSafeEqual } from 'node:crypto'
import fp from 'fastify-plugin'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { ApiError, fail } from '../src/http/envelope.js'
import { clientAddress } from './rate-limit.js'
import { child, metrics } from '../src/ops/metrics.js'

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * unauthorized unless the request carries `Authorization: Bearer
     * <ADMIN_TOKEN>`. An address that sent ADMIN_FAILURE_LIMIT wrong tokens
     * in a window is answered rate_limited, right token or not, until the
     * window ends: the token cannot be guessed at speed.
     */
    requireAdmin: (request: FastifyRequest, reply: FastifyReply) => Promise<void>
    /** The same guard for GET /metrics, with METRICS_TOKEN (wrong tokens count in the same limit). */
    requireMetricsToken: (request: FastifyRequest, reply: FastifyReply) => Promise<void>
  }
}

function digest (text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest()
}

export default fp(async (fastify) => {
  const guard = (token: string | undefined) => {
    const expected = token === undefined ? undefined : digest(`Bearer ${token}`)
    return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
      const subject = `ip:${clientAddress(request)}`
      const given = request.headers.authorization
      // Hashing both sides gives equal lengths, so the comparison is constant-time.
      const right = expected !== undefined && given !== undefined && timingSafeEqual(digest(given), expected)
      // A wrong token is counted before it is answered, so guesses sent in
      // parallel cannot all be judged before the count catches up: only the
      // first ADMIN_FAILURE_LIMIT.max of a window are answered unauthorized.
      const failures = right
        ? await fastify.rateLimits.peek(request, 'adminFailures', subject)
        : await fastify.rateLimits.count(request, 'adminFailures', subject)
      if (right ? failures.remaining === 0 : failures.exceeded) {
        child(metrics.rateLimited, 'adminFailures').inc()
        reply.header('retry-after', failures.ttlInSeconds)
        throw new ApiError('rate_limited', `Too many wrong admin tokens from this address; retry in ${failures.ttlInSeconds} s.`)
      }
      if (!right) fail('unauthorized')
    }
  }
  fastify.decorate('requireAdmin', guard(fastify.config.adminToken))
  fastify.decorate('requireMetricsToken', guard(fastify.config.metricsToken))
}, { name: 'admin-auth', dependencies: ['config', 'rate-limit'] })
