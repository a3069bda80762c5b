import t from 'tap'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { admin, buildTestApp, createGame, dataOf, errorOf, formBody, top } from '../../helpers/app.js'

/*
 * A logged-in player's own account (docs/interface.md#your-account): what is
 * kept about them, a new password, deleting the account.
 */

const STRONG = 'correct horse battery staple'
const NEWER = 'purple elephant umbrella tango'

async function send (app: FastifyInstance, method: 'GET' | 'POST' | 'DELETE', url: string, cookie: string, fields: Record<string, string> = {}, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return await app.inject({ method, url, headers: { cookie, ...(method === 'GET' ? {} : { 'content-type': 'application/x-www-form-urlencoded' }), ...headers }, ...(method === 'GET' ? {} : { payload: formBody(fields) }) })
}

function cookieOf (answer: LightMyRequestResponse): string {
  const header = answer.headers['set-cookie']
  return ((Array.isArray(header) ? header[0] : header) ?? '').split(';')[0] as string
}

async function login (app: FastifyInstance, username: string, password: string): Promise<LightMyRequestResponse> {
  return await app.inject({ method: 'POST', url: '/auth/login', payload: formBody({ username, password }), headers: { 'content-type': 'application/x-www-form-urlencoded' } })
}

async function player (app: FastifyInstance, username = 'ann'): Promise<string> {
  dataOf(await admin(app, 'POST', '/admin/users', { username, password: STRONG }))
  return cookieOf(await login(app, username, STRONG))
}

t.test('GET /auth/account: the record and every game where the player has something', async t => {
  const { app } = await buildTestApp(t)
  const [first, second, untouched] = [await createGame(app, { gameId: 'b-game' }), await createGame(app, { gameId: 'a-game' }), await createGame(app, { gameId: 'c-game' })]
  t.ok(untouched)
  t.equal(errorOf(await app.inject({ method: 'GET', url: '/auth/account' })), 'not_logged_in')
  const cookie = await player(app)
  dataOf(await send(app, 'POST', '/api/rank?action=submit-self', cookie, { game_id: first.gameId, score: '70' }))
  dataOf(await send(app, 'POST', `/api/rate?game_id=${second.gameId}`, cookie, { stars: '8' }))
  dataOf(await send(app, 'POST', '/api/playtime', cookie, { game_id: second.gameId, seconds: '30' }))
  const account = dataOf(await send(app, 'GET', '/auth/account', cookie))
  t.match(account, { username: 'ann', is_admin: false, hidden: false, created_at: String })
  t.same(account.games, [
    { game_id: 'a-game', best_score: null, rank: null, stars: 8, playtime_seconds: account.games[0].playtime_seconds },
    { game_id: 'b-game', best_score: 70, rank: 1, stars: null, playtime_seconds: 0 }
  ], 'in game id order; the game without anything of theirs is not listed')
  t.ok(account.games[0].playtime_seconds > 0, 'play time credited')
  t.notMatch(JSON.stringify(account), /scrypt|epoch/, 'no hash, no session epoch')
  t.notOk(Object.hasOwn(account, 'password'), 'no password field')
  t.same(account.sign_in, [{ method: 'password' }], 'how they sign in')
})

