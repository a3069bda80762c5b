import t from 'tap'
import { admin, buildTestApp, createGame, dataOf, errorOf, top } from '../helpers/app.js'
import { gamejolt, type Link } from '../helpers/gamejolt.js'
import { gamejoltIdOf } from '../../src/rules/gamejolt-ids.js'
import { keys } from '../../src/store/keys.js'

/*
 * The ids a moved game's builds carry (docs/gamejolt.md#ids): its tables'
 * and trophies' Game Jolt ids, set by an operator on the records, one
 * record each; made of the record's id when none is set.
 */

const STRONG = 'correct horse battery staple'

t.test('a moved game keeps its tables\' and trophies\' ids: set on the records, each one record\'s', async t => {
  const { app } = await buildTestApp(t)
  const game = await createGame(app)
  const link = dataOf(await admin(app, 'PUT', `/admin/games/${game.gameId}/gamejolt`, { primary_table_id: 4321 })) as Link & { primary_table_id: number }
  t.equal(link.primary_table_id, 4321, 'the primary table\'s id, as its builds carry it')
  const board = dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/boards`, { board_id: 'speedrun', name: 'Speedrun', order: 'asc', gamejolt_id: 4322 }))
  t.equal(board.gamejolt_id, 4322, 'in the operator\'s board record')
  const plain = dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/boards`, { board_id: 'plain' }))
  t.equal(plain.gamejolt_id, gamejoltIdOf('plain'), 'made of its id when none is set')
  t.equal(JSON.parse(await app.redis.hget(keys.boards(game.gameId), 'plain') ?? '{}').gamejolt_id, undefined, 'a made id is not stored: it follows from the id')
  const trophy = dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/achievements`, { achievement_id: 'first-blood', name: 'First blood', gamejolt_id: 17 }))
  t.equal(trophy.gamejolt_id, 17)

  // One id, one record: refused before anything is written.
  t.equal(errorOf(await admin(app, 'POST', `/admin/games/${game.gameId}/boards`, { board_id: 'other', gamejolt_id: 4321 })), 'invalid_param', 'the primary table\'s id')
  t.match((await admin(app, 'PATCH', `/admin/games/${game.gameId}/boards/plain`, { gamejolt_id: 4322 })).json().message, /another board of this game answers to 4322/)
  t.equal(errorOf(await admin(app, 'PUT', `/admin/games/${game.gameId}/gamejolt`, { private_key: link.private_key, primary_table_id: 4322 })), 'invalid_param', 'a named board\'s')
  t.equal(errorOf(await admin(app, 'POST', `/admin/games/${game.gameId}/achievements`, { achievement_id: 'again', gamejolt_id: 17 })), 'invalid_param', 'another trophy\'s')
  t.equal(errorOf(await admin(app, 'POST', `/admin/games/${game.gameId}/achievements`, { achievement_id: 'zero', gamejolt_id: 0 })), 'invalid_param', '0')
  t.equal(errorOf(await admin(app, 'POST', `/admin/games/${game.gameId}/boards`, { board_id: 'huge', gamejolt_id: 2 ** 31 })), 'invalid_param', 'past 32 bits')
  t.equal(dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}/boards/speedrun`, { gamejolt_id: 4322, name: 'Speed run' })).gamejolt_id, 4322, 'a board keeps its own id')
  t.equal(dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}/achievements/first-blood`, { gamejolt_id: 18 })).gamejolt_id, 18, 'a trophy\'s id changes')
  t.equal(dataOf(await admin(app, 'PUT', `/admin/games/${game.gameId}/gamejolt`, { private_key: link.private_key })).primary_table_id, 4321, 'a PUT without it keeps it')
  await app.syncRecordCache()

  // The builds' ids work as Game Jolt's did.
  dataOf(await admin(app, 'POST', '/admin/users', { username: 'ann', password: STRONG }))
  const ann = { username: 'ann', user_token: dataOf(await admin(app, 'POST', '/admin/users/ann/game-token', {})).game_token as string }
  t.same((await gamejolt(app, link, 'scores/tables')).tables.map((table: any) => [table.id, table.primary]), [['4321', '1'], [String(gamejoltIdOf('plain')), ''], ['4322', '']])
  t.same(await gamejolt(app, link, 'scores/add', { ...ann, table_id: '4322', sort: '95', score: '1:35' }), { success: 'true' })
  t.same(await gamejolt(app, link, 'scores/add', { ...ann, table_id: '4321', sort: '7', score: '7 points' }), { success: 'true' })
  t.match(dataOf(await top(app, game, { board: 'speedrun' })).items, [{ player_name: 'ann', score: 95 }], 'on the board its id names')
  t.match(dataOf(await top(app, game)).items, [{ player_name: 'ann', score: 7 }], 'the primary table is the game\'s own board')
  t.same(await gamejolt(app, link, 'scores/add', { ...ann, table_id: String(gamejoltIdOf('default')), sort: '8', score: '8' }), { success: 'false', message: 'The high score table ID you passed in does not belong to this game or has been deleted.' }, 'the made id of a table whose id was set is no table')
  t.same(await gamejolt(app, link, 'trophies/add-achieved', { ...ann, trophy_id: '18' }), { success: 'true' })
  t.same(await gamejolt(app, link, 'trophies/add-achieved', { ...ann, trophy_id: '17' }), { success: 'false', message: 'Incorrect trophy ID.' }, 'the old id is no trophy now')
  t.match((await gamejolt(app, link, 'trophies', ann)).trophies, [{ id: '18', title: 'First blood', achieved: /ago$/ }])
})
