import type { FastifyBaseLogger, FastifyReply } from 'fastify'
import { Cluster } from 'ioredis'
import type { RedisClient as Redis } from '../store/redis-client.js'
import { keys } from '../store/keys.js'
import { defineScript, luaSource } from '../store/scripts.js'
import type { BoardChoice } from '../store/boards.js'
import type { BoardItem, Leaderboard } from '../store/leaderboard.js'
import type { GameRecord, RecordStore } from '../store/records.js'
import { ApiError, fail } from './envelope.js'
import { boardFields } from './boards.js'
import { isPlayable } from './games.js'
import { metrics } from '../ops/metrics.js'

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
 */

/** At most this many frames a second per game (coalesced). */
export const MIN_FRAME_INTERVAL_MS = 250
/** A stream's place among its subject's streams lasts this long without renewal (a process that dies frees it then). */
const LEASE_MS = 60_000
const RENEW_EVERY_MS = 20_000
/** A client that has not read this much of what was sent is too slow: its stream is ended (it reconnects). */
const MAX_UNREAD_BYTES = 1_048_576

const LIVE_OPEN = luaSource('live-open')

/** A frame: what `top` answers, for the board the stream shows. */
export interface LiveTop {
  total: number
  items: BoardItem[]
}

interface Stream {
  id: number
  gameId: string
  /** Which board, as the client asked (it is chosen again at every read: a new day, a new season). */
  choice: BoardChoice
  choiceKey: string
  limit: number
  reply: FastifyReply
  lease: { key: string, member: string }
  lastFrame: string
  frames: number
}

export interface LiveOptions {
  redis: Redis
  leaderboard: Leaderboard
  records: RecordStore
  /** Streams one subject (an API key, a page reader's address) may have open, over every process. */
  streamsPerSubject: number
  heartbeatMs: number
  log: FastifyBaseLogger
}

