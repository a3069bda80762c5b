import cors from '@fastify/cors'
import type { FastifyInstance } from 'fastify'
import { ok } from '../envelope.js'
import { optional, param, parseBoardChoice, parseLimit, parseMeta, parseNeighbours, parseOffset, parsePlayerName, parsePlayerNames, parseScore, type Params } from '../params.js'
import { API_KEY_ACTIONS, RANK_ACTIONS, actionConstraint, actionOf, explainRankMiss } from './action.js'
import { requires } from './requires.js'
import { routeSchemas } from '../schemas.js'
import { HELMET } from '../../../plugins/security-headers.js'
import { keptPeriodsOf } from '../../store/boards.js'
import type { Leaderboard, SubmitResult } from '../../store/leaderboard.js'
import { boardFields, iso } from '../boards.js'
import type { GameRecord } from '../../store/records.js'

/** The body limit of players and players-self (64 KiB). */
export const PLAYERS_BODY_LIMIT = 65_536

/** A submit's answer adds each current period board, for a game that keeps periods only. */
function submitPeriods (game: GameRecord, result: SubmitResult): Record<string, unknown> {
  return game.periods.length === 0 ? {} : { periods: result.periods }
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
  const { leaderboard } = fastify
  const now = leaderboard.now

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
        const result = await leaderboard.submit(game, player, score, meta, signed, limits)
        return ok({ score, improved: result.improved, best_score: result.bestScore, rank: result.rank, ...submitPeriods(game, result) })
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
      const choice = parseBoardChoice(fields)
      return async (limits) => {
        const { total, items, board } = await leaderboard.top(game, choice, offset, limit, limits)
        return ok({ game_id: game.game_id, total, items, ...await boardFields(leaderboard, game, board) })
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
      const choice = parseBoardChoice(fields)
      return async (limits) => {
        const standing = await leaderboard.standing(game, choice, player, limits)
        return ok({ player_name: player, best_score: standing.bestScore, rank: standing.rank, ...await boardFields(leaderboard, game, standing.board) })
      }
    })
  })

  /** around and around-self: the player, then the request's board and sides. */
  function aroundOf (fields: Params, game: GameRecord, player: string) {
    const choice = parseBoardChoice(fields)
    const before = parseNeighbours(fields, 'before')
    const after = parseNeighbours(fields, 'after')
    return async (limits?: Parameters<Leaderboard['around']>[5]) => {
      const { player: standing, total, items, board } = await leaderboard.around(game, choice, player, before, after, limits)
      return { game_id: game.game_id, total, player: standing, items, ...await boardFields(leaderboard, game, board) }
    }
  }

  fastify.route({
    method: RANK_ACTIONS.around,
    url: '',
    constraints: { action: 'around' },
    schema: routeSchemas.around,
    ...crossOrigin,
    config: apiKeyRoute,
    handler: fastify.apiKeyHandler({ required: ['api_key', 'game_id', 'player_name'] }, (fields, game) => {
      const around = aroundOf(fields, game, parsePlayerName(param(fields, 'player_name')))
      return async (limits) => ok(await around(limits))
    })
  })

  /**
   * A body that holds 100 names of 30 four-byte characters, form-encoded
   * (about 37 KB), whatever BODY_LIMIT says for the other actions.
   */
  const playersBodyLimit = Math.max(fastify.config.bodyLimit, PLAYERS_BODY_LIMIT)

  /** players and players-self: the named players on the request's board. */
  function playersOf (fields: Params, game: GameRecord, players: string[]) {
    const choice = parseBoardChoice(fields)
    return async (limits?: Parameters<Leaderboard['players']>[3]) => {
      const { total, items, board } = await leaderboard.players(game, choice, players, limits)
      return { game_id: game.game_id, total, items, ...await boardFields(leaderboard, game, board) }
    }
  }

  fastify.route({
    method: [...RANK_ACTIONS.players],
    url: '',
    constraints: { action: 'players' },
    bodyLimit: playersBodyLimit,
    schema: routeSchemas.players,
    ...crossOrigin,
    config: apiKeyRoute,
    handler: fastify.apiKeyHandler({ required: ['api_key', 'game_id', 'player_names'] }, (fields, game) => {
      const players = playersOf(fields, game, parsePlayerNames(param(fields, 'player_names')))
      return async (limits) => ok(await players(limits))
    })
  })

  // Game facts without a board script: the limits are counted on their own.
  fastify.route({
    method: RANK_ACTIONS.periods,
    url: '',
    constraints: { action: 'periods' },
    schema: routeSchemas.periods,
    ...crossOrigin,
    config: apiKeyRoute,
    handler: fastify.apiKeyHandler({ required: ['api_key', 'game_id'] }, (_fields, game) => async (limits) => {
      await fastify.rateLimits.countAlone(limits)
      const at = now()
      const items = game.periods.flatMap(kind => keptPeriodsOf(game, kind, at).map((period, index) => ({
        period: kind, period_id: period.id, starts_at: iso(period.startsAt), resets_at: iso(period.resetsAt), current: index === 0
      })))
      return ok({ game_id: game.game_id, timezone: game.timezone, keep_periods: game.keep_periods, items })
    })
  })

  fastify.route({
    method: RANK_ACTIONS.seasons,
    url: '',
    constraints: { action: 'seasons' },
    schema: routeSchemas.seasons,
    ...crossOrigin,
    config: apiKeyRoute,
    handler: fastify.apiKeyHandler({ required: ['api_key', 'game_id'] }, (_fields, game) => async (limits) => {
      await fastify.rateLimits.countAlone(limits)
      return ok({ game_id: game.game_id, season_id: game.season, items: await leaderboard.seasons(game) })
    })
  })

  // Session mode: the player is the logged-in user, on the same boards.
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
      const result = await leaderboard.submit(game, user.username, score, meta)
      return ok({
        score,
        improved: result.improved,
        best_score: result.bestScore,
        rank: result.rank,
        total_players: result.totalPlayers,
        is_dev_record: game.developer === user.username,
        is_admin_record: user.is_admin,
        ...submitPeriods(game, result)
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
      const standing = await leaderboard.standing(game, parseBoardChoice(request.fields), user.username)
      return ok({
        player_name: user.username,
        best_score: standing.bestScore,
        rank: standing.rank,
        total_players: standing.totalPlayers,
        is_dev_record: game.developer === user.username,
        is_admin_record: user.is_admin,
        ...await boardFields(leaderboard, game, standing.board)
      })
    }
  })

  fastify.route({
    method: RANK_ACTIONS['around-self'],
    url: '',
    constraints: { action: 'around-self' },
    schema: routeSchemas.aroundSelf,
    config: sessionRoute,
    preValidation: fastify.readFields,
    preHandler: [...sessionChecks, requires('game_id'), fastify.requireApprovedGame],
    handler: async (request) => ok(await aroundOf(request.fields, request.game!, request.user!.username)())
  })

  fastify.route({
    method: [...RANK_ACTIONS['players-self']],
    url: '',
    constraints: { action: 'players-self' },
    bodyLimit: playersBodyLimit,
    schema: routeSchemas.playersSelf,
    config: sessionRoute,
    preValidation: fastify.readFields,
    preHandler: [...sessionChecks, requires('game_id'), fastify.requireApprovedGame],
    handler: async (request) => {
      const friends = parsePlayerNames(optional(request.fields, 'player_names'))
      return ok(await playersOf(request.fields, request.game!, [...new Set([request.user!.username, ...friends])])())
    }
  })
}
