import { randomUUID } from 'node:crypto'
import type { Server, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import Fastify, { type FastifyHttpOptions, type FastifyInstance, type FastifyServerOptions } from 'fastify'
import fp from 'fastify-plugin'
import type { Config } from './config.js'
import { parseUrlEncoded } from './params.js'
import configPlugin from '../plugins/config.js'
import envelopePlugin, { frameworkErrors } from '../plugins/envelope.js'
import securityHeadersPlugin, { noStore } from '../plugins/security-headers.js'
import redisPlugin from '../plugins/redis.js'
import storePlugin from '../plugins/store.js'
import formsPlugin from '../plugins/forms.js'
import rateLimitPlugin from '../plugins/rate-limit.js'
import adminAuthPlugin from '../plugins/admin-auth.js'
import apiKeyAuthPlugin from '../plugins/api-key-auth.js'
import sessionPlugin from '../plugins/session.js'
import docsPlugin from '../plugins/docs.js'
import publicRoutes from './routes/public.js'
import adminRoutes from './routes/admin.js'
import healthRoutes from './routes/health.js'
import playRoutes from './routes/play.js'

/**
 * Parameters whose values must never reach a log line, by their decoded name
 * in lower case with everything but letters taken out (so `SIGN`, `%73ign`
 * and `sign%00` are all `sign`); and any name that speaks of a secret.
 */
const SECRET_PARAMS = new Set(['apikey', 'apisecret', 'sign', 'password', 'sessionid'])
const SECRET_WORDS = /password|secret|token/
/** Admin path segments that name a secret (a key, a session), however the path is spelled. */
const SECRET_SEGMENTS = /(\/admin\/+(?:keys|sessions)\/+)[^/?]+/gi

function isSecretName (raw: string): boolean {
  let name: string
  try {
    name = decodeURIComponent(raw.replace(/\+/g, ' '))
  } catch {
    return true // a name that cannot be decoded hides its value
  }
  const letters = name.toLowerCase().replace(/[^a-z]/g, '')
  return SECRET_PARAMS.has(letters) || SECRET_WORDS.test(letters)
}

/**
 * A URL as it may be logged: secret path segments replaced, and the value of
 * every query parameter (split at `&` and `;`) whose name is secret.
 */
export function redactUrl (url: string): string {
  const query = url.indexOf('?')
  const path = (query === -1 ? url : url.slice(0, query)).replace(SECRET_SEGMENTS, '$1[redacted]')
  if (query === -1) return path
  const redacted = url.slice(query + 1).replace(/(^|[&;])([^&;=]*)=[^&;]*/g, (pair, separator: string, name: string) =>
    isSecretName(name) ? `${separator}${name}=[redacted]` : pair)
  return `${path}?${redacted}`
}

/**
 * Errors as logs show them: what went wrong and where, never the extra
 * properties libraries attach (Node's `rawPacket` holds the raw request with
 * its Authorization and Cookie headers; ioredis's `command` holds a script's
 * arguments, secrets included).
 */
function serializeError (error: Error & { code?: unknown, statusCode?: unknown }): { type: string, message: string, stack: string, [key: string]: unknown } {
  if (!(error instanceof Error)) return { type: typeof error, message: String(error), stack: '' }
  return { type: error.name, message: error.message, stack: error.stack ?? '', code: error.code, statusCode: error.statusCode }
}

/**
 * A request Node cannot parse as HTTP (or that times out, or whose headers
 * are too large) never reaches a route: it is answered here, in the envelope
 * like everything else, and the connection is closed. Its raw bytes, which
 * carry the client's headers, are never logged.
 */
function clientErrorHandler (this: FastifyInstance, error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  this.log.debug({ err: { code: error.code, message: error.message } }, 'client error')
  // A request before this one on the same connection, received whole, is
  // still being answered (Node keeps its answer as the socket's
  // _httpMessage): let that answer go out, then close; the bytes that are not
  // HTTP get no answer of their own. (A request that timed out is the one in
  // flight itself, received only in part: it is answered here.)
  const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage
  if (inFlight !== null && inFlight !== undefined && !inFlight.writableFinished && (inFlight.headersSent || inFlight.req.complete)) {
    inFlight.once('close', () => { socket.destroy() })
    return
  }
  const [code, message] = error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
    ? ['invalid_body', 'The request did not arrive in time.'] as const
    : error.code === 'HPE_HEADER_OVERFLOW'
      ? ['payload_too_large', 'The request headers are too large.'] as const
      : ['invalid_body', 'The request cannot be parsed as HTTP.'] as const
  const body = JSON.stringify({ ok: false, error: code, message })
  if (socket.writable) {
    socket.write(`HTTP/1.1 200 OK\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`)
  }
  socket.destroy()
}

export interface ServerExtras {
  /** Where logs go instead of standard output (tests read them). */
  logStream?: { write: (line: string) => void }
}

/** Fastify's own options: logging, proxies, limits, and the envelope for framework errors. */
export function serverOptions (config: Config, extras: ServerExtras = {}): FastifyHttpOptions<Server> {
  const pretty = config.nodeEnv === 'development' && process.stdout.isTTY && extras.logStream === undefined
  return {
    logger: {
      level: config.logLevel,
      // Headers are never logged whole, wherever a library puts them (@fastify/multipart logs busboy's options at trace).
      redact: { paths: ['headers', '*.headers', 'res.headers["set-cookie"]'], censor: '[redacted]' },
      serializers: {
        req: (request) => ({ method: request.method, url: redactUrl(request.url), remoteAddress: request.ip }),
        err: serializeError
      },
      ...(extras.logStream === undefined ? {} : { stream: extras.logStream }),
      ...(pretty ? { transport: { target: 'pino-pretty', options: { translateTime: 'HH:MM:ss.l', ignore: 'pid,hostname' } } } : {})
    },
    genReqId: () => randomUUID(),
    // Fastify accepts a hop count at run time; its types leave numbers out.
    trustProxy: config.trustProxy as FastifyServerOptions['trustProxy'],
    bodyLimit: config.bodyLimit,
    routerOptions: { querystringParser: parseUrlEncoded },
    frameworkErrors,
    clientErrorHandler,
    // Requests that arrive while closing are still answered, in the envelope.
    return503OnClosing: false,
    // A client that stalls its request cannot hold a socket for ever: Node
    // checks open requests every connectionsCheckingInterval. The timeout is
    // given to Node's constructor too, which also caps headersTimeout by it:
    // set only afterwards (as Fastify does), with headersTimeout left at 60 s,
    // Node never fires it.
    requestTimeout: config.requestTimeoutMs,
    http: { requestTimeout: config.requestTimeoutMs, connectionsCheckingInterval: Math.min(2000, config.requestTimeoutMs) },
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
  for (const warning of config.warnings) fastify.log.warn(warning)
  await fastify.register(configPlugin, { config })
  // First, so every answer gets its headers, also one refused in onRequest.
  await fastify.register(securityHeadersPlugin)
  await fastify.register(envelopePlugin)
  await fastify.register(redisPlugin)
  await fastify.register(storePlugin)
  await fastify.register(formsPlugin)
  await fastify.register(rateLimitPlugin)
  await fastify.register(adminAuthPlugin)
  await fastify.register(apiKeyAuthPlugin)
  await fastify.register(sessionPlugin)
  await fastify.register(noStore)
  await fastify.register(docsPlugin)
  await fastify.register(healthRoutes)
  await fastify.register(publicRoutes)
  await fastify.register(adminRoutes)
  await fastify.register(playRoutes)
}

export default fp(app, { name: 'ranking-service' })

/** Builds the app without listening; tests call `inject` on it. */
export async function buildApp (config: Config, extras: ServerExtras = {}): Promise<FastifyInstance> {
  const fastify = Fastify(serverOptions(config, extras))
  await fastify.register(app, { config })
  await fastify.ready()
  return fastify
}
