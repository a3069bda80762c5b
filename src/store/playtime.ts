import type { RedisClient as Redis } from './redis-client.js'
import { keys } from './keys.js'
import { defineScript, luaScript } from './script-loader.js'
import { ACTIVITY_LUA, activityAt } from './activity.js'

/** How far credited play may run ahead of the server clock (docs/interface.md#ranking-rule). */
export const LEAD_MS = 5000

/** The wall-clock rule of play time: see lua/playtime-report.lua. */
const REPORT = luaScript('playtime-report', { LEAD_MS, ...ACTIVITY_LUA })

export interface PlaytimeReport {
  total_playtime_seconds: number
  user_playtime_seconds: number
  credited_seconds: number
}

export function createPlaytime (redis: Redis) {
  const report = defineScript<[number, number, number]>(redis, 'rankPlaytime', REPORT, { writes: true })
  return {
    async report (gameId: string, username: string, seconds: number): Promise<PlaytimeReport> {
      const [, day, players] = activityAt(gameId, Date.now()).keys
      const [total, mine, credited] = await report([keys.playtime(gameId), day, players], [username, seconds])
      return { total_playtime_seconds: total, user_playtime_seconds: mine, credited_seconds: credited }
    },
    /** The seconds credited to one user in one game (0 when none). */
    async ofUser (gameId: string, username: string): Promise<number> {
      return Number(await redis.hget(keys.playtime(gameId), `u:${username}`) ?? 0)
    }
  }
}

export type Playtime = ReturnType<typeof createPlaytime>
