import t from 'tap'
import { boardScopes, keys } from '../../../src/store/keys.js'
import { admin, buildTestApp, createGame, dataOf, errorOf, get, submit, type TestGame } from '../../helpers/app.js'

/*
 * Reading a named board (docs/decisions/0070-named-boards-one-game-many-boards-in-its.md): every read takes `board`;
 * without it, or with board=default, a request reads the game's own board
 * and its answer is the v1 answer. The entries here are written in the
 * stored form (keys.ts) until submits take `board` too.
 */

const { app } = await buildTestApp(t)
const redis = app.redis

/** Stores entries on a board as the submit script does: member = 13-digit ms + name, score = -best (desc) or best (asc). */
async function seed (game: TestGame, scope: string, order: 'desc' | 'asc', entries: Array<[string, number, number]>): Promise<void> {
  for (const [player, best, ms] of entries) {
    const at = String(ms).padStart(13, '0')
    await redis.zadd(keys.board(game.gameId, scope), order === 'desc' ? -best : best, at + player)
    await redis.hset(keys.entries(game.gameId, player, scope), player, `${best}|${at}`)
  }
}

const read = async (game: TestGame, action: string, fields: Record<string, string> = {}): Promise<any> =>
  await get(app, '/api/rank', { action, api_key: game.apiKey, game_id: game.gameId, ...fields })

t.test('top, me, around and players read the board named; the game\'s own board stays the v1 board', async t => {
  const game = await createGame(app)
  dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/boards`, { board_id: 'lap', order: 'asc' }))
  const lap = boardScopes.named('lap')
  const t0 = Date.UTC(2026, 10, 1)
  await seed(game, lap, 'asc', [['ann', 61_500, t0], ['bob', 59_900, t0 + 1], ['cy', 61_500, t0 - 5]])
  await seed(game, '', 'desc', [['ann', 10, t0]])

  const top = dataOf(await read(game, 'top', { board: 'lap' }))
  t.same(top.items.map((item: any) => [item.rank, item.player_name, item.score]), [[1, 'bob', 59_900], [2, 'cy', 61_500], [3, 'ann', 61_500]], 'lower is better; a tie goes to whoever reached it first')
  t.equal(top.total, 3)
  t.equal(top.board, 'lap', 'the answer names the board')

  const own = dataOf(await read(game, 'top'))
  t.same(own, { game_id: game.gameId, total: 1, items: [{ rank: 1, player_name: 'ann', score: 10, created_at: new Date(t0).toISOString() }] }, 'without board: the v1 answer, exactly')
  t.same(dataOf(await read(game, 'top', { board: 'default' })), own, 'board=default is the game\'s own board')

  t.same(dataOf(await read(game, 'me', { board: 'lap', player_name: 'ann' })), { player_name: 'ann', best_score: 61_500, rank: 3, board: 'lap' })
  const around = dataOf(await read(game, 'around', { board: 'lap', player_name: 'cy', before: '1', after: '1' }))
  t.same(around.items.map((item: any) => item.player_name), ['bob', 'cy', 'ann'])
  const players = dataOf(await read(game, 'players', { board: 'lap', player_names: JSON.stringify(['ann', 'bob', 'zed']) }))
  t.same(players.items.map((item: any) => [item.player_name, item.rank]), [['bob', 1], ['ann', 3]])
})

t.test('an unknown, malformed or deleted board is invalid_param, before any read of it', async t => {
  const game = await createGame(app)
  dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/boards`, { board_id: 'coins', operator: 'sum' }))
  dataOf(await read(game, 'top', { board: 'coins' }))
  for (const [board, why] of <Array<[string, string]>>[['nope', 'no such board'], ['Coins', 'a capital'], ['a:b', 'a colon'], ['{game:x}', 'a hash tag'], ['x'.repeat(33), 'too long']]) {
    const answer = await read(game, 'top', { board })
    t.equal(errorOf(answer), 'invalid_param', why)
    t.match(answer.json().message, /Parameter "board" is not valid/)
  }
  dataOf(await admin(app, 'DELETE', `/admin/games/${game.gameId}/boards/coins`))
  t.equal(errorOf(await read(game, 'top', { board: 'coins' })), 'invalid_param', 'deleted')
})