export function createLiveBoards ({ redis, leaderboard, records, streamsPerSubject, heartbeatMs, log }: LiveOptions) {
  const openScript = defineScript<number>(redis, 'rankLiveOpen', LIVE_OPEN, { writes: true })
  const streamsOf = new Map<string, Set<Stream>>()
  const refreshAt = new Map<string, NodeJS.Timeout>()
  const lastRefresh = new Map<string, number>()
  const owner = `${process.pid}:${Math.random().toString(36).slice(2, 10)}`
  let nextId = 0
  let subscriber: Redis | undefined

  function subscriberConnection (): Redis {
    if (subscriber !== undefined) return subscriber
    const connection: Redis = redis instanceof Cluster
      ? redis.duplicate([], { shardedSubscribers: true, enableOfflineQueue: true })
      : redis.duplicate({ enableOfflineQueue: true })
    connection.on('error', () => {}) // the main client reports Redis outages; the heartbeat reads cover what is missed
    connection.on('smessage', (channel: string) => {
      const gameId = /^rank:\{game:(.*)\}:live$/.exec(channel)?.[1]
      if (gameId !== undefined) schedule(gameId)
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

  async function send (stream: Stream, game: GameRecord, top: LiveTop, board: Parameters<typeof boardFields>[2]): Promise<void> {
    const data = JSON.stringify({ game_id: game.game_id, total: top.total, items: top.items.slice(0, stream.limit), ...await boardFields(leaderboard, game, board) })
    if (data === stream.lastFrame) return
    if (stream.reply.raw.writableLength > MAX_UNREAD_BYTES) {
      stream.reply.sse.close()
      return
    }
    stream.lastFrame = data
    stream.frames++
    await stream.reply.sse.send({ id: String(stream.frames), event: 'top', data, ...(stream.frames === 1 ? { retry: 2000 } : {}) })
  }

  /** Ends a stream with an `error` frame carrying the envelope of why (the game is gone, the board no longer kept). */
  async function endWith (stream: Stream, error: ApiError): Promise<void> {
    await stream.reply.sse.send({ event: 'error', data: JSON.stringify({ ok: false, error: error.code, message: error.message }) }).catch(() => {})
    stream.reply.sse.close()
  }

  /** Reads each board the game's streams show, once, and sends each stream its frame. */
  async function refresh (gameId: string): Promise<void> {
    const streams = streamsOf.get(gameId)
    if (streams === undefined) return
    const game = await records.game(gameId)
    if (!isPlayable(game)) {
      for (const stream of streams) await endWith(stream, new ApiError('invalid_game'))
      return
    }
    const groups = new Map<string, Stream[]>()
    for (const stream of streams) groups.set(stream.choiceKey, [...groups.get(stream.choiceKey) ?? [], stream])
    for (const group of groups.values()) {
      let chosen
      try {
        chosen = leaderboard.choose(game, group[0]!.choice)
      } catch (error) {
        if (!(error instanceof ApiError)) throw error
        for (const stream of group) await endWith(stream, error)
        continue
      }
      const { total, items, board } = await leaderboard.top(game, chosen, 0, Math.max(...group.map(stream => stream.limit)))
      await Promise.all(group.map(async stream => { await send(stream, game, { total, items }, board).catch(() => {}) }))
    }
  }

  function remove (stream: Stream): void {
    const streams = streamsOf.get(stream.gameId)
    if (streams === undefined || !streams.delete(stream)) return
    metrics.liveStreams.dec()
    redis.zrem(stream.lease.key, stream.lease.member).catch(() => {})
    if (streams.size === 0) {
      streamsOf.delete(stream.gameId)
      clearTimeout(refreshAt.get(stream.gameId))
      refreshAt.delete(stream.gameId)
      subscriber?.sunsubscribe(keys.live(stream.gameId)).catch(() => {})
    }
  }

  // Every heartbeat: each board again (a new period, a missed message); leases renewed less often.
  let beats = 0
  const timer = setInterval(() => {
    beats++
    for (const gameId of streamsOf.keys()) schedule(gameId)
    if (beats * heartbeatMs >= RENEW_EVERY_MS) {
      beats = 0
      const until = Date.now() + LEASE_MS
      for (const streams of streamsOf.values()) {
        for (const { lease } of streams) redis.zadd(lease.key, 'XX', until, lease.member).catch(() => {})
      }
    }
  }, Math.min(heartbeatMs, RENEW_EVERY_MS))
  timer.unref()

  return {
    /**
     * Streams the board to this reply: takes a place among the subject's
     * streams (rate_limited when it has none left), subscribes to the game's
     * channel, sends the first frame (`first`, read with the request's rate
     * limits) and keeps the stream open until the client goes or the
     * service closes.
     */
    async open (reply: FastifyReply, { game, choice, limit, subject, first, board }: { game: GameRecord, choice: BoardChoice, limit: number, subject: string, first: LiveTop, board: Parameters<typeof boardFields>[2] }): Promise<void> {
      const lease = { key: keys.liveStreams(game.game_id, subject), member: `${owner}:${++nextId}` }
      if (await openScript([lease.key], [Date.now(), LEASE_MS, streamsPerSubject, lease.member]) === 0) {
        fail('rate_limited', `At most ${streamsPerSubject} live streams may be open at once for one key (or one address); close one first.`)
      }
      const stream: Stream = { id: nextId, gameId: game.game_id, choice, choiceKey: JSON.stringify(choice), limit, reply, lease, lastFrame: '', frames: 0 }
      let streams = streamsOf.get(game.game_id)
      let subscribing: Promise<unknown> | undefined
      if (streams === undefined) {
        streams = new Set()
        streamsOf.set(game.game_id, streams)
        subscribing = subscriberConnection().ssubscribe(keys.live(game.game_id)).catch((error: unknown) => { log.debug({ err: error }, 'live subscription failed; heartbeats keep the board fresh') })
      }
      streams.add(stream)
      metrics.liveStreams.inc()
      reply.sse.onClose(() => { remove(stream) })
      reply.sse.keepAlive()
      await send(stream, game, first, board)
      if (subscribing !== undefined) {
        // A change made before the game's channel was heard would wait for the
        // next heartbeat: once subscribed, the board is read again (a frame
        // goes only if it differs from the first).
        await subscribing
        schedule(game.game_id)
      }
    },

    /** Ends every stream (their clients reconnect, to another process) and the subscriber. */
    async close (): Promise<void> {
      clearInterval(timer)
      for (const streams of [...streamsOf.values()]) for (const stream of [...streams]) stream.reply.sse.close()
      for (const pending of refreshAt.values()) clearTimeout(pending)
      refreshAt.clear()
      subscriber?.disconnect()
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
