import { readPipeline, type RedisClient as Redis } from './redis-client.js'
import { keys } from './keys.js'
import { defineScript, luaScript } from './script-loader.js'
import { OUTBOX_MAX } from './events.js'
import { TIME_DIGITS } from './keys.js'
import { fail } from '../errors.js'
import { averageRating, weightedRating, type RatingFigures } from '../rules/ratings.js'
import { GUEST_RATING_PLAY_S, type GameRecord } from '../rules/games.js'

export { averageRating }

/*
 * One rating (1..10 half-star units) per user and game, weighted by the
 * rater's verified play in the game (docs/ratings.md). Every figure (sum,
 * count, the distribution, the weights) changes in the same script as the
 * rating itself, and as a rater's play grows (store/lua/includes/
 * playtime-credit.lua), so reading them is one HMGET and never a scan.
 */
const RATE = luaScript('rate', { TIME_DIGITS, OUTBOX_MAX })
const UNRATE = luaScript('unrate', { TIME_DIGITS, OUTBOX_MAX })
const READ = luaScript('rating-read')
const RECOUNT = luaScript('rating-recount')

/** What GET /api/rate and every rate answer: v1's avg, count and mine, then the weighted score and the distribution. */
export interface RatingSummary {
  /** In stars units (1.0..10.0), 2 decimals; 0 when nobody rated. */
  avg: number
  count: number
  /** The caller's stars, or null when the caller has not rated. */
  mine: number | null
  /** The weighted score (rules/ratings.ts), half-star units, 2 decimals; null while nobody rated. */
  weighted: number | null
  /** How many ratings at each of 1..10 half stars. */
  distribution: number[]
}

type Reply = Array<number | string>

/** One rating as an operator lists it (GET /admin/games/:game_id/ratings). */
export interface RatingItem {
  username: string
  stars: number
  /** The rater's play in the game when they rated (seconds); null for a rating from before it was kept. */
  play_at_rating_seconds: number | null
  /** Their play in the game now (seconds). */
  playtime_seconds: number
  /** When they rated (or last changed it); null for a rating from before it was kept. */
  rated_at: string | null
}

/** A game's rating figures on one UTC day (the console's chart); nulls for a day nobody noted. */
export interface RatingDay { day: string, weighted: number | null, avg: number | null, count: number | null }

/** Where a listing of ratings goes on: after the rating of `user` at `at` (ms), newest first. */
export interface RatingsAfter { at: number, user: string }
/** A page to list: from `after`, `limit` ratings at most; only of `stars`; only of raters with at most `maxPlay` seconds of play. */
interface RatingsFilter { after: RatingsAfter | null, limit: number, stars?: number, maxPlay?: number }

/** A listed rating from its record ("stars|counted|play at rating|rated at") and its rater's play now; null without a record. */
function ratingItem (user: string, record: string | null, play: string | null): RatingItem | null {
  if (record === null) return null
  const [stars, , playAt, ratedAt] = record.split('|')
  return {
    username: user,
    stars: Number(stars),
    play_at_rating_seconds: playAt === undefined || playAt === '' ? null : Number(playAt),
    playtime_seconds: Number(play ?? 0),
    rated_at: ratedAt === undefined || ratedAt === '' || ratedAt === '0' ? null : new Date(Number(ratedAt)).toISOString()
  }
}

/** How many ratings a listing reads from Redis at a time, and at most for one page (a filter that matches few stops there, with a cursor). */
const LIST_BATCH = 200
const LIST_EXAMINED_MAX = 5000

/** The scripts' {sum, count, mine, wsec, wsum, s1..s10, ...}. */
function figuresOf (reply: Reply): RatingFigures & { mine: number | null } {
  return {
    sum: Number(reply[0]),
    count: Number(reply[1]),
    mine: reply[2] === '' ? null : Number(reply[2]),
    wsec: Number(reply[3]),
    wsum: Number(reply[4]),
    distribution: reply.slice(5, 15).map(Number)
  }
}

/** The seconds of play a user needs in a game before rating it, and why: the game's rule, or a guest's (rules/games.ts). */
function playNeeded (game: GameRecord, guest: boolean): { seconds: number, guestRule: boolean } {
  const guestRule = guest && GUEST_RATING_PLAY_S > game.rating_min_play_seconds
  return { seconds: guestRule ? GUEST_RATING_PLAY_S : game.rating_min_play_seconds, guestRule }
}

/**
 * `prior`: the prior the weighted score is pulled toward now (its mean: the
 * platform's, which the games index keeps, or the operator's); `changed`:
 * told of every game whose ratings moved (the games index).
 */
