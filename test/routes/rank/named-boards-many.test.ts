import t from 'tap'
import { metrics } from '../../../src/lib/metrics.js'
import { keys } from '../../../src/store/keys.js'
import { admin, buildTestApp, createGame, dataOf, errorOf, formBody, get, submit, submitFields, type TestGame } from '../../helpers/app.js'

/*
 * One submit, several boards (docs/interface.md#one-submit-several-boards):
 * board=a,b&score=1,2 carries one score per board, signed once (the lists
 * as sent), stored in one script call; each board takes or refuses its score
 * on its own, and the answer gives each board's part in the request's order.
 */

const { app } = await buildTestApp(t)
const redis = app.redis

const createBoard = async (game: TestGame, settings: Record<string, unknown>): Promise<void> => {
  dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/boards`, settings))
}
const topOf = async (game: TestGame, board: string): Promise<Array<[string, number]>> =>
  dataOf(await get(app, '/api/rank', { action: 'top', api_key: game.apiKey, game_id: game.gameId, board })).items.map((item: any) => [item.player_name, item.score])

/** How many calls of the several-boards script this process has made (the script timer's count). */
async function manyCalls (): Promise<number> {
  const { values } = await metrics.redisDuration.get()
  return values.find(value => value.metricName === 'ranking_redis_script_duration_seconds_count' && value.labels.script === 'rankSubmitMany')?.value ?? 0
}

async function levelGame (): Promise<TestGame> {
  const game = await createGame(app)
  await createBoard(game, { board_id: 'lap', order: 'asc', score_max: 100_000 })
  await createBoard(game, { board_id: 'coins', operator: 'sum', periods: ['daily'] })
  return game
}

t.test('a level\'s time and its coins in one go: one script call, each board answered, signed once', async t => {
  const game = await levelGame()
  const before = await manyCalls()
  const fields = { player: 'ann', score: '120,61000,35', board: 'default,lap,coins', ts: Math.floor(Date.now() / 1000) }
  const answer = dataOf(await submit(app, game, fields))
  t.equal(await manyCalls() - before, 1, 'one script call')
  t.same(answer.boards.map((item: any) => [item.board, item.score, item.improved, item.best_score, item.rank]), [
    ['default', 120, true, 120, 1], ['lap', 61_000, true, 61_000, 1], ['coins', 35, true, 35, 1]
  ])
  t.match(answer.boards[2].periods, { daily: { best_score: 35, rank: 1, improved: true } }, 'a board\'s periods, in its part')
  t.equal(answer.boards[0].periods, undefined, 'a board without periods has none')
  t.same(await topOf(game, 'coins'), [['ann', 35]])
  t.same(await topOf(game, 'default'), [['ann', 120]])

  const replay = dataOf(await submit(app, game, fields))
  t.same(replay.boards.map((item: any) => [item.board, item.improved, item.best_score]), [['default', false, 120], ['lap', false, 61_000], ['coins', false, 35]], 'the same request again: each board a replay, the sum not added twice')
  dataOf(await submit(app, game, { player: 'ann', score: '5,60000', board: 'coins,lap' }))
  t.same(await topOf(game, 'coins'), [['ann', 40]], 'a new request adds')
  t.same(await topOf(game, 'lap'), [['ann', 60_000]])
  // The signature covers both lists as sent: another order, another board or another score is not this request.
  t.equal(errorOf(await submit(app, game, { ...fields, extra: { board: 'lap,default,coins' } })), 'invalid_signature', 'boards reordered')
  t.equal(errorOf(await submit(app, game, { ...fields, extra: { score: '120,61000,36' } })), 'invalid_signature', 'a score changed')
  const { sign } = submitFields(game, fields)
  for (const board of ['default', 'lap', 'coins']) t.equal(await redis.exists(keys.seenSubmission(game.gameId, sign as string, board)), 1, `a replay marker for ${board}`)
})

t.test('a board that refuses its score does not stop the others: what is stored is what each board takes', async t => {
  const game = await levelGame()
  await createBoard(game, { board_id: 'old' })
  dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}/boards/old`, { archived: true }))
  await createBoard(game, { board_id: 'checked', review_above: 100 })
  const answer = dataOf(await submit(app, game, { player: 'bob', score: '7,200000,3,1000,9', board: 'default,lap,old,checked,coins' }))
  t.match(answer.boards, [
    { board: 'default', best_score: 7 },
    { board: 'lap', score: 200_000, error: 'score_out_of_range', message: /to 100000/ },
    { board: 'old', error: 'invalid_param', message: /archived/ },
    { board: 'checked', held: true, improved: false, best_score: null },
    { board: 'coins', best_score: 9 }
  ])
  t.equal(answer.boards[1].improved, undefined, 'a refusal carries no standing')
  t.same(await topOf(game, 'lap'), [], 'nothing on the board that refused')
  t.same(await topOf(game, 'coins'), [['bob', 9]], 'the others stored')
  t.match(dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/review`)).items, [{ board_id: 'checked', score: 1000 }], 'held on its board')

  const none = dataOf(await submit(app, game, { player: 'bob', score: '200001,4', board: 'lap,old' }))
  t.same(none.boards.map((item: any) => item.error), ['score_out_of_range', 'invalid_param'], 'every board refusing is still an answer, board by board')
  const overflow = dataOf(await submit(app, game, { player: 'bob', score: `${Number.MAX_SAFE_INTEGER},70`, board: 'coins,default' }))
  t.match(overflow.boards, [{ board: 'coins', error: 'invalid_score', message: /would pass 9007199254740991/ }, { board: 'default', best_score: 70 }], 'a sum past 2^53 - 1 refused on its board only')
  t.same(await topOf(game, 'coins'), [['bob', 9]], 'the total as it was')
})

t.test('malformed lists refuse the whole request, with nothing stored', async t => {
  const game = await levelGame()
  const cases: Array<[Record<string, string>, string, RegExp]> = [
    [{ board: 'lap,coins', score: '1' }, 'invalid_param', /2 boards need 2 scores/],
    [{ board: 'lap,coins', score: '1,2,3' }, 'invalid_param', /2 boards need 2 scores, comma-separated in the same order \(3 given\)/],
    [{ board: 'lap,lap', score: '1,2' }, 'invalid_param', /named twice/],
    [{ board: 'lap,nope', score: '1,2' }, 'invalid_param', /no board "nope"/],
    [{ board: 'lap,a:b', score: '1,2' }, 'invalid_param', /item 2 is not a board id/],
    [{ board: 'lap,', score: '1,2' }, 'invalid_param', /item 2 is not a board id/],
    [{ board: Array.from({ length: 11 }, (_, i) => `b${i}`).join(','), score: Array.from({ length: 11 }, () => '1').join(',') }, 'invalid_param', /at most 10 boards/],
    [{ board: 'lap,coins', score: '1,x' }, 'invalid_score', /score 2 \(for board "coins"\)/],
    [{ board: 'lap,coins', score: '1,2', run_id: 'r' }, 'invalid_param', /run's score goes to one board/],
    [{ board: 'lap', score: '1,2' }, 'invalid_score', /base-10 integer/]
  ]
  for (const [fields, code, message] of cases) {
    const { run_id: runId, ...signed } = fields
    const answer = await submit(app, game, { player: 'dee', score: signed.score as string, board: signed.board, extra: runId === undefined ? {} : { run_id: runId } })
    t.equal(errorOf(answer), code, JSON.stringify(fields))
    t.match(answer.json().message, message)
  }
  t.same(await topOf(game, 'lap'), [], 'nothing stored')
  t.same(await topOf(game, 'default'), [])
})

t.test('session mode: submit-self takes several boards, with the session\'s fields', async t => {
  const game = await levelGame()
  await admin(app, 'POST', '/admin/users', { username: 'eli', password: 'correct horse battery staple' })
  const login = await app.inject({ method: 'POST', url: '/auth/login', payload: formBody({ username: 'eli', password: 'correct horse battery staple' }), headers: { 'content-type': 'application/x-www-form-urlencoded' } })
  const cookie = String(login.headers['set-cookie']).split(';')[0] as string
  const answer = await app.inject({ method: 'POST', url: '/api/rank?action=submit-self', payload: formBody({ game_id: game.gameId, board: 'lap,coins', score: '59000,12' }), headers: { 'content-type': 'application/x-www-form-urlencoded', cookie } })
  t.same(dataOf(answer), {
    boards: [
      { board: 'lap', score: 59_000, improved: true, best_score: 59_000, rank: 1, total_players: 1 },
      { board: 'coins', score: 12, improved: true, best_score: 12, rank: 1, total_players: 1, periods: dataOf(answer).boards[1].periods }
    ],
    is_dev_record: false,
    is_admin_record: false
  })
})

t.test('a board deleted while the submit was on its way: its score is refused, the others stored', async t => {
  const game = await levelGame()
  const record = await app.records.game(game.gameId, { fresh: true })
  const boards = await app.namedBoards.boards(game.gameId, { fresh: true })
  dataOf(await admin(app, 'DELETE', `/admin/games/${game.gameId}/boards/lap`))
  const answers = await app.leaderboard.submitMany(record!, 'fay', [{ board: boards.get('lap'), score: 50_000 }, { board: boards.get('coins'), score: 4 }, { board: undefined, score: 9 }], undefined)
  t.match(answers[0], { code: 'invalid_param', message: /no board "lap"/ })
  t.match(answers[1], { improved: true, bestScore: 4 })
  t.match(answers[2], { improved: true, bestScore: 9 })
  t.same(await topOf(game, 'coins'), [['fay', 4]])
})
