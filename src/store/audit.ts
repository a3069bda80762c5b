import { confirmWrites, type RedisClient as Redis } from './redis-client.js'
import { keys } from './keys.js'

/*
 * The audit log (docs/guide.md#the-audit-log): every operator write, over
 * HTTP or the CLI, as one entry in a global Stream and, for a write to a
 * game's records, one in the game's own Stream (in its slot). Stream ids are
 * times, so entries are listed newest first from a cursor, and XADD's MINID
 * forgets what is older than the retention as new entries arrive.
 */

/** Who made a change: a token's name over HTTP, `cli:<OS user>`, or `demo` for the demo data the service makes. */
export interface Actor {
  name: string
  via: 'http' | 'cli' | 'service'
  /** Over HTTP: the request's id, as the access log shows it. */
  request_id?: string
}

/** What a change was: stored as JSON, listed as written. */
export interface AuditChange {
  /** What was done, `<record>.<verb>`: game.update, key.revoke, user.erase… */
  action: string
  /** The game whose records changed; null for users, sessions and changes across games. */
  game_id: string | null
  /** The record changed: an api_key, a username, a webhook_id, a player name; null when it must not be kept (an erased person). */
  target: string | null
  /** The record before and after the change (null when it did not exist), with secrets masked. */
  before: unknown
  after: unknown
}

export interface AuditEntry extends AuditChange {
  audit_id: string
  at: string
  actor: string
  via: Actor['via']
  request_id: string | null
  /** The top-level fields whose values differ between before and after (secrets compared before masking). */
  changed: string[]
}

/** Fields whose values never reach the audit log: they show as MASKED when set. */
const SECRET_FIELDS = new Set(['secret', 'api_secret', 'password', 'password_hash', 'passwordHash', 'session_id', 'private_key', 'game_token'])
export const MASKED = '(masked)'

/** A copy of a record with its secret fields masked (nested records too). */
export function masked (record: unknown): unknown {
  if (Array.isArray(record)) return record.map(masked)
  if (record === null || typeof record !== 'object') return record
  const copy: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(record)) {
    copy[name] = SECRET_FIELDS.has(name) ? (value === undefined || value === null || value === '' ? null : MASKED) : masked(value)
  }
  return copy
}

/** The top-level fields that differ between two records. */
function changedFields (before: unknown, after: unknown): string[] {
  const fields = (record: unknown): Record<string, unknown> => record !== null && typeof record === 'object' && !Array.isArray(record) ? record as Record<string, unknown> : {}
  const a = fields(before)
  const b = fields(after)
  return [...new Set([...Object.keys(a), ...Object.keys(b)])].filter(name => JSON.stringify(a[name]) !== JSON.stringify(b[name])).sort()
}

/** What an audit listing may be narrowed to. */
export interface AuditFilter {
  /** An action, or a record kind ending in a dot (`game.`). */
  action?: string
  actor?: string
}

/** How many entries one listing reads at most while looking for filtered ones; the page then ends early with a cursor. */
const SCAN_BUDGET = 2000
const SCAN_CHUNK = 500

export function createAuditLog (redis: Redis, { retentionMs }: { retentionMs: number }) {
  function entryOf (id: string, fields: string[]): AuditEntry | null {
    const json = fields[fields.indexOf('e') + 1]
    if (json === undefined) return null
    try {
      return { audit_id: id, ...JSON.parse(json) as Omit<AuditEntry, 'audit_id'> }
    } catch {
      return null
    }
  }

  function matches (entry: AuditEntry, filter: AuditFilter): boolean {
    if (filter.actor !== undefined && entry.actor !== filter.actor) return false
    if (filter.action !== undefined && !(filter.action.endsWith('.') ? entry.action.startsWith(filter.action) : entry.action === filter.action)) return false
    return true
  }

  return {
    /** Records a change made by `actor`, in the global log and the game's. */
    async record (actor: Actor, change: AuditChange, secrets: { before?: unknown, after?: unknown } = {}): Promise<void> {
      const now = Date.now()
      const entry: Omit<AuditEntry, 'audit_id'> = {
        at: new Date(now).toISOString(),
        actor: actor.name,
        via: actor.via,
        request_id: actor.request_id ?? null,
        ...change,
        changed: changedFields(secrets.before ?? change.before, secrets.after ?? change.after),
        before: masked(change.before),
        after: masked(change.after)
      }
      const json = JSON.stringify(entry)
      const logs = change.game_id === null ? [keys.audit()] : [keys.audit(), keys.gameAudit(change.game_id)]
      await Promise.all(logs.map(async log => await redis.xadd(log, 'MINID', String(now - retentionMs), '*', 'e', json)))
      await confirmWrites(redis, logs)
    },

    /**
     * Entries newest first, after `cursor` (an audit_id of the page before),
     * narrowed by `filter`. A page ends early (with a cursor) when SCAN_BUDGET
     * entries were read without filling it.
     */
    async list (gameId: string | null, cursor: string | null, limit: number, filter: AuditFilter): Promise<{ items: AuditEntry[], next: string | null }> {
      const log = gameId === null ? keys.audit() : keys.gameAudit(gameId)
      // Nothing comes before the first possible id (and Redis refuses a range that ends before it).
      if (cursor === '0-0') return { items: [], next: null }
      const items: AuditEntry[] = []
      let from = cursor === null ? '+' : `(${cursor}`
      let read = 0
      while (read < SCAN_BUDGET) {
        const count = filter.action === undefined && filter.actor === undefined ? limit - items.length + 1 : SCAN_CHUNK
        const chunk = await redis.xrevrange(log, from, '-', 'COUNT', count)
        read += chunk.length
        for (const [id, fields] of chunk) {
          const entry = entryOf(id, fields)
          if (entry === null || !matches(entry, filter)) { from = `(${id}`; continue }
          if (items.length === limit) return { items, next: items[items.length - 1]?.audit_id ?? null }
          items.push(entry)
          from = `(${id}`
        }
        if (chunk.length < count) return { items, next: null }
      }
      return { items, next: from.slice(1) }
    }
  }
}

export type AuditLog = ReturnType<typeof createAuditLog>
