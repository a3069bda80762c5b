import { Type } from '@sinclair/typebox'
import { onConnectionLost, readPipeline, type RedisClient as Redis } from './redis-client.js'
import { keys } from './keys.js'
import { defineScript, luaScript } from './script-loader.js'
import { defineLimitedScript, type Limits } from './limits.js'
import type { Activity } from './activity.js'
import type { Ratings } from './ratings.js'
import { averageRating, NEUTRAL_MEAN, weightedRating } from '../rules/ratings.js'
import type { GameRecord } from '../rules/games.js'
import { decodeCursor, encodeCursor } from '../lib/cursor.js'
import { fail } from '../errors.js'

/*
 * The games index (docs/ratings.md#the-games-list): every listed game's
 * figures, ranked four ways, for GET /api/games and the front page.
 *
 * A game's figures live in its own slot and change with every rating and
 * play-time report; a ranking of every game needs one place. That place is
 * one slot, `{platform}`, and its hot-slot cost is bounded by design: no
 * request that rates or plays writes to it. Each instance notes the games
 * whose figures moved and writes them at most once a PUSH_MS, in one script
 * call (a rating goes at once, play time waits for the timer), so the slot
 * takes a handful of writes a second whatever the traffic, and a read of a
 * page is one script call there. One instance an hour (and at start) counts
 * every game again, which also moves games whose last-7-days play fell
 * away without any new play, and keeps the platform's mean exact.
 */

export const GAME_SORTS = ['top_rated', 'most_played', 'players', 'new'] as const
export type GameSort = typeof GAME_SORTS[number]

/** What GET /api/games answers of a game (play_url added by the route: it needs the request's origin). */
export interface GameCard {
  game_id: string
  name: string
  /** Whether the game's files are served here (it has a play page). */
  hosted: boolean
  weighted: number | null
  avg: number
  ratings: number
  distribution: number[]
  playtime_seconds: number
  recent_playtime_seconds: number
  players: number
  created_at: string
}

/** How often an instance writes the games whose figures moved; and how soon, at most, after a rating or a game's record changed. */
export const PUSH_MS = 2000
export const SOON_MS = 200
/** How long a walk's order is kept (its snapshot's life), and how long a walk begun on it may still run: at least WALK_LASTS_MS. */
export const SNAPSHOT_TTL_MS = 15 * 60_000
export const WALK_LASTS_MS = 10 * 60_000
/** The days of play `recent_playtime_seconds` counts (today's too, UTC). */
export const RECENT_DAYS = 7
/** How often one instance counts every game again. */
export const REBUILD_MS = 3_600_000
/** How long a shutdown waits for the last write of the index. */
const CLOSE_WAIT_MS = 2000
/** Pages of the list a process keeps (the oldest goes first). */
const KEPT_PAGES = 1000
/** Games read per batch of a count of every game. */
const REBUILD_BATCH = 50

const UPDATE = luaScript('games-index-update')
const PAGE = luaScript('games-page')
const COUNT_PLAYERS = luaScript('playtime-players')

const CursorSchema = Type.Object({ s: Type.Union(GAME_SORTS.map(sort => Type.Literal(sort))), v: Type.Integer({ minimum: 0 }), o: Type.Integer({ minimum: 0 }) }, { additionalProperties: false })

export interface GamesPage {
  items: GameCard[]
  total: number
  next_cursor: string | null
}

export interface GamesIndexOptions {
  records: { game: (gameId: string) => Promise<GameRecord | null>, gameIds: () => Promise<string[]> }
  ratings: Pick<Ratings, 'figures'>
  activity: Pick<Activity, 'flush'>
  /** The prior's weight and the operator's mean (a number), or 'platform': this index's mean. */
  prior: { weight: number, mean: number | 'platform' }
  /** Whether a game's files are served here. */
  hosted: (gameId: string) => Promise<boolean>
  /** How old a kept order may be for a new walk once the index changed (GAMES_LIST_FRESH_S). */
  freshMs: number
}

const DAY_MS = 86_400_000
const dayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10)

/** A game's place in each sort: lowest first, ties by game id. A game without a rating goes after every rated one. */
function placesOf (card: GameCard): [number, number, number, number] {
  return [card.weighted === null ? 1 : -card.weighted, -card.recent_playtime_seconds, -card.players, -Date.parse(card.created_at)]
}

