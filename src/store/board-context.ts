import type { RedisClient as Redis } from './redis-client.js'
import type { Activity } from './activity.js'
import type { Boards } from '../rules/boards.js'
import type { GameRecord } from '../rules/games.js'

/*
 * What the parts of a leaderboard share (store/leaderboard.ts): the board
 * reads, the writes and the removals each take this context.
 */

/** The most entries a live board shows: a change below it tells no live board. */
export const LIVE_TOP = 100

/** Most scores a game holds for review at once; a score to hold past it is quota_exceeded. */
export const REVIEW_QUEUE_MAX = 10_000
/** The largest total a `sum` board keeps (2^53 - 1): a submit past it is refused, a guest's claim clamps to it. */
export const MAX_TOTAL = Number.MAX_SAFE_INTEGER
/** How many decided held scores a game remembers (the oldest are forgotten). */
export const REVIEW_DECIDED_KEPT = 10_000

/** How many times a call is chosen (untilSettled) before a game whose settings keep moving is given up. */
const ATTEMPTS = 3
/** About how many keys a call that walks named boards sends at most (one board with more is sent alone). */
export const KEYS_PER_CALL = 2000
/** A board script's answer when the game's or the board's settings moved since the call was chosen (lua/includes/board-prelude.lua). */
export const MOVED = 'moved'

/** What a call made by untilSettled answers to be made again, once it has read afresh what moved. */
export const AGAIN = Symbol('again')

/**
 * A board script's call, made again while what it was chosen by moves
 * under it (the game's order or season, a named board's settings, or the
 * periods of the Redis clock): `call` chooses its keys each time from what
 * it knows, and answers AGAIN once it has read afresh what moved. The one
 * retry rule of the board reads and writes: at most ATTEMPTS calls.
 */
export async function untilSettled<T> (gameId: string, call: () => Promise<T | typeof AGAIN>): Promise<T> {
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const result = await call()
    if (result !== AGAIN) return result
  }
  throw new Error(`the settings of game ${gameId} kept changing`)
}

export interface BoardContext {
  redis: Redis
  /** The clock of periods (ms). */
  now: () => number
  /** The clock the scripts take too (tests); none: they read the Redis clock. */
  clock: (() => number) | undefined
  /** The game's record read afresh (invalid_game when it is gone), when a script found the cached one out of date. */
  refreshed: (gameId: string) => Promise<GameRecord>
  /** The game's named boards read afresh. */
  freshBoards: (gameId: string) => Promise<Boards>
  /** Where submits are counted (store/activity.ts). */
  activity: Pick<Activity, 'count'>
}
