import type { FastifyInstance } from 'fastify'
import { ok } from '../envelope.js'
import { routeSchemas } from '../schemas.js'

/** GET /healthz: up when Redis answers; `unavailable` (via the error handler) when not. */
export default async function healthRoutes (fastify: FastifyInstance): Promise<void> {
  fastify.get('/healthz', { schema: routeSchemas.health }, async () => {
    await fastify.redis.ping()
    return ok({ redis: 'up' })
  })
}
