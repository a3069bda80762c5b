import type { RedisClient as Redis } from './redis-client.js'
import { keys, reviewKeys } from './keys.js'
import { defineScript, luaScript } from './script-loader.js'
import { REVIEW_DECIDED_KEPT } from './leaderboard.js'
import { TIME_DIGITS } from './keys.js'
import { OUTBOX_MAX } from './events.js'

/** Why a score was held: the game's review rule it met (docs/interface.md#fair-play). */
export type ReviewRule = 'review_above' | 'review_below' | 'review_factor' | 'run_short' | 'run_rate'

/** pending until an operator decides; superseded when the player's better score was held instead. */
export type HeldStatus = 'pending' | 'approved' | 'rejected' | 'superseded'

/** A score held for review, as operators see it. */
export interface HeldScore {
  held_id: string
  player_name: string
  score: number
  meta: string | null
  /** When it was submitted: approved, it takes this time on the boards. */
  submitted_at: string
  season_id: number
  /** The named board it was submitted to and lands on when approved; null for the game's own board. */
  board_id: string | null
  rule: ReviewRule
  /** How many submitted scores it is: more than 1 only on a sum board, where the scores held while one waits add up into one. */
  parts: number
  status: HeldStatus
  decided_at: string | null
  note: string | null
  /** A score from a run (docs/interface.md#runs): the run, and its verified play when the score came. */
  run: HeldRun | null
}

/** A held score's run: its verified play when the score came, when it began, and when its play was reported. */
export interface HeldRun {
  run_id: string
  verified_seconds: number
  started_at: string | null
  /** How many reports credited the run. */
  reports: number
  /** The last RUN_TIMELINE (20) of them, oldest first: when each ended and what it credited. */
  timeline: Array<{ at: string, credited_seconds: number }>
}

/** The run of a stored held record (submit.lua: run_id, run_verified_seconds, run_started ms, run_reports, run_timeline "at:seconds …"). */
function heldRunOf (record: Record<string, string | number | undefined>): HeldRun | null {
  if (record.run_id === undefined) return null
  const started = record.run_started === undefined ? undefined : Number(record.run_started)
  const timeline = String(record.run_timeline ?? '').split(' ').filter(item => item !== '').map(item => {
    const [at, credited] = item.split(':').map(Number) as [number, number]
    return { at: new Date((started ?? 0) + at * 1000).toISOString(), credited_seconds: credited }
  })
  return {
    run_id: String(record.run_id),
    verified_seconds: Number(record.run_verified_seconds ?? 0),
    started_at: started === undefined ? null : new Date(started).toISOString(),
    reports: Number(record.run_reports ?? 0),
    timeline: started === undefined ? [] : timeline
  }
}

/** Which part of the queue a listing reads: pending (oldest first) or decided (newest first). */
export type ReviewList = 'pending' | 'decided'

/** What a held id looks like (the game's sequence number). */
export const HELD_ID_PATTERN = /^[1-9][0-9]{0,14}$/

const REJECT = luaScript('review-reject', { REVIEW_DECIDED_KEPT, TIME_DIGITS, OUTBOX_MAX })

const iso = (ms: string | undefined): string | null => ms === undefined ? null : new Date(Number(ms)).toISOString()

/** The stored JSON of a held score (written by submit.lua), as operators see it. */
function heldFrom (id: string, text: string | null): HeldScore | null {
  if (text === null) return null
  const record = JSON.parse(text) as Record<string, string | undefined>
  return {
    held_id: id,
    player_name: record.player_name ?? '',
    score: Number(record.score),
    meta: record.meta ?? null,
    submitted_at: iso(record.submitted_at) as string,
    season_id: Number(record.season === '' || record.season === undefined ? 1 : record.season),
    board_id: record.board_id ?? null,
    rule: record.rule as ReviewRule,
    parts: Number(record.parts ?? 1),
    status: record.status as HeldStatus,
    decided_at: iso(record.decided_at),
    note: record.note ?? null,
    run: heldRunOf(record)
  }
}

/**
 * The review queue of held scores (fair play), in the game's slot: the
 * submit script holds a score and approves one (store/board-writes.ts), this
 * module lists them and rejects.
 */
export function createReviewQueue (redis: Redis) {
  const rejectScript = defineScript<string | ['decided', string]>(redis, 'rankReviewReject', REJECT, { writes: true })

  return {
    /** One page of the pending scores (oldest first) or of the decided ones (newest first), with how many there are. */
    async list (gameId: string, which: ReviewList, offset: number, limit: number): Promise<{ total: number, items: HeldScore[] }> {
      const list = which === 'pending' ? keys.reviewPending(gameId) : keys.reviewDecided(gameId)
      const [total, ids] = await Promise.all([
        redis.zcard(list),
        which === 'pending' ? redis.zrange(list, offset, offset + limit - 1) : redis.zrange(list, offset, offset + limit - 1, 'REV')
      ])
      if (ids.length === 0) return { total, items: [] }
      const texts = await redis.hmget(keys.review(gameId), ...ids)
      const items = ids.map((id, i) => heldFrom(id, texts[i] ?? null)).filter((held): held is HeldScore => held !== null)
      return { total, items }
    },

    /** How many held scores wait on a named board (review-players fields are `name\nboard` there: include/pending-field.lua). */
    async pendingOnBoard (gameId: string, boardId: string): Promise<number> {
      let count = 0
      // Board ids hold no glob characters (rules/boards.ts BOARD_ID_PATTERN), so the pattern matches exactly those fields.
      for await (const fields of redis.hscanStream(keys.reviewPlayers(gameId), { match: `*\n${boardId}`, count: 500 })) count += (fields as string[]).length / 2
      return count
    },

    async held (gameId: string, heldId: string): Promise<HeldScore | null> {
      if (!HELD_ID_PATTERN.test(heldId)) return null
      return heldFrom(heldId, await redis.hget(keys.review(gameId), heldId))
    },

    /** Rejects a pending held score; its status otherwise ('unknown' when there is none). */
    async reject (gameId: string, heldId: string, note: string): Promise<HeldScore | { decided: string }> {
      if (!HELD_ID_PATTERN.test(heldId)) return { decided: 'unknown' }
      const reply = await rejectScript([...reviewKeys(gameId), keys.game(gameId), keys.events(gameId)], [heldId, note])
      return Array.isArray(reply) ? { decided: reply[1] } : heldFrom(heldId, reply) as HeldScore
    }
  }
}

export type ReviewQueue = ReturnType<typeof createReviewQueue>
