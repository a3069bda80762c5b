import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { GameRecord } from '../rules/games.js'
import type { GamejoltLink } from '../store/gamejolt.js'
import type { GamejoltAnswer } from './answers.js'
import type { GamejoltVersion } from './request.js'
import type { Limits } from '../store/limits.js'

/**
 * What an endpoint works with: the game (approved, its API on), the
 * request's fields (decoded, signature checked) and the service.
 */
export interface GamejoltCall {
  fastify: FastifyInstance
  request: FastifyRequest
  game: GameRecord
  link: GamejoltLink
  version: GamejoltVersion
  fields: Record<string, string>
  /** The request's rate limit (per game and address), counted by the endpoint's one script call where it has one (docs/gamejolt.md#check-order). */
  limits: Limits
}

export type EndpointHandler = (call: GamejoltCall) => Promise<GamejoltAnswer>
