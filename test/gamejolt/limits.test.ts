import t from 'tap'
import { admin, buildTestApp, createGame, dataOf, formBody, top } from '../helpers/app.js'
import { md5, type Link } from '../helpers/gamejolt.js'

/*
 * Game Jolt's API is rate limited per game and client address, as an API
 * key's requests are (RATE_LIMIT_MAX), counted in the request's one script
 * call where the endpoint writes (docs/gamejolt.md#check-order): over the
 * limit, the work does not run.
 */

const STRONG = 'correct horse battery staple'

t.test('over RATE_LIMIT_MAX: Game Jolt\'s failure (HTTP 200), nothing stored; per game and address', async t => {
  const { app } = await buildTestApp(t, { RATE_LIMIT_MAX: '4' })
  const game = await createGame(app)
  const link = dataOf(await admin(app, 'PUT', `/admin/games/${game.gameId}/gamejolt`, {})) as Link
  dataOf(await admin(app, 'POST', '/admin/users', { username: 'ann', password: STRONG }))
  const ann = { username: 'ann', user_token: dataOf(await admin(app, 'POST', '/admin/users/ann/game-token', {})).game_token as string }
  const call = async (endpoint: string, query: Record<string, string>, remoteAddress = '127.0.0.1') => {
    const path = `/api/game/v1_2/${endpoint}/?${formBody({ game_id: String(link.gamejolt_game_id), ...query })}`
    return await app.inject({ method: 'GET', url: `${path}&signature=${md5(`https://api.gamejolt.com${path}${link.private_key}`)}`, remoteAddress })
  }

  const first = await call('scores/add', { ...ann, sort: '10', score: '10' })
  t.same(first.json().response, { success: 'true' })
  t.equal(first.headers['x-ratelimit-limit'], '4')
  t.equal(first.headers['x-ratelimit-remaining'], '3', 'counted once, in the submit\'s script call')
  t.equal((await call('data-store/set', { key: 'a', data: '1' })).headers['x-ratelimit-remaining'], '2', 'a data-store write: once, in its script call')
  const failed = await call('scores/add', { ...ann, sort: 'x', score: 'x' })
  t.equal(failed.json().response.success, 'false')
  t.equal(failed.headers['x-ratelimit-remaining'], '1', 'a request refused before its script is counted too')
  t.equal((await call('time', {})).headers['x-ratelimit-remaining'], '0', 'a read, counted first')

  const over = await call('scores/add', { ...ann, sort: '99', score: '99' })
  t.equal(over.statusCode, 200, 'Game Jolt answers 200 even for a failure')
  t.match(over.json().response, { success: 'false', message: /^Too many requests; retry in \d+ s\.$/ })
  t.ok(Number(over.headers['retry-after']) >= 1, 'Retry-After')
  t.match(dataOf(await top(app, game)).items, [{ player_name: 'ann', score: 10 }], 'the score over the limit was not stored')
  t.match((await call('data-store/set', { key: 'b', data: '2' })).json().response, { success: 'false', message: /Too many requests/ })
  t.match((await call('sessions/open', ann)).json().response, { success: 'false', message: /Too many requests/ }, 'a write without a script of its own is refused before it runs')
  t.same((await call('data-store', { key: 'b' }, '127.0.0.2')).json().response, { success: 'false', message: 'No item with that key could be found.' }, 'nothing written; another address counts apart')
  t.same((await call('sessions/check', ann, '127.0.0.2')).json().response, { success: 'false' }, 'no session was opened')

  // A batch counts once, and each sub-request once more.
  const sub = (endpoint: string) => { const path = `/${endpoint}/?game_id=${link.gamejolt_game_id}`; return `${path}&signature=${md5(`${path}${link.private_key}`)}` }
  const path = `/api/game/v1_2/batch/?${formBody({ game_id: String(link.gamejolt_game_id) })}&requests[]=${encodeURIComponent(sub('time'))}&requests[]=${encodeURIComponent(sub('time'))}`
  const batch = await app.inject({ method: 'GET', url: `${path}&signature=${md5(`https://api.gamejolt.com${path}${link.private_key}`)}`, remoteAddress: '127.0.0.3' })
  t.same(batch.json().response.responses.map((one: any) => one.success), ['true', 'true'])
  t.equal((await call('time', {}, '127.0.0.3')).headers['x-ratelimit-remaining'], '0', 'the batch and its two sub-requests: three counted')
})
