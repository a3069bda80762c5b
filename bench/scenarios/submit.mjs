// submit: signed score submission (POST /api/rank?action=submit), from a
// pool of pre-signed bodies (fresh ts) for random seeded players; about half
// raise the player's best by 1..1000, the others are at or below it.
import { computeSignature } from '../lib/compiled.mjs'
import { FORM, rotating } from '../lib/load.mjs'
import { playerName, scoreMix } from '../lib/seed.mjs'

export const submit = {
  name: 'submit',
  countsImproved: true,
  targets: { p99Flat: true },
  makeFeed ({ board, key }, size) {
    const ts = String(Math.floor(Date.now() / 1000))
    const mix = scoreMix(board, board.size, size)
    const bodies = Array.from({ length: size }, (_, k) => {
      const fields = { api_key: key.api_key, game_id: board.gameId, player_name: playerName(mix.players[k]), score: String(mix.scores[k]), ts }
      // every value is URL-safe as it is (hex, digits, [A-Za-z0-9_])
      return Buffer.from(`api_key=${fields.api_key}&game_id=${fields.game_id}&player_name=${fields.player_name}&score=${fields.score}&ts=${ts}&sign=${computeSignature(key.api_secret, fields)}`)
    })
    const feed = rotating(bodies, (req, body) => { req.body = body })
    return {
      request: { method: 'POST', path: '/api/rank?action=submit', headers: FORM, setupRequest: feed.setupRequest },
      commit: () => mix.commit(feed.sent),
      feed
    }
  }
}

// The same submits on a game that keeps daily, weekly and monthly boards, each
// seeded with every player: one script call writes up to four boards. Shown
// beside submit, in the rounds against the minimal service; the 0.9x target
// is for games without periods.
export const submitPeriods = { ...submit, name: 'submit (3 periods)', targets: {}, heldToMinimal: false, plainNote: 'the same submits on a game that keeps daily, weekly and monthly boards (each seeded with every player)' }

// The same submits on a game with a webhook for every event: each submit
// also writes the outbox (score.best, board.first, board.overtaken), and the
// service's dispatcher delivers them to a receiver in the harness while the
// submits run.
export const submitEvents = { ...submit, name: 'submit (events + webhook)', targets: {}, heldToMinimal: false, plainNote: 'the same submits on a game with a webhook subscribed to every event (the outbox written by each submit, the deliveries made by the same service while it runs)' }

/**
 * The same signed submits with `board` (docs/interface.md#named-boards):
 * `boards` is what the field says ('lap', or 'default,lap' for one score per
 * board in one call, the same score to each).
 */
function boardSubmitFeed ({ board, key }, size, boards) {
  const ts = String(Math.floor(Date.now() / 1000))
  const mix = scoreMix(board, board.size, size)
  const count = boards.split(',').length
  const bodies = Array.from({ length: size }, (_, k) => {
    const score = Array.from({ length: count }, () => String(mix.scores[k])).join(',')
    const fields = { api_key: key.api_key, game_id: board.gameId, player_name: playerName(mix.players[k]), score, ts, board: boards }
    return Buffer.from(`api_key=${fields.api_key}&game_id=${fields.game_id}&player_name=${fields.player_name}&score=${score}&ts=${ts}&board=${boards}&sign=${computeSignature(key.api_secret, fields)}`)
  })
  const feed = rotating(bodies, (req, body) => { req.body = body })
  return {
    request: { method: 'POST', path: '/api/rank?action=submit', headers: FORM, setupRequest: feed.setupRequest },
    commit: () => mix.commit(feed.sent),
    feed
  }
}

// Named boards and achievements (issue 31), beside submit in the same rounds:
// a named board of the same size (its players and bests a copy of the game's
// own board), one call with a score for the game's own board and one for the
// named board, and a game whose board has 3 achievement thresholds that no
// score reaches (what checking them costs).
export const submitNamed = { ...submit, name: 'submit (named board)', targets: {}, heldToMinimal: false, plainNote: 'the same submits to a named board (best, higher first) of the same players', makeFeed: (ctx, size) => boardSubmitFeed(ctx, size, 'lap') }
export const submitTwoBoards = { ...submit, name: 'submit (2 boards, one call)', targets: {}, heldToMinimal: false, plainNote: 'one signed submit carrying a score for the game\'s own board and one for a named board', makeFeed: (ctx, size) => boardSubmitFeed(ctx, size, 'default,lap') }
export const submitAchievements = { ...submit, name: 'submit (achievements)', targets: {}, heldToMinimal: false, plainNote: 'the same submits on a game with 3 achievement thresholds on its board, none reached' }
