import fp from 'fastify-plugin'
import { closeRedis, connectRedis, memoryWarnings, redisMemory, setWriteConcern, type RedisClient } from '../../src/store/redis-client.js'

declare module 'fastify' {
  interface FastifyInstance {
    redis: RedisClient
  }
}

const STARTUP_WAIT_MS = 10_000

/** The Redis client, connected before the app is ready and closed with it. */
export default fp(async (fastify) => {
  const url = fastify.config.redisUrl
  if (url === undefined) throw new Error('No Redis URL: the server entry starts a managed redis-server first')
  // ioredis reports every failed reconnect; one line per outage is enough.
  let down = false
  const redis = await connectRedis(url, STARTUP_WAIT_MS, client => {
    client.on('error', (error: Error) => {
      if (!down) fastify.log.warn({ reason: error.message }, 'Redis connection lost; retrying')
      down = true
    })
    client.on('ready', () => {
      if (down) fastify.log.info('Redis connection restored')
      down = false
    })
  })
  setWriteConcern(redis, fastify.config.writeConcern)
  fastify.decorate<RedisClient>('redis', redis)
  // Best effort: a cluster that has lost a master must not keep every instance from starting.
  try {
    for (const warning of memoryWarnings(await redisMemory(redis))) fastify.log.warn(warning)
  } catch (error) {
    fastify.log.warn({ reason: (error as Error).message }, 'could not read Redis memory settings at start-up')
  }
  fastify.addHook('onClose', async () => { await closeRedis(redis) })
}, { name: 'redis', dependencies: ['config'] })
