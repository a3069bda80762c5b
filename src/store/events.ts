import type { RedisClient as Redis } from './redis-client.js'
import { keys } from './keys.js'

/*
 * A game's outbox: every change that matters, written by the script that
 * makes the change, in the same step (src/store/lua/includes/events.lua),
 * to a Redis Stream in the game's slot, while the game has webhooks. The
 * webhook dispatcher (src/webhooks/dispatcher.ts) reads it with a consumer group.
 */

/**
 * About how many events a game's outbox keeps once the dispatchers have
 * read them (for `GET /admin/games/:id/events`): the dispatcher trims the
 * older ones, never one its consumer group has not read and acknowledged.
 */
export const EVENTS_KEPT = 10_000
/**
 * The most entries a game's outbox holds, met only when no dispatcher reads
 * it (every process runs with WEBHOOK_DISPATCH=false, or none runs while the
 * game's events go on): an event that finds it full is not written but
 * counted (the game's record, events_dropped), and the next dispatcher to
 * read reports it (log and metric). So Redis never fills with events, and
 * what the outbox holds goes out in order, with no hole in the middle.
 */
export const OUTBOX_MAX = 100_000

/** The events a webhook can subscribe to (docs/interface.md#events). */
export const EVENT_TYPES = [
  'score.best', 'board.first', 'board.overtaken',
  'score.held', 'score.approved', 'score.rejected',
  'period.closed', 'season.closed',
  'player.hidden', 'player.shown',
  'rating.changed',
  'achievement.unlocked'
] as const

export type EventType = typeof EVENT_TYPES[number]

/** The event a webhook's test sends: to that webhook only, never through the outbox. */
export const TEST_EVENT = 'webhook.test'

/** An event as webhooks deliver it and operators read it. */
export interface GameEvent {
  /** The stream entry's id: its first part is when it happened (ms). */
  event_id: string
  type: string
  timestamp: string
  data: Record<string, unknown>
}

/** The scripts write scores as digits, so no score loses precision on the way: these keys are numbers again. */
const SCORE_KEYS = new Set(['score', 'previous_best'])

function withScores (value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withScores)
  if (value === null || typeof value !== 'object') return value
  const object: Record<string, unknown> = {}
  for (const [key, inner] of Object.entries(value)) object[key] = SCORE_KEYS.has(key) && typeof inner === 'string' ? Number(inner) : withScores(inner)
  return object
}

/** An outbox entry (its id and fields) as an event of game `gameId`. */
export function eventOf (gameId: string, id: string, fields: string[]): GameEvent {
  const values: Record<string, string> = {}
  for (let i = 0; i + 1 < fields.length; i += 2) values[fields[i] as string] = fields[i + 1] as string
  const data = withScores(JSON.parse(values.data ?? '{}')) as Record<string, unknown>
  return { event_id: id, type: values.type ?? '', timestamp: new Date(Number(id.split('-')[0])).toISOString(), data: { game_id: gameId, ...data } }
}

export function createEvents (redis: Redis) {
  return {
    /** The newest `count` events of the game's outbox, newest first, and how many events it could not take, ever (it was full). */
    async recent (gameId: string, count: number): Promise<{ items: GameEvent[], dropped: number }> {
      const [entries, dropped] = await Promise.all([
        redis.xrevrange(keys.events(gameId), '+', '-', 'COUNT', count),
        redis.hget(keys.game(gameId), 'events_dropped')
      ])
      return { items: entries.map(([id, fields]) => eventOf(gameId, id, fields)), dropped: Number(dropped ?? 0) }
    }
  }
}

export type Events = ReturnType<typeof createEvents>
