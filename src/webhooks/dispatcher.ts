import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import type { FastifyBaseLogger } from 'fastify'
import type { RedisClient as Redis } from '../store/redis-client.js'
import { keys } from '../store/keys.js'
import { OUTBOX_MAX, eventOf, type GameEvent } from '../store/events.js'
import { BACKLOG_MAX, type NewDelivery, type OutboxEntry, type StoredDelivery, type StoredWebhook, type WebhookStore } from '../store/webhooks.js'
import { attemptDelivery } from './send.js'
import { currentPeriod } from '../store/board-choice.js'
import { keptDuring, previousPeriod } from '../rules/periods.js'
import type { GameRecord } from '../rules/games.js'
import { child, metrics } from '../lib/metrics.js'

/*
 * The webhook dispatcher, one per service process (docs/guide.md#webhooks).
 * Every WEBHOOK_POLL_MS, for each game with webhooks:
 *
 * 1. new outbox entries are read with the consumer group `webhooks` (each
 *    entry goes to one process) and become one delivery per subscribed
 *    webhook, acknowledged in the same script call; entries a dead process
 *    read but never acknowledged are claimed after CLAIM_IDLE_ROUNDS rounds;
 * 2. each webhook's due deliveries are claimed for an attempt, under a lease
 *    (so a process that dies mid-attempt leaves them to another), at most
 *    PER_WEBHOOK_IN_FLIGHT per webhook and WEBHOOK_CONCURRENCY in all, so a
 *    slow receiver holds its own slots only; attempts run beside the loop;
 * 3. a failed attempt is due again after an exponential backoff with
 *    jitter, until WEBHOOK_RETRY_FOR_S after its first attempt, then dead;
 * 4. for a game that keeps periods, a period that ended within the last day
 *    gets its period.closed, written once across processes.
 *
 * Every attempt of a delivery carries the same webhook-id. Nothing here is
 * on a request's path: the submit script only writes the outbox.
 */

export interface DispatcherOptions {
  /** The game's record, from the cache (its periods, for period.closed). */
  gameOf: (gameId: string) => Promise<GameRecord | null>
  /** The clock of periods (ms): the leaderboard's. */
  periodClock: () => number
  pollMs: number
  timeoutMs: number
  retryForMs: number
  retryBaseMs: number
  concurrency: number
  allowPrivate: boolean
  log: FastifyBaseLogger
}

/** Attempts in flight to one webhook, from one process. */
export const PER_WEBHOOK_IN_FLIGHT = 16
/** The longest wait between two attempts. */
export const MAX_RETRY_DELAY_MS = 3_600_000
/** Outbox entries read at a time, and at most READS_PER_ROUND times per game per round (a busy game's outbox is drained, a burst is spread over rounds). */
const READ_COUNT = 500
const READS_PER_ROUND = 10
/** An outbox entry read by a process that has not acknowledged it within this many rounds is taken over (at least a second). */
const CLAIM_IDLE_ROUNDS = 100
/** How often the list of games with webhooks is read again. */
const GAMES_REFRESH_MS = 2000
/** A claimed attempt's lease: twice its timeout and a second, time enough to record how it ended. */
const leaseOf = (timeoutMs: number): number => 2 * timeoutMs + 1000
const GROUP = 'webhooks'
/** Consumers of the outbox's group (one per process that ever ran) idle this long with nothing pending are forgotten, now and then. */
const CONSUMER_IDLE_MS = 86_400_000
const CONSUMERS_CHECK_MS = 600_000
const BACKLOG_FULL_LOG_MS = 60_000

/** How late a period's period.closed may still be written: a period that ended longer ago (the service was down) is not told. */
const PERIOD_CLOSED_WITHIN_MS = 86_400_000

/** The wait before attempt `attempts + 1`: base × 2^(attempts − 1), at most an hour, times a random 0.5–1.5. */
export function retryDelay (attempts: number, baseMs: number, random = Math.random()): number {
  return Math.round(Math.min(baseMs * 2 ** Math.max(0, attempts - 1), MAX_RETRY_DELAY_MS) * (0.5 + random))
}

/** The `webhook-id` of an outbox event: the same for every attempt, unique across games. */
export function messageIdOf (gameId: string, eventId: string): string {
  return `evt_${gameId}_${eventId}`
}

/** The body of a delivery: Standard Webhooks' `type`, `timestamp` and `data`. */
export function bodyOf (event: Pick<GameEvent, 'type' | 'timestamp' | 'data'>): string {
  return JSON.stringify({ type: event.type, timestamp: event.timestamp, data: event.data })
}

export function subscribes (webhook: Pick<StoredWebhook, 'events'>, type: string): boolean {
  return webhook.events.includes('*') || webhook.events.includes(type)
}

