import { randomUUID } from 'node:crypto'
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import fp from 'fastify-plugin'
import type { Config } from './config.js'
import { parseUrlEncoded } from './params.js'
import configPlugin from '../plugins/config.js'
import envelopePlugin, { frameworkErrors } from '../plugins/envelope.js'
import redisPlugin from '../plugins/redis.js'
import storePlugin from '../plugins/store.js'
import formsPlugin from '../plugins/forms.js'
import rateLimitPlugin from '../plugins/rate-limit.js'
import apiKeyAuthPlugin from '../plugins/api-key-auth.js'
import sessionPlugin from '../plugins/session.js'
import docsPlugin from '../plugins/docs.js'
import publicRoutes from './routes/public.js'
import adminRoutes from './routes/admin.js'
import healthRoutes from './routes/health.js'
import playRoutes from './routes/play.js'

/** Query parameters, and admin path segments, whose values must never reach a log line. */
const SECRET_PARAMS = /([?&](?:api_key|api_secret|sign|password)=)[^&]*/gi
const SECRET_SEGMENTS = /(\/admin\/(?:keys|sessions)\/)[^/?]+/g

export function redactUrl (url: string): string {
  return url.replace(SECRET_PARAMS, '$1[redacted]').replace(SECRET_SEGMENTS, '$1[redacted]')
}

/** Fastify's own options: logging, proxies, limits, and the envelope for framework errors. */
export function serverOptions (config: Config): FastifyServerOptions {
  const pretty = config.nodeEnv === 'development' && process.stdout.isTTY
  return {
    logger: {
      level: config.logLevel,
      redact: { paths: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'], censor: '[redacted]' },
      serializers: {
        req: (request) => ({ method: request.method, url: redactUrl(request.url), remoteAddress: request.ip })
      },
      ...(pretty ? { transport: { target: 'pino-pretty', options: { translateTime: 'HH:MM:ss.l', ignore: 'pid,hostname' } } } : {})
    },
    genReqId: () => randomUUID(),
    // Fastify accepts a hop count at run time; its types leave numbers out.
    trustProxy: config.trustProxy as FastifyServerOptions['trustProxy'],
    bodyLimit: config.bodyLimit,
    routerOptions: { querystringParser: parseUrlEncoded },
    frameworkErrors,
    // Requests that arrive while closing are still answered, in the envelope.
    return503OnClosing: false,
    // A client that stalls its request cannot hold a socket for ever.
    requestTimeout: 30_000,
    connectionTimeout: 60_000
  }
}

/**
 * The whole service as one plugin: our plugins in dependency order, then the
 * routes. Not encapsulated, so whoever registers it (the server, the tests)
 * sees its decorators.
 */
async function app (fastify: FastifyInstance, { config }: { config: Config }): Promise<void> {
  // Route schemas document and serialize; requests are checked by src/params.ts
  // and src/admin.ts, in the check order of DECISIONS.md (see src/schemas.ts).
  fastify.setValidatorCompiler(() => () => true)
  await fastify.register(configPlugin, { config })
  await fastify.register(envelopePlugin)
  await fastify.register(redisPlugin)
  await fastify.register(storePlugin)
  await fastify.register(formsPlugin)
  await fastify.register(rateLimitPlugin)
  await fastify.register(apiKeyAuthPlugin)
  await fastify.register(sessionPlugin)
  await fastify.register(docsPlugin)
  await fastify.register(healthRoutes)
  await fastify.register(publicRoutes)
  await fastify.register(adminRoutes)
  await fastify.register(playRoutes)
}

export default fp(app, { name: 'ranking-service' })

/** Builds the app without listening; tests call `inject` on it. */
export async function buildApp (config: Config): Promise<FastifyInstance> {
  const fastify = Fastify(serverOptions(config))
  await fastify.register(app, { config })
  await fastify.ready()
  return fastify
}
