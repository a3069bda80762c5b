import { type RefusedLine } from './import-export.js'
import { type KeyRecord } from '../rules/games.js'
import { publicUser, type StoredUser } from '../store/users.js'
import { MASKED, type AuditChange } from '../store/audit.js'
import { type StoredDelivery, type StoredWebhook, type StoredWebhookHealth } from '../store/webhooks.js'

/** What the operations answer: records without their secrets, pages, and the shapes of export, import and erasure. */

/** A webhook as operators see it: never its secret (shown once, when it is made). */
export type PublicWebhook = Omit<StoredWebhook, 'secret'>

export function publicWebhook ({ secret: _secret, ...webhook }: StoredWebhook): PublicWebhook {
  return webhook
}

/** How a webhook's receiver answers, times in ISO: every field null before its first attempt ends. */
export interface PublicWebhookHealth {
  failing_since: string | null
  last_attempt_at: string | null
  last_status: number | null
  last_error: string | null
}

/** A webhook with its health, as the webhook reads answer it. */
export function healthyWebhook (webhook: StoredWebhook, health: StoredWebhookHealth | null): PublicWebhook & { health: PublicWebhookHealth } {
  const iso = (ms: number | undefined): string | null => ms === undefined ? null : new Date(ms).toISOString()
  return {
    ...publicWebhook(webhook),
    health: {
      failing_since: iso(health?.failing_since),
      last_attempt_at: iso(health?.last_attempt_at),
      last_status: health?.last_status ?? null,
      last_error: health?.last_error ?? null
    }
  }
}

/** A delivery as operators see it: times in ISO, the payload as sent. */
export interface PublicDelivery {
  delivery_id: string
  webhook_id: string
  message_id: string
  type: string
  status: StoredDelivery['status']
  attempts: number
  created_at: string
  last_attempt_at: string | null
  next_attempt_at: string | null
  finished_at: string | null
  last_status: number | null
  last_error: string | null
  last_duration_ms: number | null
  payload: unknown
}

export function publicDelivery (delivery: StoredDelivery): PublicDelivery {
  const iso = (ms: number | undefined): string | null => ms === undefined ? null : new Date(ms).toISOString()
  return {
    delivery_id: delivery.delivery_id,
    webhook_id: delivery.webhook_id,
    message_id: delivery.message_id,
    type: delivery.type,
    status: delivery.status,
    attempts: delivery.attempts,
    created_at: iso(delivery.created_at) as string,
    last_attempt_at: iso(delivery.last_attempt_at),
    next_attempt_at: delivery.status === 'pending' ? iso(delivery.next_attempt_at) : null,
    finished_at: iso(delivery.finished_at),
    last_status: delivery.last_status ?? null,
    last_error: delivery.last_error ?? null,
    last_duration_ms: delivery.last_duration_ms ?? null,
    payload: JSON.parse(delivery.body)
  }
}

/** What a webhook id looks like. */
export const WEBHOOK_ID_PATTERN = /^wh_[0-9a-f]{24}$/

/** An API key as operators see it: never the secret; `rate_limit` only when the key has its own (v1 answers stay as they were). */
export type PublicKey = Omit<KeyRecord, 'secret' | 'rate_limit'> & { rate_limit?: number }

/** The key record as operators may see it after creation. */
export function publicKey ({ secret: _secret, rate_limit: rateLimit, ...key }: KeyRecord): PublicKey {
  return rateLimit === null ? key : { ...key, rate_limit: rateLimit }
}

/** A file an operator downloads (a board's export, the unlocks), ready to send: its body is read as it is sent. */
export interface BoardExport {
  contentType: string
  filename: string
  body: AsyncGenerator<string>
}

/** What an import did, line by line counted. */
export interface ImportReport {
  game_id: string
  /** A named board's import names it. */
  board?: string
  season_id: number
  /** Lines read (blank lines left out). */
  lines: number
  /** New players. */
  imported: number
  /** Players whose stored best the line beat (or equalled, earlier). */
  improved: number
  /** Lines no better than what is stored (an import sent again). */
  unchanged: number
  refused: number
  /** The first IMPORT_ERRORS_LISTED lines refused, with why. */
  errors: RefusedLine[]
}

/** Entries an export reads per page. */
export const EXPORT_PAGE = 1000
/** Import lines per script call. */
export const IMPORT_BATCH = 500
export const IMPORT_ERRORS_LISTED = 100

/** What an erasure removed, summed over every game. */
export interface ErasureCounts {
  /** Games that held something of the person's. */
  games: number
  /** Board entries (one per season or period board that held one). */
  entries: number
  metas: number
  /** Held scores, pending or decided. */
  held: number
  /** Achievements unlocked (docs/decisions/0071-achievements-settings-in-the-games-slot-unlocks-in.md). */
  achievements: number
}

/** A page of a listing: its items, and the cursor of the next page (null after the last). */
export interface ListPage<T> {
  items: T[]
  next_cursor: string | null
}

/** How many ids a filtered listing reads at most for one page: a rare filter then ends the page early, with a cursor. */
const FILTER_BUDGET = 2000
const FILTER_CHUNK = 100

/**
 * A page of records listed by id: ids in order from `list`, their records
 * from `read` (null: gone since), those `keep` takes, up to `limit`. `next`
 * is the last id the page looked at when more may follow.
 */
export async function namePage<T> (list: (after: string, count: number) => Promise<string[]>, read: (ids: string[]) => Promise<Array<T | null>>, keep: (record: T) => boolean, after: string, limit: number, filtered: boolean): Promise<{ items: T[], next: string | null }> {
  const items: T[] = []
  let position = after
  let looked = 0
  for (;;) {
    const chunk = filtered ? FILTER_CHUNK : limit + 1 - items.length
    const ids = await list(position, chunk)
    const records = await read(ids)
    for (const [i, id] of ids.entries()) {
      const record = records[i]
      if (record !== null && record !== undefined && keep(record)) {
        if (items.length === limit) return { items, next: position }
        items.push(record)
      }
      position = id
    }
    looked += ids.length
    if (ids.length < chunk) return { items, next: null }
    if (looked >= FILTER_BUDGET) return { items, next: position }
  }
}

/** Records one change in the audit log, for the operations' actor. */
export type Auditor = (change: AuditChange, unmasked?: { before?: unknown, after?: unknown }) => Promise<void>

/**
 * A user as the audit log keeps them: the public record and whether a
 * password is set, masked; `unmasked`, the hash itself, so the audit's list
 * of changed fields notices a new password (the hash never leaves the module).
 */
export function auditedUser (user: StoredUser, unmasked = false): Record<string, unknown> {
  return { ...publicUser(user), password: unmasked ? user.passwordHash ?? null : user.passwordHash === undefined ? null : MASKED }
}
