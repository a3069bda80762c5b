import { Cluster, Redis } from 'ioredis'
import { child, metrics } from '../lib/metrics.js'
import type { RedisClient } from './redis-client.js'
import { keys } from './keys.js'

/**
 * An in-process cache of records read on every request (API keys, games,
 * users, sessions), kept right on every instance: each write invalidates it
 * locally at once and publishes the change on one Redis channel, which every
 * instance (and its workers) subscribes to. While the subscription is down
 * the cache is not used, and it is emptied when the subscription returns,
 * since invalidations may have been missed meanwhile.
 */
export const CACHED_KINDS = ['key', 'game', 'boards', 'achievements', 'user', 'session', 'gamejolt'] as const
export type CachedKind = typeof CACHED_KINDS[number]

interface Entry {
  value: unknown
  /** ms since epoch: the record's own TTL, at most MAX_AGE_MS from when it was read. */
  expiresAt: number
}

/** Entries per kind; the oldest goes first when full. */
const MAX_ENTRIES = 20_000

/**
 * The longest a record stays cached, even when no invalidation comes: a
 * backstop for a message lost in the cluster bus or a publish that failed
 * after its write. Invalidations remain what makes changes take effect at once.
 */
export const MAX_AGE_MS = 60_000

export class RecordCache {
  private readonly maps = new Map<CachedKind, Map<string, Entry>>()
  /** sync() tokens waiting for their own message to come back. */
  private readonly syncs = new Map<string, () => void>()
  /** Bumped by every invalidation, so a read that raced a write is not cached. */
  private generation = 0
  private readonly listeners: Array<(kind: CachedKind | undefined, id: string | undefined) => void> = []

  constructor (private readonly isLive: () => boolean, private readonly now: () => number = Date.now) {}

  private map (kind: CachedKind): Map<string, Entry> {
    let map = this.maps.get(kind)
    if (map === undefined) {
      map = new Map()
      this.maps.set(kind, map)
    }
    return map
  }

  get<T> (kind: CachedKind, id: string): T | undefined {
    const value = this.lookUp<T>(kind, id)
    child(metrics.cacheLookups, kind, value === undefined ? 'miss' : 'hit').inc()
    return value
  }

  private lookUp<T> (kind: CachedKind, id: string): T | undefined {
    if (!this.isLive()) return undefined
    const map = this.map(kind)
    const entry = map.get(id)
    if (entry === undefined) return undefined
    if (entry.expiresAt <= this.now()) {
      map.delete(id)
      return undefined
    }
    return entry.value as T
  }

  /** The generation to hand to `set` after reading from Redis. */
  stamp (): number {
    return this.generation
  }

  set (kind: CachedKind, id: string, value: unknown, stamp: number, expiresAt = Infinity): void {
    if (!this.isLive()) return
    const map = this.map(kind)
    // A read that raced an invalidation (of any record) is not kept; nor is
    // what was cached before it, which is no newer than that read (a fresh
    // read made while another record changed would otherwise leave it).
    if (stamp !== this.generation) {
      map.delete(id)
      return
    }
    if (map.size >= MAX_ENTRIES) map.delete(map.keys().next().value as string)
    map.set(id, { value, expiresAt: Math.min(expiresAt, this.now() + MAX_AGE_MS) })
  }

  invalidate (kind: CachedKind, id: string): void {
    this.generation++
    this.maps.get(kind)?.delete(id)
    for (const listener of this.listeners) listener(kind, id)
  }

  clear (): void {
    this.generation++
    this.maps.clear()
    for (const listener of this.listeners) listener(undefined, undefined)
  }

  /**
   * Calls `listener` once a record changed, on whichever instance (what was
   * read of it before is stale; a read now is fresh), and with no kind when
   * the cache was emptied because changes may have been missed. A writer's
   * own instance hears its change twice: at once, and from the channel.
   */
  onChange (listener: (kind: CachedKind | undefined, id: string | undefined) => void): void {
    this.listeners.push(listener)
  }

  /**
   * Resolves once every invalidation published before this call has reached
   * this process: a channel delivers its messages in order, so when our own
   * token comes back, all earlier ones have been applied. For tests and for
   * operators' tools that must see their change take effect.
   */
  async sync (redis: RedisClient): Promise<void> {
    const token = `${process.pid}-${Math.random().toString(36).slice(2)}`
    const arrived = new Promise<void>(resolve => this.syncs.set(token, resolve))
    await publish(redis, `sync:${token}`)
    await arrived
    this.syncs.delete(token)
  }