t.test('a board deleted behind this process\'s cache: its scripts answer moved, and the request is chosen again', async t => {
  const game = await createGame(app)
  dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/boards`, { board_id: 'mode-2' }))
  dataOf(await read(game, 'top', { board: 'mode-2' }))
  // Gone from Redis as delete-board.lua leaves it, before this process hears of it (its cache still has the board).
  await redis.hdel(keys.boards(game.gameId), 'mode-2')
  await redis.hdel(keys.game(game.gameId), 'board:mode-2')
  await redis.incr(keys.boardsVersion(game.gameId))
  t.equal(errorOf(await read(game, 'top', { board: 'mode-2' })), 'invalid_param', 'the script found no board:mode-2 in the record')
})

t.test('submits to named boards: best, latest and sum, each on its own keys, signed with the board', async t => {
  const game = await createGame(app)
  for (const [id, order, operator] of [['lap', 'asc', 'best'], ['last', 'desc', 'latest'], ['coins', 'desc', 'sum']]) {
    dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/boards`, { board_id: id, order, operator }))
  }
  const send = async (board: string, player: string, score: number): Promise<any> => dataOf(await submit(app, game, { player, score, board }))
  t.same(await send('lap', 'ann', 62_000), { score: 62_000, improved: true, best_score: 62_000, rank: 1, board: 'lap' }, 'the answer names the board')
  t.match(await send('lap', 'ann', 63_000), { improved: false, best_score: 62_000 }, 'best, lower is better: a slower lap is not kept')
  t.match(await send('lap', 'ann', 61_000), { improved: true, best_score: 61_000 })
  t.match(await send('last', 'ann', 50), { improved: true, best_score: 50 })
  t.match(await send('last', 'ann', 20), { improved: true, best_score: 20 }, 'latest: the last score is kept, better or not')
  t.match(await send('last', 'ann', 20), { improved: false, best_score: 20 }, 'the same score again changes nothing')
  t.match(await send('coins', 'ann', 30), { improved: true, best_score: 30, rank: 1 })
  t.match(await send('coins', 'bob', 45), { best_score: 45, rank: 1 })
  t.match(await send('coins', 'ann', 25), { improved: true, best_score: 55, rank: 1 }, 'sum: a running total, ranked')
  t.match(await send('coins', 'ann', -5), { best_score: 50 }, 'a negative score takes some away')

  t.equal(await redis.zcard(keys.board(game.gameId)), 0, 'nothing on the game\'s own board')
  t.same(dataOf(await read(game, 'top', { board: 'coins' })).items.map((item: any) => [item.player_name, item.score]), [['ann', 50], ['bob', 45]])
  t.same(dataOf(await read(game, 'top', { board: 'lap' })).items.map((item: any) => item.score), [61_000])

  t.equal(errorOf(await submit(app, game, { player: 'ann', score: 5, extra: { board: 'lap' } })), 'invalid_signature', 'the board is signed: the v1 text does not hold for it')
  t.equal(errorOf(await submit(app, game, { player: 'ann', score: 5, board: 'nope' })), 'invalid_param', 'no such board')
  t.equal(dataOf(await submit(app, game, { player: 'ann', score: 5, extra: { board: 'default' } })).best_score, 5, 'board=default is the game\'s own, signed with the v1 text')
})

