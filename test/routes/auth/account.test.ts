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
    { game_id: 'a-game', best_score: null, rank: null, stars: 8, playtime_seconds: account.games[0].playtime_seconds, saved_items: [] },
    { game_id: 'b-game', best_score: 70, rank: 1, stars: null, playtime_seconds: 0, saved_items: [] }
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

t.test('GET /auth/sessions lists where the player is logged in, this one marked; DELETE ends the others and keeps this browser', async t => {
  const { app } = await buildTestApp(t)
  t.equal(errorOf(await app.inject({ method: 'GET', url: '/auth/sessions' })), 'not_logged_in')
  const cookie = await player(app)
  const phone = cookieOf(await login(app, 'ann', STRONG))
  const tablet = cookieOf(await login(app, 'ann', STRONG))
  const listed = dataOf(await send(app, 'GET', '/auth/sessions', cookie)).sessions as Array<{ expires_at: string, current: boolean }>
  t.equal(listed.length, 3, 'three browsers')
  t.same(listed.map(session => session.current).sort(), [false, false, true], 'exactly one is this one')
  t.notMatch(JSON.stringify(listed), /sid=|[A-Za-z0-9_-]{43}/, 'no session id is shown')
  t.equal(errorOf(await send(app, 'POST', '/auth/sessions', cookie)), 'invalid_param', 'a POST must say _method=DELETE')
  t.equal(errorOf(await send(app, 'DELETE', '/auth/sessions', cookie, {}, { origin: 'https://evil.example' })), 'forbidden_origin')
  const ended = await send(app, 'DELETE', '/auth/sessions', cookie)
  t.same(dataOf(ended), { ended: 2 })
  const renewed = cookieOf(ended)
  t.not(renewed, cookie, 'this browser goes on with a new session id')
  for (const other of [phone, tablet, cookie]) t.equal(errorOf(await send(app, 'GET', '/auth/account', other)), 'not_logged_in', 'the old sessions are over')
  t.same((dataOf(await send(app, 'GET', '/auth/sessions', renewed)).sessions as Array<{ current: boolean }>).map(session => session.current), [true], 'only this browser is left')
  const audit = dataOf(await admin(app, 'GET', '/admin/audit?action=user.sessions_end')).items
  t.match(audit[0], { actor: 'player:ann', target: 'ann' }, 'audited as the player')
})

t.test('GET /account: a visitor is sent to log in; a player sees their account; a guest how to keep its play', async t => {
  const { app } = await buildTestApp(t, { SIGNUP: 'open' })
  const visitor = await app.inject({ method: 'GET', url: '/account' })
  t.equal(visitor.statusCode, 303)
  t.equal(visitor.headers.location, '/login?next=%2Faccount')
  const game = await createGame(app, { gameId: 'arcade' })
  dataOf(await admin(app, 'PATCH', '/admin/games/arcade', { name: 'Arcade <One>', score_format: 'time' }))
  const cookie = await player(app, 'ann')
  dataOf(await send(app, 'POST', '/api/rank?action=submit-self', cookie, { game_id: game.gameId, score: '83456' }))
  const page = await send(app, 'GET', '/account', cookie)
  t.equal(page.statusCode, 200)
  t.equal(page.headers['cache-control'], 'no-store')
  t.match(page.body, '<dd id="account-name"><bdi>ann</bdi></dd>')
  t.match(page.body, '<dd id="sign-in">a password</dd>')
  t.match(page.body, '<a href="/play/arcade"><bdi>Arcade &lt;One&gt;</bdi></a></th><td data-label="Best">1:23.456</td><td data-label="Rank">#1</td>', 'the game by its name, the best as its board shows it')
  t.match(page.body, 'id="password-form"')
  t.match(page.body, '<li>This browser, until')
  t.match(page.body, '<a class="button" id="download" href="/auth/account" download="account-ann.json">')
  t.match(page.body, '<input name="password" type="password" autocomplete="current-password" required></label>\n<button type="submit" class="danger">Delete my account</button>', 'deleting asks for the password')
  t.notMatch(page.body, 'id="keep-play"')

  dataOf(await admin(app, 'PATCH', '/admin/games/arcade', { guests: 'listed' }))
  const guestCookie = cookieOf(await app.inject({ method: 'POST', url: '/auth/guest', payload: formBody({ game_id: 'arcade' }), headers: { 'content-type': 'application/x-www-form-urlencoded' } }))
  t.equal(errorOf(await send(app, 'DELETE', '/auth/sessions', guestCookie)), 'forbidden', 'a guest has no other session to end (and a new one would outlive it)')
  const guestPage = await send(app, 'GET', '/account', guestCookie)
  t.match(guestPage.body, '<section id="keep-play"', 'a guest is told how to keep its play')
  t.match(guestPage.body, '<a class="button" href="/signup?next=%2Faccount">Sign up</a>')
  t.notMatch(guestPage.body, 'id="password-form"', 'no password to change')
  t.match(guestPage.body, 'to confirm</span> <input name="username" autocomplete="off" required>', 'deleting asks for the name instead')
})
