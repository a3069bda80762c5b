import type { FastifyInstance, FastifyRequest } from 'fastify'
import { ApiError } from '../../errors.js'
import { parseQuery, type RawValue } from '../../lib/params.js'

/**
 * `/api/rank` is one path whose `action` query parameter picks the endpoint
 * (docs/interface.md#api-key-mode). Each action is a route of its own, matched through a
 * router constraint on `action`, so each has its own hooks and schema.
 */
export const RANK_PATH = '/api/rank'

/** Known actions and the one method each takes (HEAD comes with GET). */
export const RANK_ACTIONS = {
  submit: 'POST',
  top: 'GET',
  me: 'GET',
  'submit-self': 'POST',
  'me-self': 'GET',
  around: 'GET',
  'around-self': 'GET',
  // A list of 100 names may not fit in a URL: also as a form body.
  players: ['GET', 'POST'],
  'players-self': ['GET', 'POST'],
  periods: 'GET',
  seasons: 'GET',
  // The game's boards and how their scores are shown (docs/interface.md#score-formats).
  boards: 'GET',
  // A Server-Sent Events stream of the board's top.
  live: 'GET',
  // A run: the game session a score is tied to (docs/interface.md#runs).
  'run-start': 'POST',
  'run-start-self': 'POST',
  'run-report': 'POST',
  // A browser game's score without the secret: only where the game allows it.
  'submit-run': 'POST',
  // Achievements (docs/interface.md#achievements): a player's list, and the game unlocking one.
  achievements: 'GET',
  'achievements-self': 'GET',
  unlock: 'POST',
  'unlock-self': 'POST'
} as const satisfies Record<string, 'GET' | 'POST' | readonly ['GET', 'POST']>

export type RankAction = keyof typeof RANK_ACTIONS

/** The actions of API-key mode (the others are session mode): these answer other sites (CORS). */
export const API_KEY_ACTIONS: ReadonlySet<string> = new Set<RankAction>(['submit', 'top', 'me', 'around', 'players', 'periods', 'seasons', 'boards', 'live', 'run-start', 'run-report', 'submit-run', 'achievements', 'unlock'])

export function isRankAction (action: string): action is RankAction {
  return Object.hasOwn(RANK_ACTIONS, action)
}

const actions = new WeakMap<object, RawValue | undefined>()

/**
 * The `action` of a raw request, parsed once: the router's constraint and
 * the CORS delegator both ask for it.
 */
export function actionOf (raw: { url?: string }): RawValue | undefined {
  if (actions.has(raw)) return actions.get(raw)
  const url = raw.url as string // always set on an incoming request
  const query = url.indexOf('?')
  const action = query === -1 ? undefined : parseQuery(url.slice(query + 1)).action
  actions.set(raw, action)
  return action
}

type ConstraintStrategy = Parameters<FastifyInstance['addConstraintStrategy']>[0]
type RouteStore = ReturnType<ConstraintStrategy['storage']>
type RouteHandler = NonNullable<ReturnType<RouteStore['get']>>

export const actionConstraint: ConstraintStrategy = {
  name: 'action',
  storage () {
    const handlers = new Map<unknown, RouteHandler>()
    return {
      get: (action: unknown) => handlers.get(action) ?? null,
      set: (action: unknown, handler: RouteHandler) => { handlers.set(action, handler) }
    }
  },
  deriveConstraint (request: { url?: string }) {
    const action = actionOf(request)
    return typeof action === 'string' ? action : undefined
  },
  // Other paths that happen to carry ?action= must still match their routes.
  mustMatchWhenDerived: false
}

/** Why no /api/rank route matched: the route errors come first in the check order. */
export function explainRankMiss (request: FastifyRequest): ApiError | undefined {
  if (request.url.split('?', 1)[0] !== RANK_PATH) return undefined
  const action = actionOf(request.raw)
  if (action === undefined || action === '') return new ApiError('missing_param', 'Parameter "action" is required.')
  if (typeof action !== 'string') return new ApiError('invalid_param', 'Parameter "action" must be sent once, correctly encoded.')
  if (!isRankAction(action)) return new ApiError('unknown_action', 'No such action on /api/rank.')
  const methods = RANK_ACTIONS[action]
  return new ApiError('method_not_allowed', `Action "${action}" takes ${typeof methods === 'string' ? methods : methods.join(' or ')}, not ${request.method}.`)
}
