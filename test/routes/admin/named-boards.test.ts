import t from 'tap'
import { runCli } from '../../../src/cli.js'
import { ENTRY_BUCKETS, boardScopes, keys } from '../../../src/store/keys.js'
import { MAX_BOARDS } from '../../../src/rules/boards.js'
import { ADMIN_TOKEN, admin, buildTestApp, createGame, dataOf, errorOf } from '../../helpers/app.js'

/*
 * Named boards, as operators make them (docs/decisions/0070-named-boards-one-game-many-boards-in-its.md): the operator
 * API and the CLI over one module (src/operations/named-boards.ts). What a
 * board does with scores comes with the board parameter of the actions.
 */

const { app } = await buildTestApp(t)
const redis = app.redis
const boardsUrl = (gameId: string): string => `/admin/games/${gameId}/boards`

t.test('a board is made with defaults, listed, read, and refused where its id or settings are not valid', async t => {
  const game = await createGame(app)
  const made = dataOf(await admin(app, 'POST', boardsUrl(game.gameId), { board_id: 'level-1' }))
  t.match(made, { board_id: 'level-1', name: 'level-1', order: 'desc', operator: 'best', periods: [], score_min: null, score_max: null, review_above: null, review_below: null, review_factor: null, archived: false, first_season: 1 })
  t.match(made.created_at, /^\d{4}-\d{2}-\d{2}T/)
  const lap = dataOf(await admin(app, 'POST', boardsUrl(game.gameId), { board_id: 'fastest_lap', name: 'Fastest lap', order: 'asc', operator: 'best', periods: ['daily'], score_min: 1000 }))
  t.match(lap, { board_id: 'fastest_lap', name: 'Fastest lap', order: 'asc', periods: ['daily'], score_min: 1000 })
  dataOf(await admin(app, 'POST', boardsUrl(game.gameId), { board_id: 'coins', operator: 'sum' }))

  // What the board scripts check a board by, in the game's record.
  t.equal(await redis.hget(keys.game(game.gameId), 'board:fastest_lap'), 'asc best live')
  t.equal(await redis.hget(keys.game(game.gameId), 'board:coins'), 'desc sum live')
  const listed = dataOf(await admin(app, 'GET', boardsUrl(game.gameId)))
  t.equal(listed.total, 3)
  t.same(listed.items.map((board: any) => board.board_id), ['coins', 'fastest_lap', 'level-1'], 'in id order')
  t.same(dataOf(await admin(app, 'GET', `${boardsUrl(game.gameId)}/fastest_lap`)), lap)

  for (const [id, why] of [['Level1', 'a capital'], ['a:b', 'a colon'], ['{x}', 'a hash tag'], ['a/b', 'a slash'], ['a.b', 'a dot'], ['_x', 'beginning with _'], ['x'.repeat(33), '33 characters'], ['', 'empty']]) {
    const answer = await admin(app, 'POST', boardsUrl(game.gameId), { board_id: id })
    t.equal(errorOf(answer), id === '' ? 'missing_param' : 'invalid_param', String(why))
  }
  t.match(JSON.parse((await admin(app, 'POST', boardsUrl(game.gameId), { board_id: 'default' })).body).message, /names the game's own board/, 'default is the game\'s own')
  t.equal(errorOf(await admin(app, 'POST', boardsUrl(game.gameId), { board_id: 'coins' })), 'already_exists')
  t.equal(errorOf(await admin(app, 'POST', boardsUrl(game.gameId), { board_id: 'x', operator: 'max' })), 'invalid_param', 'an unknown operator')
  t.equal(errorOf(await admin(app, 'POST', boardsUrl(game.gameId), { board_id: 'x', score_min: 10, score_max: 5 })), 'invalid_param', 'score_min above score_max')
  t.equal(errorOf(await admin(app, 'POST', boardsUrl(game.gameId), { board_id: 'x', review_factor: 1 })), 'invalid_param', 'a review_factor of 1')
  const proto = await app.inject({ method: 'POST', url: boardsUrl(game.gameId), headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, payload: '{"board_id": "x", "__proto__": {"archived": true}}' })
  t.equal(errorOf(proto), 'invalid_body', 'a body with __proto__ is refused as a whole')
  t.equal(errorOf(await admin(app, 'POST', boardsUrl('no_such_game'), { board_id: 'x' })), 'not_found')
  t.equal(errorOf(await admin(app, 'GET', `${boardsUrl(game.gameId)}/nope`)), 'not_found')
  t.equal(errorOf(await admin(app, 'GET', `${boardsUrl(game.gameId)}/default`)), 'not_found', 'the game\'s own board is the game')
  t.equal(dataOf(await admin(app, 'GET', boardsUrl(game.gameId))).total, 3, 'nothing was made by the refusals')

  // A name that means something to JavaScript objects is just an id.
  t.equal(dataOf(await admin(app, 'POST', boardsUrl(game.gameId), { board_id: 'constructor' })).board_id, 'constructor')
  t.same(dataOf(await admin(app, 'GET', boardsUrl(game.gameId))).items.map((board: any) => board.board_id), ['coins', 'constructor', 'fastest_lap', 'level-1'])
})

