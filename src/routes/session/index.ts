import type { FastifyInstance, FastifyRequest } from 'fastify'
import { fail, ok } from '../../errors.js'
import { param, parseSeconds, parseStars, requireParams } from '../../rules/fields.js'
import { requires } from '../requires.js'
import { routeSchemas } from '../schemas.js'

/** `_method=DELETE` in a POST form is a DELETE (docs/interface.md#ratings). */
function isDelete (request: FastifyRequest): boolean {
  if (request.method !== 'POST') return request.method === 'DELETE'
  const override = request.fields._method
  if (override === undefined || override === '') return false
  if (override.toUpperCase() !== 'DELETE') fail('invalid_param', '_method may only be DELETE.')
  return true
}

/** Ratings and play time: session mode, on existing approved games. */
export default async function sessionRoutes (fastify: FastifyInstance): Promise<void> {
  const config = { rateLimitPolicy: 'session' as const }
  const sessionChecks = [fastify.requireSession, fastify.checkOrigin, fastify.limitRate]

  // game_id comes from the query for every method; a game_id form field is accepted when the query has none.
  const rate = {
    url: '/api/rate',
    config,
    preValidation: fastify.readFields,
    preHandler: [...sessionChecks, requires('game_id')],
    handler: async (request: FastifyRequest) => {
      const remove = isDelete(request)
      if (request.method === 'POST' && !remove) requireParams(request.fields, ['stars'])
      await fastify.requireApprovedGame(request)
      const gameId = request.game!.game_id
      const username = request.user!.username
      if (request.method === 'GET') return ok(await fastify.ratings.read(gameId, username))
      if (remove) return ok(await fastify.ratings.unrate(gameId, username))
      return ok(await fastify.ratings.rate(gameId, username, parseStars(param(request.fields, 'stars'))))
    }
  }
  // Two registrations only because a GET route may not declare a body schema.
  fastify.route({ ...rate, method: 'GET', schema: routeSchemas.rateRead })
  fastify.route({ ...rate, method: ['POST', 'DELETE'], schema: routeSchemas.rate })

  fastify.route({
    method: 'POST',
    url: '/api/playtime',
    schema: routeSchemas.playtime,
    config,
    preValidation: fastify.readFields,
    preHandler: [...sessionChecks, requires('game_id', 'seconds'), fastify.requireApprovedGame],
    handler: async (request) => {
      const seconds = parseSeconds(param(request.fields, 'seconds'))
      return ok(await fastify.playtime.report(request.game!.game_id, request.user!.username, seconds))
    }
  })
}
