// Game Jolt's scores/add (docs/gamejolt.md#scores), beside submit in the same
// rounds: the same score mix on a game of the same players with Game Jolt's
// API on, each a GET signed as Game Jolt's clients sign it (MD5 of the URL
// and the private key), for a guest of Game Jolt's kind (a seeded
// guest's name) with its display text. What it costs beyond our submit:
// the guest-name check and the text kept beside the best.
import { createHash } from 'node:crypto'
import { rotating } from '../lib/load.mjs'
import { guestName, scoreMix } from '../lib/seed.mjs'
import { submit } from './submit.mjs'

export const gamejoltScoresAdd = {
  ...submit,
  name: 'Game Jolt scores/add',
  countsImproved: false,
  targets: {},
  heldToMinimal: false,
  plainNote: 'the same scores through Game Jolt\'s API (a signed GET of scores/add for a guest, with its display text) on a game of the same players',
  okText: '"success":"true"',
  makeFeed ({ board, link }, size) {
    const mix = scoreMix(board, board.size, size)
    const paths = Array.from({ length: size }, (_, k) => {
      const score = String(mix.scores[k])
      // every value is URL-safe as it is (digits, [A-Za-z0-9_])
      const path = `/api/game/v1_2/scores/add/?game_id=${link.gamejolt_game_id}&guest=${guestName(mix.players[k])}&score=${score}%20points&sort=${score}`
      return `${path}&signature=${createHash('md5').update(`http://api.gamejolt.com${path}${link.private_key}`).digest('hex')}`
    })
    const feed = rotating(paths, (req, path) => { req.path = path })
    return {
      request: { method: 'GET', path: paths[0], setupRequest: feed.setupRequest, okText: this.okText },
      commit: () => mix.commit(feed.sent),
      feed
    }
  }
}
