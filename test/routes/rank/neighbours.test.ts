import t from 'tap'
import type { LightMyRequestResponse } from 'fastify'
import { admin, buildTestApp, createGame, dataOf, expectError, formBody, get, submit, type TestGame } from '../../helpers/app.js'

/*
 * Neighbours (docs/interface.md#around-and-players): `around` and
 * `around-self`, a player and the entries above and below them; `players`
 * and `players-self`, named players (friends) ranked among themselves with
 * their ranks on the whole board.
 */

const { app } = await buildTestApp(t)

async function read (game: TestGame, action: string, query: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return await get(app, '/api/rank', { action, api_key: game.apiKey, game_id: game.gameId, ...query })
}

const names = (data: { items: Array<{ player_name: string }> }): string[] => data.items.map(item => item.player_name)
const ranks = (data: { items: Array<{ rank: number }> }): number[] => data.items.map(item => item.rank)

/** A board of `count` players, p01 best (score 1000) down to p20. */
async function boardOf (count: number): Promise<TestGame> {
  const game = await createGame(app)
  for (let i = 1; i <= count; i++) dataOf(await submit(app, game, { player: `p${String(i).padStart(2, '0')}`, score: 1000 - i }))
  return game
}

const game = await boardOf(20)

t.test('around: the player among the entries above and below', async t => {
  const middle = dataOf(await read(game, 'around', { player_name: 'p10' }))
  t.same(middle.player, { player_name: 'p10', best_score: 990, rank: 10, top_percent: 50 })
  t.equal(middle.total, 20)
  t.same(ranks(middle), [5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15], 'five on each side by default')
  t.match(middle.items[5], { rank: 10, player_name: 'p10', score: 990, created_at: /Z$/ })
  t.same(Object.keys(middle).sort(), ['game_id', 'items', 'player', 'total'], 'no period fields on the all-time board')

  t.same(ranks(dataOf(await read(game, 'around', { player_name: 'p02', before: '5', after: '1' }))), [1, 2, 3], 'cut at the top')
  t.same(ranks(dataOf(await read(game, 'around', { player_name: 'p19', before: '1', after: '5' }))), [18, 19, 20], 'cut at the bottom')
  t.same(names(dataOf(await read(game, 'around', { player_name: 'p07', before: '0', after: '0' }))), ['p07'], 'just the player')
  t.same(ranks(dataOf(await read(game, 'around', { player_name: 'p01', before: '50', after: '50' }))), Array.from({ length: 20 }, (_, i) => i + 1), 'the whole board')
  t.equal(dataOf(await read(game, 'around', { player_name: 'p03' })).player.top_percent, 15)
  t.equal(dataOf(await read(game, 'around', { player_name: 'p20' })).player.top_percent, 100)
})

t.test('around: a player not on the board gets nulls and no items', async t => {
  t.same(dataOf(await read(game, 'around', { player_name: 'nobody' })), {
    game_id: game.gameId, total: 20, player: { player_name: 'nobody', best_score: null, rank: null, top_percent: null }, items: []
  })
  const hidden = await boardOf(3)
  dataOf(await admin(app, 'PATCH', `/admin/games/${hidden.gameId}/players/p02`, { hidden: true }))
  t.same(dataOf(await read(hidden, 'around', { player_name: 'p02' })), {
    game_id: hidden.gameId, total: 2, player: { player_name: 'p02', best_score: 998, rank: null, top_percent: null }, items: []
  }, 'a hidden player keeps their best score, like me, but has no place')
  t.same(names(dataOf(await read(hidden, 'around', { player_name: 'p03' }))), ['p01', 'p03'], 'and is not among the neighbours')
})

t.test('around: bad parameters are invalid_param naming them', async t => {
  for (const [query, name] of [
    [{ before: '51' }, 'before'], [{ after: '-1' }, 'after'], [{ before: 'five' }, 'before'], [{ after: '1.5' }, 'after'],
    [{ period: 'yearly' }, 'period'], [{ period: 'daily' }, 'period'], [{ season_id: 'x' }, 'season_id']
  ] as Array<[Record<string, string>, string]>) {
    const refused = await read(game, 'around', { player_name: 'p01', ...query })
    expectError(t, refused, 'invalid_param', JSON.stringify(query))
    t.match(refused.json().message, `"${name}"`, `${JSON.stringify(query)}: the message names ${name}`)
  }
  expectError(t, await read(game, 'around', {}), 'missing_param', 'player_name is required')
  expectError(t, await read(game, 'around', { player_name: '\u202Eevil' }), 'invalid_player_name', 'a bad name')
  expectError(t, await get(app, '/api/rank', { action: 'around', api_key: 'rk_nope', game_id: game.gameId, player_name: 'p01' }), 'invalid_key', 'the key first')
})