t.test('changes: settings at any time, order and operator only while the board is empty, archiving', async t => {
  const game = await createGame(app)
  const url = `${boardsUrl(game.gameId)}/level`
  dataOf(await admin(app, 'POST', boardsUrl(game.gameId), { board_id: 'level', score_min: 0 }))
  t.match(dataOf(await admin(app, 'PATCH', url, { name: 'Level 1', periods: 'weekly,daily', score_max: 99, review_factor: 2.5 })), { name: 'Level 1', periods: ['daily', 'weekly'], score_min: 0, score_max: 99, review_factor: 2.5 })
  t.equal(errorOf(await admin(app, 'PATCH', url, { score_min: 100 })), 'invalid_param', 'score_min above the stored score_max')
  t.match(dataOf(await admin(app, 'PATCH', url, { order: 'asc', operator: 'latest' })), { order: 'asc', operator: 'latest' }, 'an empty board takes a new order and operator')

  // An entry stored on the board (its usage counts it, as the submit script keeps it).
  await redis.hset(keys.usage(game.gameId, boardScopes.named('level')), 'entries', 1)
  const refused = await admin(app, 'PATCH', url, { order: 'desc' })
  t.equal(errorOf(refused), 'invalid_param')
  t.match(refused.json().message, /only while it is empty/)
  t.equal(errorOf(await admin(app, 'PATCH', url, { operator: 'sum' })), 'invalid_param', 'nor the operator')
  t.match(dataOf(await admin(app, 'PATCH', url, { order: 'asc', operator: 'latest', name: 'Level one' })), { name: 'Level one' }, 'the same order and operator are no change')
  t.match(dataOf(await admin(app, 'PATCH', url, { archived: true })), { archived: true })
  t.match(dataOf(await admin(app, 'GET', url)), { name: 'Level one', order: 'asc', operator: 'latest', archived: true })
  t.equal(await redis.hget(keys.game(game.gameId), 'board:level'), 'asc latest archived', 'the game\'s record follows')
  t.equal(errorOf(await admin(app, 'PATCH', `${boardsUrl(game.gameId)}/nope`, { name: 'x' })), 'not_found')
  t.equal(errorOf(await admin(app, 'PATCH', url, { board_id: 'other' })), 'invalid_param', 'the id is not a setting')

  // A board made in the first season keeps its order once a season has closed, empty or not.
  dataOf(await admin(app, 'POST', boardsUrl(game.gameId), { board_id: 'empty' }))
  dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/seasons`))
  t.equal(errorOf(await admin(app, 'PATCH', `${boardsUrl(game.gameId)}/empty`, { order: 'asc' })), 'invalid_param', 'its first season has closed')
  t.match(dataOf(await admin(app, 'POST', boardsUrl(game.gameId), { board_id: 'later' })), { first_season: 2 }, 'a board made now begins in season 2')
  t.match(dataOf(await admin(app, 'PATCH', `${boardsUrl(game.gameId)}/later`, { order: 'asc' })), { order: 'asc' })

  const actions = dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/audit`)).items.map((entry: any) => `${entry.action} ${entry.target ?? ''}`)
  t.ok(actions.includes('board.create level') && actions.includes('board.update level'), 'the audit log has each write')
})

