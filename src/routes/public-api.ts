import type { FastifyInstance } from 'fastify'
import { RANK_PATH } from './rank/action.js'
import authRoutes from './auth/index.js'
import rankRoutes from './rank/index.js'
import sessionRoutes from './session/index.js'
import gamesRoutes, { GAMES_PATH } from './games/index.js'

/**
 * The public routes (/api/*, /auth/*) take form fields only, form-encoded or
 * multipart (docs/interface.md#requests): JSON and plain text bodies are invalid_body.
 */
export default async function publicRoutes (fastify: FastifyInstance): Promise<void> {
  fastify.removeContentTypeParser(['application/json', 'text/plain'])
  await fastify.register(rankRoutes, { prefix: RANK_PATH })
  await fastify.register(sessionRoutes)
  await fastify.register(authRoutes)
  // Under its own prefix, so the CORS preflight route of @fastify/cors answers this path only.
  await fastify.register(gamesRoutes, { prefix: GAMES_PATH })
}
