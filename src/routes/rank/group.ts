import type { FastifySchema } from 'fastify'
import type { Params } from '../../lib/params.js'
import type { Boards, NamedBoard } from '../../rules/boards.js'
import type { Action, ApiKeyActionSpec, KeyCaller, SessionCaller } from '../public-action.js'
import type { RankAction } from './action.js'

/** What an API-key action says besides its fields and its work: whether it is signed (and as what), where its limits are counted, its route's options. */
export type ApiKeyActionOptions = Pick<ApiKeyActionSpec, 'signed' | 'signedAs' | 'limitsInStore'> & { bodyLimit?: number, sse?: 'manual' }

/**
 * What the plugin (./index.ts) gives each group of actions: how to register
 * an action of either mode on /api/rank, and the named board a request names.
 */
export interface RankActions {
  apiKeyAction: (name: RankAction, schema: FastifySchema, required: readonly string[], action: Action<KeyCaller>, options?: ApiKeyActionOptions) => void
  sessionAction: (name: RankAction, schema: FastifySchema, required: readonly string[], action: Action<SessionCaller>, options?: { bodyLimit?: number }) => void
  namedBoardOf: (fields: Params, boards: Boards) => NamedBoard | undefined
}
