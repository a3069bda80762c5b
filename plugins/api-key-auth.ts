import fp from 'fastify-plugin'
import type { FastifyRequest } from 'fastify'
import { fail } from '../src/envelope.js'
import { checkTimestamp, isGameId } from '../src/params.js'
import { signatureMatches } from '../src/signature.js'
import type { GameRecord, KeyRecord } from '../src/store/records.js'

declare module 'fastify' {
  interface FastifyRequest {
    apiKey: KeyRecord | null
    game: GameRecord | null
  }
  interface FastifyInstance {
    /** preValidation: looks up the key and the game in one round trip; judges nothing yet. */
    loadApiKey: (request: FastifyRequest) => Promise<void>
    /** preHandler, after the rate limit: key, game, then for `submit` the timestamp and signature. */
    verifyApiKey: (request: FastifyRequest) => Promise<void>
  }
  interface FastifyContextConfig {
    /** The action carries `ts` and `sign` (only `submit`). */
    signed?: boolean
  }
}

/**
 * API-key authentication in the check order of DECISIONS.md section 1:
 * key (invalid_key, key_revoked), game (invalid_game, key_game_mismatch),
 * timestamp (invalid_param, expired_ts), then invalid_signature.
 */
export default fp(async (fastify) => {
  fastify.decorateRequest('apiKey', null)
  fastify.decorateRequest('game', null)

  fastify.decorate('loadApiKey', async (request: FastifyRequest) => {
    const { api_key: apiKey, game_id: gameId } = request.fields
    const { key, game } = await fastify.records.keyAndGame(apiKey ?? '', gameId ?? '')
    request.apiKey = key
    request.game = game
    // A known key is counted per (key, address); an unknown one per address.
    if (key !== null) request.rateLimitSubject = `key:${key.api_key}:${request.ip}`
  })

  fastify.decorate('verifyApiKey', async (request: FastifyRequest) => {
    const { apiKey: key, game, fields } = request
    if (key === null) fail('invalid_key')
    if (key.revoked) fail('key_revoked')
    if (game === null || !game.approved || !isGameId(fields.game_id ?? '')) fail('invalid_game')
    if (key.game_id !== game.game_id) fail('key_game_mismatch')
    if (request.routeOptions.config.signed !== true) return
    checkTimestamp(fields.ts ?? '')
    const signed = {
      api_key: key.api_key,
      game_id: game.game_id,
      player_name: fields.player_name ?? '',
      score: fields.score ?? '',
      ts: fields.ts ?? ''
    }
    if (!signatureMatches(key.secret, signed, fields.sign ?? '')) fail('invalid_signature')
  })
}, { name: 'api-key-auth', dependencies: ['store', 'forms', 'rate-limit'] })
