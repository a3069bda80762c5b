import type { FastifyBaseLogger, FastifyReply } from 'fastify'
import { Cluster } from 'ioredis'
import type { RedisClient as Redis } from '../store/redis-client.js'
import { keys } from '../store/keys.js'
import { defineScript, luaScript } from '../store/script-loader.js'
import type { BoardChoice } from '../rules/fields.js'
import type { Leaderboard } from '../store/leaderboard.js'
import type { BoardItem } from '../../sdk/answers.js'
import type { RecordStore } from '../store/games-and-keys.js'
import type { GameRecord } from '../rules/games.js'
import type { CachedKind } from '../store/cache.js'
import { ApiError, fail } from '../errors.js'
import { boardFields, iso } from '../store/board-fields.js'
import { isPlayable } from '../rules/games.js'
import { metrics } from '../lib/metrics.js'
import { NO_BOARDS } from '../rules/boards.js'
import type { BoardStore } from '../store/named-boards.js'
import type { AchievementStore } from '../store/achievements.js'
import { MASKED_ACHIEVEMENT, achievementFacts } from '../rules/achievements.js'

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
 * An unlocked achievement is a message of its own ("achievement …", from
 * lua/includes/achievements.lua): the unlocks heard for a game within
 * MIN_FRAME_INTERVAL_MS go to each of its streams as one
 * `achievement.unlocked` frame, a hidden achievement masked (a stream is
 * public: anyone with the API key may read it).
 */

/** At most this many frames a second per game (coalesced). */
export const MIN_FRAME_INTERVAL_MS = 250
/** A stream's place among its subject's streams lasts this long without renewal (a process that dies frees it then). */
const LEASE_MS = 60_000
const RENEW_EVERY_MS = 20_000
/**
 * A client that has not read this much of what was sent is too slow: its
 * stream is ended (it reconnects, and gets the board afresh). A frame of the
 * top 100 is about 10 KiB, so a reader that keeps up never comes near it;
 * 300 streams that read nothing hold about 20 MB instead of 300 MB.
 */
export const MAX_UNREAD_BYTES = 65_536
/** At most this many unlocks in one frame; more within its window are only counted (`more`), so a burst cannot flood a stream. */
export const MAX_UNLOCKS_PER_FRAME = 20
/** A stream's first frame waits at most this long for the game's channel (a Redis failing over): the heartbeat reads make up for what it misses. */
const SUBSCRIBE_WAIT_MS = 2000

const LIVE_OPEN = luaScript('live-open')

/** A frame: what `top` answers, for the board the stream shows. */
export interface LiveTop {
  total: number
  items: BoardItem[]
}

/** A cap a stream counts against: a set of leases (keys.ts) and how many it holds; all of one stream's in one slot. */
export interface LivePlace {
  key: string
  max: number
  /** The rate_limited message when this one is full. */
  full: string
}

/**
 * What a stream's right to go on depends on besides its game: a record
 * (its API key) checked again whenever that record changes, on any instance,
 * and at every heartbeat. `check` answers why the stream must end, if it must.
 */
export interface LiveGuard {
  kind: CachedKind
  id: string
  check: () => Promise<ApiError | undefined>
}

/**
 * The caps a stream counts against, over every instance (docs/interface.md#live-boards):
 * an API key's streams, and within them one client address's share, so an
 * address (the api_key is public) cannot take a key's whole cap from the
 * real dashboards; a client address's on the play page, over every game;
 * an operator token's.
 */
export const livePlaces = {
  apiKey: (apiKey: string, address: string, perKey: number, perAddress: number): LivePlace[] => [
    { key: keys.keyLiveStreams(apiKey), max: perKey, full: `At most ${perKey} live streams may be open at once for one key; close one first.` },
    { key: keys.keyAddressLiveStreams(apiKey, address), max: perAddress, full: `At most ${perAddress} live streams may be open at once for one key from one address; close one first.` }
  ],
  page: (address: string, perAddress: number): LivePlace[] => [
    { key: keys.addressLiveStreams(address), max: perAddress, full: `At most ${perAddress} live boards may be open at once from one address; close one first.` }
  ],
  operator: (name: string, perToken: number): LivePlace[] => [
    { key: keys.operatorLiveStreams(name), max: perToken, full: `At most ${perToken} live streams may be open at once for one operator token; close one first.` }
  ]
}

interface Stream {
  id: number
  gameId: string
  /** Which board, as the client asked (it is chosen again at every read: a new day, a new season). */
  choice: BoardChoice
  choiceKey: string
  limit: number
  reply: FastifyReply
  /** The lease sets it holds a place in, and its member name in each. */
  leases: string[]
  member: string
  guard: LiveGuard | undefined
  lastFrame: string
  frames: number
}

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

/** An unlock as the channel tells it: who, when (ms), which achievements. */
type HeardUnlock = [player: string, ms: string, ids: string[]]

function heardUnlock (text: string): HeardUnlock | undefined {
  try {
    const heard = JSON.parse(text) as unknown
    if (Array.isArray(heard) && typeof heard[0] === 'string' && typeof heard[1] === 'string' && Array.isArray(heard[2]) && heard[2].every(id => typeof id === 'string')) return heard as HeardUnlock
  } catch {}
  return undefined
}

