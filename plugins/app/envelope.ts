import fp from 'fastify-plugin'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import type { RedisClient as Redis } from '../../src/store/redis-client.js'
import { ApiError, type ErrorCode } from '../../src/errors.js'
import { isRedisUnavailable } from '../../src/store/redis-client.js'

/**
 * Every answer is HTTP 200 with the envelope (docs/interface.md#response-envelope): the
 * error handler, the not-found handler and Fastify's framework errors all end
 * in sendError, the one place that writes `{ok:false, error, message}`.
 */

/** Fastify and plugin error codes that mean "this body cannot be read". */
const BODY_ERRORS: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_PARTS_LIMIT: 'payload_too_large',
  FST_FIELDS_LIMIT: 'payload_too_large',
  FST_REQ_FILE_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'invalid_body',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'invalid_body',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid_body',
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid_body',
  FST_ERR_CTP_INVALID_TYPE: 'invalid_body',
  FST_PROTO_VIOLATION: 'invalid_body',
  FST_INVALID_MULTIPART_CONTENT_TYPE: 'invalid_body',
  FST_FILES_LIMIT: 'invalid_body',
  FST_INVALID_JSON_FIELD_ERROR: 'invalid_body',
  FST_ERR_BAD_URL: 'not_found',
  FST_ERR_MAX_PARAM_LENGTH: 'not_found'
}

const BODY_MESSAGES: Partial<Record<ErrorCode, string>> = {
  invalid_body: 'The request body cannot be parsed; send form fields (form-encoded or multipart).'
}

/** Maps anything thrown while serving a request to an ApiError. */
export function toApiError (error: unknown, request: FastifyRequest, redis: Redis | undefined): ApiError {
  // Whatever a reader made of a body cut short at the limit, the fault is its size.
  if (request.bodyTooLarge && (!(error instanceof ApiError) || error.code === 'invalid_body')) return new ApiError('payload_too_large')
  if (error instanceof ApiError) return error
  if (isRedisUnavailable(error, redis)) return new ApiError('unavailable')
  const fastifyError = error as Partial<FastifyError> | undefined
  const mapped = typeof fastifyError?.code === 'string' ? BODY_ERRORS[fastifyError.code] : undefined
  if (mapped !== undefined) return new ApiError(mapped, BODY_MESSAGES[mapped])
  // Anything else raised while a body was being read (busboy's "Unexpected end
  // of multipart data", a JSON syntax error, ...) is a body that cannot be parsed.
  // (Bodies that are too large were mapped by their error code above.)
  if (!request.bodyAccepted && request.headers['content-type'] !== undefined) return new ApiError('invalid_body', BODY_MESSAGES.invalid_body)
  return new ApiError('internal_error', `An unexpected error occurred (request id ${String(request.id)}).`)
}

export function sendError (reply: FastifyReply, error: ApiError): FastifyReply {
  reply.request.outcome = error.code
  // The rest of an oversized body is never read: end the connection with the answer.
  if (error.code === 'payload_too_large') reply.header('connection', 'close')
  return reply
    .code(200)
    .type('application/json; charset=utf-8')
    // A route's response schema describes its success data; errors are plain JSON.
    .serializer(JSON.stringify)
    .send({ ok: false, error: error.code, message: error.message })
}

/** For Fastify's `frameworkErrors` option: bad URLs and the like. */
export function frameworkErrors (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  sendError(reply, toApiError(error, request, undefined))
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set once the body has been read and turned into parameters. */
    bodyAccepted: boolean
  }
}

/** OPTIONS is left out: it exists only as the CORS preflight of /api/rank, whose wildcard matches any suffix. */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const

export default fp(async (fastify) => {
  fastify.decorateRequest('bodyAccepted', false)
  const explainers: Array<(request: FastifyRequest) => ApiError | undefined> = []
  fastify.decorate('explainNotFound', (explain: (request: FastifyRequest) => ApiError | undefined) => { explainers.push(explain) })

  function routeError (request: FastifyRequest): ApiError {
    for (const explain of explainers) {
      const error = explain(request)
      if (error !== undefined) return error
    }
    const path = request.url.replace(/\?.*$/s, '')
    const takes = (method: string): boolean => fastify.findRoute({ method, url: path }) !== null
    // A route that matched this method and found nothing (a missing static file) is not_found.
    const otherMethod = !takes(request.method) && METHODS.some(method => method !== request.method && takes(method))
    return otherMethod ? new ApiError('method_not_allowed', `${request.method} is not allowed on this path.`) : new ApiError('not_found')
  }

  // Answer unknown routes before any body is read, so a route fault is reported first.
  fastify.addHook('onRequest', (request, _reply, done) => {
    // HTTP/1.1 requires a Host header. Node refuses a request without one
    // itself, with a bare 400 and none of the security headers, so it lets
    // it through (requireHostHeader: false, src/app.ts) to this answer.
    if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) throw new ApiError('invalid_body', 'An HTTP/1.1 request must carry a Host header.')
    if (request.is404) throw routeError(request)
    done()
  })
  fastify.setNotFoundHandler(async (request, reply) => sendError(reply, routeError(request)))

  fastify.setErrorHandler(async (error, request, reply) => {
    const apiError = toApiError(error, request, fastify.redis)
    if (apiError.code === 'internal_error') request.log.error({ err: error }, 'unexpected error')
    else if (apiError.code === 'unavailable') request.log.warn({ reason: error instanceof Error ? error.message : String(error) }, 'Redis unavailable')
    else request.log.debug({ code: apiError.code }, apiError.message)
    return sendError(reply, apiError)
  })
}, { name: 'envelope', dependencies: ['config'] })

declare module 'fastify' {
  interface FastifyInstance {
    /** Lets a route family (such as /api/rank actions) name the error of a request no route matched. */
    explainNotFound: (explain: (request: FastifyRequest) => ApiError | undefined) => void
  }
}