export function createRatings (redis: Redis, prior: () => { weight: number, mean: number }, { changed = (_gameId: string): void | Promise<void> => {} } = {}) {
  const rate = defineScript<Reply>(redis, 'rankRate', RATE, { writes: true })
  const unrate = defineScript<Reply>(redis, 'rankUnrate', UNRATE, { writes: true })
  const read = defineScript<Reply>(redis, 'rankRatingRead', READ)
  const recount = defineScript<[number]>(redis, 'rankRatingRecount', RECOUNT, { writes: true })
  const writeKeysOf = (gameId: string): string[] => [
    keys.ratings(gameId), keys.ratingStats(gameId), keys.game(gameId), keys.events(gameId), keys.playtime(gameId), keys.ratingPlay(gameId), keys.ratingTimes(gameId)
  ]

  function summary (game: GameRecord, reply: Reply): RatingSummary {
    const figures = figuresOf(reply)
    return {
      avg: averageRating(figures.sum, figures.count),
      count: figures.count,
      mine: figures.mine,
      weighted: weightedRating(figures, game.rating_full_weight_seconds, prior()),
      distribution: figures.distribution
    }
  }

  /** The figures and the user's own rating, counted again first for a game rated before weights were kept. */
  async function readFigures (game: GameRecord, username: string): Promise<Reply> {
    const reply = await read([keys.ratings(game.game_id), keys.ratingStats(game.game_id)], [username])
    if (reply[15] === 1) return reply
    await recountFigures(game)
    return await read([keys.ratings(game.game_id), keys.ratingStats(game.game_id)], [username])
  }

  async function recountFigures (game: GameRecord): Promise<void> {
    const gameId = game.game_id
    await recount([keys.ratings(gameId), keys.ratingStats(gameId), keys.playtime(gameId), keys.ratingPlay(gameId), keys.ratingTimes(gameId)], [game.rating_full_weight_seconds])
  }

  return {
    /**
     * A user's rating. A rater needs the game's rating_min_play_seconds of
     * play in it first, a guest at least GUEST_RATING_PLAY_S: play_required,
     * saying how much more.
     */
    async rate (game: GameRecord, username: string, stars: number, { guest = false } = {}): Promise<RatingSummary> {
      const needed = playNeeded(game, guest)
      const reply = await rate(writeKeysOf(game.game_id), [username, stars, needed.seconds, game.rating_full_weight_seconds, Date.now()])
      if (reply[0] === 'play_required') {
        const more = Number(reply[1])
        const seconds = `${more} more second${more === 1 ? '' : 's'} of play are needed`
        fail('play_required', needed.guestRule
          ? `A guest rates a game after ${needed.seconds} s of play in it: ${seconds} (or sign up to rate now).`
          : `This game takes a rating after ${needed.seconds} s of play in it: ${seconds}.`)
      }
      // The same stars again change nothing (lua/rate.lua): the games list has nothing to follow.
      if (reply[15] === 1) await changed(game.game_id)
      return summary(game, reply)
    },
    /** Removes a user's rating; `removed`: the stars it had, null when there was none. */
    async unrate (game: GameRecord, username: string): Promise<RatingSummary & { removed: number | null }> {
      const reply = await unrate(writeKeysOf(game.game_id), [username, game.rating_full_weight_seconds])
      await changed(game.game_id)
      return { ...summary(game, reply), removed: reply[15] === '' || reply[15] === undefined ? null : Number(reply[15]) }
    },
    async read (game: GameRecord, username: string): Promise<RatingSummary> {
      return summary(game, await readFigures(game, username))
    },
    /** The game's raw figures (rules/ratings.ts), for the games index. */
    async figures (game: GameRecord): Promise<RatingFigures> {
      return figuresOf(await readFigures(game, ''))
    },
    /** The game's figures per UTC day as the games index noted them (the day's last write, store/games-index.ts); nulls for a day it did not write. */
    async days (gameId: string, days: string[]): Promise<RatingDay[]> {
      const kept = days.length === 0 ? [] : await redis.hmget(keys.ratingDays(gameId), ...days)
      return days.map((day, i) => {
        const [weighted = '', avg = '', count = ''] = (kept[i] ?? '').split('|')
        const number = (text: string): number | null => text === '' ? null : Number(text)
        return { day, weighted: number(weighted), avg: number(avg), count: number(count) }
      })
    },
    /** Counts the figures again: the game's full weight changed (O(raters), once). */
    recount: recountFigures,

    /**
     * A page of the game's ratings, newest first, from `after` (a page's
     * last); `stars`: only those; `maxPlay`: only raters with at most this
     * much play now. Reads at most LIST_EXAMINED_MAX ratings for one page:
     * a filter that matches few answers fewer, with where to go on.
     */
    async list (game: GameRecord, filter: RatingsFilter): Promise<{ items: RatingItem[], next: RatingsAfter | null }> {
      const { after, limit, stars, maxPlay } = filter
      const gameId = game.game_id
      await readFigures(game, '')
      const items: RatingItem[] = []
      let from = after
      let examined = 0
      let skip = 0
      while (items.length < limit && examined < LIST_EXAMINED_MAX) {
        const batch = await redis.zrevrangebyscore(keys.ratingTimes(gameId), from === null ? '+inf' : from.at, '-inf', 'WITHSCORES', 'LIMIT', skip, LIST_BATCH)
        const rows: Array<{ user: string, at: number }> = []
        for (let i = 0; i + 1 < batch.length; i += 2) rows.push({ user: batch[i] as string, at: Number(batch[i + 1]) })
        // Equal times come in reverse member order: those of the cursor's time down to its member were listed.
        const bound = from
        const fresh = bound === null ? rows : rows.filter(row => row.at < bound.at || row.user < bound.user)
        const last = rows.length < LIST_BATCH
        // A batch all of the cursor's time and listed already (many ratings in one ms): the next one past it.
        skip = fresh.length === 0 ? skip + rows.length : 0
        let read = 0
        if (fresh.length > 0) {
          const [records, plays] = await readPipeline(redis, pipeline => {
            pipeline.hmget(keys.ratingPlay(gameId), ...fresh.map(row => row.user)).hmget(keys.playtime(gameId), ...fresh.map(row => `u:${row.user}`))
          }) as [Array<string | null>, Array<string | null>]
          for (const [i, row] of fresh.entries()) {
            if (items.length === limit) break
            read++
            from = row
            const item = ratingItem(row.user, records[i] ?? null, plays[i] ?? null)
            if (item !== null && (stars === undefined || item.stars === stars) && (maxPlay === undefined || item.playtime_seconds <= maxPlay)) items.push(item)
          }
        }
        examined += read
        if (last && read === fresh.length) return { items, next: null }
      }
      return { items, next: from }
    }
  }
}

export type Ratings = ReturnType<typeof createRatings>
