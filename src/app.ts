import { randomUUID } from 'node:crypto'
import type { Server } from 'node:http'
import { prettyFactory } from 'pino-pretty'
import Fastify, { LogController, type FastifyHttpOptions, type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify'
import fp from 'fastify-plugin'
import type { Config } from './config.js'
import { parseQuery } from './lib/params.js'
import { logOutput } from './lib/log-output.js'
import { redactUrl, serializeError } from './lib/redaction.js'
import { clientErrors, expectationFailed } from './lib/client-errors.js'
import configPlugin from '../plugins/app/config.js'
import envelopePlugin, { frameworkErrors } from '../plugins/app/envelope.js'
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
import embedRoutes from './routes/embed/index.js'

export interface ServerExtras {
  /** Where logs go instead of standard output (tests read them). */
  logStream?: { write: (line: string) => void }
  /** Tests only: the clock of calendar periods and of the board scripts (ms), instead of the Redis clock. */
  clock?: () => number
}

/**
 * Whose X-Forwarded-For gives the client's address (TRUST_PROXY). Fastify
 * (since 5.12.8) trusts nobody for a hop count, since the nearest peer
 * cannot be checked to be a proxy; here a hop count keeps its documented
 * meaning (docs/interface.md#configuration): the nearest N addresses, the
 * connecting peer first, are proxies, and the one before them is the
 * client. The service must then be reachable only through its proxies
 * (docs/security.md); their addresses or ranges are safer, and are checked.
 */
export function trustedProxies (trust: Config['trustProxy']): FastifyServerOptions['trustProxy'] {
  if (typeof trust !== 'number') return trust
  return (_address: string, hop: number) => hop < trust
}

/**
 * On a developer's terminal a line per request would scroll the start-up
 * banner away (the play page pings, the console polls): there, the lines of
 * requests that went well are written at debug (LOG_LEVEL=debug shows them);
 * errors keep their level.
 */
class QuietRequestLogs extends LogController {
  override incomingRequest (request: FastifyRequest): void {
    request.log.debug({ req: request }, 'incoming request')
  }

  override requestCompleted (error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error !== null && error !== undefined) super.requestCompleted(error, request, reply)
    else reply.log.debug({ res: reply, responseTime: reply.elapsedTime }, 'request completed')
  }
}

/** Fastify's own options: logging, proxies, limits, and the envelope for framework errors. */
export function serverOptions (config: Config, extras: ServerExtras = {}): FastifyHttpOptions<Server> {
  const pretty = config.nodeEnv === 'development' && process.stdout.isTTY && extras.logStream === undefined
  // Answers given before routing carry the headers every other answer does.
  const securityHeaders = defaultSecurityHeaders(config.nodeEnv === 'production')
  const headerLines = Object.entries(securityHeaders).map(([name, value]) => `${name}: ${value}\r\n`).join('')
  return {
    logger: {
      level: config.logLevel,
      // Headers are never logged whole, wherever a library puts them (@fastify/multipart logs busboy's options at trace).
      redact: { paths: ['headers', '*.headers', 'res.headers["set-cookie"]'], censor: '[redacted]' },
      serializers: {
        req: (request) => ({ method: request.method, url: redactUrl(request.url), remoteAddress: request.ip }),
        err: serializeError
      },
      stream: extras.logStream ?? logOutput(pretty ? prettyFactory({ colorize: true, translateTime: 'HH:MM:ss.l', ignore: 'pid,hostname' }) : undefined)
    },
    ...(pretty ? { logController: new QuietRequestLogs() } : {}),
    genReqId: () => randomUUID(),
    trustProxy: trustedProxies(config.trustProxy),
    bodyLimit: config.bodyLimit,
    routerOptions: { querystringParser: parseQuery },
    frameworkErrors: (error, request, reply) => {
      reply.headers(securityHeaders)
      frameworkErrors(error, request, reply)
    },
    clientErrorHandler: clientErrors(headerLines),
    // Requests that arrive while closing are still answered, in the envelope.
    return503OnClosing: false,
    // A client that stalls its request cannot hold a socket for ever: Node
    // checks open requests every connectionsCheckingInterval. The timeout is
    // given to Node's constructor too, which also caps headersTimeout by it:
    // set only afterwards (as Fastify does), with headersTimeout left at 60 s,
    // Node never fires it.
    requestTimeout: config.requestTimeoutMs,
    // A request without a Host header is refused in the envelope (plugins/app/envelope.ts), not by Node's bare 400.
    http: { requestTimeout: config.requestTimeoutMs, connectionsCheckingInterval: Math.min(2000, config.requestTimeoutMs), requireHostHeader: false },
    connectionTimeout: 60_000
  }
}

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
  await fastify.register(playRoutes)
  await fastify.register(embedRoutes)
  await fastify.register(homeRoutes)
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
