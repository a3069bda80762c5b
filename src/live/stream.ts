import type { FastifyReply } from 'fastify'
import type { BoardChoice } from '../rules/fields.js'
import type { Leaderboard } from '../store/leaderboard.js'
import type { BoardItem } from '../../sdk/answers.js'
import type { GameRecord } from '../rules/games.js'
import type { CachedKind } from '../store/cache.js'
import type { ApiError } from '../errors.js'
import { boardFields } from '../store/board-fields.js'

/*
 * One live stream (docs/interface.md#live-boards): the reply it is sent on,
 * the board it shows, and the frames it is sent. The streams.ts fan-out
 * decides when; this is how a frame reaches its client.
 */

/** At most this many frames a second per game (coalesced). */
export const MIN_FRAME_INTERVAL_MS = 250
/**
 * A client that has not read this much of what was sent is too slow: its
 * stream is ended (it reconnects, and gets the board afresh). A frame of the
 * top 100 is about 10 KiB, so a reader that keeps up never comes near it;
 * 300 streams that read nothing hold about 20 MB instead of 300 MB.
 */
export const MAX_UNREAD_BYTES = 65_536

/** A frame: what `top` answers, for the board the stream shows. */
export interface LiveTop {
  total: number
  items: BoardItem[]
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

export interface Stream {
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

/**
 * Queues a message for the stream's client, without waiting for it to be
 * read (one slow reader must not hold up the others, nor the end of its
 * game's streams). A client that has left more than MAX_UNREAD_BYTES
 * unread loses its connection instead: ending the stream politely would
 * queue the end behind what it has not read, and keep all of it in memory.
 */
export function write (stream: Stream, message: { id?: string, event: string, data: string, retry?: number }): boolean {
  if (stream.reply.raw.writableLength > MAX_UNREAD_BYTES) {
    stream.reply.raw.destroy()
    return false
  }
  stream.reply.sse.send(message).catch(() => {})
  return true
}

/** Sends the stream its `top` frame, unless it is the one it got last. */
export async function send (leaderboard: Leaderboard, stream: Stream, game: GameRecord, top: LiveTop, board: Parameters<typeof boardFields>[2]): Promise<void> {
  const data = JSON.stringify({ game_id: game.game_id, total: top.total, items: top.items.slice(0, stream.limit), ...await boardFields(leaderboard, game, board) })
  if (data === stream.lastFrame) return
  stream.lastFrame = data
  const id = String(stream.frames + 1)
  if (write(stream, { id, event: 'top', data, ...(stream.frames === 0 ? { retry: 2000 } : {}) })) stream.frames++
}

/** Ends a stream with an `error` frame carrying the envelope of why (the game is gone, the board no longer kept). */
export function endWith (stream: Stream, error: ApiError): void {
  if (write(stream, { event: 'error', data: JSON.stringify({ ok: false, error: error.code, message: error.message }) })) stream.reply.sse.close()
}
