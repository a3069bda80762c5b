import t from 'tap'
import { buildTestApp, createGame, dataOf, errorOf, me, submit, top } from '../../helpers/app.js'

t.test('submit, top and me on one board', { timeout: 30_000 }, async t => {
  const { app } = await buildTestApp(t)
  const game = await createGame(app)
  const first = await submit(app, game, { player: 'alice', score: 100 })
  t.equal(first.statusCode, 200)
  t.equal(first.headers['content-type'], 'application/json; charset=utf-8')
  t.same(first.json(), { ok: true, data: { score: 100, improved: true, best_score: 100, rank: 1 } })
  t.same(dataOf(await submit(app, game, { player: 'alice', score: 50 })), { score: 50, improved: false, best_score: 100, rank: 1 })
  t.equal(errorOf(await submit(app, game, { player: 'alice', score: 5, sign: 'f'.repeat(64) })), 'invalid_signature')
  const board = dataOf(await top(app, game))
  t.equal(board.game_id, game.gameId)
  t.equal(board.total, 1)
  t.match(board.items[0], { rank: 1, player_name: 'alice', score: 100, created_at: /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/ })
  t.same(dataOf(await me(app, game, 'alice')), { player_name: 'alice', best_score: 100, rank: 1 })
  t.same(dataOf(await me(app, game, 'nobody')), { player_name: 'nobody', best_score: null, rank: null })
})
