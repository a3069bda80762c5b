import type { FastifyBaseLogger, FastifyReply } from 'fastify'
import { Cluster } from 'ioredis'
import type { RedisClient as Redis } from '../store/redis-client.js'
import { keys } from '../store/keys.js'
import type { BoardChoice } from '../rules/fields.js'
import type { Leaderboard } from '../store/leaderboard.js'
import type { RecordStore } from '../store/games-and-keys.js'
import type { GameRecord } from '../rules/games.js'
import type { CachedKind } from '../store/cache.js'
import { ApiError } from '../errors.js'
import type { boardFields } from '../store/board-fields.js'
import { isPlayable } from '../rules/games.js'
import { metrics } from '../lib/metrics.js'
import { NO_BOARDS } from '../rules/boards.js'
import type { BoardStore } from '../store/named-boards.js'
import type { AchievementStore } from '../store/achievements.js'
import { RENEW_EVERY_MS, createLeases, type LivePlace } from './caps.js'
import { MIN_FRAME_INTERVAL_MS, endWith, send, type LiveGuard, type LiveTop, type Stream } from './stream.js'
import { createUnlocks } from './unlocks.js'

/*
 * Live boards (docs/interface.md#live-boards): a Server-Sent Events stream
 * of a board's top, sent at once and again whenever it changes.
 *
 * The scripts that change a board's top (submit, approve, hide, delete,
 * season close) SPUBLISH on the game's channel, in its slot; each process
 * subscribes to the channels of the games its streams show (sharded
 * pub/sub, so on a cluster the message stays on the game's shard). A message
 * schedules one read of each board shown for that game, at most one every
 * MIN_FRAME_INTERVAL_MS, and every stream gets the new top, when it differs
 * from the last it got. Every process also reads its boards again each
 * heartbeat, which rolls a period board over at midnight and makes up for
 * a message missed while the subscriber reconnected.
 *
 * This file is that fan-out; the caps on open streams are in caps.ts, one
 * stream and its frames in stream.ts, unlocked achievements in unlocks.ts.
 */

/** A stream's first frame waits at most this long for the game's channel (a Redis failing over): the heartbeat reads make up for what it misses. */
const SUBSCRIBE_WAIT_MS = 2000

export interface LiveOptions {
  redis: Redis
  leaderboard: Leaderboard
  records: RecordStore
  /** The games' named boards (a stream may show one). */
  namedBoards: Pick<BoardStore, 'boards'>
  /** The games' achievements (an unlock frame names them). */
  achievements: Pick<AchievementStore, 'achievements'>
  heartbeatMs: number
  /** Hears record changes on every instance (the record cache's channel). */
  onRecordChange: (listener: (kind: CachedKind | undefined, id: string | undefined) => void) => void
  log: FastifyBaseLogger
}

/** What a stream is opened with: its game and board, the caps it counts against, its guard, its first frame. */
export interface LiveOpenOptions {
  game: GameRecord
  choice: BoardChoice
  limit: number
  places: LivePlace[]
  guard?: LiveGuard
  first: LiveTop
  board: Parameters<typeof boardFields>[2]
}

