import type { RedisClient as Redis } from './redis-client.js'
import { TIME_DIGITS, boardScopes, keys } from './keys.js'
import { EVENTS_KEPT, OUTBOX_MAX } from './events.js'
import type { Period } from '../rules/periods.js'
import { defineScript, luaScript } from './script-loader.js'

/*
 * Webhooks and their deliveries, in the game's slot (layout in keys.ts).
 * A delivery is one event for one webhook; it is pending (due at a time,
 * claimed for an attempt under a lease) until it is delivered or dead. The
 * dispatcher (src/webhooks/dispatcher.ts) drives them; operators read and
 * redeliver them through the admin module.
 */

/** Most pending deliveries of one webhook: past it, new ones are dead at once, so a receiver that is down cannot fill Redis. */
export const BACKLOG_MAX = 10_000
/** Finished deliveries (delivered or dead) each webhook keeps for its log. */
export const DONE_KEPT = 1_000

const DELIVERY_LIMITS = { BACKLOG_MAX, DONE_KEPT }
const CREATE = luaScript('webhook-create')
const DELETE = luaScript('webhook-delete')
const ENQUEUE = luaScript('webhook-enqueue', { ...DELIVERY_LIMITS, EVENTS_KEPT })
const OUTBOX_READ = luaScript('outbox-read')
const CLAIM = luaScript('webhook-claim', DELIVERY_LIMITS)
const SETTLE = luaScript('webhook-settle', DELIVERY_LIMITS)
const REDELIVER = luaScript('webhook-redeliver')
const PERIOD_CLOSED = luaScript('period-closed', { TIME_DIGITS, OUTBOX_MAX })
/** How long a period.closed marker is kept: longer than any period, so an ended one is told once. */
const PERIOD_MARKER_S = 40 * 86_400

/** A webhook as stored: with its signing secret, which operators see once. */
export interface StoredWebhook {
  webhook_id: string
  url: string
  /** Event types, or ['*'] for every type. */
  events: string[]
  description: string | null
  created_at: string
  secret: string
}

/** How a webhook's receiver answers, as the attempts' ends recorded it (ms); none before its first attempt ends. */
export interface StoredWebhookHealth {
  /** The first failed attempt since the last delivered one; absent while the last attempt delivered. */
  failing_since?: number
  last_attempt_at: number
  last_status: number | null
  last_error: string | null
}

export type DeliveryStatus = 'pending' | 'delivered' | 'dead'

/** A delivery as stored (times in ms); `body` is the exact text signed and sent. */
export interface StoredDelivery {
  delivery_id: string
  webhook_id: string
  /** The `webhook-id` header: the same on every attempt, so receivers can drop duplicates. */
  message_id: string
  type: string
  body: string
  status: DeliveryStatus
  attempts: number
  created_at: number
  first_attempt_at?: number
  last_attempt_at?: number
  next_attempt_at?: number
  finished_at?: number
  last_status?: number
  last_error?: string
  last_duration_ms?: number
  /** Who holds the current attempt. */
  claim?: string
}

/** An outbox entry as Redis gives it: its id, and its fields as names and values. */
export type OutboxEntry = [id: string, fields: string[]]

/** A delivery to make: which webhook (by id), its message id, type and body. */
export interface NewDelivery {
  /** The outbox entry the event came from: it is made only by the call that acknowledges that entry. None for a test event. */
  entryId?: string
  webhookId: string
  messageId: string
  type: string
  body: string
}

/** A delivery's record as the scripts store it (JSON). */
const deliveryOf = (text: string): StoredDelivery => JSON.parse(text) as StoredDelivery

function webhookOf (id: string, text: string): StoredWebhook {
  return { webhook_id: id, ...JSON.parse(text) as Omit<StoredWebhook, 'webhook_id'> }
}

