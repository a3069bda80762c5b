import fp from 'fastify-plugin'
import { createDispatcher, type Dispatcher } from '../../src/webhooks/dispatcher.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** This process's webhook dispatcher; null with WEBHOOK_DISPATCH=false. */
    dispatcher: Dispatcher | null
  }
}

/** How long a shutdown waits for webhook attempts in flight; any still running is tried again by a process when its lease ends. */
const STOP_GRACE_MS = 2000

/**
 * Delivers the webhooks (src/webhooks/dispatcher.ts) from this process:
 * started once the app is ready, stopped when it begins to close, before
 * Redis is.
 */
export default fp(async (fastify) => {
  const { webhooks: options } = fastify.config
  if (!options.dispatch) {
    fastify.decorate('dispatcher', null)
    return
  }
  const dispatcher = createDispatcher(fastify.redis, fastify.webhooks, {
    ...options,
    gameOf: async gameId => await fastify.records.game(gameId),
    periodClock: fastify.leaderboard.now,
    log: fastify.log.child({ component: 'webhooks' })
  })
  fastify.decorate('dispatcher', dispatcher)
  fastify.addHook('onReady', async () => { dispatcher.start() })
  fastify.addHook('preClose', async () => { await dispatcher.stop(STOP_GRACE_MS) })
}, { name: 'webhooks', dependencies: ['store', 'config', 'redis'] })
