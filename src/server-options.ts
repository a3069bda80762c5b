import { randomUUID } from 'node:crypto'
import type { Server } from 'node:http'
import { prettyFactory } from 'pino-pretty'
import { LogController, type FastifyHttpOptions, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify'
import type { Config } from './config.js'
import { parseQuery } from './lib/params.js'
import { logOutput } from './lib/log-output.js'
import { redactUrl, serializeError } from './lib/redaction.js'
import { clientErrors } from './lib/client-errors.js'
import { frameworkErrors } from '../plugins/app/envelope.js'
import { defaultSecurityHeaders } from '../plugins/external/security-headers.js'

/*
 * The options the Fastify server is made with (src/server.ts, and buildApp
 * in src/app.ts for the tests). Beside app.ts, in the app layer
 * (.dependency-cruiser.cjs), since it takes the envelope and the security
 * headers from plugins/.
 */

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
 * In development a line per request would scroll the start-up banner away
 * (the play page pings, the console polls, static files load), on a
 * terminal or in an editor's output pane alike: there, the lines of
 * requests that went well are written at debug (LOG_LEVEL=debug shows
 * them); errors keep their level.
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
    ...(config.nodeEnv === 'development' && extras.logStream === undefined ? { logController: new QuietRequestLogs() } : {}),
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
