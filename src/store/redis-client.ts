import { Cluster, Command, Redis, ReplyError, type RedisOptions } from 'ioredis'

/** One Redis server, or a Redis Cluster (docs/guide.md, scaling out): the store works on either. */
export type RedisClient = Redis | Cluster

/**
 * One Redis client per process, set to fail fast: with the offline queue off,
 * a command sent while Redis is away fails at once instead of queueing; a
 * command on a connection that hangs fails after COMMAND_TIMEOUT_MS; the
 * client keeps reconnecting in the background, so service resumes on its own.
 */
export const COMMAND_TIMEOUT_MS = 1000
/** How often a cluster client asks for the slot layout (a failover moves slots). */
const SLOTS_REFRESH_MS = 1000

/**
 * The command timeout measures Redis, not this process. ioredis fails a
 * command when a timer started as it was sent fires; but in each turn of
 * Node's event loop timers run before sockets are read, so when this process
 * itself was busy past the deadline (2,000 client connections closing at
 * once kept a loaded 2-core machine busy for about a second), the timer fired
 * while Redis's reply, sent within microseconds, waited unread in the socket,
 * and a legitimate request was told `unavailable`. So the timer, once fired,
 * waits one more turn of the loop (setImmediate runs after the loop has read
 * its sockets) and fails only a command that is still unanswered then.
 * (ioredis has no option for this; Command.setTimeout is the one place it
 * arms the timer, for single servers and cluster nodes alike.)
 */
interface TimedCommand { isResolved: boolean, reject: (error: Error) => void, _commandTimeoutTimer?: NodeJS.Timeout }
;(Command.prototype as unknown as { setTimeout: (this: TimedCommand, ms: number) => void }).setTimeout = function (ms) {
  if (this._commandTimeoutTimer !== undefined) return
  this._commandTimeoutTimer = setTimeout(() => {
    setImmediate(() => {
      if (!this.isResolved) this.reject(new Error('Command timed out'))
    })
  }, ms)
}

export function redisOptions (url: string): RedisOptions & { path?: string } {
  const parsed = new URL(url)
  const common: RedisOptions = {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: COMMAND_TIMEOUT_MS,
    connectTimeout: COMMAND_TIMEOUT_MS,
    // Reconnect quickly but never in a tight loop: 50 ms, 100 ms, ... up to 1 s.
    retryStrategy: (attempt: number) => Math.min(attempt * 50, 1000),
    // A command whose connection dropped may or may not have run; never send it twice.
    autoResendUnfulfilledCommands: false,
    connectionName: 'ranking-service'
  }
  if (parsed.protocol === 'unix:') return { ...common, path: decodeURIComponent(parsed.pathname) }
  return {
    ...common,
    host: parsed.hostname === '' ? '127.0.0.1' : parsed.hostname.replace(/^\[|\]$/g, ''),
    port: parsed.port === '' ? 6379 : Number(parsed.port),
    username: parsed.username === '' ? undefined : decodeURIComponent(parsed.username),
    password: parsed.password === '' ? undefined : decodeURIComponent(parsed.password),
    db: /^\/\d+$/.test(parsed.pathname) ? Number(parsed.pathname.slice(1)) : 0,
    tls: parsed.protocol === 'rediss:' ? { servername: parsed.hostname } : undefined
  }
}

export function createRedisClient (url: string): Redis {
  return new Redis(redisOptions(url))
}

/** REDIS_URL names one server, or any node(s) of a cluster, comma-separated (config/addresses.ts refuses empty parts). */
export function redisUrls (url: string): string[] {
  return url.split(',').map(part => part.trim())
}

/**
 * Connects to what REDIS_URL names, within timeoutMs: a Redis Cluster when
 * the first node says `cluster_enabled:1` (or several seed nodes are given),
 * through ioredis's cluster client with the same fail-fast settings; a
 * single server otherwise. `watch` sees the client before it is ready, for
 * its error and ready events.
 */
