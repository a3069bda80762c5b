import type { RedisClient as Redis } from './redis-client.js'
import { keys } from './keys.js'
import { defineScript, luaSource } from './scripts.js'

/** How far credited play may run ahead of the server clock (docs/interface.md#ranking-rule). */
export const LEAD_MS = 5000

/** The wall-clock rule of play time: see lua/playtime-report.lua. */
const REPORT = luaSource('playtime-report', { LEAD_MS })

export interface PlaytimeReport {
  total_playtime_seconds: number
  user_playtime_seconds: number
  credited_seconds: number
}

export function createPlaytime (redis: Redis) {
  const report = defineScript<[number, number, number]>(redis, 'rankPlaytime', REPORT, { writes: true })
  return {
    async report (gameId: string, username: string, seconds: number): Promise<PlaytimeReport> {
      const [total, mine, credited] = await report([keys.playtime(gameId)], [username, seconds])
      return { total_playtime_seconds: total, user_playtime_seconds: mine, credited_seconds: credited }
    }
  }
}

export type Playtime = ReturnType<typeof createPlaytime>
