// submit-self: a signed-in player's own score (POST
// /api/rank?action=submit-self with a session cookie). User i is seeded
// player i, so it rotates over the first min(users, board size) sessions,
// with the same mix of improving and not improving scores as submit.
import { FORM, rotating } from '../lib/load.mjs'
import { scoreMix } from '../lib/seed.mjs'

export const submitSelf = {
  name: 'submit-self',
  countsImproved: true,
  targets: { p99Flat: true },
  makeFeed ({ board, cookies }, size) {
    const mix = scoreMix(board, Math.min(cookies.length, board.size), size)
    const pool = Array.from({ length: size }, (_, k) =>
      ({ cookie: cookies[mix.players[k]], body: Buffer.from(`game_id=${board.gameId}&score=${mix.scores[k]}`) }))
    const feed = rotating(pool, (req, item) => { req.headers.cookie = item.cookie; req.body = item.body })
    return {
      request: { method: 'POST', path: '/api/rank?action=submit-self', headers: FORM, setupRequest: feed.setupRequest },
      commit: () => mix.commit(feed.sent),
      feed
    }
  }
}
