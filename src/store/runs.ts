import { randomBytes } from 'node:crypto'
import type { RedisClient as Redis } from './redis-client.js'
import { keys } from './keys.js'
import { defineScript, luaScript } from './script-loader.js'
import { fail } from '../errors.js'

/** A player's open runs in one game, at most: a new one past it closes the oldest. */
export const MAX_OPEN_RUNS = 5
/** Runs a player may start in one game in a minute. */
export const MAX_RUN_STARTS_PER_MINUTE = 20

/** Why a run is refused, as the scripts say it, in a sentence (invalid_run). */
const RUN_REFUSALS: Record<string, string> = {
  unknown: 'You have no open run with that run_id in this game: it is another player\'s or game\'s, it never existed, it was closed, or its time is up.',
  expired: 'That run\'s time is up; start a new one.',
  used: 'That run took a score already; start a new run for the next game.',
  off: 'This game keeps no runs (its runs setting is off).'
}

export function invalidRun (why: string): never {
  fail('invalid_run', RUN_REFUSALS[why] ?? RUN_REFUSALS.unknown)
}

const RUN_START = luaScript('run-start', { MAX_OPEN_RUNS, MAX_RUN_STARTS_PER_MINUTE })

export interface StartedRun { run_id: string, started_at: string, expires_at: string }

/**
 * Runs (docs/interface.md#runs): a game session that a score can be tied
 * to. Started here; play-time reports credit them (store/playtime.ts) and a
 * submit takes one (lua/submit.lua), each in its one script call, on the
 * player's runs (one hash per player and game, in the game's slot).
 */
export function createRuns (redis: Redis) {
  const startScript = defineScript<[number, number] | ['off'] | ['too_many', number]>(redis, 'rankRunStart', RUN_START, { writes: true })
  return {
    /** A new run of `player` in the game; forbidden when the game keeps no runs; past the starts of a minute, when to retry. */
    async start (gameId: string, player: string, apiKey = ''): Promise<StartedRun | { retryAfterS: number }> {
      const runId = randomBytes(16).toString('base64url')
      const reply = await startScript([keys.game(gameId), keys.playerRuns(gameId, player), keys.runStarts(gameId, player)], [runId, apiKey])
      if (reply[0] === 'off') fail('forbidden', 'This game keeps no runs (its runs setting is off).')
      if (reply[0] === 'too_many') return { retryAfterS: Math.ceil(reply[1] / 1000) }
      const [started, expires] = reply as [number, number]
      return { run_id: runId, started_at: new Date(started).toISOString(), expires_at: new Date(expires).toISOString() }
    }
  }
}

export type Runs = ReturnType<typeof createRuns>
