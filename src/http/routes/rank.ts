import cors from '@fastify/cors'
import type { FastifyInstance } from 'fastify'
import { ok } from '../envelope.js'
import { optional, param, parseLimit, parseMeta, parseOffset, parsePlayerName, parseScore } from '../params.js'
import { API_KEY_ACTIONS, RANK_ACTIONS, actionConstraint, actionOf, explainRankMiss } from './action.js'
import { requires } from './requires.js'
import { routeSchemas } from '../schemas.js'
import { HELMET } from '../../../plugins/security-headers.js'
import type { GameCaps } from '../../store/leaderboard.js'
import type { GameRecord } from '../../store/records.js'

function capsOf (game: GameRecord): GameCaps {
  return { maxEntries: game.max_entries, maxMetaBytes: game.max_meta_bytes }
}

/**
 * The actions of /api/rank (docs/interface.md#api-key-mode): submit, top and me in API-key
 * mode, submit-self and me-self in session mode. Registered under the prefix
 * RANK_PATH, so CORS and its preflight route stay on this path.
 */
export default async function rankRoutes (fastify: FastifyInstance): Promise<void> {
  fastify.addConstraintStrategy(actionConstraint)
  fastify.explainNotFound(explainRankMiss)
  // Other sites' pages may call the API-key actions; the session actions stay
  // same-origin (their routes say `cors: false`). The preflight route of
  // @fastify/cors serves every action of the path, so an OPTIONS for any
  // other action is turned away first, as a route that is not there.
  // Static options, worked out once by the plugin (a delegator's were worked
  // out anew for every request: a tenth of a top list's CPU, bench/RESULTS.md).
  // strictPreflight off: an OPTIONS that is not a preflight gets the 204, not a text/plain 400.
  // This hook must be added before cors is registered, so it runs before cors's own.
  fastify.addHook('onRequest', (request, reply, done) => {
    if (request.method === 'OPTIONS') {
      const action = actionOf(request.raw)
      if (typeof action !== 'string' || !API_KEY_ACTIONS.has(action)) {
        reply.callNotFound()
        return
      }
    }
    done()
  })
  await fastify.register(cors, { origin: '*', methods: 'GET, POST', exposedHeaders: 'Retry-After', maxAge: 86400, strictPreflight: false })
  const sameOrigin = { cors: false }

  const apiKeyRoute = { rateLimitPolicy: 'apiKey' as const }
  // Other sites' pages read these answers (CORS), so they may be loaded cross-origin.
  const crossOrigin = { helmet: HELMET.crossOrigin }

  fastify.route({
    method: RANK_ACTIONS.submit,
    url: '',
    constraints: { action: 'submit' },
    schema: routeSchemas.submit,
    ...crossOrigin,
    config: apiKeyRoute,
    handler: fastify.apiKeyHandler({ required: ['api_key', 'game_id', 'player_name', 'score', 'ts', 'sign'], signed: true }, (fields, game) => {
      const player = parsePlayerName(param(fields, 'player_name'))
      const score = parseScore(param(fields, 'score'))
      const meta = parseMeta(optional(fields, 'meta'))
      const signed = { ts: param(fields, 'ts'), sign: param(fields, 'sign') }
      return async (limits) => {
        const result = await fastify.leaderboard.submit(game.game_id, player, score, meta, capsOf(game), signed, limits)
        return ok({ score, improved: result.improved, best_score: result.bestScore, rank: result.rank })
      }
    })
  })

  fastify.route({
    method: RANK_ACTIONS.top,
    url: '',
    constraints: { action: 'top' },
    schema: routeSchemas.top,
    ...crossOrigin,
    config: apiKeyRoute,
    handler: fastify.apiKeyHandler({ required: ['api_key', 'game_id'] }, (fields, game) => {
      const limit = parseLimit(optional(fields, 'limit'))
      const offset = parseOffset(optional(fields, 'offset'))
      return async (limits) => {
        const { total, items } = await fastify.leaderboard.top(game.game_id, offset, limit, limits)
        return ok({ game_id: game.game_id, total, items })
      }
    })
  })

  fastify.route({
    method: RANK_ACTIONS.me,
    url: '',
    constraints: { action: 'me' },
    schema: routeSchemas.me,
    ...crossOrigin,
    config: apiKeyRoute,
    handler: fastify.apiKeyHandler({ required: ['api_key', 'game_id', 'player_name'] }, (fields, game) => {
      const player = parsePlayerName(param(fields, 'player_name'))
      return async (limits) => {
        const standing = await fastify.leaderboard.standing(game.game_id, player, limits)
        return ok({ player_name: player, best_score: standing.bestScore, rank: standing.rank })
      }
    })
  })

  // Session mode: the player is the logged-in user, on the same board.
  const sessionRoute = { rateLimitPolicy: 'session' as const, ...sameOrigin }
  const sessionChecks = [fastify.requireSession, fastify.checkOrigin, fastify.limitRate]

  fastify.route({
    method: RANK_ACTIONS['submit-self'],
    url: '',
    constraints: { action: 'submit-self' },
    schema: routeSchemas.submitSelf,
    config: sessionRoute,
    preValidation: fastify.readFields,
    preHandler: [...sessionChecks, requires('game_id', 'score'), fastify.requireApprovedGame],
    handler: async (request) => {
      const score = parseScore(param(request.fields, 'score'))
      const meta = parseMeta(optional(request.fields, 'meta'))
      const user = request.user!
      const game = request.game!
      const result = await fastify.leaderboard.submit(game.game_id, user.username, score, meta, capsOf(game))
      return ok({
        score,
        improved: result.improved,
        best_score: result.bestScore,
        rank: result.rank,
        total_players: result.totalPlayers,
        is_dev_record: game.developer === user.username,
        is_admin_record: user.is_admin
      })
    }
  })

  fastify.route({
    method: RANK_ACTIONS['me-self'],
    url: '',
    constraints: { action: 'me-self' },
    schema: routeSchemas.meSelf,
    config: sessionRoute,
    preValidation: fastify.readFields,
    preHandler: [...sessionChecks, requires('game_id'), fastify.requireApprovedGame],
    handler: async (request) => {
      const user = request.user!
      const game = request.game!
      const standing = await fastify.leaderboard.standing(game.game_id, user.username)
      return ok({
        player_name: user.username,
        best_score: standing.bestScore,
        rank: standing.rank,
        total_players: standing.totalPlayers,
        is_dev_record: game.developer === user.username,
        is_admin_record: user.is_admin
      })
    }
  })
}
