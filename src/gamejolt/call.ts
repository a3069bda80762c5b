import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { GameRecord } from '../rules/games.js'
import type { GamejoltLink } from '../store/gamejolt.js'
import type { GamejoltAnswer } from './answers.js'
import type { GamejoltVersion } from './request.js'

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
}

export type EndpointHandler = (call: GamejoltCall) => Promise<GamejoltAnswer>
