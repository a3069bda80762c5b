// rate: a signed-in player rates a game (POST /api/rate, 7 half stars): the
// rating's script with its weights (docs/ratings.md). Each user rates again
// and again, so after the first pass it changes nothing but still runs it all.
// It does not touch the board.
import { sessionFeed } from '../lib/load.mjs'

export const rate = {
  name: 'rate',
  makeFeed: ({ gameId, cookies }) => sessionFeed(cookies, 'POST', `/api/rate?game_id=${gameId}`, 'stars=7')
}

// rate, other stars: the same raters, each request other stars than their
// last (7, 6, 7, ... a pass over every rater at a time): every rating
// changes, so every figure is written.
export const rateChanging = {
  name: 'rate, other stars',
  makeFeed: ({ gameId, cookies }) => {
    const { request, feed } = sessionFeed(cookies, 'POST', `/api/rate?game_id=${gameId}`, 'stars=6')
    const setCookie = request.setupRequest
    request.setupRequest = (req) => {
      const pass = Math.floor(feed.sent / cookies.length)
      setCookie(req)
      req.body = `stars=${pass % 2 === 0 ? 6 : 7}`
      return req
    }
    return { request, feed }
  }
}