t.test('players: a friends board in board order, each with the global rank', async t => {
  const friends = dataOf(await read(game, 'players', { player_names: JSON.stringify(['p12', 'p03', 'stranger', 'p07', 'p03']) }))
  t.same(friends, {
    game_id: game.gameId,
    total: 20,
    items: [
      { rank: 3, player_name: 'p03', score: 997, created_at: friends.items[0].created_at },
      { rank: 7, player_name: 'p07', score: 993, created_at: friends.items[1].created_at },
      { rank: 12, player_name: 'p12', score: 988, created_at: friends.items[2].created_at }
    ]
  }, 'repeats dropped, unknown names left out')
  t.same(dataOf(await read(game, 'players', { player_names: '[]' })).items, [], 'an empty list')
  const hundred = Array.from({ length: 100 }, (_, i) => `p${String(i + 1).padStart(2, '0')}`)
  t.equal(dataOf(await read(game, 'players', { player_names: JSON.stringify(hundred) })).items.length, 20, '100 names are allowed')
  for (const bad of ['p01', '{"a":1}', '["p01",5]', '["\u202Eevil"]', JSON.stringify([...hundred, 'one more']), '["p01"', '"p01"', '[null]']) {
    const refused = await read(game, 'players', { player_names: bad })
    expectError(t, refused, 'invalid_param', bad.slice(0, 30))
    t.match(refused.json().message, '"player_names"', 'the message names player_names')
  }
  expectError(t, await read(game, 'players', {}), 'missing_param', 'player_names is required')
})

t.test('players: a list too long for a URL goes in a form body', async t => {
  // 100 names of 30 four-byte characters: about 37 KB form-encoded.
  const long = Array.from({ length: 100 }, (_, i) => `${'🏆'.repeat(28)}${String(i).padStart(2, '0')}`)
  const fields = { api_key: game.apiKey, game_id: game.gameId, player_names: JSON.stringify([...long, 'p04']) }
  t.ok(formBody(fields).length > 32_000, `${formBody(fields).length} bytes`)
  const tooLong = await app.inject({ method: 'POST', url: '/api/rank?action=players', payload: formBody({ ...fields, player_names: JSON.stringify([...long.slice(0, 99), 'p04']) }), headers: { 'content-type': 'application/x-www-form-urlencoded' } })
  t.same(names(dataOf(tooLong)), ['p04'], 'POST with a form body of 100 names')
  expectError(t, await app.inject({ method: 'POST', url: '/api/rank?action=players', payload: formBody(fields), headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 'invalid_param', '101 names')
  expectError(t, await app.inject({ method: 'POST', url: '/api/rank?action=players', payload: formBody({ ...fields, pad: 'x'.repeat(70_000) }), headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 'payload_too_large', 'its body is bounded all the same')
  expectError(t, await app.inject({ method: 'DELETE', url: '/api/rank?action=players' }), 'method_not_allowed', 'GET or POST only')
  t.match((await app.inject({ method: 'DELETE', url: '/api/rank?action=players' })).json().message, 'takes GET or POST')
})

t.test('around-self and players-self: the logged-in user', async t => {
  dataOf(await admin(app, 'POST', '/admin/users', { username: 'p05' }))
  const session = dataOf(await admin(app, 'POST', '/admin/sessions', { username: 'p05' }))
  const cookie = `${String(session.cookie_name)}=${String(session.session_id)}`
  const asUser = async (action: string, query: Record<string, string>): Promise<LightMyRequestResponse> =>
    await app.inject({ method: 'GET', url: `/api/rank?${formBody({ action, game_id: game.gameId, ...query })}`, headers: { cookie } })
  const around = dataOf(await asUser('around-self', { before: '1', after: '1' }))
  t.same(around.player, { player_name: 'p05', best_score: 995, rank: 5, top_percent: 25 })
  t.same(names(around), ['p04', 'p05', 'p06'])
  const friends = dataOf(await asUser('players-self', { player_names: '["p09","p02"]' }))
  t.same(names(friends), ['p02', 'p05', 'p09'], 'the user is among them')
  t.same(names(dataOf(await asUser('players-self', {}))), ['p05'], 'no friends: just the user')
  expectError(t, await app.inject({ method: 'GET', url: `/api/rank?action=around-self&game_id=${game.gameId}` }), 'not_logged_in', 'a session is needed')
  expectError(t, await asUser('around-self', { after: '99' }), 'invalid_param', 'bad after')
  const crossSite = await app.inject({ method: 'OPTIONS', url: `/api/rank?action=around-self&game_id=${game.gameId}`, headers: { origin: 'https://elsewhere.example', 'access-control-request-method': 'GET' } })
  t.equal(crossSite.headers['access-control-allow-origin'], undefined, 'session actions answer no preflight from other sites')
  const preflight = await app.inject({ method: 'OPTIONS', url: '/api/rank?action=around', headers: { origin: 'https://elsewhere.example', 'access-control-request-method': 'GET' } })
  t.equal(preflight.headers['access-control-allow-origin'], '*', 'around is an API-key action other sites may call')
})

t.test('neighbours on a period board carry the period', async t => {
  const daily = await createGame(app)
  dataOf(await admin(app, 'PATCH', `/admin/games/${daily.gameId}`, { periods: ['daily'] }))
  for (const [player, score] of [['a', 3], ['b', 2], ['c', 1]] as const) dataOf(await submit(app, daily, { player, score }))
  const around = dataOf(await read(daily, 'around', { player_name: 'b', period: 'daily', before: '1', after: '0' }))
  t.match(around, { period: 'daily', period_id: new Date().toISOString().slice(0, 10), total: 3, player: { rank: 2 } })
  t.same(names(around), ['a', 'b'])
  t.match(dataOf(await read(daily, 'players', { player_names: '["c","a"]', period: 'daily' })), { period: 'daily', items: [{ player_name: 'a', rank: 1 }, { player_name: 'c', rank: 3 }] })
})
