// me: a player's best and rank (GET /api/rank?action=me) for random seeded
// players, from a pool of 20,000 paths (2,000 in smoke).
import { rotating } from '../lib/load.mjs'
import { playerName } from '../lib/seed.mjs'
import { randInt } from '../lib/random.mjs'

export const me = {
  name: 'me',
  targets: { p99Flat: true },
  makeFeed ({ board, key, smoke }) {
    const paths = Array.from({ length: smoke ? 2000 : 20_000 }, () =>
      `/api/rank?action=me&api_key=${key.api_key}&game_id=${board.gameId}&player_name=${playerName(randInt(board.size))}`)
    const feed = rotating(paths, (req, path) => { req.path = path })
    return { request: { method: 'GET', path: paths[0], setupRequest: feed.setupRequest }, feed }
  }
}