export function createDispatcher (redis: Redis, store: WebhookStore, options: DispatcherOptions) {
  const consumer = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`
  const inFlightOf = new Map<string, number>()
  const attempts = new Set<Promise<void>>()
  let inFlight = 0
  let timer: NodeJS.Timeout | undefined
  let stopping = false
  let games: string[] = []
  let gamesReadAt = 0
  const claimedAt = new Map<string, number>()
  const claimIdleMs = Math.max(1000, CLAIM_IDLE_ROUNDS * options.pollMs)
  /** The ended periods this process has seen told already (`game kind id`). */
  const toldPeriods = new Set<string>()

  async function closePeriods (gameId: string): Promise<void> {
    const game = await options.gameOf(gameId)
    if (game === null) return
    const now = options.periodClock()
    for (const kind of game.periods) {
      const ended = previousPeriod(currentPeriod(game, kind, now), game.timezone)
      const told = `${gameId} ${kind} ${ended.id}`
      // Not told: a period told already, one that ended long ago (the service was down), or one that ended before the board kept its kind (it held nothing).
      if (toldPeriods.has(told) || now - ended.resetsAt >= PERIOD_CLOSED_WITHIN_MS || !keptDuring(ended, game.periods_since)) continue
      await store.periodClosed(gameId, ended)
      if (toldPeriods.size > 10_000) toldPeriods.clear()
      toldPeriods.add(told)
    }
  }

  async function gamesWithWebhooks (): Promise<string[]> {
    if (Date.now() - gamesReadAt >= GAMES_REFRESH_MS) {
      games = await store.games()
      gamesReadAt = Date.now()
    }
    return games
  }

  /** New outbox entries for this process, and (now and then) entries a dead process left unacknowledged. */
  async function readOutbox (gameId: string): Promise<{ entries: OutboxEntry[], gone: string[] }> {
    const outbox = keys.events(gameId)
    const { entries, dropped } = await store.readOutbox(gameId, consumer, READ_COUNT)
    if (dropped > 0) {
      metrics.eventsDropped.inc(dropped)
      options.log.error({ game_id: gameId, events_dropped: dropped }, `${dropped} events of game ${gameId} were never written, so no webhook gets them: its outbox held ${OUTBOX_MAX} events no process had read (does any run with WEBHOOK_DISPATCH on?)`)
    }
    const gone: string[] = []
    if (Date.now() - (claimedAt.get(gameId) ?? 0) >= claimIdleMs / 2) {
      claimedAt.set(gameId, Date.now())
      const [, claimed, deleted] = await redis.xautoclaim(outbox, GROUP, consumer, claimIdleMs, '0-0', 'COUNT', READ_COUNT) as [string, Array<OutboxEntry | null>, string[]]
      for (const entry of claimed) if (entry !== null) entries.push(entry)
      gone.push(...deleted ?? [])
    }
    return { entries, gone }
  }

  const consumersCheckedAt = new Map<string, number>()
  /** Forgets consumers of processes long gone (nothing pending, idle a day): each restart leaves one. */
  async function forgetOldConsumers (gameId: string): Promise<void> {
    if (Date.now() - (consumersCheckedAt.get(gameId) ?? 0) < CONSUMERS_CHECK_MS) return
    consumersCheckedAt.set(gameId, Date.now())
    const consumers = await redis.xinfo('CONSUMERS', keys.events(gameId), GROUP) as unknown[][]
    for (const fields of consumers) {
      const info: Record<string, unknown> = {}
      for (let i = 0; i + 1 < fields.length; i += 2) info[String(fields[i])] = fields[i + 1]
      if (info.pending === 0 && Number(info.idle) >= CONSUMER_IDLE_MS && info.name !== consumer) await redis.xgroup('DELCONSUMER', keys.events(gameId), GROUP, String(info.name))
    }
  }

  /** Turns the outbox's new entries into deliveries, a batch at a time, while full batches come. */
  async function fanOut (gameId: string, webhooks: StoredWebhook[]): Promise<void> {
    for (let read = 1; read <= READS_PER_ROUND; read++) {
      const batch = await fanOutBatch(gameId, webhooks)
      if (batch < READ_COUNT) return
    }
  }

  /** One batch; returns how many entries it read. */
  async function fanOutBatch (gameId: string, webhooks: StoredWebhook[]): Promise<number> {
    const { entries, gone } = await readOutbox(gameId)
    if (entries.length === 0 && gone.length === 0) return 0
    const deliveries: NewDelivery[] = []
    for (const [id, fields] of entries) {
      const event = eventOf(gameId, id, fields)
      const body = bodyOf(event)
      for (const webhook of webhooks) {
        if (subscribes(webhook, event.type)) deliveries.push({ entryId: id, webhookId: webhook.webhook_id, messageId: messageIdOf(gameId, id), type: event.type, body })
      }
    }
    const { backlogFull } = await store.enqueue(gameId, Date.now(), [...entries.map(([id]) => id), ...gone], deliveries)
    if (backlogFull > 0) {
      metrics.webhookBacklogFull.inc(backlogFull)
      if (Date.now() - (backlogToldAt.get(gameId) ?? 0) >= BACKLOG_FULL_LOG_MS) {
        backlogToldAt.set(gameId, Date.now())
        options.log.warn({ game_id: gameId, dead: backlogFull }, `a webhook of game ${gameId} has ${BACKLOG_MAX} deliveries pending: new ones are dead at once (its receiver is down or slower than the events; they can be delivered again, POST .../redeliver)`)
      }
    }
    return entries.length
  }

  /** When this process last logged a full backlog, per game: at most once a minute, the metric counts every one. */
  const backlogToldAt = new Map<string, number>()

  /**
   * One attempt, recorded; the same call claims the webhook's next due
   * delivery (unless the dispatcher is stopping), returned for this slot to
   * attempt next.
   */
  async function attempt (gameId: string, webhook: StoredWebhook, delivery: StoredDelivery): Promise<StoredDelivery | undefined> {
    const result = await attemptDelivery(webhook.url, webhook.secret, delivery.message_id, delivery.body, { timeoutMs: options.timeoutMs, allowPrivate: options.allowPrivate })
    const now = Date.now()
    const firstAttempt = delivery.first_attempt_at ?? now
    const status = result.delivered ? 'delivered' : now - firstAttempt >= options.retryForMs ? 'dead' : 'retry'
    child(metrics.webhookAttempts, status).inc()
    if (result.delivered) metrics.webhookLatency.observe((now - delivery.created_at) / 1000)
    else options.log.debug({ game_id: gameId, webhook_id: webhook.webhook_id, delivery_id: delivery.delivery_id, error: result.error }, 'webhook attempt failed')
    const { claimed } = await store.settle(gameId, delivery, {
      status,
      at: now,
      nextAt: status === 'retry' ? now + retryDelay(delivery.attempts, options.retryBaseMs) : undefined,
      httpStatus: result.status,
      error: result.error,
      durationMs: result.durationMs
    }, !stopping ? { claim: randomBytes(9).toString('base64url'), leaseMs: leaseOf(options.timeoutMs), limit: 1 } : undefined)
    return claimed[0]
  }

  /**
   * Claims what the webhook may take now and starts an attempt in each free
   * slot, without waiting for them. Each slot goes on from one delivery to
   * the next while any is due (the call that records an attempt claims the
   * next), so a webhook with a backlog keeps its slots busy instead of
   * waiting for the next round.
   */
  async function send (gameId: string, webhook: StoredWebhook): Promise<void> {
    const slot = `${gameId}\u0000${webhook.webhook_id}`
    const free = Math.min(PER_WEBHOOK_IN_FLIGHT - (inFlightOf.get(slot) ?? 0), options.concurrency - inFlight)
    if (free <= 0 || stopping) return
    const claim = randomBytes(9).toString('base64url')
    const claimed = await store.claim(gameId, webhook.webhook_id, Date.now(), leaseOf(options.timeoutMs), free, claim)
    for (const first of claimed) {
      inFlight++
      inFlightOf.set(slot, (inFlightOf.get(slot) ?? 0) + 1)
      const running: Promise<void> = (async () => {
        for (let delivery: StoredDelivery | undefined = first; delivery !== undefined;) delivery = await attempt(gameId, webhook, delivery)
      })()
        .catch((error: unknown) => { options.log.warn({ err: error, game_id: gameId, webhook_id: webhook.webhook_id }, 'a webhook attempt could not be recorded; it is tried again when its lease ends') })
        .finally(() => {
          inFlight--
          const left = (inFlightOf.get(slot) ?? 1) - 1
          if (left === 0) inFlightOf.delete(slot)
          else inFlightOf.set(slot, left)
          attempts.delete(running)
        })
      attempts.add(running)
    }
  }

  async function serveGame (gameId: string): Promise<void> {
    const webhooks = await store.list(gameId)
    if (webhooks.length === 0) return
    await closePeriods(gameId)
    await fanOut(gameId, webhooks)
    await forgetOldConsumers(gameId)
    await Promise.all(webhooks.map(async webhook => { await send(gameId, webhook) }))
  }

  async function round (): Promise<void> {
    const gameIds = await gamesWithWebhooks()
    await Promise.all(gameIds.map(async gameId => {
      try {
        await serveGame(gameId)
      } catch (error) {
        // Redis away, or a game whose outbox has no group yet: the next round tries again.
        options.log.debug({ err: error, game_id: gameId }, 'webhook round failed for a game')
      }
    }))
  }

  function schedule (): void {
    if (stopping) return
    timer = setTimeout(() => {
      round().catch((error: unknown) => { options.log.debug({ err: error }, 'webhook round failed') }).finally(schedule)
    }, options.pollMs)
    timer.unref()
  }

  return {
    consumer,
    start (): void {
      stopping = false
      schedule()
    },
    /**
     * Stops claiming and waits up to `graceMs` for attempts in flight to end;
     * any still running is tried again by a process when its lease ends.
     */
    async stop (graceMs: number): Promise<void> {
      stopping = true
      clearTimeout(timer)
      if (attempts.size === 0) return
      await Promise.race([Promise.allSettled([...attempts]), new Promise(resolve => setTimeout(resolve, graceMs).unref())])
    },
    /** One round now (tests and the bench: no waiting for the poll). */
    round
  }
}

export type Dispatcher = ReturnType<typeof createDispatcher>
