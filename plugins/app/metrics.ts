import fp from 'fastify-plugin'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { METRICS_CONTENT_TYPE, child, enableMetrics, metrics, metricsText } from '../../src/lib/metrics.js'
import type { ErrorCode } from '../../src/errors.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** How the request was answered: ok, or the envelope's error code (set by sendError). */
    outcome: ErrorCode | 'ok'
  }
  interface FastifyContextConfig {
    /** The /api/rank action a route serves (its router constraint), for the metrics' labels. */
    action?: string
  }
}

/**
 * Prometheus metrics (src/lib/metrics.ts, docs/guide.md#metrics), when an
 * operator asks for them with METRICS_TOKEN or METRICS_PORT: every answer is
 * counted by route, action and outcome and timed, in one hook that runs
 * after the answer has gone out. With METRICS_TOKEN, GET /metrics on this
 * port answers a bearer of the token; METRICS_PORT is served by
 * src/server.ts.
 */
export default fp(async (fastify) => {
  const { metricsToken, metricsPort } = fastify.config
  fastify.decorateRequest('outcome', 'ok')
  if (metricsToken === undefined && metricsPort === undefined) return
  enableMetrics()
  fastify.addHook('onRoute', (route) => {
    const action = (route.constraints as { action?: unknown } | undefined)?.action
    if (typeof action === 'string') route.config = { ...route.config, action }
  })

  fastify.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const { url, config } = request.routeOptions
    const route = url ?? 'unmatched'
    const action = config.action ?? ''
    child(metrics.requests, route, action, request.outcome).inc()
    child(metrics.requestDuration, route, action).observe(reply.elapsedTime / 1000)
    done()
  })

  if (metricsToken === undefined) return
  fastify.get('/metrics', {
    schema: { hide: true },
    config: { noStore: true },
    onRequest: fastify.requireMetricsToken
  }, async (_request, reply) => {
    const text = await metricsText()
    return await reply.type(METRICS_CONTENT_TYPE).serializer(String).send(text)
  })
}, { name: 'metrics', dependencies: ['config', 'admin-auth', 'envelope'] })
