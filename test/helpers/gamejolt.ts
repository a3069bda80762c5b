import { createHash } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { formBody } from './app.js'

/** A game's Game Jolt settings, as PUT /admin/games/:game_id/gamejolt answers them. */
export interface Link { gamejolt_game_id: number, private_key: string, data_limits?: Record<string, number> }

export const md5 = (text: string): string => createHash('md5').update(text).digest('hex')

/** A GET of Game Jolt's API for the game, signed as most clients sign (over Game Jolt's address); its `response`. */
export async function gamejolt (app: FastifyInstance, link: Link, endpoint: string, query: Record<string, string> = {}): Promise<Record<string, any>> {
  const path = `/api/game/v1_2/${endpoint}/?${formBody({ game_id: String(link.gamejolt_game_id), ...query })}`
  const answer = await app.inject({ method: 'GET', url: `${path}&signature=${md5(`https://api.gamejolt.com${path}${link.private_key}`)}` })
  return answer.json().response
}