  /** Applies a message of the invalidation channel: `<kind>:<id>`, or a `sync:<token>` coming back. */
  receive (message: string): void {
    const colon = message.indexOf(':')
    if (message.startsWith('sync:')) {
      this.syncs.get(message.slice(colon + 1))?.()
      return
    }
    const kind = message.slice(0, colon) as CachedKind
    if (colon > 0 && (CACHED_KINDS as readonly string[]).includes(kind)) this.invalidate(kind, message.slice(colon + 1))
    else this.clear()
  }
}

/** Tells every instance (this one at once) that a record changed. */
export async function invalidate (redis: RedisClient, cache: RecordCache | undefined, kind: CachedKind, id: string): Promise<void> {
  cache?.invalidate(kind, id)
  await publish(redis, `${kind}:${id}`)
}

/**
 * Runs a write of a cached record, then tells every instance. When the write
 * fails it may still have been applied (a WAIT no replica confirmed, a
 * connection lost after sending), so every instance is told then too.
 */
export async function changeRecord<T> (redis: RedisClient, cache: RecordCache | undefined, kind: CachedKind, id: string, write: () => Promise<T>): Promise<T> {
  let result: T
  try {
    result = await write()
  } catch (error) {
    await invalidate(redis, cache, kind, id).catch(() => {})
    throw error
  }
  await invalidate(redis, cache, kind, id)
  return result
}

/**
 * Publishes on the invalidation channel. On a cluster a command without a
 * key goes to any node; sending every message of this process through the
 * same master keeps them in order, which sync() relies on; when that master
 * is down, the next one in the same order takes the message.
 */
async function publish (redis: RedisClient, message: string): Promise<void> {
  if (!(redis instanceof Cluster)) {
    await redis.publish(keys.invalidations(), message)
    return
  }
  const masters = redis.nodes('master').sort((a, b) => `${a.options.host ?? ''}:${a.options.port ?? 0}`.localeCompare(`${b.options.host ?? ''}:${b.options.port ?? 0}`))
  let lastError: unknown = new Error('Cluster has no master to publish through')
  for (const master of masters) {
    try {
      await master.publish(keys.invalidations(), message)
      return
    } catch (error) {
      lastError = error
    }
  }
  throw lastError
}

/**
 * The cache of one process, fed by a subscriber connection of its own.
 * Returns the cache and a function that closes the subscriber.
 *
 * Plain pub/sub, on one server and on a cluster alike: invalidations are
 * rare (operator actions, logouts) and every instance needs every one, and
 * a cluster forwards a PUBLISH to every node, so a subscriber on any node
 * hears it. (Sharded pub/sub would tie the channel to one slot's master,
 * with nothing gained at this rate.)
 */
export async function createRecordCache (redis: RedisClient): Promise<{ cache: RecordCache, close: () => Promise<void> }> {
  let live = false
  const cache = new RecordCache(() => live)
  let subscribed: () => void = () => {}
  const firstSubscription = new Promise<void>(resolve => { subscribed = resolve })
  let closed = false
  let subscriber: Redis | undefined

  // Subscribed by hand on every (re)connection, so the cache is used only once
  // the subscription is confirmed; what was missed meanwhile is dropped.
  function listen (connection: Redis, onClose: () => void): void {
    subscriber = connection
    connection.on('message', (_channel: string, message: string) => { cache.receive(message) })
    connection.on('ready', () => {
      connection.subscribe(keys.invalidations()).then(() => {
        cache.clear()
        live = true
        subscribed()
      }, () => { connection.disconnect(true) }) // a failed subscribe is retried on a new connection
    })
    connection.on('error', () => {}) // the main client reports Redis outages
    connection.on('close', () => {
      live = false
      onClose()
    })
  }

  if (redis instanceof Cluster) {
    // One plain connection to one node at a time; when that node goes (a
    // failover), the next known node takes over.
    let turn = 0
    const next = (): void => {
      if (closed) return
      const nodes = redis.nodes('all')
      const node = nodes[turn++ % Math.max(1, nodes.length)]
      if (node === undefined) {
        setTimeout(next, 200).unref()
        return
      }
      const connection = new Redis({ ...redis.options.redisOptions, host: node.options.host, port: node.options.port, enableOfflineQueue: true, autoResubscribe: false, retryStrategy: () => null })
      listen(connection, () => {
        connection.disconnect()
        setTimeout(next, 100).unref()
      })
    }
    next()
  } else {
    listen(redis.duplicate({ enableOfflineQueue: true, autoResubscribe: false }), () => {})
  }
  // Start-up does not wait on the cache for long: without it, requests read Redis.
  await Promise.race([firstSubscription, new Promise(resolve => setTimeout(resolve, 2000).unref())])
  return {
    cache,
    close: async () => {
      closed = true
      live = false
      subscriber?.disconnect()
    }
  }
}
