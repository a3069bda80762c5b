import fp from 'fastify-plugin'
import type { FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify'
import { ApiError, fail } from '../../src/errors.js'
import { playableGame } from '../../src/rules/games.js'
import { checkTimestamp, collectParams, param, requireParams, type Params } from '../../src/rules/fields.js'
import { signatureMatches } from '../../src/rules/signature.js'
import type { Limits } from '../../src/store/limits.js'
import type { GameRecord, KeyRecord } from '../../src/rules/games.js'

/**
 * What an API-key action does once the key, the game and (for `submit`) the
 * signature hold: reads its fields (a bad one throws, step 9 of the check
 * order) and returns its one script call, to be made with the request's
 * rate limits.
 */
export type ApiKeyAction = (fields: Params, game: GameRecord, reply: FastifyReply) => (limits: Limits) => Promise<unknown>

declare module 'fastify' {
  interface FastifyRequest {
    apiKey: KeyRecord | null
    game: GameRecord | null
  }
  interface FastifyInstance {
    /**
     * The handler of an API-key action (`submit`, `top`, `me`): the whole
     * check order after the route and the body, and one Redis script call.
     */
    apiKeyHandler: (options: { required: readonly string[], signed?: boolean }, action: ApiKeyAction) => RouteHandlerMethod
  }
}

/**
 * The game of a key that passes the checks up to the signature, else the
 * check's ApiError: the key exists and is not revoked, its game is playable
 * and is the key's. (Also what keeps a live stream opened with the key going.)
 */
export function checkKey (key: KeyRecord | null, game: GameRecord | null): GameRecord {
  if (key === null) fail('invalid_key')
  if (key.revoked) fail('key_revoked')
  const playable = playableGame(game)
  if (key.game_id !== playable.game_id) fail('key_game_mismatch')
  return playable
}

/**
 * API-key requests in the check order (docs/interface.md#check-order):
 * missing_param; rate_limited; the key (invalid_key, key_revoked); the game
 * (invalid_game, key_game_mismatch); for `submit` the timestamp
 * (invalid_param, expired_ts), invalid_signature and the key's total
 * (rate_limited); the field values; then the action.
 *
 * Every check but the counting runs in the process first, on records the
 * cache holds, so an accepted request costs Redis one script call: the
 * action's own, which counts the limits before its work and skips the work
 * when one is over (store/limits.ts). A request refused by a check in the
 * process still counts, in a call of its own, and is answered rate_limited
 * instead when that puts it over. Either way the answer is the one the
 * check order gives.
 */
export default fp(async (fastify) => {
  fastify.decorateRequest('apiKey', null)
  fastify.decorateRequest('game', null)

  function checkSignature (key: KeyRecord, game: GameRecord, fields: Params): void {
    checkTimestamp(param(fields, 'ts'))
    const signed = {
      api_key: key.api_key,
      game_id: game.game_id,
      player_name: param(fields, 'player_name'),
      score: param(fields, 'score'),
      ts: param(fields, 'ts')
    }
    if (!signatureMatches(key.secret, signed, param(fields, 'sign'))) fail('invalid_signature')
  }

  fastify.decorate('apiKeyHandler', ({ required, signed = false }, action) => async function (request: FastifyRequest, reply: FastifyReply) {
    const fields = request.fields = collectParams(request.query, request.body)
    requireParams(fields, required)
    const { key, game } = await fastify.records.keyAndGame(param(fields, 'api_key'), param(fields, 'game_id'))
    request.apiKey = key
    request.game = game
    const limits = fastify.rateLimits.apiKey(request, reply, key)
    let work: (limits: Limits) => Promise<unknown>
    try {
      const playable = checkKey(key, game)
      if (signed) {
        checkSignature(key as KeyRecord, playable, fields)
        // Counted only once the signature holds: the api_key is public (top and
        // me are called from browsers), and knowing it must not be enough to use
        // up the key's share and lock its game server out.
        limits.countKeyTotal()
      }
      work = action(fields, playable, reply)
    } catch (error) {
      if (error instanceof ApiError) await fastify.rateLimits.countAlone(limits)
      throw error
    }
    return await work(limits)
  })
}, { name: 'api-key-auth', dependencies: ['store', 'forms', 'rate-limit'] })