export function createLiveBoards ({ redis, leaderboard, records, namedBoards, achievements, heartbeatMs, onRecordChange, log }: LiveOptions) {
  const openScript = defineScript<number>(redis, 'rankLiveOpen', LIVE_OPEN, { writes: true })
  const streamsOf = new Map<string, Set<Stream>>()
  /** Streams by the record their guard watches (`kind:id`). */
  const guarded = new Map<string, Set<Stream>>()
  const refreshAt = new Map<string, NodeJS.Timeout>()
  const lastRefresh = new Map<string, number>()
  /** Each game's subscription to its channel, once asked for: a stream's first frame waits for it. */
  const subscribed = new Map<string, Promise<unknown>>()
  /** Unlocks heard and not yet sent, by game: the first MAX_UNLOCKS_PER_FRAME (player, ms, achievement id), and how many more. */
  const unlocksOf = new Map<string, { heard: Array<[player: string, ms: string, id: string]>, more: number }>()
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
      if (message.startsWith('achievement ')) heard(gameId, message.slice('achievement '.length))
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

  function heard (gameId: string, text: string): void {
    const unlock = heardUnlock(text)
    if (unlock === undefined || !streamsOf.has(gameId)) return
    const [player, ms, ids] = unlock
    let pending = unlocksOf.get(gameId)
    const first = pending === undefined
    pending ??= { heard: [], more: 0 }
    for (const id of ids) {
      if (pending.heard.length < MAX_UNLOCKS_PER_FRAME) pending.heard.push([player, ms, id])
      else pending.more++
    }
    unlocksOf.set(gameId, pending)
    if (!first) return
    setTimeout(() => {
      const { heard, more } = unlocksOf.get(gameId) ?? { heard: [], more: 0 }
      unlocksOf.delete(gameId)
      announce(gameId, heard, more).catch((error: unknown) => { log.debug({ err: error, game_id: gameId }, 'unlocks could not be sent to the live streams') })
    }, MIN_FRAME_INTERVAL_MS).unref()
  }

  /** Sends the game's streams one frame of the unlocks heard. */
  async function announce (gameId: string, heard: Array<[player: string, ms: string, id: string]>, more: number): Promise<void> {
    const streams = streamsOf.get(gameId)
    if (streams === undefined) return
    const all = await achievements.achievements(gameId)
    const items = heard.flatMap(([player, ms, id]) => {
      const achievement = all.get(id)
      if (achievement === undefined) return [] // deleted since
      const facts = achievement.hidden ? MASKED_ACHIEVEMENT : achievementFacts(gameId, achievement)
      // Never before the achievement was made (an approved held score keeps the time it was sent).
      return [{ player_name: player, ...facts, unlocked_at: iso(Math.max(Number(ms), achievement.since)) }]
    })
    if (items.length === 0) return
    const data = JSON.stringify({ game_id: gameId, items, more })
    // Never before a stream's first top (its frame sets `retry`).
    for (const stream of streams) if (stream.frames > 0) write(stream, { event: 'achievement.unlocked', data })
  }

  /**
   * Queues a message for the stream's client, without waiting for it to be
   * read (one slow reader must not hold up the others, nor the end of its
   * game's streams). A client that has left more than MAX_UNREAD_BYTES
   * unread loses its connection instead: ending the stream politely would
   * queue the end behind what it has not read, and keep all of it in memory.
   */
  function write (stream: Stream, message: { id?: string, event: string, data: string, retry?: number }): boolean {
    if (stream.reply.raw.writableLength > MAX_UNREAD_BYTES) {
      stream.reply.raw.destroy()
      return false
    }
    stream.reply.sse.send(message).catch(() => {})
    return true
  }

  async function send (stream: Stream, game: GameRecord, top: LiveTop, board: Parameters<typeof boardFields>[2]): Promise<void> {
    const data = JSON.stringify({ game_id: game.game_id, total: top.total, items: top.items.slice(0, stream.limit), ...await boardFields(leaderboard, game, board) })
    if (data === stream.lastFrame) return
    stream.lastFrame = data
    const id = String(stream.frames + 1)
    if (write(stream, { id, event: 'top', data, ...(stream.frames === 0 ? { retry: 2000 } : {}) })) stream.frames++
  }

  /** Ends a stream with an `error` frame carrying the envelope of why (the game is gone, the board no longer kept). */
  function endWith (stream: Stream, error: ApiError): void {
    if (write(stream, { event: 'error', data: JSON.stringify({ ok: false, error: error.code, message: error.message }) })) stream.reply.sse.close()
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
      await Promise.all(group.map(async stream => { await send(stream, game, { total, items }, board).catch(() => {}) }))
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
    for (const lease of stream.leases) redis.zrem(lease, stream.member).catch(() => {})
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
  // period, a missed message), each guard (a missed change), and the leases,
  // each set in two commands for all of this process's streams in it, the
  // set kept alive as long as its leases (never shortened: GT).
  const timer = setInterval(() => {
    for (const gameId of streamsOf.keys()) schedule(gameId)
    for (const watched of guarded.keys()) recheck(watched).catch(() => {})
    const until = Date.now() + LEASE_MS
    const membersOf = new Map<string, string[]>()
    for (const streams of streamsOf.values()) {
      for (const { leases, member } of streams) {
        for (const lease of leases) {
          const members = membersOf.get(lease)
          if (members === undefined) membersOf.set(lease, [member])
          else members.push(member)
        }
      }
    }
    for (const [lease, members] of membersOf) {
      redis.zadd(lease, 'XX', ...members.flatMap(member => [until, member])).catch(() => {})
      redis.pexpire(lease, LEASE_MS, 'GT').catch(() => {})
    }
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
    async open (reply: FastifyReply, { game, choice, limit, places, guard, first, board }: { game: GameRecord, choice: BoardChoice, limit: number, places: LivePlace[], guard?: LiveGuard, first: LiveTop, board: Parameters<typeof boardFields>[2] }): Promise<void> {
      const member = `${owner}:${++nextId}`
      const full = await openScript(places.map(place => place.key), [Date.now(), LEASE_MS, member, ...places.map(place => place.max)])
      if (full !== 0) fail('rate_limited', places[full - 1]?.full)
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
      await send(stream, game, first, board)
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
