import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { fail, ok } from '../envelope.js'

/** Admin bodies may be up to 1 MiB (DECISIONS.md section 5). */
export const ADMIN_BODY_LIMIT = 1_048_576

function digest (text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest()
}

/**
 * The operator API under /admin. Registered only when ADMIN_TOKEN is set, so
 * without it every /admin path is not_found. Each route is a thin call into
 * the admin module, which the command-line tool shares.
 */
export default async function adminRoutes (fastify: FastifyInstance): Promise<void> {
  const token = fastify.config.adminToken
  if (token === undefined) return
  const expected = digest(`Bearer ${token}`)

  // Checked before the body is read: unauthorized comes before anything about the body.
  fastify.addHook('onRequest', async (request: FastifyRequest) => {
    const given = request.headers.authorization
    // Hashing both sides gives equal lengths, so the comparison is constant-time.
    if (given === undefined || !timingSafeEqual(digest(given), expected)) fail('unauthorized')
  })

  const options = { bodyLimit: ADMIN_BODY_LIMIT }
  type WithGame = { Params: { game_id: string } }
  type WithKey = { Params: { api_key: string } }

  fastify.post('/admin/games', options, async (request) => ok(await fastify.admin.createGame(request.body)))
  fastify.patch<WithGame>('/admin/games/:game_id', options, async (request) => ok(await fastify.admin.updateGame(request.params.game_id, request.body)))
  fastify.post('/admin/keys', options, async (request) => ok(await fastify.admin.createKey(request.body)))
  fastify.post<WithKey>('/admin/keys/:api_key/revoke', options, async (request) => ok(await fastify.admin.revokeKey(request.params.api_key, request.body)))
}