export function createWebhookStore (redis: Redis) {
  const createScript = defineScript<number>(redis, 'rankWebhookCreate', CREATE, { writes: true })
  const deleteScript = defineScript<number>(redis, 'rankWebhookDelete', DELETE, { writes: true })
  const outboxReadScript = defineScript<[OutboxEntry[], number]>(redis, 'rankOutboxRead', OUTBOX_READ, { writes: true })
  const enqueueScript = defineScript<[string[], number]>(redis, 'rankWebhookEnqueue', ENQUEUE, { writes: true })
  const claimScript = defineScript<string[]>(redis, 'rankWebhookClaim', CLAIM, { writes: true })
  const settleScript = defineScript<[number, string[]]>(redis, 'rankWebhookSettle', SETTLE, { writes: true })
  const redeliverScript = defineScript<string | string[]>(redis, 'rankWebhookRedeliver', REDELIVER, { writes: true })
  const periodClosedScript = defineScript<number>(redis, 'rankPeriodClosed', PERIOD_CLOSED, { writes: true })
  const deliveryKeys = (gameId: string, webhookId: string): string[] => [keys.deliveriesDue(gameId, webhookId), keys.deliveries(gameId), keys.deliveriesDone(gameId, webhookId)]

  return {
    /** Adds the webhook; false when the game does not exist. The game joins the dispatchers' list. */
    async create (gameId: string, { webhook_id: id, ...webhook }: StoredWebhook): Promise<boolean> {
      const created = await createScript([keys.game(gameId), keys.webhooks(gameId), keys.events(gameId)], [id, JSON.stringify(webhook)]) === 1
      if (created) await redis.sadd(keys.webhookGames(), gameId)
      return created
    },

    /** The game's webhooks, oldest first. */
    async list (gameId: string): Promise<StoredWebhook[]> {
      const all = await redis.hgetall(keys.webhooks(gameId))
      return Object.entries(all).map(([id, text]) => webhookOf(id, text)).sort((a, b) => a.created_at.localeCompare(b.created_at) || a.webhook_id.localeCompare(b.webhook_id))
    },

    /** The health of each webhook named, in order: null for one whose attempts have not ended yet. */
    async health (gameId: string, webhookIds: string[]): Promise<Array<StoredWebhookHealth | null>> {
      if (webhookIds.length === 0) return []
      const texts = await redis.hmget(keys.webhookHealth(gameId), ...webhookIds)
      return texts.map(text => text === null ? null : JSON.parse(text) as StoredWebhookHealth)
    },

    async get (gameId: string, webhookId: string): Promise<StoredWebhook | null> {
      const text = await redis.hget(keys.webhooks(gameId), webhookId)
      return text === null ? null : webhookOf(webhookId, text)
    },

    /** Removes the webhook and its deliveries; false when there is none. A game left without webhooks leaves the dispatchers' list. */
    async delete (gameId: string, webhookId: string): Promise<boolean> {
      const deleted = await deleteScript([
        keys.game(gameId), keys.webhooks(gameId), keys.deliveries(gameId), keys.deliveriesDue(gameId, webhookId), keys.deliveriesDone(gameId, webhookId), keys.webhookHealth(gameId)
      ], [webhookId]) === 1
      if (deleted && await redis.hlen(keys.webhooks(gameId)) === 0) await redis.srem(keys.webhookGames(), gameId)
      return deleted
    },

    /** Writes period.closed for an ended period once, across processes; true when this call wrote it. */
    async periodClosed (gameId: string, period: Period): Promise<boolean> {
      const scope = boardScopes.period(period.kind, period.id)
      return await periodClosedScript(
        [keys.game(gameId), keys.periodClosed(gameId, period.kind, period.id), keys.board(gameId, scope), keys.events(gameId)],
        [period.kind, period.id, new Date(period.startsAt).toISOString(), new Date(period.resetsAt).toISOString(), PERIOD_MARKER_S]
      ) === 1
    },

    /** The games that have webhooks. */
    async games (): Promise<string[]> {
      return await redis.smembers(keys.webhookGames())
    },

    /**
     * Up to `count` new outbox entries for `consumer` of the group
     * `webhooks`, and how many events the outbox could not take (it was
     * full) since a dispatcher last reported them: each is reported once.
     */
    async readOutbox (gameId: string, consumer: string, count: number): Promise<{ entries: OutboxEntry[], dropped: number }> {
      const [entries, dropped] = await outboxReadScript([keys.events(gameId), keys.game(gameId)], [consumer, count])
      return { entries, dropped }
    },

    /**
     * Makes the deliveries and acknowledges the outbox entries they came
     * from (`acks`, which holds each delivery's entryId), in one script
     * call; an entry another call acknowledged first (two dispatchers that
     * read it, one having stalled past the claim's idle time) and a webhook
     * deleted meanwhile get none. Then trims the outbox to about EVENTS_KEPT entries, never one
     * the group has not read and acknowledged. Returns the ids of the
     * deliveries made, and how many of them were dead at once (their
     * webhook had BACKLOG_MAX pending).
     */
    async enqueue (gameId: string, now: number, acks: string[], deliveries: NewDelivery[]): Promise<{ made: string[], backlogFull: number }> {
      const webhookIds = [...new Set(deliveries.map(delivery => delivery.webhookId))]
      const index = new Map(webhookIds.map((id, i) => [id, i + 1]))
      const entryIndex = new Map(acks.map((id, i) => [id, i + 1]))
      const [made, backlogFull] = await enqueueScript(
        [keys.webhooks(gameId), keys.deliveries(gameId), keys.deliverySequence(gameId), keys.events(gameId),
          ...webhookIds.flatMap(id => [keys.deliveriesDue(gameId, id), keys.deliveriesDone(gameId, id)])],
        [now, acks.length, ...acks, webhookIds.length, ...webhookIds,
          ...deliveries.flatMap(delivery => [delivery.entryId === undefined ? 0 : entryIndex.get(delivery.entryId) ?? -1, index.get(delivery.webhookId) as number, delivery.messageId, delivery.type, delivery.body])]
      )
      return { made, backlogFull }
    },

    /** Up to `limit` of the webhook's due deliveries, claimed for one attempt each under a lease. */
    async claim (gameId: string, webhookId: string, now: number, leaseMs: number, limit: number, claim: string): Promise<StoredDelivery[]> {
      const claimed = await claimScript([keys.deliveriesDue(gameId, webhookId), keys.deliveries(gameId)], [now, leaseMs, limit, claim])
      return claimed.map(deliveryOf)
    },

    /**
     * Records an attempt's end (`recorded` false when a later claim owns the
     * delivery now) and, with `next`, claims up to `next.limit` due
     * deliveries of the same webhook in the same call, as claim() does.
     */
    async settle (gameId: string, delivery: StoredDelivery, outcome: { status: 'delivered' | 'retry' | 'dead', at: number, nextAt?: number, httpStatus?: number, error?: string, durationMs: number }, next?: { claim: string, leaseMs: number, limit: number }): Promise<{ recorded: boolean, claimed: StoredDelivery[] }> {
      const [recorded, claimed] = await settleScript([...deliveryKeys(gameId, delivery.webhook_id), keys.webhookHealth(gameId)], [
        delivery.delivery_id, delivery.claim ?? '', outcome.status, outcome.at, outcome.nextAt ?? '', outcome.httpStatus ?? '', outcome.error ?? '', Math.round(outcome.durationMs),
        next?.claim ?? '', next?.leaseMs ?? 0, next?.limit ?? 0
      ])
      return { recorded: recorded === 1, claimed: claimed.map(deliveryOf) }
    },

    async delivery (gameId: string, deliveryId: string): Promise<StoredDelivery | null> {
      const text = await redis.hget(keys.deliveries(gameId), deliveryId)
      return text === null ? null : deliveryOf(text)
    },

    /** Makes a finished delivery pending again, now; 'pending' when it is already, null when there is no such delivery of the webhook. */
    async redeliver (gameId: string, webhookId: string, deliveryId: string, now: number): Promise<StoredDelivery | 'pending' | null> {
      const reply = await redeliverScript(deliveryKeys(gameId, webhookId), [deliveryId, now])
      if (Array.isArray(reply)) return reply[0] === 'pending' ? 'pending' : null
      return deliveryOf(reply)
    },

    /** One page of a webhook's deliveries: pending ones by when due, or finished ones newest first, with how many there are. */
    async deliveries (gameId: string, webhookId: string, which: 'pending' | 'done', offset: number, limit: number): Promise<{ total: number, items: StoredDelivery[] }> {
      const list = which === 'pending' ? keys.deliveriesDue(gameId, webhookId) : keys.deliveriesDone(gameId, webhookId)
      const [total, ids] = await Promise.all([
        redis.zcard(list),
        which === 'pending' ? redis.zrange(list, offset, offset + limit - 1) : redis.zrange(list, offset, offset + limit - 1, 'REV')
      ])
      if (ids.length === 0) return { total, items: [] }
      const texts = await redis.hmget(keys.deliveries(gameId), ...ids)
      return { total, items: texts.filter((text): text is string => text !== null).map(deliveryOf) }
    }
  }
}

export type WebhookStore = ReturnType<typeof createWebhookStore>
