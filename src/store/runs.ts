import { randomBytes } from 'node:crypto'
import type { RedisClient as Redis } from './redis-client.js'
import { keys } from './keys.js'
import { defineScript, luaScript } from './script-loader.js'
import { fail } from '../errors.js'
import { RUNS_OFF } from '../rules/games.js'
import { defineLimitedScript, type Limits } from './limits.js'

/** A player's open runs in one game, at most: a new one past it closes the oldest. */
export const MAX_OPEN_RUNS = 5
/** Runs a player may start in one game in a minute. */
export const MAX_RUN_STARTS_PER_MINUTE = 20

/** Why a run is refused, as the scripts say it, in a sentence (invalid_run). */
const RUN_REFUSALS: Record<string, string> = {
  unknown: 'You have no open run with that run_id in this game: it is another player\'s or game\'s, it never existed, it was closed, or its time is up.',
  expired: 'That run\'s time is up; start a new one.',
  used: 'That run took a score already; start a new run for the next game.',
  off: RUNS_OFF
}

export function invalidRun (why: string): never {
  fail('invalid_run', RUN_REFUSALS[why] ?? RUN_REFUSALS.unknown)
}

const RUN_START = luaScript('run-start', { MAX_OPEN_RUNS, MAX_RUN_STARTS_PER_MINUTE })
const RUN_REPORT = luaScript('run-report')

export interface StartedRun { run_id: string, started_at: string, expires_at: string }
export interface ReportedRun { run_id: string, run_verified_seconds: number, credited_seconds: number }

/**
 * Runs (docs/interface.md#runs): a game session that a score can be tied
 * to. Started here; play-time reports credit them (store/playtime.ts) and a
 * submit takes one (lua/submit.lua), each in its one script call, on the
 * player's runs (one hash per player and game, in the game's slot).
 */
/**
 * What stands for the API key in the run of a Game Jolt session
 * (includes/runs.lua's `key`): no API key can be written so, and
 * includes/submit-board.lua lets such a run take every score made during it.
 */
export const GAMEJOLT_SESSION_RUN = '*gamejolt'

export function createRuns (redis: Redis) {
  const startScript = defineScript<[number, number] | ['off'] | ['too_many', number]>(redis, 'rankRunStart', RUN_START, { writes: true })
  const reportScript = defineLimitedScript<[number, number] | ['invalid_run', string]>(redis, 'rankRunReport', RUN_REPORT, { writes: true })
  return {
    /** A new run of `player` in the game; forbidden when the game keeps no runs; past the starts of a minute, when to retry. */
    async start (gameId: string, player: string, apiKey = ''): Promise<StartedRun | { retryAfterS: number }> {
      const runId = randomBytes(16).toString('base64url')
      const byKey = apiKey !== ''
      const reply = await startScript([keys.game(gameId), keys.playerRuns(gameId, player, byKey), keys.runStarts(gameId, player, byKey)], [runId, apiKey])
      if (reply[0] === 'off') fail('forbidden', RUNS_OFF)
      if (reply[0] === 'too_many') return { retryAfterS: Math.ceil(reply[1] / 1000) }
      const [started, expires] = reply as [number, number]
      return { run_id: runId, started_at: new Date(started).toISOString(), expires_at: new Date(expires).toISOString() }
    },

    /**
     * A Game Jolt session's run (docs/gamejolt.md#sessions): in session mode,
     * marked GAMEJOLT_SESSION_RUN, which lets it vouch for every score made
     * during it (a run otherwise takes one); forbidden when the game keeps no runs.
     */
    async startForSession (gameId: string, player: string): Promise<StartedRun | { retryAfterS: number }> {
      const runId = randomBytes(16).toString('base64url')
      const reply = await startScript([keys.game(gameId), keys.playerRuns(gameId, player), keys.runStarts(gameId, player)], [runId, GAMEJOLT_SESSION_RUN])
      if (reply[0] === 'off') fail('forbidden', RUNS_OFF)
      if (reply[0] === 'too_many') return { retryAfterS: Math.ceil(reply[1] / 1000) }
      const [started, expires] = reply as [number, number]
      return { run_id: runId, started_at: new Date(started).toISOString(), expires_at: new Date(expires).toISOString() }
    },

    /**
     * A play report of a run started with `apiKey` (run-report): the run's
     * verified play under the wall-clock rule, counting the request's limits
     * in the same call; invalid_run when the key started no such open run.
     */
    async report (gameId: string, player: string, runId: string, seconds: number, apiKey: string, limits: Limits): Promise<ReportedRun> {
      const reply = await reportScript([keys.playerRuns(gameId, player, true)], [runId, seconds, apiKey], limits)
      if (reply[0] === 'invalid_run') invalidRun(String(reply[1]))
      const [verified, credited] = reply as [number, number]
      return { run_id: runId, run_verified_seconds: verified, credited_seconds: credited }
    }
  }
}

export type Runs = ReturnType<typeof createRuns>
