import cors from '@fastify/cors'
import type { FastifyInstance, FastifySchema, RouteHandlerMethod } from 'fastify'
import type { Params } from '../../lib/params.js'
import { parseBoardChoice } from '../../rules/fields.js'
import { API_KEY_ACTIONS, RANK_ACTIONS, actionConstraint, actionOf, explainRankMiss, type RankAction } from './action.js'
import { HELMET } from '../../../plugins/external/security-headers.js'
import { apiKeyHandler, sessionHandler, type Action, type KeyCaller, type SessionCaller } from '../public-action.js'
import { noSuchBoard, type Boards, type NamedBoard } from '../../rules/boards.js'
import type { ApiKeyActionOptions, RankActions } from './group.js'
import { submitActions } from './submit.js'
import { readActions } from './reads.js'
import { runActions } from './runs.js'
import { registerAchievementActions } from './achievements.js'

/**
 * The actions of /api/rank (docs/interface.md#api-key-mode): submit, top, me,
 * around, players, periods and seasons in API-key mode; submit-self,
 * me-self, around-self and players-self in session mode. Registered under
 * the prefix RANK_PATH, so CORS and its preflight route stay on this path.
 */
export default async function rankRoutes (fastify: FastifyInstance): Promise<void> {
  fastify.addConstraintStrategy(actionConstraint)
  fastify.explainNotFound(explainRankMiss)
  // Other sites' pages may call the API-key actions; the session actions stay
  // same-origin (their routes say `cors: false`). The preflight route of
  // @fastify/cors serves every action of the path, so an OPTIONS for any
  // other action is turned away first, as a route that is not there.
  // Static options, worked out once by the plugin, not per request (docs/decisions/0062-hot-path-choices-measured.md).
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

  /** The route of one action on this path, by the methods it takes. */
  function actionRoute (action: RankAction, schema: FastifySchema, options: Record<string, unknown>, handler: RouteHandlerMethod): void {
    const methods = RANK_ACTIONS[action]
    fastify.route({ method: typeof methods === 'string' ? methods : [...methods], url: '', constraints: { action }, schema, ...options, handler })
  }

  /**
   * An API-key action (the request path: ../public-action.ts). Other sites'
   * pages read these answers (CORS), so they may be loaded cross-origin.
   */
  function apiKeyAction (
    name: RankAction, schema: FastifySchema, required: readonly string[], action: Action<KeyCaller>,
    { signed = false, signedAs, limitsInStore, ...options }: ApiKeyActionOptions = {}
  ): void {
    actionRoute(name, schema, { helmet: HELMET.crossOrigin, config: { rateLimitPolicy: 'apiKey' }, ...options }, apiKeyHandler(fastify, { required, signed, signedAs, limitsInStore, action }))
  }

  /** A session action: the player is the logged-in user, of a playable game. Same-origin only. */
  function sessionAction (name: RankAction, schema: FastifySchema, required: readonly string[], action: Action<SessionCaller>, options: { bodyLimit?: number } = {}): void {
    actionRoute(name, schema, { config: { rateLimitPolicy: 'session', ...sameOrigin }, ...options }, sessionHandler(fastify, { required, action }))
  }

  /** The named board a request names with `board` (none: the game's own); unknown is invalid_param. */
  function namedBoardOf (fields: Params, boards: Boards): NamedBoard | undefined {
    const { board } = parseBoardChoice({ board: fields.board } as Params)
    if (board === undefined) return undefined
    const named = boards.get(board)
    if (named === undefined) throw noSuchBoard(board)
    return named
  }

  const actions: RankActions = { apiKeyAction, sessionAction, namedBoardOf }
  const submit = submitActions(fastify, actions)
  const reads = readActions(fastify, actions)
  const runs = runActions(fastify, actions)

  // The routes are registered in this order, the order of the paths of the OpenAPI document: keep it.
  submit.submit()
  reads.byKey()
  runs.byKey()
  submit.submitRun()
  // Session mode: the player is the logged-in user, on the same boards.
  registerAchievementActions(fastify, actions)
  runs.bySession()
  submit.submitSelf()
  reads.bySession()
}
