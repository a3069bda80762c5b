import fp from 'fastify-plugin'
import formbody from '@fastify/formbody'
import multipart from '@fastify/multipart'
import type { Readable, Writable } from 'node:stream'
import type { FastifyRequest } from 'fastify'
import { fail } from '../../src/errors.js'
import { collectParams, parseFormBody, type Params } from '../../src/lib/params.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's form fields and query parameters, each sent once. */
    fields: Params
    /** The body grew past the route's limit; what was read of it is cut short. */
    bodyTooLarge: boolean
  }
  interface FastifyInstance {
    /** preValidation hook of the public routes: fills request.fields. */
    readFields: (request: FastifyRequest) => Promise<void>
  }
}

/**
 * Multipart fields (and parts) per request: as many as a form-encoded body
 * could sensibly carry, so both encodings are treated alike. Their bytes are
 * bounded by capBody; this bounds the objects busboy makes for them.
 */
export const MULTIPART_FIELDS = 200

type Push = (chunk: unknown, encoding?: BufferEncoding) => boolean

/**
 * Counts the bytes of a request body as they arrive, whatever Content-Length
 * or Transfer-Encoding claim, and lets no reader see more than `limit + 1` of
 * them. Reaching that sets `bodyTooLarge`, so whatever a reader then makes of
 * the body is reported as payload_too_large (see toApiError):
 *
 * - Fastify's own reader (form and JSON bodies) gets the `limit + 1` bytes
 *   and stops there itself;
 * - a reader that pipes the request (@fastify/multipart into busboy) is
 *   unpiped and ended, so it fails at once instead of waiting for more.
 *
 * What the client sends after that is dropped and its socket paused; the
 * answer closes the connection (sendError). The stream itself is not ended:
 * Node treats a request that ends before its message is complete as aborted
 * and destroys the socket, and the client would get no answer at all.
 *
 * Why at the source: @fastify/multipart reads the raw request itself, so
 * Fastify's bodyLimit never sees a multipart body, and busboy's limits are per
 * field, not per request. Node's HTTP parser (and light-my-request) hand the
 * body over through `push`, so counting there holds for every content type
 * and encoding at once.
 */
function capBody (request: FastifyRequest, limit: number): void {
  const raw = request.raw as unknown as Readable & { push: Push }
  const piped = new Set<Writable>()
  function cut (): void {
    request.bodyTooLarge = true
    for (const destination of piped) {
      raw.unpipe(destination)
      destination.end()
    }
  }
  const { pipe, push } = raw
  raw.pipe = function <T extends NodeJS.WritableStream>(this: Readable, destination: T, options?: { end?: boolean }): T {
    piped.add(destination as unknown as Writable)
    const result = pipe.call(this, destination, options) as T
    if (request.bodyTooLarge) cut()
    return result
  }
  // Bytes that arrived before this hook ran are already buffered.
  let received = raw.readableLength
  raw.push = function (chunk, encoding) {
    if (chunk === null || chunk === undefined) return push.call(this, chunk, encoding)
    if (request.bodyTooLarge) return false
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, encoding) : chunk as Buffer
    if (received + bytes.length <= limit) {
      received += bytes.length
      return push.call(this, bytes)
    }
    push.call(this, bytes.subarray(0, limit + 1 - received))
    cut()
    return false
  }
  if (received > limit) cut()
}

/**
 * POST parameters arrive form-encoded or as multipart form data and give the
 * same plain map of strings (docs/interface.md#requests). Every body, whatever its type,
 * is capped at the route's body limit by capBody; multipart bodies take
 * fields only (a file part is invalid_body) and at most MULTIPART_FIELDS of them.
 */
export default fp(async (fastify) => {
  const { bodyLimit } = fastify.config
  fastify.decorateRequest('bodyTooLarge', false)
  // The first hook of every request, before anything reads the body. (Every
  // request runs these hooks: they take a callback, which costs less than a promise.)
  fastify.addHook('onRequest', (request: FastifyRequest, _reply, done) => {
    capBody(request, request.routeOptions.bodyLimit ?? bodyLimit)
    done()
  })

  await fastify.register(formbody, { parser: parseFormBody })
  await fastify.register(multipart, {
    attachFieldsToBody: 'keyValues',
    // A field one byte over the body limit was cut short: it is refused, never stored truncated.
    limits: { fieldNameSize: 100, fieldSize: bodyLimit + 1, fields: MULTIPART_FIELDS, files: 0, parts: MULTIPART_FIELDS, headerPairs: 50 }
  })

  // Before any parser runs, so a body that says it is too large is refused
  // whatever its content type (payload_too_large comes before invalid_body).
  fastify.addHook('preParsing', (request: FastifyRequest, _reply, payload, done) => {
    const declared = Number(request.headers['content-length'])
    if (declared > (request.routeOptions.bodyLimit ?? bodyLimit)) fail('payload_too_large')
    done(null, payload)
  })
  // Runs after @fastify/multipart's own preValidation hook has read the parts.
  fastify.addHook('preValidation', (request: FastifyRequest, _reply, done) => {
    // A multipart body whose closing boundary came before the cut parses
    // cleanly all the same: the body on the wire was still too large.
    if (request.bodyTooLarge) fail('payload_too_large')
    if (request.isMultipart() && request.body !== null && typeof request.body === 'object') {
      for (const value of Object.values(request.body)) {
        if (typeof value === 'string' && Buffer.byteLength(value) > bodyLimit) fail('payload_too_large')
      }
    }
    request.bodyAccepted = true
    done()
  })

  fastify.decorateRequest('fields', null as unknown as Params)
  fastify.decorate('readFields', async (request: FastifyRequest) => {
    request.fields = collectParams(request.query, request.body)
  })
}, { name: 'forms', dependencies: ['config', 'envelope'] })