export function createLiveBoards ({ redis, leaderboard, records, namedBoards, achievements, heartbeatMs, onRecordChange, log }: LiveOptions) {
  const leases = createLeases(redis)
  const streamsOf = new Map<string, Set<Stream>>()
  /** Streams by the record their guard watches (`kind:id`). */
  const guarded = new Map<string, Set<Stream>>()
  const refreshAt = new Map<string, NodeJS.Timeout>()
  const lastRefresh = new Map<string, number>()
  /** Each game's subscription to its channel, once asked for: a stream's first frame waits for it. */
  const subscribed = new Map<string, Promise<unknown>>()
  const unlocks = createUnlocks({ streamsOf, achievements, log })
  const owner = `${process.pid}:${Math.random().toString(36).slice(2, 10)}`
  let nextId = 0
  let subscriber: Redis | undefined

  function subscriberConnection (): Redis {
    if (subscriber !== undefined) return subscriber
    const connection: Redis = redis instanceof Cluster
      ? redis.duplicate([], { shardedSubscribers: true, enableOfflineQueue: true })
      : redis.duplicate({ enableOfflineQueue: true })
    connection.on('error', () => {}) // the main client reports Redis outages; the heartbeat reads cover what is missed
    connection.on('smessage', (channel: string, message: string) => {
      const gameId = /^rank:\{game:(.*)\}:live$/.exec(channel)?.[1]
      if (gameId === undefined) return
      if (message.startsWith('achievement ')) unlocks.heard(gameId, message.slice('achievement '.length))
      else schedule(gameId)
    })
    subscriber = connection
    return connection
  }

  function schedule (gameId: string): void {
    if (refreshAt.has(gameId) || !streamsOf.has(gameId)) return
    const wait = Math.max(0, (lastRefresh.get(gameId) ?? 0) + MIN_FRAME_INTERVAL_MS - Date.now())
    refreshAt.set(gameId, setTimeout(() => {
      refreshAt.delete(gameId)
      lastRefresh.set(gameId, Date.now())
      refresh(gameId).catch((error: unknown) => { log.debug({ err: error, game_id: gameId }, 'a live board could not be read; the next change or heartbeat tries again') })
    }, wait))
  }

  /** Reads each board the game's streams show, once, and sends each stream its frame. */
  async function refresh (gameId: string): Promise<void> {
    const streams = streamsOf.get(gameId)
    if (streams === undefined) return
    const game = await records.game(gameId)
    if (!isPlayable(game)) {
      for (const stream of streams) endWith(stream, new ApiError('invalid_game'))
      return
    }
    const groups = new Map<string, Stream[]>()
    for (const stream of streams) groups.set(stream.choiceKey, [...groups.get(stream.choiceKey) ?? [], stream])
    const boards = [...streams].some(stream => stream.choice.board !== undefined) ? await namedBoards.boards(gameId) : NO_BOARDS
    for (const group of groups.values()) {
      let chosen
      try {
        chosen = leaderboard.choose(game, group[0]!.choice, boards)
      } catch (error) {
        if (!(error instanceof ApiError)) throw error
        for (const stream of group) endWith(stream, error)
        continue
      }
      const { total, items, board } = await leaderboard.top(game, chosen, 0, Math.max(...group.map(stream => stream.limit)))
      await Promise.all(group.map(async stream => { await send(leaderboard, stream, game, { total, items }, board).catch(() => {}) }))
    }
  }

  /**
   * Checks the record `watched` (`kind:id`) once for all the streams that
   * depend on it (their guards are the same check), and ends them if it no
   * longer allows them.
   */
  async function recheck (watched: string): Promise<void> {
    const streams = guarded.get(watched)
    const first = streams?.values().next().value
    const error = await first?.guard?.check()
    if (error === undefined || streams === undefined) return
    for (const stream of [...streams]) if (streamsOf.get(stream.gameId)?.has(stream) === true) endWith(stream, error)
  }

  // A changed game is read again at once (its streams end if it is no longer
  // playable); a changed key is checked again for the streams it opened.
  onRecordChange((kind, id) => {
    if (kind === undefined || id === undefined) {
      for (const gameId of streamsOf.keys()) schedule(gameId)
      for (const watched of guarded.keys()) recheck(watched).catch(() => {})
      return
    }
    if (kind === 'game') schedule(id)
    if (guarded.has(`${kind}:${id}`)) recheck(`${kind}:${id}`).catch(() => {})
  })

  function remove (stream: Stream): void {
    const streams = streamsOf.get(stream.gameId)
    if (streams === undefined || !streams.delete(stream)) return
    metrics.liveStreams.dec()
    leases.free(stream)
    if (stream.guard !== undefined) {
      const watched = `${stream.guard.kind}:${stream.guard.id}`
      guarded.get(watched)?.delete(stream)
      if (guarded.get(watched)?.size === 0) guarded.delete(watched)
    }
    if (streams.size === 0) {
      streamsOf.delete(stream.gameId)
      subscribed.delete(stream.gameId)
      clearTimeout(refreshAt.get(stream.gameId))
      refreshAt.delete(stream.gameId)
      subscriber?.sunsubscribe(keys.live(stream.gameId)).catch(() => {})
    }
  }

  // Every heartbeat (every RENEW_EVERY_MS at least): each board again (a new
  // period, a missed message), each guard (a missed change), and the leases.
  const timer = setInterval(() => {
    for (const gameId of streamsOf.keys()) schedule(gameId)
    for (const watched of guarded.keys()) recheck(watched).catch(() => {})
    leases.renew([...streamsOf.values()].flatMap(streams => [...streams]))
  }, Math.min(heartbeatMs, RENEW_EVERY_MS))
  timer.unref()

  return {
    /**
     * Streams the board to this reply: takes a place in each of `places`
     * (rate_limited, with that cap's message, when one has none left),
     * subscribes to the game's channel, sends the first frame (`first`, read
     * with the request's rate limits) and keeps the stream open until the
     * client goes, its game or its guard no longer allows it, or the
     * service closes.
     */
    async open (reply: FastifyReply, { game, choice, limit, places, guard, first, board }: LiveOpenOptions): Promise<void> {
      const member = `${owner}:${++nextId}`
      await leases.take(places, member)
      const stream: Stream = { id: nextId, gameId: game.game_id, choice, choiceKey: JSON.stringify(choice), limit, reply, leases: places.map(place => place.key), member, guard, lastFrame: '', frames: 0 }
      if (guard !== undefined) {
        const watched = `${guard.kind}:${guard.id}`
        guarded.set(watched, (guarded.get(watched) ?? new Set()).add(stream))
      }
      let streams = streamsOf.get(game.game_id)
      const firstOfGame = streams === undefined
      if (streams === undefined) {
        streams = new Set()
        streamsOf.set(game.game_id, streams)
        subscribed.set(game.game_id, subscriberConnection().ssubscribe(keys.live(game.game_id)).catch((error: unknown) => { log.debug({ err: error }, 'live subscription failed; heartbeats keep the board fresh') }))
      }
      streams.add(stream)
      metrics.liveStreams.inc()
      reply.sse.onClose(() => { remove(stream) })
      reply.sse.keepAlive()
      // The first frame once the game's channel is heard: every change and
      // unlock after it reaches the stream (an unlock is not read again).
      let waited: NodeJS.Timeout | undefined
      await Promise.race([subscribed.get(game.game_id), new Promise(resolve => { waited = setTimeout(resolve, SUBSCRIBE_WAIT_MS) })])
      clearTimeout(waited)
      await send(leaderboard, stream, game, first, board)
      // A change made before the channel was heard would wait for the next
      // heartbeat: the board is read again (a frame goes only if it differs from the first).
      if (firstOfGame) schedule(game.game_id)
    },

    /** Ends every stream (their clients reconnect, to another process) and the subscriber. */
    async close (): Promise<void> {
      clearInterval(timer)
      for (const streams of [...streamsOf.values()]) for (const stream of [...streams]) stream.reply.sse.close()
      for (const pending of refreshAt.values()) clearTimeout(pending)
      refreshAt.clear()
      // A stream opened after this (the service closing, a test) subscribes on a new connection.
      subscriber?.disconnect()
      subscriber = undefined
      subscribed.clear()
    },

    /** How many streams this process has open. */
    get size (): number {
      let size = 0
      for (const streams of streamsOf.values()) size += streams.size
      return size
    }
  }
}

export type LiveBoards = ReturnType<typeof createLiveBoards>
