import t from 'tap'
import { boardScopes, keys } from '../../../src/store/keys.js'
import { metrics } from '../../../src/lib/metrics.js'
import { ADMIN_TOKEN, admin, buildTestApp, createGame, dataOf, errorOf, get, submit, type TestGame } from '../../helpers/app.js'

/*
 * A player across a game's named boards (docs/decisions/0070-named-boards-one-game-many-boards-in-its.md): an operator's
 * hide, delete and erasure reach every board of the game, named ones too
 * (each board's own order puts an entry back where it belongs), and a score
 * held on a named board is held, approved and rejected on that board.
 */

const { app } = await buildTestApp(t)
const redis = app.redis

const read = async (game: TestGame, action: string, fields: Record<string, string> = {}): Promise<any> =>
  dataOf(await get(app, '/api/rank', { action, api_key: game.apiKey, game_id: game.gameId, ...fields }))
const names = async (game: TestGame, board: string, fields: Record<string, string> = {}): Promise<Array<[string, number]>> =>
  (await read(game, 'top', { board, ...fields })).items.map((item: any) => [item.player_name, item.score])
const createBoard = async (game: TestGame, settings: Record<string, unknown>): Promise<void> => {
  dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/boards`, settings))
}
const send = async (game: TestGame, player: string, score: number, board?: string): Promise<any> => dataOf(await submit(app, game, { player, score, board }))

t.test('an operator\'s hide reaches every board of the game, named ones and their periods; showing puts each entry back in its board\'s order', async t => {
  const game = await createGame(app)
  await createBoard(game, { board_id: 'lap', order: 'asc', periods: ['daily'] })
  await createBoard(game, { board_id: 'coins', operator: 'sum' })
  for (const [player, lap, coins] of [['ann', 61_000, 30], ['bob', 59_000, 40], ['cy', 60_000, 10]] as const) {
    await send(game, player, 1, undefined)
    await send(game, player, lap, 'lap')
    await send(game, player, coins, 'coins')
  }
  dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}/players/bob`, { hidden: true }))
  t.same(await names(game, 'lap'), [['cy', 60_000], ['ann', 61_000]], 'gone from the named board')
  t.same(await names(game, 'lap', { period: 'daily' }), [['cy', 60_000], ['ann', 61_000]], 'and from its period board')
  t.same(await names(game, 'coins'), [['ann', 30], ['cy', 10]])
  t.equal((await read(game, 'me', { board: 'coins', player_name: 'bob' })).rank, null, 'hidden: no rank')
  t.match(dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/players/bob?board=lap`)), { player_name: 'bob', best_score: 59_000, hidden: true, rank: null, board: 'lap' }, 'the operator reads the entry on the board named')
  t.equal((await send(game, 'bob', 5, 'coins')).best_score, 45, 'a hidden player\'s submit still counts')
  t.same(await names(game, 'coins'), [['ann', 30], ['cy', 10]], 'and stays off the board')

  dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}/players/bob`, { hidden: false }))
  t.same(await names(game, 'lap'), [['bob', 59_000], ['cy', 60_000], ['ann', 61_000]], 'back first: lower is better on this board')
  t.same(await names(game, 'lap', { period: 'daily' }), [['bob', 59_000], ['cy', 60_000], ['ann', 61_000]])
  t.same(await names(game, 'coins'), [['bob', 45], ['ann', 30], ['cy', 10]], 'with its total, higher first')
})

