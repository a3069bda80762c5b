import { Type } from '@sinclair/typebox'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { fail, ok } from '../../errors.js'
import { Nullable, envelope } from '../schemas.js'
import { redisMemory } from '../../store/redis-client.js'

/** What /healthz answers, for the OpenAPI document. */
const healthSchema = envelope(Type.Object({
  redis: Type.Literal('up'),
  memory: Type.Optional(Type.Object({
    redis_used_bytes: Type.Integer(),
    redis_max_bytes: Type.Integer({ description: 'maxmemory; 0 when Redis has none' }),
    redis_used_ratio: Nullable(Type.Number({ description: 'used / max, 3 decimals; null without maxmemory' })),
    redis_policy: Type.String({ description: 'maxmemory-policy; noeviction keeps every score' }),
    process_rss_bytes: Type.Integer(),
    process_heap_used_bytes: Type.Integer()
  }, { description: 'only with ?detail=true and the admin token' }))
}), ['unauthorized', 'rate_limited'], 'Health: up when Redis answers; ?detail=true with the admin token adds memory use', {
  tags: ['operations'],
  querystring: Type.Object({ detail: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')])) })
})

/**
 * GET /healthz: up when Redis answers; `unavailable` (via the error handler)
 * when not. With `?detail=true` and the admin token it also says how much
 * memory Redis and this process use, and how close Redis is to maxmemory
 * (past it, Redis refuses writes).
 */
export default async function healthRoutes (fastify: FastifyInstance): Promise<void> {
  fastify.get('/healthz', { schema: healthSchema }, async (request: FastifyRequest, reply: FastifyReply) => {
    const { detail } = request.query as Record<string, unknown>
    if (detail === undefined || detail === 'false' || detail === '0') {
      await fastify.redis.ping()
      return ok({ redis: 'up' })
    }
    if (detail !== 'true' && detail !== '1') fail('invalid_param', 'detail must be true or false.')
    await fastify.requireAdmin(request, reply)
    const redis = await redisMemory(fastify.redis)
    const own = process.memoryUsage()
    return ok({
      redis: 'up',
      memory: {
        redis_used_bytes: redis.usedBytes,
        redis_max_bytes: redis.maxBytes,
        redis_used_ratio: redis.maxBytes === 0 ? null : Math.round(redis.usedBytes / redis.maxBytes * 1000) / 1000,
        redis_policy: redis.policy,
        process_rss_bytes: own.rss,
        process_heap_used_bytes: own.heapUsed
      }
    })
  })
}