export async function connectRedis (url: string, timeoutMs: number, watch: (client: RedisClient) => void = () => {}): Promise<RedisClient> {
  const [first, ...others] = redisUrls(url)
  if (first === undefined || first === '') throw new Error('REDIS_URL names no Redis')
  const single = createRedisClient(first)
  watch(single)
  try {
    await waitUntilReady(single, timeoutMs)
    if (others.length === 0 && !/^cluster_enabled:1\b/m.test(await single.info('cluster'))) return single
  } catch (error) {
    single.disconnect()
    throw error
  }
  single.disconnect()
  const { host, port, path, db: _db, ...options } = redisOptions(first)
  if (path !== undefined) throw new Error('a Redis Cluster is reached over TCP, not a Unix socket')
  const cluster = new Cluster([{ host, port }, ...others.map(seed => { const { host, port } = redisOptions(seed); return { host, port } })], {
    redisOptions: options,
    enableOfflineQueue: false,
    enableReadyCheck: true,
    slotsRefreshTimeout: COMMAND_TIMEOUT_MS,
    // Refreshed by our own timer (below), not ioredis's.
    slotsRefreshInterval: 0,
    // Retry what Redis refused without running (MOVED, ASK, TRYAGAIN,
    // CLUSTERDOWN), a few times; never a command whose connection dropped
    // (it may have run), which fails at once as `unavailable`.
    retryDelayOnFailover: 0,
    retryDelayOnClusterDown: 100,
    maxRedirections: 5,
    clusterRetryStrategy: (attempt: number) => Math.min(attempt * 50, 1000)
  })
  watch(cluster)
  // Slots move on failover: ask for the layout every second, so a promoted
  // replica is found within about 1 s of its promotion. Our own unref'd
  // timer: ioredis's slotsRefreshInterval starts its timer again when a
  // refresh that was in flight at quit() ends, and then for ever, which
  // keeps a closed process alive.
  const refresher = setInterval(() => { if (cluster.status === 'ready') cluster.refreshSlotsCache() }, SLOTS_REFRESH_MS)
  refresher.unref()
  cluster.once('end', () => { clearInterval(refresher) })
  try {
    await waitUntilReady(cluster, timeoutMs)
    // The cluster is "ready" once it knows the slots; each master's own
    // connection is opened on first use, and without an offline queue a
    // command sent while it is still connecting is refused ("Connection is
    // closed."). So every master's connection is opened before any request.
    await Promise.all(cluster.nodes('master').map(async node => {
      if (node.status === 'wait') node.connect().catch(() => {})
      await waitUntilReady(node, timeoutMs)
    }))
  } catch (error) {
    cluster.disconnect()
    throw error
  }
  return cluster
}

/** Resolves when the client is ready; rejects with one clear line after timeoutMs. */
export async function waitUntilReady (redis: RedisClient, timeoutMs: number): Promise<void> {
  if (redis.status === 'ready') return
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup()
      reject(new Error(`Redis did not answer within ${timeoutMs} ms${lastError === undefined ? '' : ` (${lastError})`}`))
    }, timeoutMs)
    let lastError: string | undefined
    const onError = (error: Error): void => { lastError = error.message }
    const onReady = (): void => { cleanup(); resolve() }
    function cleanup (): void {
      clearTimeout(timer)
      redis.off('ready', onReady)
      redis.off('error', onError)
    }
    redis.on('ready', onReady)
    redis.on('error', onError)
  })
}

/** Closes politely when possible, at once otherwise. */
export async function closeRedis (redis: RedisClient): Promise<void> {
  if (redis.status === 'ready') {
    try {
      await redis.quit()
      return
    } catch {}
  }
  redis.disconnect()
}

/**
 * How many replicas must confirm a write before it is acknowledged
 * (REDIS_WAIT_REPLICAS; docs/guide.md, what an acknowledged write survives).
 * 0, the default, acknowledges what the master has: a failover may lose the
 * last writes the replica had not received yet.
 */
export interface WriteConcern {
  replicas: number
  /** How long WAIT may take (below COMMAND_TIMEOUT_MS, so the answer is `unavailable`, not a timeout). */
  timeoutMs: number
}

const writeConcerns = new WeakMap<RedisClient, WriteConcern>()
export function setWriteConcern (redis: RedisClient, concern: WriteConcern): void {
  writeConcerns.set(redis, concern)
}

export function writeConcernOf (redis: RedisClient): WriteConcern {
  return writeConcerns.get(redis) ?? { replicas: 0, timeoutMs: 0 }
}

/** A write that fewer replicas than required confirmed in time: not acknowledged, so `unavailable`. */
export class WriteNotReplicatedError extends Error {
  constructor (confirmed: number, concern: WriteConcern) {
    super(`WAIT: ${confirmed} of ${concern.replicas} replicas confirmed the write within ${concern.timeoutMs} ms`)
    this.name = 'WriteNotReplicatedError'
  }
}

/** Throws WriteNotReplicatedError unless WAIT's reply reaches the write concern. */
export function checkReplicated (confirmed: unknown, concern: WriteConcern): void {
  if (typeof confirmed !== 'number' || confirmed < concern.replicas) throw new WriteNotReplicatedError(Number(confirmed), concern)
}

/**
 * Runs the commands `build` puts on a pipeline in one round trip and returns
 * their results, throwing the first error. On a cluster the commands must
 * share a slot (one game's keys).
 */
