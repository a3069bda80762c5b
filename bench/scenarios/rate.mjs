// rate: a signed-in player rates a game (POST /api/rate, 7 half stars): the
// rating's script with its weights (docs/ratings.md). Each user rates again
// and again, so after the first pass it changes nothing but still runs it all.
// It does not touch the board.
import { sessionFeed } from '../lib/load.mjs'

export const rate = {
  name: 'rate',
  makeFeed: ({ gameId, cookies }) => sessionFeed(cookies, 'POST', `/api/rate?game_id=${gameId}`, 'stars=7')
}
