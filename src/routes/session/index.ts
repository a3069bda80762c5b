import type { FastifyInstance, FastifyRequest } from 'fastify'
import { fail, ok } from '../../errors.js'
import { optional, param } from '../../lib/params.js'
import { parseRunId, parseSeconds, parseStars } from '../../rules/fields.js'
import { sessionHandler } from '../public-action.js'
import { sessionSchemas } from './schemas.js'

/** `_method=DELETE` in a POST form is a DELETE (docs/interface.md#ratings): a form cannot send DELETE. */
export function isDelete (request: FastifyRequest): boolean {
  if (request.method !== 'POST') return request.method === 'DELETE'
  const override = request.fields._method
  if (override === undefined || override === '') return false
  if (override.toUpperCase() !== 'DELETE') fail('invalid_param', '_method may only be DELETE.')
  return true
}

/** Ratings and play time: session mode, on existing approved games (the request path: ../public-action.ts). */
export default async function sessionRoutes (fastify: FastifyInstance): Promise<void> {
  const config = { rateLimitPolicy: 'session' as const }

  // game_id comes from the query for every method; a game_id form field is accepted when the query has none.
  const rate = {
    url: '/api/rate',
    config,
    handler: sessionHandler(fastify, {
      // A new rating needs its stars, checked before the game; a bad _method before that.
      required: (request) => request.method === 'POST' && !isDelete(request) ? ['stars'] : [],
      action: async (fields, { game, user }, reply) => {
        const { method } = reply.request
        if (method === 'GET') return ok(await fastify.ratings.read(game, user.username))
        if (isDelete(reply.request)) {
          const { removed: _removed, ...answer } = await fastify.ratings.unrate(game, user.username)
          return ok(answer)
        }
        const stars = parseStars(param(fields, 'stars'))
        // The play the game asks of a rater (rating_min_play_seconds), and of a guest at least GUEST_RATING_PLAY_S.
        return ok(await fastify.ratings.rate(game, user.username, stars, { guest: user.guest }))
      }
    })
  }
  // Two registrations only because a GET route may not declare a body schema.
  fastify.route({ ...rate, method: 'GET', schema: sessionSchemas.rateRead })
  fastify.route({ ...rate, method: ['POST', 'DELETE'], schema: sessionSchemas.rate })

  fastify.route({
    method: 'POST',
    url: '/api/playtime',
    schema: sessionSchemas.playtime,
    config,
    handler: sessionHandler(fastify, {
      required: ['seconds'],
      action: async (fields, { game, user }) => {
        const seconds = parseSeconds(param(fields, 'seconds'))
        // A report for a run also credits the run's verified play (docs/interface.md#runs).
        const runId = parseRunId(optional(fields, 'run_id'))
        return ok(await fastify.playtime.report(game, user.username, seconds, runId))
      }
    })
  })
}