t.test('a game has at most MAX_BOARDS named boards', async t => {
  const game = await createGame(app)
  // All but one made by hand, as the script counts them.
  const fields: string[] = []
  for (let i = 1; i < MAX_BOARDS; i++) fields.push(`b${i}`, JSON.stringify({ name: `b${i}`, created_at: new Date().toISOString(), first_season: 1 }))
  await redis.hset(keys.boards(game.gameId), ...fields)
  dataOf(await admin(app, 'POST', boardsUrl(game.gameId), { board_id: 'last' }))
  const refused = await admin(app, 'POST', boardsUrl(game.gameId), { board_id: 'one-more' })
  t.equal(errorOf(refused), 'invalid_param')
  t.match(refused.json().message, new RegExp(`${MAX_BOARDS} boards`))
  t.equal(dataOf(await admin(app, 'GET', boardsUrl(game.gameId))).total, MAX_BOARDS)
  dataOf(await admin(app, 'DELETE', `${boardsUrl(game.gameId)}/b1`))
  dataOf(await admin(app, 'POST', boardsUrl(game.gameId), { board_id: 'one-more' }))
})

t.test('deleting a board removes its keys on every season and period, and nothing of the game\'s own board', async t => {
  const game = await createGame(app)
  dataOf(await admin(app, 'POST', boardsUrl(game.gameId), { board_id: 'gone', periods: ['daily'] }))
  dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/seasons`))
  const named = boardScopes.named('gone')
  const today = new Date().toISOString().slice(0, 10)
  const boardKeys = [keys.board(game.gameId, named), keys.board(game.gameId, named + boardScopes.season(2)), keys.board(game.gameId, named + boardScopes.period('daily', today)),
    keys.entriesBucket(game.gameId, ENTRY_BUCKETS - 1, named), keys.metaBucket(game.gameId, 7, named + boardScopes.season(2)), keys.entryRunBucket(game.gameId, 0, named), keys.usage(game.gameId, named)]
  for (const key of boardKeys) await redis.set(key, 'x')
  const own = [keys.board(game.gameId), keys.entriesBucket(game.gameId, 0)]
  for (const key of own) await redis.set(key, 'kept')

  t.same(dataOf(await admin(app, 'DELETE', `${boardsUrl(game.gameId)}/gone`)), {})
  for (const key of boardKeys) t.equal(await redis.exists(key), 0, `${key} removed`)
  t.equal(await redis.hexists(keys.game(game.gameId), 'board:gone'), 0, 'and its field in the game\'s record')
  for (const key of own) t.equal(await redis.get(key), 'kept', `${key} kept`)
  t.equal(errorOf(await admin(app, 'GET', `${boardsUrl(game.gameId)}/gone`)), 'not_found')
  t.equal(errorOf(await admin(app, 'DELETE', `${boardsUrl(game.gameId)}/gone`)), 'not_found', 'a second delete')
  const deleted = dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/audit`)).items.find((entry: any) => entry.action === 'board.delete')
  t.match(deleted, { target: 'gone', before: { board_id: 'gone' }, after: null })
})

t.test('the CLI makes, changes, lists and deletes boards through the same operations', async t => {
  const game = await createGame(app)
  const env = { REDIS_URL: app.config.redisUrl }
  const cli = async (...argv: string[]): Promise<{ code: number, out: string, err: string }> => {
    let out = ''
    let err = ''
    const code = await runCli(argv, { out: line => { out += `${line}\n` }, err: line => { err += `${line}\n` }, env, readLine: async () => '' })
    return { code, out, err }
  }
  const made = await cli('boards', 'create', game.gameId, 'coins', '--operator', 'sum', '--name', 'Coins', '--score_min', '0')
  t.equal(made.code, 0, made.err)
  t.match(JSON.parse(made.out), { board_id: 'coins', operator: 'sum', name: 'Coins', score_min: 0 })
  t.match(JSON.parse((await cli('boards', 'update', game.gameId, 'coins', '--archived', 'true', '--score_min', 'default')).out), { archived: true, score_min: null })
  t.same(JSON.parse((await cli('boards', 'list', game.gameId)).out).items.map((board: any) => board.board_id), ['coins'])
  t.match(JSON.parse((await cli('boards', 'get', game.gameId, 'coins')).out), { archived: true })
  const bad = await cli('boards', 'create', game.gameId, 'Coins!')
  t.not(bad.code, 0)
  t.match(bad.err, /error invalid_param: Parameter "board_id" is not valid/)
  t.equal((await cli('boards', 'delete', game.gameId, 'coins')).code, 0)
  t.equal(JSON.parse((await cli('boards', 'list', game.gameId)).out).total, 0)
  const audit = dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/audit`)).items
  t.ok(audit.some((entry: any) => entry.action === 'board.update' && entry.via === 'cli'), 'recorded as the CLI\'s')
})