t.test('a named board\'s rules: its score bounds, archiving, a replay, a total that would pass 2^53 - 1', async t => {
  const game = await createGame(app)
  dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}`, { score_max: 10 }))
  dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/boards`, { board_id: 'big', operator: 'sum', score_min: 0 }))
  t.equal(dataOf(await submit(app, game, { player: 'ann', score: 1000, board: 'big' })).best_score, 1000, 'the game\'s score_max is not the board\'s')
  t.equal(errorOf(await submit(app, game, { player: 'ann', score: -1, board: 'big' })), 'score_out_of_range', 'the board\'s score_min')
  const fields = { player: 'ann', score: 7, board: 'big', ts: Math.floor(Date.now() / 1000) }
  t.equal(dataOf(await submit(app, game, fields)).best_score, 1007)
  t.match(dataOf(await submit(app, game, fields)), { improved: false, best_score: 1007 }, 'the same signed request again is a replay: not added twice')
  t.equal(errorOf(await submit(app, game, { player: 'ann', score: Number.MAX_SAFE_INTEGER, board: 'big' })), 'invalid_score', 'past 2^53 - 1')
  t.equal(dataOf(await read(game, 'me', { board: 'big', player_name: 'ann' })).best_score, 1007, 'nothing stored')
  dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}/boards/big`, { archived: true }))
  t.equal(errorOf(await submit(app, game, { player: 'ann', score: 1, board: 'big' })), 'invalid_param', 'archived: no new scores')
  t.equal(dataOf(await read(game, 'top', { board: 'big' })).total, 1, 'read as before')
})

t.test('a named board keeps its own periods: period= reads the board\'s period boards, not the game\'s', async t => {
  const game = await createGame(app)
  dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/boards`, { board_id: 'daily-run', periods: ['daily'] }))
  const today = new Date().toISOString().slice(0, 10)
  await seed(game, boardScopes.named('daily-run') + boardScopes.period('daily', today), 'desc', [['ann', 7, Date.now()]])
  const daily = dataOf(await read(game, 'top', { board: 'daily-run', period: 'daily' }))
  t.same(daily.items.map((item: any) => [item.player_name, item.score]), [['ann', 7]])
  t.match(daily, { board: 'daily-run', period: 'daily', period_id: today })
  t.equal(dataOf(await read(game, 'top', { board: 'daily-run' })).total, 0, 'its all-time board is another')
  t.match(dataOf(await submit(app, game, { player: 'bob', score: 3, board: 'daily-run' })), { board: 'daily-run', periods: { daily: { best_score: 3, rank: 2 } } }, 'a submit answers the board\'s own periods')
  const refused = await read(game, 'top', { period: 'daily' })
  t.equal(errorOf(refused), 'invalid_param', 'the game itself keeps no daily board')
  const weekly = await read(game, 'top', { board: 'daily-run', period: 'weekly' })
  t.equal(errorOf(weekly), 'invalid_param', 'nor does the board keep a weekly one')
  t.match(weekly.json().message, /board "daily-run" keeps no weekly board \(its periods: daily\)/, 'the message names the board')
  t.match(refused.json().message, /this game keeps no daily board/)
})

