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

/**
 * POST parameters arrive form-encoded or as multipart form data and give the
 * same plain map of strings (spec section 4). Multipart bodies are streamed by
 * @fastify/multipart, which Fastify's bodyLimit does not see, so its limits
 * and a Content-Length check bound them instead.
 */
export default fp(async (fastify) => {
  const { bodyLimit } = fastify.config
  await fastify.register(formbody, { parser: parseFormBody })
  await fastify.register(multipart, {
    attachFieldsToBody: 'keyValues',
    limits: { fieldNameSize: 100, fieldSize: bodyLimit, fields: 50, files: 0, parts: 50, headerPairs: 50 }
  })

  fastify.addHook('preParsing', async (request: FastifyRequest) => {
    const declared = Number(request.headers['content-length'])
    const limit = request.routeOptions.bodyLimit ?? bodyLimit
    if (request.isMultipart() && declared > limit) fail('payload_too_large')
  })
  // Runs after @fastify/multipart's own preValidation hook has read the parts.
  fastify.addHook('preValidation', async (request: FastifyRequest) => { request.bodyAccepted = true })

  fastify.decorateRequest('fields', null as unknown as Params)
  fastify.decorate('readFields', async (request: FastifyRequest) => {
    request.fields = collectParams(request.query, request.body)
  })
}, { name: 'forms', dependencies: ['config', 'envelope'] })
