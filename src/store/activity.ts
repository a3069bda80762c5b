import { readPipeline, type RedisClient as Redis } from './redis-client.js'
import { keys } from './keys.js'
import type { BoardOrder } from '../rules/games.js'

/*
 * A game's activity, counted by UTC time bucket in the game's slot, for the
 * console's charts and GET /admin/games/:game_id/stats (docs/guide.md,
 * "Activity counters"). Each process sums what its submits and play-time
 * reports did (`count`) and writes the sums once a second (FLUSH_MS), one
 * pipeline per game, so the hot path's script does no work for them: a
 * process that dies loses at most its last second of counts (a clean
 * shutdown writes them), and other instances' counts show within a second.
 *
 * - submissions per minute: one small hash per hour (minute -> count),
 *   kept ACTIVITY_MINUTES_KEPT_S;
 * - per day: submissions and play time (a hash), and the players who
 *   submitted or played (a HyperLogLog: about 12 KB at most, ±0.81%), kept
 *   ACTIVITY_DAYS_KEPT days.
 */

/** How long the per-minute counts are kept: two days. */
export const ACTIVITY_MINUTES_KEPT_S = 2 * 86_400
/** How many whole UTC days of daily figures are kept (and today). */
export const ACTIVITY_DAYS_KEPT = 90
const DAY_MS = 86_400_000
const HOUR_MS = 3_600_000
const MINUTE_MS = 60_000

/** How long each key lives once written: EXPIRE NX, so its first write of a bucket sets it. */
const MINUTES_TTL_S = ACTIVITY_MINUTES_KEPT_S
const DAYS_TTL_S = (ACTIVITY_DAYS_KEPT + 1) * 86_400
/** How often a process writes what it counted. */
export const FLUSH_MS = 1000

function dayOf (ms: number): string {
  return new Date(ms).toISOString().slice(0, 10)
}

/** What one process counted for one game and not yet written: submissions by minute (its start, ms), and per UTC day submissions, play time and players. */
interface Pending {
  minutes: Map<number, number>
  days: Map<string, { submissions: number, playtime: number, players: Set<string> }>
}

export type ActivityField = 'submissions' | 'playtime'

export interface ActivityMinute { at: string, submissions: number }
export interface ActivityDay { day: string, submissions: number, active_players: number, playtime_seconds: number }
export interface ScoreBucket { from: number, to: number, count: number }

