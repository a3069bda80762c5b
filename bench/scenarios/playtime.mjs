// playtime: a signed-in player reports 30 s of play (POST /api/playtime).
// It does not touch the board.
import { sessionFeed } from '../lib/load.mjs'

export const playtime = {
  name: 'playtime',
  makeFeed: ({ gameId, cookies }) => sessionFeed(cookies, 'POST', '/api/playtime', `game_id=${gameId}&seconds=30`)
}
