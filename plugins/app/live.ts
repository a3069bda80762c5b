import fp from 'fastify-plugin'
import { fastifySSE } from '@fastify/sse'
import { createLiveBoards, type LiveBoards } from '../../src/live/streams.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The live boards (Server-Sent Events) this process streams. */
    live: LiveBoards
  }
}

/**
 * Live boards: @fastify/sse for the streams (a heartbeat comment every
 * LIVE_HEARTBEAT_MS), and the boards they show (src/live/streams.ts). Every
 * stream is ended when the service begins to close, so its client
 * reconnects to another process instead of holding the shutdown.
 */
export default fp(async (fastify) => {
  // Frames are JSON text already (src/live/stream.ts compares them before sending).
  await fastify.register(fastifySSE, { heartbeatInterval: fastify.config.liveHeartbeatMs, serializer: (data: unknown) => typeof data === 'string' ? data : JSON.stringify(data) })
  const live = createLiveBoards({
    redis: fastify.redis,
    leaderboard: fastify.leaderboard,
    records: fastify.records,
    namedBoards: fastify.namedBoards,
    achievements: fastify.achievements,
    heartbeatMs: fastify.config.liveHeartbeatMs,
    onRecordChange: fastify.onRecordChange,
    log: fastify.log.child({ component: 'live' })
  })
  fastify.decorate('live', live)
  fastify.addHook('preClose', async () => { await live.close() })
}, { name: 'live', dependencies: ['store', 'config', 'redis'] })
