import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { GameRecord } from '../rules/games.js'
import type { GamejoltLink } from '../store/gamejolt.js'
import { success, type GamejoltAnswer } from './answers.js'
import type { Endpoint, GamejoltVersion } from './request.js'

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

/** The server's clock, in UTC (docs/gamejolt.md#time): Game Jolt answers in its own zone, this service in UTC. */
async function time (): Promise<GamejoltAnswer> {
  const now = new Date()
  return success({
    timestamp: Math.floor(now.getTime() / 1000),
    timezone: 'UTC',
    year: String(now.getUTCFullYear()),
    month: String(now.getUTCMonth() + 1),
    day: String(now.getUTCDate()),
    hour: String(now.getUTCHours()),
    minute: String(now.getUTCMinutes()),
    second: String(now.getUTCSeconds())
  })
}

/** The endpoints built so far; the others answer that they are not served yet. */
export const HANDLERS: Partial<Record<Endpoint, EndpointHandler>> = {
  time
}