t.test('a player who plays only named boards can be read, hidden and deleted; board names the entry answered', async t => {
  const game = await createGame(app)
  await createBoard(game, { board_id: 'lap', order: 'asc' })
  await send(game, 'dee', 70_000, 'lap')
  t.equal(errorOf(await admin(app, 'GET', `/admin/games/${game.gameId}/players/dee`)), 'not_found', 'no entry on the game\'s own board')
  t.equal(errorOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}/players/dee`, { hidden: true })), 'not_found', 'a hide answers the entry on the board named, the game\'s own by default')
  t.match(dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}/players/dee`, { hidden: true, board: 'lap' })), { hidden: true, rank: null, board: 'lap' })
  t.same(await names(game, 'lap'), [])
  t.match(dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/player?player_name=dee&board=lap`)), { best_score: 70_000, board: 'lap' }, 'by query too')
  t.equal(errorOf(await admin(app, 'GET', `/admin/games/${game.gameId}/players/dee?board=nope`)), 'invalid_param', 'an unknown board')
  t.equal(errorOf(await admin(app, 'GET', `/admin/games/${game.gameId}/players/dee?board=a:b`)), 'invalid_param', 'not a board id')

  dataOf(await admin(app, 'DELETE', `/admin/games/${game.gameId}/players/dee`))
  t.equal(errorOf(await admin(app, 'GET', `/admin/games/${game.gameId}/players/dee?board=lap`)), 'not_found', 'deleted from the named board')
  t.equal(errorOf(await submit(app, game, { player: 'dee', score: 1, board: 'lap', ts: Math.floor(Date.now() / 1000) - 2 })), 'expired_ts', 'a submit signed before the delete cannot bring it back')
  t.equal(errorOf(await admin(app, 'DELETE', `/admin/games/${game.gameId}/players/dee`)), 'not_found', 'nothing left to delete')
})

t.test('erasure reaches named boards: entries, metas, counts and the entries\' runs', async t => {
  const game = await createGame(app)
  await createBoard(game, { board_id: 'lap', order: 'asc', periods: ['weekly'] })
  await createBoard(game, { board_id: 'coins', operator: 'sum' })
  dataOf(await submit(app, game, { player: 'eve', score: 50_000, board: 'lap', meta: '{"car":"red"}' }))
  await send(game, 'eve', 3, 'coins')
  await send(game, 'eve', 9)
  await send(game, 'fay', 4, 'coins')
  const erased = dataOf(await admin(app, 'DELETE', '/admin/players/eve'))
  t.match(erased, { entries: 4, metas: 1 }, 'the game\'s board, the lap board and its weekly board, the coins board; the lap meta')
  t.same(await names(game, 'lap'), [])
  t.same(await names(game, 'coins'), [['fay', 4]], 'others stay')
  for (const scope of [boardScopes.named('lap'), boardScopes.named('coins')]) {
    t.equal(await redis.hget(keys.entries(game.gameId, 'eve', scope), 'eve'), null, `no entry under ${scope}`)
    t.equal(await redis.hget(keys.meta(game.gameId, 'eve', scope), 'eve'), null)
  }
})

t.test('a score held on a named board: by its own rule, one pending per player and board, approved onto that board', async t => {
  const game = await createGame(app)
  await createBoard(game, { board_id: 'lap', order: 'asc', review_below: 30_000 })
  dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}`, { review_above: 1000 }))
  t.match(await send(game, 'gus', 20_000, 'lap'), { held: true, board: 'lap' }, 'the board\'s review_below holds it')
  t.match(await send(game, 'gus', 5000), { held: true }, 'the game\'s review_above holds a score on its own board')
  t.match(await send(game, 'gus', 40_000, 'lap'), { improved: true, best_score: 40_000 }, 'the game\'s rule is not the board\'s')
  const pending = dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/review`)).items
  t.same(pending.map((held: any) => [held.board_id, held.score, held.status]), [['lap', 20_000, 'pending'], [null, 5000, 'pending']], 'both pending: one per player and board')

  t.match(await send(game, 'gus', 25_000, 'lap'), { held: true })
  const after = dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/review`)).items
  t.same(after.map((held: any) => [held.board_id, held.score]), [['lap', 20_000], [null, 5000]], 'a slower lap (lower is better here) is dropped; the one pending stays')
  t.match(await send(game, 'gus', 10_000, 'lap'), { held: true })
  const decided = dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/review?status=decided`)).items
  t.match(decided, [{ board_id: 'lap', score: 20_000, status: 'superseded' }], 'a faster one supersedes it, on this board only')

  const lapHeld = dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/review`)).items.find((held: any) => held.board_id === 'lap')
  const approved = dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/review/${lapHeld.held_id as string}/approve`, {}))
  t.match(approved, { held: { status: 'approved', board_id: 'lap' }, improved: true, best_score: 10_000, rank: 1 })
  t.same(await names(game, 'lap'), [['gus', 10_000]], 'on the board it was held on')
  t.same(await names(game, 'default'), [], 'not on the game\'s own')

  const ownHeld = dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/review`)).items[0]
  t.match(dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/review/${ownHeld.held_id as string}/reject`, {})), { status: 'rejected', board_id: null })
})

t.test('held scores on latest and sum boards: a later score is not overwritten by an older approved one, a total keeps its time, held points add up', async t => {
  const game = await createGame(app)
  await createBoard(game, { board_id: 'last', operator: 'latest', review_above: 100 })
  await createBoard(game, { board_id: 'coins', operator: 'sum', review_above: 100 })
  const review = async (status = 'pending'): Promise<any[]> => dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/review?status=${status}`)).items
  const approve = async (heldId: string): Promise<any> => dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/review/${heldId}/approve`, {}))
  const entryOf = async (player: string, board: string): Promise<any> => dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/players/${player}?board=${board}`))

  // latest: an older held score, approved after a later one was stored, leaves the later one.
  t.match(await send(game, 'lia', 500, 'last'), { held: true })
  t.match(await send(game, 'lia', 600, 'last'), { held: true }, 'a later held score')
  const [lastHeld] = await review()
  t.match(lastHeld, { board_id: 'last', score: 600, parts: 1 }, 'on a latest board the later held score is the one pending (the earlier superseded)')
  await new Promise(resolve => setTimeout(resolve, 5))
  t.match(await send(game, 'lia', 40, 'last'), { best_score: 40 })
  t.match(await approve(lastHeld.held_id), { held: { status: 'approved' }, improved: false, best_score: 40 }, 'approved, but the score stored after it stays')
  t.equal((await entryOf('lia', 'last')).best_score, 40)

  // sum: the points held while one waits add up; approved, the total keeps the time of its last add.
  t.match(await send(game, 'kit', 10, 'coins'), { best_score: 10 })
  t.match(await send(game, 'kit', 150, 'coins'), { held: true })
  t.match(await send(game, 'kit', 120, 'coins'), { held: true })
  const pending = (await review()).find((held: any) => held.board_id === 'coins')
  t.match(pending, { player_name: 'kit', score: 270, parts: 2, status: 'pending' }, 'one pending, the two held scores added up')
  t.match((await review('decided')).find((held: any) => held.board_id === 'coins'), { score: 150, status: 'superseded' })
  await new Promise(resolve => setTimeout(resolve, 5))
  t.match(await send(game, 'kit', 5, 'coins'), { best_score: 15 })
  const before = await entryOf('kit', 'coins')
  t.match(await approve(pending.held_id), { improved: true, best_score: 285 }, 'no point lost')
  const after = await entryOf('kit', 'coins')
  t.equal(after.best_score, 285)
  t.equal(after.achieved_at, before.achieved_at, 'the total keeps the time of its last add, not the held scores\' older one')
})

