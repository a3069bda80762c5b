import Fastify, { type FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { Config } from './config.js'
import { expectationFailed } from './lib/client-errors.js'
import { serverOptions, type ServerExtras } from './server-options.js'
import configPlugin from '../plugins/app/config.js'
import envelopePlugin from '../plugins/app/envelope.js'
import securityHeadersPlugin, { defaultSecurityHeaders, noStore } from '../plugins/external/security-headers.js'
import redisPlugin from '../plugins/app/redis.js'
import storePlugin from '../plugins/app/store.js'
import webhooksPlugin from '../plugins/app/webhooks.js'
import guestExpiryPlugin from '../plugins/app/guest-expiry.js'
import livePlugin from '../plugins/app/live.js'
import formsPlugin from '../plugins/external/forms.js'
import rateLimitPlugin from '../plugins/app/rate-limit.js'
import adminAuthPlugin from '../plugins/app/admin-auth.js'
import sessionPlugin from '../plugins/app/session.js'
import docsPlugin from '../plugins/external/docs.js'
import metricsPlugin from '../plugins/app/metrics.js'
import publicRoutes from './routes/public-api.js'
import adminRoutes from './routes/admin/index.js'
import healthRoutes from './routes/health/index.js'
import consoleRoutes from './routes/console/index.js'
import homeRoutes from './routes/home/index.js'
import playRoutes from './routes/play/index.js'
import accountRoutes from './routes/account/index.js'
import embedRoutes from './routes/embed/index.js'
import gamejoltRoutes from './routes/gamejolt/index.js'

/**
 * The whole service as one plugin: our plugins in dependency order, then the
 * routes. Not encapsulated, so whoever registers it (the server, the tests)
 * sees its decorators.
 */
async function app (fastify: FastifyInstance, { config, clock }: { config: Config, clock?: () => number }): Promise<void> {
  // Route schemas document and serialize; requests are checked by src/lib/params.ts, src/rules/
  // and src/operations/index.ts, in the check order (docs/interface.md#check-order; see src/routes/schemas.ts).
  fastify.setValidatorCompiler(() => () => true)
  for (const warning of config.warnings) fastify.log.warn(warning)
  await fastify.register(configPlugin, { config })
  // First, so every answer gets its headers, also one refused in onRequest.
  await fastify.register(securityHeadersPlugin)
  fastify.server.on('checkExpectation', expectationFailed(defaultSecurityHeaders(config.nodeEnv === 'production')))
  await fastify.register(envelopePlugin)
  await fastify.register(redisPlugin)
  await fastify.register(storePlugin, { clock })
  await fastify.register(webhooksPlugin)
  await fastify.register(guestExpiryPlugin)
  await fastify.register(livePlugin)
  await fastify.register(formsPlugin)
  await fastify.register(rateLimitPlugin)
  await fastify.register(adminAuthPlugin)
  await fastify.register(sessionPlugin)
  await fastify.register(noStore)
  await fastify.register(metricsPlugin)
  await fastify.register(docsPlugin)
  await fastify.register(healthRoutes)
  await fastify.register(publicRoutes)
  await fastify.register(adminRoutes)
  await fastify.register(gamejoltRoutes)
  await fastify.register(playRoutes)
  await fastify.register(embedRoutes)
  await fastify.register(homeRoutes)
  await fastify.register(accountRoutes)
  await fastify.register(consoleRoutes)
}

export default fp(app, { name: 'ranking-service' })

/** Builds the app without listening; tests call `inject` on it. */
export async function buildApp (config: Config, extras: ServerExtras = {}): Promise<FastifyInstance> {
  const fastify = Fastify(serverOptions(config, extras))
  await fastify.register(app, { config, clock: extras.clock })
  await fastify.ready()
  return fastify
}
