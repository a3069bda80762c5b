import fp from 'fastify-plugin'
import formbody from '@fastify/formbody'
import multipart from '@fastify/multipart'
import type { FastifyRequest } from 'fastify'
import { fail } from '../src/envelope.js'
import { collectParams, parseFormBody, type Params } from '../src/params.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's form fields and query parameters, each sent once. */
    fields: Params
  }
  interface FastifyInstance {
    /** preValidation hook of the public routes: fills request.fields. */
    readFields: (request: FastifyRequest) => Promise<void>
  }
}

/** Multipart parts and fields per request: as many as a form-encoded body could sensibly carry. */
const MULTIPART_PARTS = 200

/**
 * POST parameters arrive form-encoded or as multipart form data and give the
 * same plain map of strings (spec section 4). Multipart bodies are streamed by
 * @fastify/multipart, which Fastify's bodyLimit does not see, so they are
 * bounded by their Content-Length and by a per-field limit one byte above the
 * body limit: a field that reaches it was cut short and is refused, never
 * stored truncated.
 */
export default fp(async (fastify) => {
  const { bodyLimit } = fastify.config
  await fastify.register(formbody, { parser: parseFormBody })
  await fastify.register(multipart, {
    attachFieldsToBody: 'keyValues',
    limits: { fieldNameSize: 100, fieldSize: bodyLimit + 1, fields: MULTIPART_PARTS, files: 0, parts: MULTIPART_PARTS, headerPairs: 50 }
  })

  // Before any parser runs, so a body that is too large is reported as such
  // whatever its content type (payload_too_large comes before invalid_body).
  fastify.addHook('preParsing', async (request: FastifyRequest) => {
    const declared = Number(request.headers['content-length'])
    if (declared > (request.routeOptions.bodyLimit ?? bodyLimit)) fail('payload_too_large')
  })
  // Runs after @fastify/multipart's own preValidation hook has read the parts.
  fastify.addHook('preValidation', async (request: FastifyRequest) => {
    if (request.isMultipart() && request.body !== null && typeof request.body === 'object') {
      for (const value of Object.values(request.body)) {
        if (typeof value === 'string' && Buffer.byteLength(value) > bodyLimit) fail('payload_too_large')
      }
    }
    request.bodyAccepted = true
  })

  fastify.decorateRequest('fields', null as unknown as Params)
  fastify.decorate('readFields', async (request: FastifyRequest) => {
    request.fields = collectParams(request.query, request.body)
  })
}, { name: 'forms', dependencies: ['config', 'envelope'] })
