import { fail } from '../errors.js'
import { decodeCursor, encodeCursor } from '../lib/cursor.js'
import type { RatingItem, RatingSummary } from '../store/ratings.js'
import { OperationContext } from './context.js'
import { cursors, readInput, schemas } from './input.js'
import type { ListPage } from './answers.js'

/** A game's ratings as its operator sees and acts on them (docs/ratings.md#operators). */
export function ratingsOperations ({ ratings, audit, existingGame, users }: OperationContext) {
  return {
    /**
     * A page of the game's ratings, newest first: who, stars, their play
     * when they rated and now, when; `stars` and `max_playtime_seconds`
     * filter (a page may then hold fewer than `limit`, with a cursor).
     */
    async listRatings (gameId: string, input?: unknown): Promise<ListPage<RatingItem> & { game_id: string }> {
      const query = readInput(schemas.ratings, input ?? {})
      const game = await existingGame(gameId)
      const after = query.cursor === undefined ? null : decodeCursor(cursors.ratings, query.cursor)
      const { items, next } = await ratings.list(game, { after, limit: query.limit ?? 50, stars: query.stars, maxPlay: query.max_playtime_seconds })
      return { game_id: game.game_id, items, next_cursor: next === null ? null : encodeCursor({ k: 'ratings', ...next }) }
    },

    /** Removes a user's rating of the game, every figure following; audited as rating.remove. not_found when they have none. */
    async removeRating (gameId: string, username: string, input?: unknown): Promise<{ game_id: string, username: string, stars: number } & Omit<RatingSummary, 'mine'>> {
      readInput(schemas.none, input)
      const game = await existingGame(gameId)
      // The rater as kept, whatever the letter case the operator typed.
      const rater = await users.nameHolder(username) ?? username
      const { removed, mine: _mine, ...figures } = await ratings.unrate(game, rater)
      if (removed === null) fail('not_found', `${rater} has no rating of this game.`)
      await audit({ action: 'rating.remove', game_id: game.game_id, target: rater, before: { username: rater, stars: removed }, after: null })
      return { game_id: game.game_id, username: rater, stars: removed, ...figures }
    }
  }
}