t.test('POST /auth/password: the current one confirms, the new one must be strong; other sessions end, this one goes on', async t => {
  const { app } = await buildTestApp(t)
  const cookie = await player(app)
  const phone = cookieOf(await login(app, 'ann', STRONG))
  t.equal(errorOf(await send(app, 'POST', '/auth/password', cookie, { password: 'wrong password here', new_password: NEWER })), 'invalid_credentials')
  const weak = await send(app, 'POST', '/auth/password', cookie, { password: STRONG, new_password: 'ann12345' })
  t.equal(errorOf(weak), 'weak_password')
  t.equal(errorOf(await send(app, 'POST', '/auth/password', cookie, { password: STRONG })), 'missing_param')
  t.equal(errorOf(await send(app, 'POST', '/auth/password', cookie, { password: STRONG, new_password: NEWER }, { origin: 'https://evil.example' })), 'forbidden_origin')
  t.equal(dataOf(await send(app, 'GET', '/auth/account', phone)).username, 'ann', 'nothing changed so far')
  const changed = await send(app, 'POST', '/auth/password', cookie, { password: STRONG, new_password: NEWER })
  t.same(dataOf(changed), { username: 'ann', is_admin: false })
  const renewed = cookieOf(changed)
  t.not(renewed, cookie, 'a new session id')
  t.equal(dataOf(await send(app, 'GET', '/auth/account', renewed)).username, 'ann', 'this browser stays logged in')
  t.equal(errorOf(await send(app, 'GET', '/auth/account', phone)), 'not_logged_in', 'the other session has ended')
  t.equal(errorOf(await send(app, 'GET', '/auth/account', cookie)), 'not_logged_in', 'and so has the old id')
  t.equal(errorOf(await login(app, 'ann', STRONG)), 'invalid_credentials')
  t.same(dataOf(await login(app, 'ann', NEWER)), { username: 'ann', is_admin: false })
  const audit = dataOf(await admin(app, 'GET', '/admin/audit')).items as Array<Record<string, unknown>>
  t.match(audit.find(entry => entry.action === 'user.update'), { actor: 'player:ann', via: 'http', target: 'ann' }, 'audited as the player')
  t.notMatch(JSON.stringify(audit), /purple elephant|correct horse/)
})

t.test('deleting one\'s account erases everything, ends the session, and is audited without the name', async t => {
  const { app } = await buildTestApp(t)
  const game = await createGame(app)
  const cookie = await player(app)
  const other = await player(app, 'bob')
  dataOf(await send(app, 'POST', '/api/rank?action=submit-self', cookie, { game_id: game.gameId, score: '70' }))
  dataOf(await send(app, 'POST', '/api/rank?action=submit-self', other, { game_id: game.gameId, score: '50' }))
  t.equal(errorOf(await send(app, 'POST', '/auth/account', cookie, { password: STRONG })), 'invalid_param', 'a POST must say _method=DELETE')
  t.equal(errorOf(await send(app, 'POST', '/auth/account', cookie, { password: 'not my password', _method: 'DELETE' })), 'invalid_credentials')
  t.equal(errorOf(await send(app, 'DELETE', '/auth/account', cookie, {})), 'missing_param')
  t.equal(errorOf(await send(app, 'DELETE', '/auth/account', cookie, { password: STRONG }, { origin: 'https://evil.example' })), 'forbidden_origin')
  t.equal(dataOf(await top(app, game)).total, 2, 'nothing erased so far')
  const deleted = await send(app, 'POST', '/auth/account', cookie, { password: STRONG, _method: 'DELETE' })
  t.match(dataOf(deleted), { user: 1, sessions: 1, entries: 1 })
  t.match(String(deleted.headers['set-cookie']), /sid=;/, 'the cookie is cleared')
  t.equal(errorOf(await send(app, 'GET', '/auth/account', cookie)), 'not_logged_in')
  t.equal(errorOf(await admin(app, 'GET', '/admin/users/ann')), 'not_found')
  t.equal(errorOf(await login(app, 'ann', STRONG)), 'invalid_credentials')
  t.match(dataOf(await top(app, game)), { total: 1, items: [{ player_name: 'bob' }] }, 'only bob is left on the board')
  const erasure = (dataOf(await admin(app, 'GET', '/admin/audit')).items as Array<Record<string, unknown>>).find(entry => entry.action === 'user.erase')
  t.match(erasure, { actor: 'player', via: 'http', target: null })
  t.notMatch(JSON.stringify(erasure), /ann/, 'the erasure keeps counts, not the name')
})

t.test('confirming with the current password is limited as logins are: a stolen session cannot guess faster', async t => {
  // The login that made the session counts too: one budget per username.
  const { app } = await buildTestApp(t, { LOGIN_RATE_LIMIT_MAX: '4' })
  const cookie = await player(app)
  for (let i = 0; i < 3; i++) {
    t.equal(errorOf(await send(app, 'POST', '/auth/password', cookie, { password: `guess number ${i}`, new_password: NEWER })), 'invalid_credentials')
  }
  const limited = await send(app, 'DELETE', '/auth/account', cookie, { password: STRONG })
  t.equal(errorOf(limited), 'rate_limited', 'the fifth try within the minute, even with the right password')
  t.ok(Number(limited.headers['retry-after']) >= 1)
  t.equal(dataOf(await admin(app, 'GET', '/admin/users/ann')).username, 'ann', 'nothing was deleted')
})
