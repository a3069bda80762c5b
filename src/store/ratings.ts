import type { RedisClient as Redis } from './redis-client.js'
import { keys } from './keys.js'
import { defineScript, luaScript } from './script-loader.js'
import { OUTBOX_MAX } from './events.js'
import { TIME_DIGITS } from './keys.js'
import { fail } from '../errors.js'

/*
 * One rating (1..10 half-star units) per user and game. The sum and the count
 * change in the same script as the rating itself, so reading the average is
 * two HGETs and never a scan, and concurrent changes never drift apart.
 * Every script returns {sum, count, mine or ''}.
 */
const RATE = luaScript('rate', { TIME_DIGITS, OUTBOX_MAX })
const UNRATE = luaScript('unrate', { TIME_DIGITS, OUTBOX_MAX })
const READ = luaScript('rating-read')
const DISTRIBUTION = luaScript('rating-distribution')

export interface RatingSummary {
  /** In stars units (1.0..10.0), 2 decimals; 0 when nobody rated. */
  avg: number
  count: number
  /** The caller's stars, or null when the caller has not rated. */
  mine: number | null
}

/** The average of `count` ratings summing to `sum`, 2 decimals; 0 when there are none. */
export function averageRating (sum: number, count: number): number {
  return count === 0 ? 0 : Math.round((sum * 100) / count) / 100
}

function summary ([sum, count, mine]: [number, number, number | string]): RatingSummary {
  return {
    avg: averageRating(sum, count),
    count,
    mine: mine === '' ? null : Number(mine)
  }
}

export function createRatings (redis: Redis) {
  const rate = defineScript<[number, number, number] | ['play_required', number]>(redis, 'rankRate', RATE, { writes: true })
  const unrate = defineScript<[number, number, string]>(redis, 'rankUnrate', UNRATE, { writes: true })
  const read = defineScript<[number, number, string]>(redis, 'rankRatingRead', READ)
  // It may write: the counts of a game rated before they were kept, counted once.
  const distribution = defineScript<number[]>(redis, 'rankRatingDistribution', DISTRIBUTION, { writes: true })
  const keysOf = (gameId: string): string[] => [keys.ratings(gameId), keys.ratingStats(gameId)]
  // The writes also tell the game's outbox.
  const writeKeysOf = (gameId: string): string[] => [...keysOf(gameId), keys.game(gameId), keys.events(gameId)]

  return {
    /**
     * A user's rating; `playNeeded`: the seconds of play in the game the
     * rater must have first (a guest's: rules/games.ts), else play_required.
     */
    async rate (gameId: string, username: string, stars: number, { playNeeded = 0 } = {}): Promise<RatingSummary> {
      const reply = await rate([...writeKeysOf(gameId), keys.playtime(gameId)], [username, stars, playNeeded])
      if (reply[0] === 'play_required') {
        const more = reply[1]
        fail('play_required', `A guest rates a game after ${playNeeded} s of play in it: ${more} more second${more === 1 ? '' : 's'} of play are needed (or sign up to rate now).`)
      }
      return summary(reply)
    },
    async unrate (gameId: string, username: string): Promise<RatingSummary> {
      return summary(await unrate(writeKeysOf(gameId), [username]))
    },
    async read (gameId: string, username: string): Promise<RatingSummary> {
      return summary(await read(keysOf(gameId), [username]))
    },
    /** How many ratings of each value (1..10 half stars) the game has: `counts[value - 1]`. */
    async distribution (gameId: string): Promise<{ count: number, counts: number[] }> {
      const [count, ...counts] = await distribution(keysOf(gameId), [])
      return { count: count as number, counts }
    }
  }
}

export type Ratings = ReturnType<typeof createRatings>
