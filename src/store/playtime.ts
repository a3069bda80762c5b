import type { RedisClient as Redis } from './redis-client.js'
import { keys } from './keys.js'
import { defineScript, luaScript } from './script-loader.js'
import { defineLimitedScript, type Limits } from './limits.js'
import type { Activity } from './activity.js'
import { invalidRun } from './runs.js'
import type { GameRecord } from '../rules/games.js'

/** How far credited play may run ahead of the server clock (docs/interface.md#ranking-rule). */
export const LEAD_MS = 5000

/** The wall-clock rule of play time: see lua/playtime-report.lua. */
const REPORT = luaScript('playtime-report', { LEAD_MS })
const START = luaScript('playtime-start')
const PING = luaScript('gamejolt-ping', { LEAD_MS })

export interface PlaytimeReport {
  total_playtime_seconds: number
  user_playtime_seconds: number
  credited_seconds: number
  /** For a report with a run: the run's verified play so far (seconds). */
  run_verified_seconds?: number
}

/** `activity` counts the play time credited (store/activity.ts). */
export function createPlaytime (redis: Redis, activity: Pick<Activity, 'count'>) {
  const report = defineScript<[number, number, number, number] | ['invalid_run', string]>(redis, 'rankPlaytime', REPORT, { writes: true })
  const start = defineScript<number>(redis, 'rankPlaytimeStart', START, { writes: true })
  const ping = defineLimitedScript<['none'] | ['invalid_run', string] | ['ok', number]>(redis, 'rankGamejoltPing', PING, { writes: true })
  return {
    /** A guest's play in the game is credited from now on, not from before (lua/playtime-start.lua): called when it first plays the game. */
    async startGuestClock (gameId: string, guest: string): Promise<void> {
      await start([keys.playtime(gameId)], [guest])
    },
    /**
     * A play-time report (the wall-clock rule), for a run too when `runId` is
     * given (invalid_run when it names no open run of the user's); the user's
     * rating weighs the play credited (docs/ratings.md).
     */
    async report (game: GameRecord, username: string, seconds: number, runId?: string): Promise<PlaytimeReport> {
      const gameId = game.game_id
      const runKeys = runId === undefined ? [] : [keys.playerRuns(gameId, username)]
      const args = [username, seconds, game.rating_full_weight_seconds]
      const reply = await report([keys.playtime(gameId), keys.ratingStats(gameId), ...runKeys], runId === undefined ? args : [...args, runId])
      if (reply[0] === 'invalid_run') invalidRun(reply[1] as string)
      const [total, mine, credited, verified] = reply as [number, number, number, number]
      if (credited > 0) activity.count(gameId, username, 'playtime', credited, Date.now())
      return { total_playtime_seconds: total, user_playtime_seconds: mine, credited_seconds: credited, ...(runId === undefined ? {} : { run_verified_seconds: verified }) }
    },
    /**
     * A ping of the user's open Game Jolt session (docs/gamejolt.md#sessions),
     * in one call that also counts the request's rate limit: the play since
     * the last ping credited as a report's. false when no session is open (one
     * past `timeoutMs` is closed); invalid_run when its run is over.
     */
    async sessionPing (game: GameRecord, username: string, timeoutMs: number, limits?: Limits): Promise<boolean> {
      const gameId = game.game_id
      const reply = await ping([keys.gamejoltSessions(gameId), keys.playtime(gameId), keys.playerRuns(gameId, username), keys.ratingStats(gameId)],
        [username, timeoutMs, game.rating_full_weight_seconds], limits)
      if (reply[0] === 'none') return false
      if (reply[0] === 'invalid_run') invalidRun(reply[1])
      if (reply[1] > 0) activity.count(gameId, username, 'playtime', reply[1], Date.now())
      return true
    },
    /** The seconds credited to one user in one game (0 when none). */
    async ofUser (gameId: string, username: string): Promise<number> {
      return Number(await redis.hget(keys.playtime(gameId), `u:${username}`) ?? 0)
    }
  }
}

export type Playtime = ReturnType<typeof createPlaytime>