t.test('a board with held scores waiting cannot be deleted until they are decided; one whose board is archived waits', async t => {
  const game = await createGame(app)
  await createBoard(game, { board_id: 'gone', review_above: 10 })
  await createBoard(game, { board_id: 'shelf', review_above: 10 })
  await send(game, 'hal', 50, 'gone')
  await send(game, 'hal', 60, 'shelf')
  const held = dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/review`)).items
  const on = (board: string): string => held.find((item: any) => item.board_id === board).held_id
  const refused = await admin(app, 'DELETE', `/admin/games/${game.gameId}/boards/gone`)
  t.equal(errorOf(refused), 'invalid_param', 'a held score waits on it')
  t.match(refused.json().message, /1 held score\(s\) on this board wait for review/)
  t.ok(dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/boards/gone`)), 'the board is still there')
  t.match(dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/review/${on('gone')}/reject`, {})), { status: 'rejected' })
  dataOf(await admin(app, 'DELETE', `/admin/games/${game.gameId}/boards/gone`))
  t.equal(errorOf(await admin(app, 'GET', `/admin/games/${game.gameId}/boards/gone`)), 'not_found', 'deleted once the score is decided')

  dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}/boards/shelf`, { archived: true }))
  t.equal(errorOf(await admin(app, 'POST', `/admin/games/${game.gameId}/review/${on('shelf')}/approve`, {})), 'invalid_param', 'archived: it takes no score')
  t.match(dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/review`)).items, [{ board_id: 'shelf', status: 'pending' }], 'still pending')
  dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}/boards/shelf`, { archived: false }))
  t.match(dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/review/${on('shelf')}/approve`, {})), { best_score: 60, rank: 1 })
})

t.test('a game with many named boards: a hide, a delete and an erasure reach them all, in calls of bounded size', async t => {
  const game = await createGame(app)
  const boards = Array.from({ length: 120 }, (_, i) => `level-${i}`)
  for (const [i, board] of boards.entries()) await createBoard(game, { board_id: board, order: i % 2 === 0 ? 'desc' : 'asc', periods: i % 3 === 0 ? ['daily', 'weekly'] : [] })
  const played = [boards[0], boards[59], boards[119]] as string[]
  for (const board of played) {
    await send(game, 'ivy', 10, board)
    await send(game, 'jon', 20, board)
  }
  // Counted by the script timer: the walk takes several calls, none of them all 120 boards' keys.
  const calls = async (): Promise<number> => (await metrics.redisDuration.get()).values
    .find(value => value.metricName === 'ranking_redis_script_duration_seconds_count' && value.labels.script === 'rankSetVisibility')?.value ?? 0
  const before = await calls()
  dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}/players/ivy`, { hidden: true, board: boards[119] }))
  t.ok(await calls() - before >= 3, `the hide took ${await calls() - before} calls`)
  for (const board of played) t.same((await names(game, board)).map(([name]) => name), ['jon'], `hidden on ${board}`)
  dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}/players/ivy`, { hidden: false, board: boards[0] }))
  t.same((await names(game, boards[0] as string)).map(([name]) => name), ['jon', 'ivy'], 'shown, higher first on an even board')
  t.same((await names(game, boards[59] as string)).map(([name]) => name), ['ivy', 'jon'], 'lower first on an odd one')
  t.same((await names(game, boards[0] as string, { period: 'daily' })).map(([name]) => name), ['jon', 'ivy'], 'and its period board')

  dataOf(await admin(app, 'DELETE', `/admin/games/${game.gameId}/players/jon`))
  for (const board of played) t.same((await names(game, board)).map(([name]) => name), ['ivy'], `jon deleted from ${board}`)
  t.match(dataOf(await admin(app, 'DELETE', '/admin/players/ivy')), { entries: 5 }, 'three boards and board 0\'s two period boards')
  for (const board of played) t.same(await names(game, board), [], `ivy erased from ${board}`)
})

t.test('export and import take board: an export of each operator\'s board, imported into another game\'s board, is the same board', async t => {
  const from = await createGame(app)
  const to = await createGame(app)
  for (const game of [from, to]) {
    await createBoard(game, { board_id: 'lap', order: 'asc', score_max: 100_000 })
    await createBoard(game, { board_id: 'last', operator: 'latest' })
    await createBoard(game, { board_id: 'coins', operator: 'sum' })
  }
  for (const [player, lap, last, coins] of [['kim', 61_000, 5, 30], ['lou', 59_000, 9, 12]] as const) {
    await send(from, player, lap, 'lap')
    await send(from, player, last, 'last')
    await send(from, player, coins, 'coins')
  }
  await send(from, 'kim', 2, 'last')
  await send(from, 'kim', 3, 'coins')
  const exportOf = async (game: TestGame, board: string): Promise<string> => {
    const answer = await app.inject({ method: 'GET', url: `/admin/games/${game.gameId}/export?board=${board}`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
    t.equal(answer.statusCode, 200)
    t.match(answer.headers['content-disposition'], new RegExp(`${game.gameId}-${board}-season-1\\.ndjson`), 'the file is named after the board')
    return answer.body
  }
  const importInto = async (game: TestGame, board: string, body: string): Promise<any> =>
    dataOf(await app.inject({ method: 'POST', url: `/admin/games/${game.gameId}/import?board=${board}`, payload: body, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/x-ndjson' } }))
  for (const board of ['lap', 'last', 'coins']) {
    const file = await exportOf(from, board)
    t.match(await importInto(to, board, file), { board, imported: 2, refused: 0 })
    t.same(await names(to, board), await names(from, board), `${board}: the same board`)
    t.match(await importInto(to, board, file), { imported: 0, improved: 0, unchanged: 2 }, `${board}: the same file again changes nothing`)
  }
  t.same(await names(to, 'coins'), [['kim', 33], ['lou', 12]], 'a sum board\'s totals, not added to')
  t.same(await names(to, 'last'), [['lou', 9], ['kim', 2]], 'a latest board\'s last scores')

  // A later line replaces a latest board's value, worse or not; an earlier one does not.
  const line = (player: string, score: number, at: string): string => JSON.stringify({ player_name: player, score, achieved_at: at }) + '\n'
  t.match(await importInto(to, 'last', line('kim', 1, new Date().toISOString()) + line('lou', 1, '2020-01-01T00:00:00.000Z')), { improved: 1, unchanged: 1 })
  t.same(await names(to, 'last'), [['lou', 9], ['kim', 1]])
  t.match(await importInto(to, 'lap', line('max', 200_000, '2026-01-01T00:00:00.000Z')), { refused: 1, errors: [{ error: 'score_out_of_range', message: /the board's score_min to score_max/ }] }, 'the board\'s bounds')
  t.equal(errorOf(await app.inject({ method: 'POST', url: `/admin/games/${to.gameId}/import?board=nope`, payload: line('x', 1, '2026-01-01T00:00:00.000Z'), headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/x-ndjson' } })), 'invalid_param')
})

t.test('a name is a player\'s when it has an entry or a pending held score on a named board only (the name check of a sign-up)', async t => {
  const game = await createGame(app)
  await createBoard(game, { board_id: 'lap', order: 'asc', periods: ['daily'] })
  await createBoard(game, { board_id: 'held', review_above: 10 })
  const record = await app.records.game(game.gameId, { fresh: true })
  t.notOk(await app.leaderboard.playerKnown(record!, 'ola'), 'unknown at first')
  await send(game, 'ola', 60_000, 'lap')
  t.ok(await app.leaderboard.playerKnown(record!, 'ola'), 'an entry on a named board')
  t.match(await send(game, 'pia', 50, 'held'), { held: true })
  t.ok(await app.leaderboard.playerKnown(record!, 'pia'), 'a score held on a named board')
  dataOf(await admin(app, 'DELETE', '/admin/players/ola'))
  t.notOk(await app.leaderboard.playerKnown(record!, 'ola'), 'erased: free again')
})
