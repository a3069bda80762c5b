import { fail } from '../errors.js'
import { decodeCursor, encodeCursor } from '../lib/cursor.js'
import type { RatingItem, RatingSummary, RatingsAfter } from '../store/ratings.js'
import { OperationContext } from './context.js'
import { cursors, readInput, schemas } from './input.js'
import type { BoardExport, ListPage } from './answers.js'
import { RATING_COLUMNS, exportHeader, ratingLines } from './import-export.js'

/** Ratings read per page of an export. */
const EXPORT_PAGE = 200

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

    /**
     * Every rating of the game (or those `stars` and `max_playtime_seconds`
     * keep) as a file, newest first, with the listing's columns: streamed
     * a page at a time as it is read.
     */
    async exportRatings (gameId: string, input?: unknown): Promise<BoardExport> {
      const query = readInput(schemas.exportRatings, input ?? {})
      const game = await existingGame(gameId)
      const format = query.format ?? 'ndjson'
      async function * body (): AsyncGenerator<string> {
        yield exportHeader(format, RATING_COLUMNS)
        let after: RatingsAfter | null = null
        do {
          const { items, next } = await ratings.list(game, { after, limit: EXPORT_PAGE, stars: query.stars, maxPlay: query.max_playtime_seconds })
          yield ratingLines(format, items)
          after = next
        } while (after !== null)
      }
      return {
        contentType: format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8',
        filename: `${game.game_id}-ratings.${format}`,
        body: body()
      }
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
