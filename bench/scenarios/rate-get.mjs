// rate-get: a signed-in player reads a game's rating (GET /api/rate).
// It does not touch the board.
import { sessionFeed } from '../lib/load.mjs'

export const rateGet = {
  name: 'rate-get',
  makeFeed: ({ gameId, cookies }) => sessionFeed(cookies, 'GET', `/api/rate?game_id=${gameId}`)
}
