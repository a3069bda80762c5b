import type { HeldScore, ReviewList } from '../store/review.js'
import { OperationContext } from './context.js'
import { readInput, schemas } from './input.js'

/** Scores held for review: the queue, approving, rejecting. */

export function reviewOperations ({ records, review, leaderboard, audit, notPending, pendingHeld, existingGame }: OperationContext) {
  return {
    /** The game's held scores: pending ones oldest first, or decided ones newest first. */
    async reviewList (gameId: string, input?: unknown): Promise<{ game_id: string, status: ReviewList, total: number, items: HeldScore[] }> {
      const query = readInput(schemas.reviewList, input)
      const game = await existingGame(gameId)
      const status = query.status ?? 'pending'
      return { game_id: game.game_id, status, ...await review.list(game.game_id, status, query.offset ?? 0, query.limit ?? 50) }
    },

    /**
   * Puts a held score on the boards as of the moment it was submitted (so
   * ties go to whoever was first) and records the decision; the answer is
   * the decided record and the player's standing on the all-time board.
   */
    async approveHeld (gameId: string, heldId: string, input?: unknown): Promise<{ held: HeldScore, improved: boolean, best_score: number | null, rank: number | null }> {
      const body = readInput(schemas.approveHeld, input)
      const game = await existingGame(gameId)
      const held = await pendingHeld(game.game_id, heldId)
      const result = await leaderboard.approveHeld(game, {
        id: held.held_id, player: held.player_name, score: held.score, meta: held.meta ?? undefined, submittedAt: Date.parse(held.submitted_at), season: held.season_id, boardId: held.board_id
      }, body.note ?? '')
      const decided = await review.held(game.game_id, heldId) as HeldScore
      await audit({ action: 'review.approve', game_id: game.game_id, target: heldId, before: held, after: decided })
      return { held: decided, improved: result.improved, best_score: result.bestScore, rank: result.rank }
    },

    /** Records that a held score stays off the boards; `hide` also hides the player on every board of the game. */
    async rejectHeld (gameId: string, heldId: string, input?: unknown): Promise<HeldScore> {
      const body = readInput(schemas.rejectHeld, input)
      const game = await existingGame(gameId)
      const before = await review.held(game.game_id, heldId)
      const rejected = await review.reject(game.game_id, heldId, body.note ?? '')
      if ('decided' in rejected) return notPending(rejected.decided)
      if (body.hide === true) await leaderboard.setVisibility(game, rejected.player_name, { boardHidden: true })
      await audit({ action: 'review.reject', game_id: game.game_id, target: heldId, before, after: { ...rejected, player_hidden: body.hide === true } })
      return rejected
    }
  }
}