export function createActivity (redis: Redis) {
  let pending = new Map<string, Pending>()

  let writing = Promise.resolve()
  /** Writes what this process counted so far, after any write under way: one pipeline per game (its keys share the game's slot). A write that fails loses its counts. */
  async function flush (): Promise<void> {
    writing = writing.then(write)
    await writing
  }
  async function write (): Promise<void> {
    if (pending.size === 0) return
    const games = pending
    pending = new Map()
    await Promise.all([...games].map(async ([gameId, { minutes, days }]) => {
      const pipeline = redis.pipeline()
      for (const [minute, count] of minutes) {
        const key = keys.activityMinutes(gameId, Math.floor(minute / HOUR_MS))
        pipeline.hincrby(key, String(Math.floor((minute % HOUR_MS) / MINUTE_MS)), count).expire(key, MINUTES_TTL_S, 'NX')
      }
      for (const [day, counts] of days) {
        const dayKey = keys.activityDay(gameId, day)
        const playersKey = keys.activityPlayers(gameId, day)
        if (counts.submissions > 0) pipeline.hincrby(dayKey, 'submissions', counts.submissions)
        if (counts.playtime > 0) pipeline.hincrby(dayKey, 'playtime', counts.playtime)
        pipeline.expire(dayKey, DAYS_TTL_S, 'NX').pfadd(playersKey, ...counts.players).expire(playersKey, DAYS_TTL_S, 'NX')
      }
      await pipeline.exec().catch(() => {})
    }))
  }
  const timer = setInterval(() => { flush().catch(() => {}) }, FLUSH_MS)
  timer.unref()

  return {
    /**
     * Counts, in this process, a submit (answered ok or held: 'submissions',
     * 1) or play time credited (seconds) by `player` at `ms`; written within
     * FLUSH_MS.
     */
    count (gameId: string, player: string, field: ActivityField, amount: number, ms: number): void {
      let game = pending.get(gameId)
      if (game === undefined) {
        game = { minutes: new Map(), days: new Map() }
        pending.set(gameId, game)
      }
      if (field === 'submissions') {
        const minute = ms - ms % MINUTE_MS
        game.minutes.set(minute, (game.minutes.get(minute) ?? 0) + amount)
      }
      const day = dayOf(ms)
      let counts = game.days.get(day)
      if (counts === undefined) {
        counts = { submissions: 0, playtime: 0, players: new Set() }
        game.days.set(day, counts)
      }
      counts[field] += amount
      counts.players.add(player)
    },

    flush,

    /** Stops the timer and writes what is left (a clean shutdown loses no count). */
    async close (): Promise<void> {
      clearInterval(timer)
      await flush()
    },

    /**
     * The last `minutes` minutes (oldest first, the current one last) and the
     * last `days` UTC days (today last), zeros where nothing happened: one
     * pipeline to the game's node, after this process wrote what it counted
     * (other instances' counts arrive within FLUSH_MS).
     */
    async read (gameId: string, { minutes, days, now }: { minutes: number, days: number, now: number }): Promise<{ minutes: ActivityMinute[], days: ActivityDay[] }> {
      await flush()
      const firstMinute = Math.floor(now / MINUTE_MS) - minutes + 1
      const hours: number[] = []
      for (let hour = Math.floor(firstMinute * MINUTE_MS / HOUR_MS); hour <= Math.floor(now / HOUR_MS); hour++) hours.push(hour)
      const dayNames: string[] = []
      for (let i = days - 1; i >= 0; i--) dayNames.push(dayOf(now - i * DAY_MS))
      const replies = await readPipeline(redis, pipeline => {
        for (const hour of hours) pipeline.hgetall(keys.activityMinutes(gameId, hour))
        for (const day of dayNames) pipeline.hmget(keys.activityDay(gameId, day), 'submissions', 'playtime').pfcount(keys.activityPlayers(gameId, day))
      })
      const perHour = new Map(hours.map((hour, i) => [hour, replies[i] as Record<string, string>]))
      const minuteItems: ActivityMinute[] = []
      for (let minute = firstMinute; minute < firstMinute + minutes; minute++) {
        const ms = minute * MINUTE_MS
        const count = perHour.get(Math.floor(ms / HOUR_MS))?.[String(Math.floor((ms % HOUR_MS) / MINUTE_MS))]
        minuteItems.push({ at: new Date(ms).toISOString(), submissions: Number(count ?? 0) })
      }
      const dayItems = dayNames.map((day, i) => {
        const [submissions, playtime] = replies[hours.length + 2 * i] as Array<string | null>
        return { day, submissions: Number(submissions ?? 0), active_players: replies[hours.length + 2 * i + 1] as number, playtime_seconds: Number(playtime ?? 0) }
      })
      return { minutes: minuteItems, days: dayItems }
    },

    /**
     * How the scores of a board (its visible entries) spread: at most
     * `buckets` ranges of whole scores, as wide as each other (the last one
     * may be narrower), from the lowest score to the highest, each holding
     * both its bounds; each counted with ZCOUNT (O(log n)), so a board of
     * millions costs what one of ten does.
     */
    async scoreBuckets (board: string, order: BoardOrder, buckets: number): Promise<{ min: number | null, max: number | null, items: ScoreBucket[] }> {
      const [first, last] = await readPipeline(redis, pipeline => { pipeline.zrange(board, 0, 0, 'WITHSCORES').zrange(board, -1, -1, 'WITHSCORES') }) as [string[], string[]]
      if (first.length === 0 || last.length === 0) return { min: null, max: null, items: [] }
      // Board scores are -score on a desc board (store/board-format.ts).
      const scores = [Number(first[1]), Number(last[1])].map(value => order === 'desc' ? -value : value)
      const min = Math.min(...scores)
      const max = Math.max(...scores)
      // Scores are whole numbers: ranges of whole numbers, so no range reads
      // "1837–2100.6". Worked out in BigInt: a board may span more than 2^53
      // (from -(2^53 - 1) to 2^53 - 1), past what a double holds exactly.
      const [low, high] = [BigInt(min), BigInt(max)]
      const span = high - low + 1n
      const count = BigInt(buckets)
      const width = (span + count - 1n) / count
      const ranges = Array.from({ length: Number((span + width - 1n) / width) }, (_, i) => {
        const from = low + width * BigInt(i)
        const to = from + width - 1n
        return { from: Number(from), to: Number(to < high ? to : high) }
      })
      const counts = await readPipeline(redis, pipeline => {
        for (const { from, to } of ranges) {
          if (order === 'desc') pipeline.zcount(board, -to, -from)
          else pipeline.zcount(board, from, to)
        }
      }) as number[]
      return { min, max, items: ranges.map((range, i) => ({ ...range, count: counts[i] ?? 0 })) }
    }
  }
}

export type Activity = ReturnType<typeof createActivity>