export async function readPipeline (redis: RedisClient, build: (pipeline: ReturnType<RedisClient['pipeline']>) => void): Promise<unknown[]> {
  const pipeline = redis.pipeline()
  build(pipeline)
  const replies = await pipeline.exec() ?? []
  return replies.map(([error, result]) => {
    if (error !== null) throw error
    return result
  })
}

/**
 * Waits until the writes just made to these keys reach the write concern's
 * replicas (nothing to do when it asks for none). WAIT covers every earlier
 * write of the connection it is sent on, so one WAIT per node suffices: on a
 * cluster it goes to the master of each key's slot (a pipeline with a
 * key-read is routed there), on one server once.
 */
export async function confirmWrites (redis: RedisClient, writtenKeys: string[]): Promise<void> {
  const concern = writeConcernOf(redis)
  if (concern.replicas === 0) return
  const targets = redis instanceof Cluster ? [...new Set(writtenKeys)] : writtenKeys.slice(0, 1)
  await Promise.all(targets.map(async key => {
    const replies = await redis.pipeline().exists(key).call('WAIT', concern.replicas, concern.timeoutMs).exec() ?? []
    for (const [error] of replies) if (error !== null) throw error
    checkReplicated(replies[1]?.[1], concern)
  }))
}

// MOVED and ASK reach the caller only from a pipeline ioredis did not retry (the slot moved twice, or a resharding is under way).
const UNAVAILABLE_REPLIES = /^(LOADING|BUSY|MASTERDOWN|TRYAGAIN|CLUSTERDOWN|READONLY|OOM|NOREPLICAS|MOVED|ASK)\b/
const UNAVAILABLE_CLIENT_ERRORS = /Command timed out|Connection is closed|Stream isn't writeable|max retries|Reached the max retries|connect ECONNREFUSED|connect ENOENT|Too many Cluster redirections|Cluster isn't ready|Failed to refresh slots cache|None of startup nodes is available|Command aborted due to connection close|Cluster is ended/i

/** True when an error means "Redis cannot serve right now" rather than a bug. */
export function isRedisUnavailable (error: unknown, redis: RedisClient | undefined): boolean {
  if (error instanceof WriteNotReplicatedError) return true
  if (error instanceof ReplyError) return UNAVAILABLE_REPLIES.test((error as Error).message)
  if (error instanceof Error && UNAVAILABLE_CLIENT_ERRORS.test(error.message)) return true
  return redis !== undefined && redis.status !== 'ready'
}

export interface RedisMemory {
  usedBytes: number
  /** 0 when Redis has no maxmemory. */
  maxBytes: number
  policy: string
}

/** How full Redis is, from INFO memory (allowed where CONFIG is not, as on managed Redis). */
export async function redisMemory (redis: RedisClient): Promise<RedisMemory> {
  if (!(redis instanceof Cluster)) return parseMemory(await redis.info('memory'))
  // On a cluster the master that will refuse writes first speaks for all:
  // one without maxmemory or with an eviction policy, else the fullest.
  const masters = await Promise.all(redis.nodes('master').map(async node => parseMemory(await node.info('memory'))))
  const ratio = (memory: RedisMemory): number => memory.maxBytes === 0 ? 0 : memory.usedBytes / memory.maxBytes
  return masters.find(memory => memory.maxBytes === 0) ??
    masters.find(memory => memory.policy !== 'noeviction') ??
    masters.reduce((fullest, memory) => ratio(memory) > ratio(fullest) ? memory : fullest)
}

function parseMemory (info: string): RedisMemory {
  const field = (name: string): string => new RegExp(`^${name}:(.*)$`, 'm').exec(info)?.[1]?.trim() ?? ''
  return { usedBytes: Number(field('used_memory')), maxBytes: Number(field('maxmemory')), policy: field('maxmemory_policy') }
}

/** What an operator should hear at start-up about how Redis keeps memory; empty when all is well. */
export function memoryWarnings (memory: RedisMemory): string[] {
  const warnings: string[] = []
  if (memory.maxBytes === 0) warnings.push('Redis has no maxmemory: when the machine runs out of memory the kernel kills Redis; set maxmemory (the project\'s redis.conf does)')
  if (memory.policy !== 'noeviction') warnings.push(`Redis evicts keys when full (maxmemory-policy ${memory.policy}): scores, users and sessions would silently disappear; set maxmemory-policy noeviction`)
  return warnings
}

/**
 * Calls `forget` whenever what a process keeps of Redis's state may no
 * longer hold: the connection was lost, or the cluster's nodes changed (a
 * restart or a failover may bring back older data, and older version
 * numbers, than the process last saw).
 */
export function onConnectionLost (redis: RedisClient, forget: () => void): void {
  for (const event of redis instanceof Cluster ? ['+node', '-node', 'node error', 'close', 'reconnecting'] : ['close', 'reconnecting', 'end']) redis.on(event, forget)
}
