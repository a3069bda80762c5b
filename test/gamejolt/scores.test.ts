import t from 'tap'
import { admin, buildTestApp, createGame, dataOf, submit, top, type Teardown } from '../helpers/app.js'
import { gamejolt, type Link } from '../helpers/gamejolt.js'
import { gamejoltIdOf as tableIdOf } from '../../src/rules/gamejolt-ids.js'

/*
 * Game Jolt's score tables are the game's boards (docs/gamejolt.md#scores):
 * scores/tables, scores/add for users and guests, scores (fetch) and
 * scores/get-rank, every rule of a board holding.
 */

const STRONG = 'correct horse battery staple'

async function setUp (t: Teardown, settings: Record<string, unknown> = {}) {
  const { app } = await buildTestApp(t)
  const game = await createGame(app)
  if (Object.keys(settings).length > 0) dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}`, settings))
  const link = dataOf(await admin(app, 'PUT', `/admin/games/${game.gameId}/gamejolt`, {})) as Link
  const tokens: Record<string, string> = {}
  for (const username of ['ann', 'bob']) {
    dataOf(await admin(app, 'POST', '/admin/users', { username, password: STRONG }))
    tokens[username] = dataOf(await admin(app, 'POST', `/admin/users/${username}/game-token`, {})).game_token
  }
  await app.syncRecordCache()
  return { app, game, link, tokens }
}

const ok = { success: 'true' }

t.test('tables are the game\'s boards, the primary first', async t => {
  const { app, game, link } = await setUp(t)
  dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/boards`, { board_id: 'level-2', name: 'Level 2' }))
  await app.syncRecordCache()
  const tables = await gamejolt(app, link, 'scores/tables')
  t.same(tables, {
    success: 'true',
    tables: [
      { id: String(tableIdOf('default')), name: game.gameId, description: '', primary: '1' },
      { id: String(tableIdOf('level-2')), name: 'Level 2', description: '', primary: '' }
    ]
  })
  t.ok(tableIdOf('level-2') >= 1e8 && tableIdOf('level-2') < 2 ** 31, 'an id a 32-bit client keeps')
})

t.test('scores/add for a user and a guest; fetch answers the text and extra data sent, our API never', async t => {
  const { app, game, link, tokens } = await setUp(t, { guests: 'listed' })
  t.same(await gamejolt(app, link, 'scores/add', { username: 'ann', user_token: tokens.ann as string, score: '1,234 Points', sort: '1234', extra_data: 'lvl=3' }), ok, 'a user\'s score')
  t.same(await gamejolt(app, link, 'scores/add', { guest: 'Visitor 7', score: '900 Points', sort: '900' }), ok, 'a guest\'s score')
  t.same(await gamejolt(app, link, 'scores/add', { username: 'ann', user_token: tokens.ann as string, score: '10 Points', sort: '10' }), ok, 'a worse score is taken, and changes nothing')

  const fetched = await gamejolt(app, link, 'scores')
  t.equal(fetched.success, 'true')
  t.equal(fetched.scores.length, 2)
  const [first, second] = fetched.scores
  t.match(first, { score: '1,234 Points', sort: '1234', extra_data: 'lvl=3', user: 'ann', guest: '' })
  t.match(first.user_id, /^[1-9]\d*$/, 'a user\'s id')
  t.equal(typeof first.stored_timestamp, 'number')
  t.match(first.stored, /^\d+ seconds? ago$/)
  t.match(second, { score: '900 Points', sort: '900', extra_data: '', user: '', user_id: '', guest: 'Visitor 7' })
  const users = await gamejolt(app, link, 'users', { username: 'ann' })
  t.equal(users.users[0].id, first.user_id, 'the same id as users answers')

  // Our own API shows the board, not Game Jolt's text.
  const ours = dataOf(await top(app, game))
  t.same(ours.items.map((item: { player_name: string, score: number }) => [item.player_name, item.score]), [['ann', 1234], ['Visitor 7', 900]])
  t.notMatch(JSON.stringify(ours), /Points|lvl=3/, 'no text of Game Jolt\'s in our answers')

  // A better score sent through our API has no text: Game Jolt's fetch shows the number as the board does.
  dataOf(await submit(app, game, { player: 'ann', score: 5000 }))
  const after = await gamejolt(app, link, 'scores')
  t.match(after.scores[0], { score: '5,000', sort: '5000', extra_data: '', user: 'ann' }, 'the old text is not the new best\'s')
})

