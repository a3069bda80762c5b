import type { RedisClient as Redis } from './redis-client.js'
import { fail } from '../errors.js'
import { NO_BOARDS, type Boards } from '../rules/boards.js'
import type { Activity } from './activity.js'
import { createBoardListing } from './board-listing.js'
import type { GameRecord } from '../rules/games.js'
import { createBoardReads } from './board-reads.js'
import { createBoardWrites } from './board-writes.js'
import { createBoardRemovals } from './board-removals.js'
import type { BoardContext } from './board-context.js'

export { LIVE_TOP, REVIEW_DECIDED_KEPT, REVIEW_QUEUE_MAX } from './board-context.js'

export interface LeaderboardOptions {
  /** The game's record read afresh, when a script found the cached one out of date. */
  freshGame: (gameId: string) => Promise<GameRecord | null>
  /** The game's named boards read afresh, when a script found a named board moved (none: no named boards are read). */
  freshBoards?: (gameId: string) => Promise<Boards>
  /** The clock of periods (ms). Given (tests), the scripts take it too, instead of the Redis clock. */
  clock?: () => number
  /** Where submits are counted (store/activity.ts). */
  activity: Pick<Activity, 'count'>
}

/**
 * A game's boards (the default one and its named boards, every season and
 * period): what is read (board-reads.ts), written (board-writes.ts) and
 * removed (board-removals.ts), and the operators' listings (board-listing.ts).
 */
export function createLeaderboard (redis: Redis, { freshGame, freshBoards = async () => NO_BOARDS, clock, activity }: LeaderboardOptions) {
  const context: BoardContext = {
    redis,
    now: clock ?? Date.now,
    clock,
    refreshed: async (gameId: string): Promise<GameRecord> => await freshGame(gameId) ?? fail('invalid_game'),
    freshBoards,
    activity
  }
  const { forgetTops, ...reads } = createBoardReads(context)
  const { forgetScriptChoice, ...writes } = createBoardWrites(context)
  return {
    /** The clock of periods (ms). */
    now: context.now,

    /** Forgets what this process kept of a game whose record changed (its top pages, its choice of submit script), or of every game. */
    gameChanged (gameId?: string): void {
      forgetTops(gameId)
      forgetScriptChoice(gameId)
    },

    ...createBoardListing(redis),
    ...reads,
    ...writes,
    ...createBoardRemovals(context)
  }
}

export type Leaderboard = ReturnType<typeof createLeaderboard>
