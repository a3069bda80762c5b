import { createHash, timingSafeEqual } from 'node:crypto'
import fp from 'fastify-plugin'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { ApiError, fail } from '../../src/errors.js'
import { clientAddress } from './rate-limit.js'
import { child, metrics } from '../../src/lib/metrics.js'
import type { OperatorRole } from '../../src/config/operator-tokens.js'

/** Who made an operator request: the name of the token it carried, and what that token may do. */
export interface Operator {
  name: string
  role: OperatorRole
}

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * unauthorized unless the request carries `Authorization: Bearer
     * <token>` with one of the operator tokens (ADMIN_TOKEN, ADMIN_TOKENS);
     * then `request.operator` names it, and a viewer token's write is
     * forbidden. An address that sent ADMIN_FAILURE_LIMIT wrong tokens in a
     * window is answered rate_limited, right token or not, until the window
     * ends: the tokens cannot be guessed at speed.
     */
    requireAdmin: (request: FastifyRequest, reply: FastifyReply) => Promise<void>
    /** The same guard for GET /metrics, with METRICS_TOKEN (wrong tokens count in the same limit). */
    requireMetricsToken: (request: FastifyRequest, reply: FastifyReply) => Promise<void>
  }
  interface FastifyRequest {
    /** Set by requireAdmin: the operator token the request carried. */
    operator?: Operator
  }
}

function digest (text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest()
}

/** Methods a viewer token may use: reads. */
const READS = new Set(['GET', 'HEAD'])

export default fp(async (fastify) => {
  const guard = (tokens: Array<Operator & { token: string }>, checkRole: boolean) => {
    const expected = tokens.map(({ token, ...operator }) => ({ operator, digest: digest(`Bearer ${token}`) }))
    return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
      const subject = `ip:${clientAddress(request)}`
      const given = request.headers.authorization
      // Hashing both sides gives equal lengths, so each comparison is
      // constant-time; every token is compared, so the time does not say which matched.
      let operator: Operator | undefined
      if (given !== undefined) {
        const givenDigest = digest(given)
        for (const token of expected) if (timingSafeEqual(givenDigest, token.digest)) operator = token.operator
      }
      // A wrong token is counted before it is answered, so guesses sent in
      // parallel cannot all be judged before the count catches up: only the
      // first ADMIN_FAILURE_LIMIT.max of a window are answered unauthorized.
      const right = operator !== undefined
      const failures = right
        ? await fastify.rateLimits.peek(request, 'adminFailures', subject)
        : await fastify.rateLimits.count(request, 'adminFailures', subject)
      if (right ? failures.remaining === 0 : failures.exceeded) {
        child(metrics.rateLimited, 'adminFailures').inc()
        reply.header('retry-after', failures.ttlInSeconds)
        throw new ApiError('rate_limited', `Too many wrong admin tokens from this address; retry in ${failures.ttlInSeconds} s.`)
      }
      if (operator === undefined) fail('unauthorized')
      request.operator = operator
      if (checkRole && operator.role === 'viewer' && !READS.has(request.method)) {
        fail('forbidden', `The token "${operator.name}" is a viewer's: it reads, and changes nothing.`)
      }
    }
  }
  fastify.decorateRequest('operator', undefined)
  fastify.decorate('requireAdmin', guard(fastify.config.operatorTokens, true))
  const metricsToken = fastify.config.metricsToken
  fastify.decorate('requireMetricsToken', guard(metricsToken === undefined ? [] : [{ name: 'metrics', role: 'viewer', token: metricsToken }], false))
}, { name: 'admin-auth', dependencies: ['config', 'rate-limit'] })
