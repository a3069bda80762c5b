import t from 'tap'
import { admin, buildTestApp, createGame, dataOf, errorOf, get } from '../../helpers/app.js'

/*
 * Score formats (docs/decisions/0072-score-formats-raw-in-the-api-shown-by.md): a board's display settings, on the
 * game (its own board) and on each named board, checked together; the
 * boards action gives them to pages, which format the raw scores.
 */

const { app } = await buildTestApp(t)

t.test('a game and its named boards carry a display format: a type alone takes its digits, too many digits or a bad unit write nothing', async t => {
  const game = await createGame(app)
  const url = `/admin/games/${game.gameId}`
  t.match(dataOf(await admin(app, 'GET', url)), { score_format: 'integer', score_decimals: 0, score_unit: '' }, 'integer, no unit, by default')
  t.match(dataOf(await admin(app, 'PATCH', url, { score_format: 'time' })), { score_format: 'time', score_decimals: 3 }, 'time: milliseconds shown')
  t.match(dataOf(await admin(app, 'PATCH', url, { score_decimals: 1 })), { score_format: 'time', score_decimals: 1 })
  t.match(dataOf(await admin(app, 'PATCH', url, { score_format: 'decimal', score_unit: 'km' })), { score_format: 'decimal', score_decimals: 2, score_unit: 'km' })
  for (const [body, why] of [
    [{ score_format: 'integer', score_decimals: 2 }, 'an integer takes no decimals'],
    [{ score_format: 'time', score_decimals: 4 }, 'a time shows at most ms'],
    [{ score_decimals: 0 }, 'a decimal takes at least one'],
    [{ score_decimals: 7 }, 'past the most'],
    [{ score_unit: ' km' }, 'a space at the start'],
    [{ score_unit: 'a\nb' }, 'a line break'],
    [{ score_unit: 'x'.repeat(17) }, 'too long'],
    [{ score_unit: 'a\u2028b' }, 'a line separator'],
    [{ score_unit: 'a\u202eb' }, 'a direction override'],
    [{ score_format: 'roman' }, 'an unknown type']
  ] as const) {
    t.equal(errorOf(await admin(app, 'PATCH', url, body)), 'invalid_param', why)
  }
  t.match(dataOf(await admin(app, 'GET', url)), { score_format: 'decimal', score_decimals: 2, score_unit: 'km' }, 'nothing written by a refused change')
  t.match(dataOf(await admin(app, 'PATCH', url, { score_unit: '👩\u200d🚀' })), { score_unit: '👩\u200d🚀' }, 'a joiner, as emoji need, is text')

  const lap = dataOf(await admin(app, 'POST', `${url}/boards`, { board_id: 'lap', order: 'asc', score_format: 'time' }))
  t.match(lap, { score_format: 'time', score_decimals: 3, score_unit: '' })
  t.match(dataOf(await admin(app, 'PATCH', `${url}/boards/lap`, { score_unit: 's', score_decimals: 2 })), { score_format: 'time', score_decimals: 2, score_unit: 's' })
  t.equal(errorOf(await admin(app, 'PATCH', `${url}/boards/lap`, { score_format: 'integer', score_decimals: 3 })), 'invalid_param')
  t.match(dataOf(await admin(app, 'POST', `${url}/boards`, { board_id: 'coins', operator: 'sum' })), { score_format: 'integer', score_decimals: 0 })
})

t.test('action=boards: the game\'s own board first, then its named boards, each with its format', async t => {
  const game = await createGame(app)
  dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}`, { name: 'Moon Race', score_format: 'decimal', score_decimals: 1, score_unit: 'pts', periods: ['daily'] }))
  dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/boards`, { board_id: 'lap', name: 'Lap', order: 'asc', score_format: 'time' }))
  dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/boards`, { board_id: 'coins', operator: 'sum', score_unit: 'coins' }))
  dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}/boards/coins`, { archived: true }))
  const answer = dataOf(await get(app, '/api/rank', { action: 'boards', api_key: game.apiKey, game_id: game.gameId }))
  t.same(answer, {
    game_id: game.gameId,
    items: [
      { board_id: 'default', name: 'Moon Race', order: 'desc', operator: 'best', periods: ['daily'], format: { type: 'decimal', decimals: 1, unit: 'pts' }, archived: false },
      { board_id: 'coins', name: 'coins', order: 'desc', operator: 'sum', periods: [], format: { type: 'integer', decimals: 0, unit: 'coins' }, archived: true },
      { board_id: 'lap', name: 'Lap', order: 'asc', operator: 'best', periods: [], format: { type: 'time', decimals: 3, unit: '' }, archived: false }
    ]
  })
  t.equal(errorOf(await get(app, '/api/rank', { action: 'boards', api_key: 'rk_nope', game_id: game.gameId })), 'invalid_key')
  t.equal(errorOf(await app.inject({ method: 'POST', url: '/api/rank?action=boards', payload: '' })), 'method_not_allowed')
})