t.test('the outbox\'s events of a named board name it, with the value stored; the game\'s own board\'s events are as before', async t => {
  const game = await createGame(app)
  dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/boards`, { board_id: 'coins', operator: 'sum' }))
  // The count of webhooks in the record turns the outbox on (webhook-create.lua keeps it).
  await redis.hset(keys.game(game.gameId), 'webhooks', '1')
  dataOf(await submit(app, game, { player: 'ann', score: 30, board: 'coins' }))
  dataOf(await submit(app, game, { player: 'ann', score: 12, board: 'coins' }))
  dataOf(await submit(app, game, { player: 'ann', score: 5 }))
  const best = (await redis.xrange(keys.events(game.gameId), '-', '+'))
    .map(([, fields]) => Object.fromEntries(Array.from({ length: fields.length / 2 }, (_, i) => [fields[2 * i], fields[2 * i + 1]])))
    .filter(event => event.type === 'score.best').map(event => JSON.parse(event.data as string))
  t.match(best[0], { board: { period: 'all', board_id: 'coins' }, player_name: 'ann', score: 30 })
  t.match(best[1], { board: { period: 'all', board_id: 'coins' }, score: 42, previous_best: 30 }, 'a sum\'s event carries its total')
  t.same(best[2].board, { period: 'all', season_id: 1 }, 'the game\'s own board: no board_id')
})

t.test('periods and seasons take board: a named board\'s own periods, and the seasons since it was made', async t => {
  const game = await createGame(app)
  dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}`, { periods: ['weekly'] }))
  dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/boards`, { board_id: 'early' }))
  dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/seasons`, {}))
  dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/boards`, { board_id: 'runs', periods: ['daily', 'monthly'] }))
  const own = dataOf(await read(game, 'periods'))
  t.same([...new Set(own.items.map((item: any) => item.period))], ['weekly'], 'the game\'s own')
  t.equal(own.board, undefined, 'the v1 answer has no board')
  const runs = dataOf(await read(game, 'periods', { board: 'runs' }))
  t.same([...new Set(runs.items.map((item: any) => item.period))], ['daily', 'monthly'], 'the board\'s own periods')
  t.match(runs, { board: 'runs', timezone: 'UTC' })
  // keep_periods is 12, but the board (and the game's weeks) began just now: no past period held anything.
  t.same(runs.items.map((item: any) => item.current), [true, true], 'only the current periods: none from before the board kept them')
  t.same(own.items.map((item: any) => item.current), [true], 'and the game\'s own, likewise')
  t.same(dataOf(await read(game, 'periods', { board: 'early' })).items, [], 'a board without periods')
  t.same(dataOf(await read(game, 'seasons')).items.map((item: any) => item.season_id), [1, 2])
  t.same(dataOf(await read(game, 'seasons', { board: 'early' })).items.map((item: any) => item.season_id), [1, 2])
  const seasons = dataOf(await read(game, 'seasons', { board: 'runs' }))
  t.same(seasons.items.map((item: any) => item.season_id), [2], 'made in season 2')
  t.match(seasons, { season_id: 2, board: 'runs' })
  t.equal(errorOf(await read(game, 'seasons', { board: 'nope' })), 'invalid_param')
  t.equal(errorOf(await read(game, 'periods', { board: 'a}b' })), 'invalid_param')
})

t.test('closing a season closes it on every board: a named board starts the new season empty, its last one readable by season_id', async t => {
  const game = await createGame(app)
  dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/boards`, { board_id: 'coins', operator: 'sum', periods: ['daily'] }))
  dataOf(await submit(app, game, { player: 'ann', score: 30, board: 'coins' }))
  dataOf(await submit(app, game, { player: 'ann', score: 12, board: 'coins' }))
  dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/seasons`, {}))
  t.equal(dataOf(await read(game, 'top', { board: 'coins' })).total, 0, 'the new season: empty')
  t.match(dataOf(await read(game, 'top', { board: 'coins', season_id: '1' })), { board: 'coins', season_id: 1, items: [{ player_name: 'ann', score: 42 }] }, 'the closed one, as it was')
  t.match(dataOf(await submit(app, game, { player: 'ann', score: 5, board: 'coins' })), { best_score: 5, periods: { daily: { best_score: 47 } } }, 'a new total in the new season; the day\'s board runs on')
})

t.test('ties on latest and sum boards of both orders: whoever reached the stored value first ranks first', async t => {
  const game = await createGame(app)
  for (const [id, order, operator] of [['last-desc', 'desc', 'latest'], ['last-asc', 'asc', 'latest'], ['sum-desc', 'desc', 'sum'], ['sum-asc', 'asc', 'sum']]) {
    dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/boards`, { board_id: id, order, operator }))
  }
  const pause = async (): Promise<void> => { await new Promise(resolve => setTimeout(resolve, 3)) }
  for (const board of ['last-desc', 'last-asc']) {
    dataOf(await submit(app, game, { player: 'ann', score: 80, board }))
    await pause()
    dataOf(await submit(app, game, { player: 'ann', score: 50, board }))
    await pause()
    dataOf(await submit(app, game, { player: 'bob', score: 50, board }))
    await pause()
    t.match(dataOf(await submit(app, game, { player: 'ann', score: 50, board })), { improved: false }, `${board}: the same score again changes nothing, its time included`)
    t.same(dataOf(await read(game, 'top', { board })).items.map((item: any) => item.player_name), ['ann', 'bob'], `${board}: ann reached 50 first`)
  }
  for (const board of ['sum-desc', 'sum-asc']) {
    dataOf(await submit(app, game, { player: 'bob', score: 5, board }))
    await pause()
    dataOf(await submit(app, game, { player: 'ann', score: 20, board }))
    await pause()
    dataOf(await submit(app, game, { player: 'bob', score: 15, board }))
    t.same(dataOf(await read(game, 'top', { board })).items.map((item: any) => [item.player_name, item.score]), [['ann', 20], ['bob', 20]], `${board}: ann's total reached 20 first`)
  }
})
