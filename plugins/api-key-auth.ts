import fp from 'fastify-plugin'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { fail } from '../src/http/envelope.js'
import { playableGame } from '../src/http/games.js'
import { checkTimestamp, param } from '../src/http/params.js'
import { signatureMatches } from '../src/http/signature.js'
import { clientAddress } from './rate-limit.js'
import { keys } from '../src/store/keys.js'
import type { GameRecord, KeyRecord } from '../src/store/records.js'

declare module 'fastify' {
  interface FastifyRequest {
    apiKey: KeyRecord | null
    game: GameRecord | null
  }
  interface FastifyInstance {
    /** preValidation: looks up the key and the game in one round trip; judges nothing yet. */
    loadApiKey: (request: FastifyRequest) => Promise<void>
    /**
     * preHandler, after the rate limit: key, game, then for `submit` the
     * timestamp, the signature, and the key's total of signed submits.
     */
    verifyApiKey: (request: FastifyRequest, reply: FastifyReply) => Promise<void>
  }
  interface FastifyContextConfig {
    /** The action carries `ts` and `sign` (only `submit`). */
    signed?: boolean
  }
}

/**
 * API-key authentication in the check order (docs/interface.md#check-order):
 * key (invalid_key, key_revoked), game (invalid_game, key_game_mismatch),
 * timestamp (invalid_param, expired_ts), then invalid_signature; a signed
 * submit then counts against its key's total (rate_limited).
 */
export default fp(async (fastify) => {
  fastify.decorateRequest('apiKey', null)
  fastify.decorateRequest('game', null)

  fastify.decorate('loadApiKey', async (request: FastifyRequest) => {
    const { key, game } = await fastify.records.keyAndGame(param(request.fields, 'api_key'), param(request.fields, 'game_id'))
    request.apiKey = key
    request.game = game
    // A known key is counted per (key, address); an unknown one per address.
    if (key !== null) request.rateLimitSubject = keys.apiKeyLimitSubject(key.game_id, key.api_key, clientAddress(request))
  })

  fastify.decorate('verifyApiKey', async (request: FastifyRequest, reply: FastifyReply) => {
    const { apiKey: key, fields } = request
    if (key === null) fail('invalid_key')
    if (key.revoked) fail('key_revoked')
    const game = playableGame(request.game)
    if (key.game_id !== game.game_id) fail('key_game_mismatch')
    if (request.routeOptions.config.signed !== true) return
    checkTimestamp(param(fields, 'ts'))
    const signed = {
      api_key: key.api_key,
      game_id: game.game_id,
      player_name: param(fields, 'player_name'),
      score: param(fields, 'score'),
      ts: param(fields, 'ts')
    }
    if (!signatureMatches(key.secret, signed, param(fields, 'sign'))) fail('invalid_signature')
    // Counted only once the signature holds: the api_key is public (top and
    // me are called from browsers), and knowing it must not be enough to use
    // up the key's share and lock its game server out.
    await fastify.rateLimits.enforce(request, reply, 'apiKeyTotal', keys.apiKeyLimitSubject(key.game_id, key.api_key))
  })
}, { name: 'api-key-auth', dependencies: ['store', 'forms', 'rate-limit'] })