t.test('who a score is for, and what it must carry: Game Jolt\'s words', async t => {
  const { app, game, link, tokens } = await setUp(t)
  const fail = async (query: Record<string, string>) => (await gamejolt(app, link, 'scores/add', query)).message as string
  t.equal(await fail({ guest: 'Someone', score: '1', sort: '1' }), 'Guests are not allowed to enter scores for this game.', 'guests off')
  t.equal(await fail({ score: '1', sort: '1' }), 'You must pass in a user/guest for this score.')
  t.equal(await fail({ username: 'ann', user_token: 'wrong', score: '1', sort: '1' }), 'No such user with the credentials passed in could be found.')
  t.equal(await fail({ username: 'ann', user_token: tokens.ann as string, guest: 'x', score: '1', sort: '1' }), "'username' and 'guest' are mutually exclusive")
  t.equal(await fail({ username: 'ann', user_token: tokens.ann as string, sort: '1' }), 'You must enter a score.')
  for (const sort of ['', 'abc', '1e5', '99999999999999999', '--1']) t.equal(await fail({ username: 'ann', user_token: tokens.ann as string, score: 'x', sort }), 'You must enter a sort value for this score, and it must be numeric.', `sort "${sort}"`)
  t.match(await fail({ username: 'ann', user_token: tokens.ann as string, score: 'x', sort: '12.5' }), /whole-number scores/, 'a fraction: our own words')
  t.same(await gamejolt(app, link, 'scores/add', { username: 'ann', user_token: tokens.ann as string, score: '12 pts', sort: '12.00' }), ok, 'a decimal with an integer value is taken')
  t.equal(await fail({ username: 'ann', user_token: tokens.ann as string, score: 'x', sort: '1', table_id: '12345' }), 'The high score table ID you passed in does not belong to this game or has been deleted.')
  dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}`, { guests: 'listed', score_max: 1000 }))
  await app.syncRecordCache()
  t.equal(await fail({ username: 'ann', user_token: tokens.ann as string, score: 'x', sort: '5000' }), 'score must be from -9007199254740991 to 1000 for this game.', 'a bound of the board: our message')
  t.match(await fail({ guest: 'ann', score: '1', sort: '1' }), /is a user's/, 'a guest never lands on a user\'s entry')
  t.match(await fail({ guest: 'ANN', score: '1', sort: '1' }), /is a user's/, 'in any letter case')
  t.match(await fail({ guest: '\u202Eevil', score: '1', sort: '1' }), /player_name/, 'a guest name is a player name')
})

t.test('named tables, fetch by limit, better_than, worse_than, a player\'s own, and get-rank', async t => {
  const { app, game, link, tokens } = await setUp(t, { guests: 'listed' })
  dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/boards`, { board_id: 'speed', order: 'asc' }))
  await app.syncRecordCache()
  const speed = String(tableIdOf('speed'))
  for (let i = 1; i <= 15; i++) t.same(await gamejolt(app, link, 'scores/add', { guest: `g${i}`, score: `${i * 100} pts`, sort: String(i * 100) }), ok)
  t.same(await gamejolt(app, link, 'scores/add', { username: 'bob', user_token: tokens.bob as string, score: '41.2 s', sort: '41200', table_id: speed }), ok, 'to a named table')
  t.same(await gamejolt(app, link, 'scores/add', { guest: 'fast', score: '30 s', sort: '30000', table_id: speed }), ok)

  const names = (answer: Record<string, any>): string[] => answer.scores.map((score: { user: string, guest: string }) => score.user === '' ? score.guest : score.user)
  t.same(names(await gamejolt(app, link, 'scores')), ['g15', 'g14', 'g13', 'g12', 'g11', 'g10', 'g9', 'g8', 'g7', 'g6'], '10 by default, best first')
  t.equal((await gamejolt(app, link, 'scores', { limit: '3' })).scores.length, 3)
  t.equal((await gamejolt(app, link, 'scores', { limit: '500' })).scores.length, 15, 'at most 100: all 15')
  t.same(names(await gamejolt(app, link, 'scores', { better_than: '1200', limit: '5' })), ['g15', 'g14', 'g13'], 'better than 1200')
  t.same(names(await gamejolt(app, link, 'scores', { worse_than: '1200', limit: '3' })), ['g11', 'g10', 'g9'], 'worse than 1200, the best of them first')
  t.equal((await gamejolt(app, link, 'scores', { better_than: '1', worse_than: '2' })).message, "'better-than' and 'worse-than' are mutually exclusive")
  t.same(names(await gamejolt(app, link, 'scores', { guest: 'g3' })), ['g3'], 'a guest\'s own')
  t.same(names(await gamejolt(app, link, 'scores', { table_id: speed })), ['fast', 'bob'], 'a lower-is-better table, fastest first')
  t.same(names(await gamejolt(app, link, 'scores', { table_id: speed, username: 'bob', user_token: tokens.bob as string })), ['bob'], 'a user\'s own')
  t.same((await gamejolt(app, link, 'scores', { username: 'bob', user_token: tokens.bob as string })).scores, [], 'none on the primary table')
  const bobsOwn = { table_id: speed, username: 'bob', user_token: tokens.bob as string }
  t.same(names(await gamejolt(app, link, 'scores', { ...bobsOwn, better_than: '50000' })), ['bob'], 'a user\'s own, better than a bound (41.2 s beats 50 s)')
  t.same((await gamejolt(app, link, 'scores', { ...bobsOwn, better_than: '40000' })).scores, [], 'a user\'s own, not better than 40 s: none')
  t.same((await gamejolt(app, link, 'scores', { ...bobsOwn, worse_than: '50000' })).scores, [], 'a user\'s own, not worse than 50 s: none')
  t.same(names(await gamejolt(app, link, 'scores', { guest: 'g3', worse_than: '1200' })), ['g3'], 'a guest\'s own, worse than a bound')
  t.same((await gamejolt(app, link, 'scores', { guest: 'g3', better_than: '1200' })).scores, [], 'a guest\'s own, not better')

  t.same(await gamejolt(app, link, 'scores/get-rank', { sort: '1500' }), { success: 'true', rank: '1' })
  t.same(await gamejolt(app, link, 'scores/get-rank', { sort: '1250' }), { success: 'true', rank: '4' }, 'between two entries: the rank it would have')
  t.same(await gamejolt(app, link, 'scores/get-rank', { sort: '1' }), { success: 'true', rank: '15' }, 'below every entry: the closest, the last')
  t.same(await gamejolt(app, link, 'scores/get-rank', { sort: '35000', table_id: speed }), { success: 'true', rank: '2' }, 'on a lower-is-better table')
  dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/boards`, { board_id: 'empty' }))
  await app.syncRecordCache()
  t.same(await gamejolt(app, link, 'scores/get-rank', { sort: '1', table_id: String(tableIdOf('empty')) }), { success: 'false', message: 'Could not get a rank for the parameters you entered.' })
})

t.test('a score held for review is taken, and shows once approved', async t => {
  const { app, game, link, tokens } = await setUp(t, { review_above: 1000 })
  t.same(await gamejolt(app, link, 'scores/add', { username: 'ann', user_token: tokens.ann as string, score: 'huge', sort: '5000' }), ok, 'taken')
  t.same((await gamejolt(app, link, 'scores')).scores, [], 'on no board yet')
  const held = dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/review`)).items
  t.equal(held.length, 1, 'in the review queue')
  dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/review/${held[0].held_id as string}/approve`, {}))
  t.match((await gamejolt(app, link, 'scores')).scores, [{ sort: '5000', user: 'ann' }], 'approved: on the board')
})