/**
 * Notes games whose figures moved where no instance's index saw it (an
 * erasure, a guest's claim, an operator's command from the CLI): the next
 * instance to write the index, within PUSH_MS, writes them too.
 */
export async function markGamesChanged (redis: Redis, gameIds: string[]): Promise<void> {
  if (gameIds.length > 0) await redis.sadd(keys.gamesChanged(), ...gameIds)
}

/** The platform's mean from its sums (the index's meta w and ws): NEUTRAL_MEAN before any game is rated. */
function meanOf (w: string | null, ws: string | null): number {
  const weight = Number(w ?? 0)
  return weight > 1e-9 ? Number(ws ?? 0) / weight : NEUTRAL_MEAN
}

/** The platform's mean as the index last wrote it (the play-weighted mean of every listed game's ratings), for a process that does not write the index (the CLI). */
export async function platformMeanOf (redis: Redis): Promise<number> {
  const [w, ws] = await redis.hmget(keys.gamesMeta(), 'w', 'ws')
  return meanOf(w ?? null, ws ?? null)
}

/** Games taken from the changed set per write. */
const CHANGED_BATCH = 500

export function createGamesIndex (redis: Redis, options: GamesIndexOptions) {
  const update = defineScript<[number, string | null, string | null]>(redis, 'rankGamesIndexUpdate', UPDATE, { writes: true })
  const readPage = defineLimitedScript<['page', number, number, string[], Array<string | null>, number] | ['same'] | ['use', number] | ['gone']>(redis, 'rankGamesPage', PAGE, { writes: true })
  const countPlayers = defineScript<number>(redis, 'rankPlaytimePlayers', COUNT_PLAYERS, { writes: true })
  const indexKeys = (): string[] => [...GAME_SORTS.map(sort => keys.gamesRanked(sort)), keys.gamesCards(), keys.gamesWeights(), keys.gamesMeta()]

  /** The platform's mean as this instance last read it: the play-weighted mean of every listed game's ratings. */
  let platformMean = NEUTRAL_MEAN
  /** The version of the index each sort's newest walk was begun at, as this instance last heard (the snapshot a new walk names first). */
  const versions = new Map<GameSort, number>()
  const pending = new Set<string>()
  /**
   * Pages read, by sort, snapshot, offset and limit, with the index version
   * they were read at: served again while the script finds that version
   * still current (no card changed), so a busy front page costs Redis the
   * script's check, not the cards (the top pages' way: store/top-cache.ts).
   */
  const kept = new Map<string, { at: number, items: GameCard[], total: number }>()
  const keptKey = (sort: GameSort, snapshot: number, offset: number, limit: number): string => `${sort}\n${snapshot}\n${offset}\n${limit}`
  onConnectionLost(redis, () => { kept.clear() })
  let soon: NodeJS.Timeout | null = null
  let closed = false
  let writing = Promise.resolve()

  const priorNow = (): { weight: number, mean: number } => ({ weight: options.prior.weight, mean: options.prior.mean === 'platform' ? platformMean : options.prior.mean })

  /**
   * A game's figures, read from its slot: its card and its part of the
   * platform's mean (null when it is not listed); and the day's rating
   * figures are noted in its slot for the console's chart (any game).
   */
  async function figuresOf (gameId: string, now: number): Promise<{ card: GameCard, w: number, ws: number } | null> {
    const game = await options.records.game(gameId)
    if (game === null) return null
    const days = Array.from({ length: RECENT_DAYS }, (_, i) => dayOf(now - i * DAY_MS))
    const [ratings, replies, hosted] = await Promise.all([
      options.ratings.figures(game),
      readPipeline(redis, pipeline => {
        pipeline.hmget(keys.playtime(gameId), 'total', 'players')
        for (const day of days) pipeline.hget(keys.activityDay(gameId, day), 'playtime')
      }),
      options.hosted(gameId)
    ])
    const full = game.rating_full_weight_seconds
    const weighted = weightedRating(ratings, full, priorNow())
    const avg = averageRating(ratings.sum, ratings.count)
    if (ratings.count > 0) await redis.hset(keys.ratingDays(gameId), dayOf(now), `${weighted ?? ''}|${avg}|${ratings.count}`)
    if (!game.approved || !game.listed) return null
    const [total, kept] = replies[0] as [string | null, string | null]
    const players = kept === null ? await countPlayers([keys.playtime(gameId)], []) : Number(kept)
    const recent = (replies.slice(1) as Array<string | null>).reduce((sum, seconds) => sum + Number(seconds ?? 0), 0)
    const card: GameCard = {
      game_id: gameId,
      name: game.name,
      hosted,
      weighted,
      avg,
      ratings: ratings.count,
      distribution: ratings.distribution,
      playtime_seconds: Number(total ?? 0),
      recent_playtime_seconds: recent,
      players,
      created_at: game.created_at
    }
    return { card, w: ratings.wsec / full, ws: ratings.wsum / full }
  }

  /** Writes these games' figures (or, with `all`, these are every game: the index is made again). */
  async function write (gameIds: string[], all: boolean): Promise<void> {
    const now = Date.now()
    const args: Array<string | number> = [all ? 'all' : 'some']
    for (const gameId of gameIds) {
      const figures = await figuresOf(gameId, now)
      if (figures === null) {
        args.push(gameId, 0, 0, 0, 0, '', 0, 0)
        continue
      }
      args.push(gameId, ...placesOf(figures.card), JSON.stringify(figures.card), figures.w, figures.ws)
    }
    const [, w, ws] = await update(indexKeys(), args)
    platformMean = meanOf(w, ws)
  }

  /** Writes the games noted since the last write, after any write under way. A write that fails leaves its games noted for the next. */
  async function flush ({ takeChanged = true } = {}): Promise<void> {
    writing = writing.then(async () => {
      if (takeChanged) for (const gameId of await redis.spop(keys.gamesChanged(), CHANGED_BATCH)) pending.add(gameId)
      if (pending.size === 0) return
      const gameIds = [...pending]
      pending.clear()
      await options.activity.flush()
      try {
        for (let i = 0; i < gameIds.length; i += REBUILD_BATCH) await write(gameIds.slice(i, i + REBUILD_BATCH), false)
      } catch (error) {
        for (const gameId of gameIds) pending.add(gameId)
        throw error
      }
    })
    await writing
  }

  /** Counts every game again, when no other instance did in the last REBUILD_MS (or `force`). */
  async function rebuild ({ force = false } = {}): Promise<boolean> {
    if (!force && await redis.set(keys.gamesRebuild(), String(process.pid), 'PX', REBUILD_MS, 'NX') === null) {
      // Another instance counts: the mean it wrote is read (an instance that has written nothing yet would use the neutral one).
      platformMean = await platformMeanOf(redis)
      return false
    }
    await options.activity.flush()
    const gameIds = (await options.records.gameIds()).sort()
    // Twice, when the platform's mean moved: each game's weighted score leans on it.
    const before = platformMean
    await write(gameIds, true)
    if (options.prior.mean === 'platform' && Math.abs(before - platformMean) >= 0.005) await write(gameIds, true)
    return true
  }

  const timer = setInterval(() => { flush().catch(() => {}) }, PUSH_MS)
  timer.unref()
  const rebuildTimer = setInterval(() => { rebuild().catch(() => {}) }, REBUILD_MS / 6)
  rebuildTimer.unref()

  return {
    /**
     * Notes that a game's figures or record moved; `now`: written within
     * SOON_MS (a rating, a record), else within PUSH_MS (play time). Every
     * game noted meanwhile goes in the same write: a busy game's ratings
     * cost the index a write per SOON_MS, not one per rating.
     */
    touch (gameId: string, { now = false } = {}): void {
      // Closed: what a request that finishes during the shutdown moved is left to the hourly count.
      if (closed) return
      pending.add(gameId)
      if (now && soon === null) {
        soon = setTimeout(() => {
          soon = null
          flush().catch(() => {})
        }, SOON_MS)
        soon.unref()
      }
    },
    flush,
    rebuild,
    /** The prior a weighted score is pulled toward now (rules/ratings.ts). */
    priorNow,

    /**
     * One page of listed games in `sort` order, from `cursor` (a page's
     * next_cursor) or from the start: one script call, which counts `limits`.
     */
    async page (sort: GameSort, { cursor, limit, limits }: { cursor?: string, limit: number, limits?: Limits }): Promise<GamesPage> {
      const walk = cursor === undefined ? null : decodeCursor(CursorSchema, cursor)
      if (walk !== null && walk.s !== sort) fail('invalid_param', 'Parameter "cursor" is not valid: it walks another sort; pass the sort it came from.')
      let version = walk?.v ?? versions.get(sort) ?? 0
      const offset = walk?.o ?? 0
      for (let tries = 0; ; tries++) {
        const key = keptKey(sort, version, offset, limit)
        const cached = kept.get(key)
        const reply = await readPage([keys.gamesRanked(sort), keys.gamesCards(), keys.gamesMeta(), keys.gamesSnapshot(sort, version)],
          [sort, version, walk === null ? 'first' : 'next', offset, limit, options.freshMs, SNAPSHOT_TTL_MS, WALK_LASTS_MS, cached?.at ?? ''], limits)
        if (reply[0] === 'gone') fail('invalid_param', `Parameter "cursor" is not valid: its walk began more than ${WALK_LASTS_MS / 60_000} minutes ago; start again without a cursor.`)
        if (reply[0] === 'use') {
          // Another instance moved the index: name the snapshot the script chose (twice at most, unless the index moves again meanwhile).
          if (tries >= 3) fail('unavailable', 'The games list is changing too fast to read; try again.')
          version = reply[1]
          continue
        }
        let page: { items: GameCard[], total: number }
        if (reply[0] === 'same' && cached !== undefined) {
          page = cached
        } else if (reply[0] === 'page') {
          const [, , total, , cards, at] = reply
          page = { items: cards.filter((card): card is string => typeof card === 'string').map(card => JSON.parse(card) as GameCard), total }
          kept.delete(key)
          if (kept.size >= KEPT_PAGES) kept.delete(kept.keys().next().value as string)
          kept.set(key, { at, ...page })
        } else {
          // 'same' for a page this process no longer keeps: read it.
          kept.delete(key)
          continue
        }
        if (walk === null) versions.set(sort, version)
        const next = offset + limit
        return { items: page.items, total: page.total, next_cursor: next < page.total ? encodeCursor({ s: sort, v: version, o: next }) : null }
      }
    },

    /**
     * The first `count` games of each of `sorts` as they are ranked now, for
     * the front page (no walk: no cursor, no copy), that `keep` keeps: one
     * pipeline to the index's slot, `count * 4` games read per sort so that
     * enough are left once `keep` chose.
     */
    async firsts (sorts: readonly GameSort[], count: number, keep: (card: GameCard) => boolean = () => true): Promise<Record<GameSort, GameCard[]>> {
      const ids = await readPipeline(redis, pipeline => {
        for (const sort of sorts) pipeline.zrange(keys.gamesRanked(sort), 0, count * 4 - 1)
      }) as string[][]
      const wanted = [...new Set(ids.flat())]
      const cards = wanted.length === 0 ? [] : await redis.hmget(keys.gamesCards(), ...wanted)
      const byId = new Map(wanted.map((id, i) => [id, cards[i] === null || cards[i] === undefined ? null : JSON.parse(cards[i] as string) as GameCard]))
      const lists = {} as Record<GameSort, GameCard[]>
      sorts.forEach((sort, i) => {
        lists[sort] = (ids[i] ?? []).map(id => byId.get(id)).filter((card): card is GameCard => card != null && keep(card)).slice(0, count)
      })
      return lists
    },

    /**
     * Stops the timers and writes what this instance noted (not the changed
     * set: another instance takes it), waiting CLOSE_WAIT_MS at most: a
     * shutdown never hangs on Redis (what is lost, the hourly count makes up).
     */
    async close (): Promise<void> {
      closed = true
      clearInterval(timer)
      clearInterval(rebuildTimer)
      if (soon !== null) clearTimeout(soon)
      let waited: NodeJS.Timeout | undefined
      await Promise.race([
        flush({ takeChanged: false }).catch(() => {}),
        new Promise<void>(resolve => { waited = setTimeout(resolve, CLOSE_WAIT_MS) })
      ])
      clearTimeout(waited)
    }
  }
}

export type GamesIndex = ReturnType<typeof createGamesIndex>
