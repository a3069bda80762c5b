import t from 'tap'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { admin, buildTestApp, createGame, dataOf, formBody, get, top } from '../helpers/app.js'
import { gamejolt, type Link } from '../helpers/gamejolt.js'
import { redactUrl } from '../../src/lib/redaction.js'

/*
 * Hosted HTML5 builds that call Game Jolt (docs/gamejolt.md#hosted-builds):
 * what the play page, the worker's script and the game's files answer.
 * The worker at work, in Chromium: hosted-browser.test.ts.
 */

const STRONG = 'correct horse battery staple'
const FORM = { 'content-type': 'application/x-www-form-urlencoded' }

function cookieOf (answer: LightMyRequestResponse): string {
  const header = answer.headers['set-cookie']
  return ((Array.isArray(header) ? header[0] : header) ?? '').split(';')[0] as string
}

async function signedIn (app: FastifyInstance, username: string): Promise<string> {
  dataOf(await admin(app, 'POST', '/admin/users', { username, password: STRONG }))
  return cookieOf(await app.inject({ method: 'POST', url: '/auth/login', payload: formBody({ username, password: STRONG }), headers: FORM }))
}

/** The game's frame on its play page. */
function frameOf (page: LightMyRequestResponse): string {
  return /<iframe id="game"[^>]*><\/iframe>/.exec(page.body)?.[0] ?? ''
}

t.test('the worker\'s script: allowed to control /games/, checked for a new version each time, fetching this origin only', async t => {
  const { app } = await buildTestApp(t)
  const script = await get(app, '/gamejolt-worker.js')
  t.equal(script.statusCode, 200)
  t.equal(script.headers['content-type'], 'text/javascript; charset=utf-8')
  t.equal(script.headers['service-worker-allowed'], '/games/')
  t.equal(script.headers['cache-control'], 'no-cache')
  t.equal(script.headers['content-security-policy'], "default-src 'none';connect-src 'self'", 'the worker runs under this policy: it may fetch this origin, nothing else')
  t.match(script.body, "addEventListener('fetch'")
  t.equal((await get(app, '/static/gamejolt-worker.js')).json().error, 'not_found', 'one address only')
})

t.test('a game with Game Jolt\'s API on: the frame waits for the worker and names the player by a game token', async t => {
  const { app } = await buildTestApp(t)
  await createGame(app, { gameId: 'demo' })
  const before = frameOf(await get(app, '/play/demo'))
  t.equal(before, '<iframe id="game" src="/games/demo/" title="demo" allow="fullscreen"></iframe>', 'without the API: framed at once, as always')
  const gameFiles = await get(app, '/games/demo/')
  dataOf(await admin(app, 'PUT', '/admin/games/demo/gamejolt', {}))

  t.equal(frameOf(await get(app, '/play/demo')), '<iframe id="game" data-src="/games/demo/" data-gamejolt-scope="/games/demo/" title="demo" allow="fullscreen"></iframe>', 'a visitor: no player named')
  const cookie = await signedIn(app, 'ann')
  const page = await app.inject({ method: 'GET', url: '/play/demo', headers: { cookie } })
  const token = dataOf(await app.inject({ method: 'GET', url: '/auth/game-token', headers: { cookie } })).game_token as string
  t.match(token, /^[a-z0-9]{26}$/, 'made by the page, the first time')
  t.equal(frameOf(page), `<iframe id="game" data-src="/games/demo/?gjapi_username=ann&amp;gjapi_token=${token}" data-gamejolt-scope="/games/demo/" title="demo" allow="fullscreen"></iframe>`)
  t.match((await app.inject({ method: 'GET', url: '/play/demo', headers: { cookie } })).body, `gjapi_token=${token}"`, 'the same token the next time')
  t.equal(page.headers['cache-control'], 'no-store', 'the page with the token is never cached')
  const audit = dataOf(await admin(app, 'GET', '/admin/audit?action=user.game_token')).items
  t.match(audit, [{ actor: 'player:ann', target: 'ann' }], 'made once, audited as the player\'s')

  // Turned off again: the frame as before.
  dataOf(await admin(app, 'DELETE', '/admin/games/demo/gamejolt'))
  t.equal(frameOf(await app.inject({ method: 'GET', url: '/play/demo', headers: { cookie } })), before)
  const after = await get(app, '/games/demo/')
  for (const name of ['content-security-policy', 'referrer-policy', 'x-frame-options']) t.equal(after.headers[name], gameFiles.headers[name], `${name}: as without the API`)
})

t.test('a guest of the play page plays with a game token of its own; a game that takes no guests names none', async t => {
  const { app } = await buildTestApp(t)
  await createGame(app, { gameId: 'demo' })
  dataOf(await admin(app, 'PUT', '/admin/games/demo/gamejolt', {}))
  dataOf(await admin(app, 'PATCH', '/admin/games/demo', { guests: 'listed' }))
  const guest = await app.inject({ method: 'POST', url: '/auth/guest', payload: formBody({ game_id: 'demo' }), headers: FORM })
  const name = dataOf(guest).username as string
  const cookie = cookieOf(guest)
  const frame = frameOf(await app.inject({ method: 'GET', url: '/play/demo', headers: { cookie } }))
  const token = dataOf(await app.inject({ method: 'GET', url: '/auth/game-token', headers: { cookie } })).game_token as string
  t.equal(frame, `<iframe id="game" data-src="/games/demo/?gjapi_username=${name}&amp;gjapi_token=${token}" data-gamejolt-scope="/games/demo/" title="demo" allow="fullscreen"></iframe>`)
  dataOf(await admin(app, 'PATCH', '/admin/games/demo', { guests: 'off' }))
  t.notMatch(frameOf(await app.inject({ method: 'GET', url: '/play/demo', headers: { cookie } })), 'gjapi', 'a guest who cannot play this game is not named')
})

t.test('a guest\'s Game Jolt score is on the guest\'s entry, and goes with its claim when the guest logs in', async t => {
  const { app } = await buildTestApp(t)
  const game = await createGame(app, { gameId: 'demo' })
  const link = dataOf(await admin(app, 'PUT', '/admin/games/demo/gamejolt', {})) as Link
  dataOf(await admin(app, 'PATCH', '/admin/games/demo', { guests: 'listed' }))
  dataOf(await admin(app, 'POST', '/admin/users', { username: 'rita', password: STRONG }))
  const guest = await app.inject({ method: 'POST', url: '/auth/guest', payload: formBody({ game_id: 'demo' }), headers: FORM })
  const name = dataOf(guest).username as string
  const cookie = cookieOf(guest)
  const frame = frameOf(await app.inject({ method: 'GET', url: '/play/demo', headers: { cookie } }))
  const token = /gjapi_token=([a-z0-9]+)/.exec(frame)?.[1] as string
  t.same(await gamejolt(app, link, 'scores/add', { username: name, user_token: token, score: '50 cookies', sort: '50' }), { success: 'true' }, 'the game adds a score with the token the page gave')
  t.match(dataOf(await top(app, game)).items, [{ player_name: name, score: 50 }], 'on the guest\'s entry')
  dataOf(await app.inject({ method: 'POST', url: '/auth/login', payload: formBody({ username: 'rita', password: STRONG }), headers: { ...FORM, cookie } }))
  t.match(dataOf(await top(app, game)), { total: 1, items: [{ player_name: 'rita', score: 50 }] }, 'the account has it now')
  t.match((await gamejolt(app, link, 'scores')).scores, [{ user: 'rita', guest: '', score: '50 cookies', sort: '50' }], 'with the text the guest sent')
  t.equal((await gamejolt(app, link, 'users/auth', { username: name, user_token: token })).success, 'false', 'the guest, and its token, are gone')
})

t.test('a claim keeps the text of the entry that stays: the user\'s better one, or the guest\'s', async t => {
  const { app } = await buildTestApp(t)
  const game = await createGame(app, { gameId: 'demo' })
  const link = dataOf(await admin(app, 'PUT', '/admin/games/demo/gamejolt', {})) as Link
  dataOf(await admin(app, 'PATCH', '/admin/games/demo', { guests: 'listed' }))
  dataOf(await admin(app, 'POST', '/admin/users', { username: 'rita', password: STRONG }))
  const rita = { username: 'rita', user_token: dataOf(await admin(app, 'POST', '/admin/users/rita/game-token')).game_token as string }
  t.same(await gamejolt(app, link, 'scores/add', { ...rita, score: '90 cookies', sort: '90' }), { success: 'true' })
  const claim = async (sort: number): Promise<void> => {
    const guest = await app.inject({ method: 'POST', url: '/auth/guest', payload: formBody({ game_id: 'demo' }), headers: FORM })
    const cookie = cookieOf(guest)
    const token = dataOf(await app.inject({ method: 'GET', url: '/auth/game-token', headers: { cookie } })).game_token as string
    t.same(await gamejolt(app, link, 'scores/add', { username: dataOf(guest).username, user_token: token, score: `${sort} crumbs`, sort: String(sort) }), { success: 'true' })
    dataOf(await app.inject({ method: 'POST', url: '/auth/login', payload: formBody({ username: 'rita', password: STRONG }), headers: { ...FORM, cookie } }))
  }
  await claim(40)
  t.match((await gamejolt(app, link, 'scores')).scores, [{ user: 'rita', score: '90 cookies', sort: '90' }], 'a worse guest score: the user\'s entry and text stay')
  await claim(120)
  t.match(dataOf(await top(app, game)), { total: 1, items: [{ player_name: 'rita', score: 120 }] })
  t.match((await gamejolt(app, link, 'scores')).scores, [{ user: 'rita', score: '120 crumbs', sort: '120' }], 'a better guest score: its text comes with it')
})

t.test('through Game Jolt\'s API a guest is admitted as on the play page: hidden where guests are unlisted, refused where they are off', async t => {
  const { app } = await buildTestApp(t)
  const game = await createGame(app, { gameId: 'demo' })
  const link = dataOf(await admin(app, 'PUT', '/admin/games/demo/gamejolt', {})) as Link
  dataOf(await admin(app, 'PATCH', '/admin/games/demo', { guests: 'unlisted' }))
  const cookie = cookieOf(await app.inject({ method: 'POST', url: '/auth/guest', payload: formBody({ game_id: 'demo' }), headers: FORM }))
  const guest = dataOf(await app.inject({ method: 'GET', url: '/auth/game-token', headers: { cookie } }))
  const player = { username: guest.username as string, user_token: guest.game_token as string }
  t.same(await gamejolt(app, link, 'scores/add', { ...player, score: '7', sort: '7' }), { success: 'true' })
  t.match(dataOf(await top(app, game)), { total: 0 }, 'kept, shown to no one')
  t.equal(dataOf(await admin(app, 'GET', `/admin/games/demo/players/${player.username}`)).best_score, 7)
  dataOf(await admin(app, 'PATCH', '/admin/games/demo', { guests: 'off' }))
  await app.syncRecordCache()
  t.same(await gamejolt(app, link, 'scores/add', { ...player, score: '8', sort: '8' }), { success: 'false', message: 'This game does not take guests: log in or sign up to play it.' })
})

t.test('the game\'s files with the API on: Game Jolt\'s addresses may be called, upgraded over HTTPS, no referrer', async t => {
  const { app } = await buildTestApp(t, { TRUST_PROXY: 'true' })
  await createGame(app, { gameId: 'demo' })
  const without = await get(app, '/games/demo/')
  t.equal(without.headers['content-security-policy'], "default-src * data: blob: 'unsafe-inline' 'unsafe-eval';frame-ancestors 'self'")
  dataOf(await admin(app, 'PUT', '/admin/games/demo/gamejolt', {}))
  const sources = "* data: blob: 'unsafe-inline' 'unsafe-eval'"
  const gamejolt = 'https://api.gamejolt.com http://api.gamejolt.com https://gamejolt.com http://gamejolt.com'
  for (const path of ['/games/demo/', '/games/demo/game.js']) {
    const overHttp = await get(app, path)
    t.equal(overHttp.statusCode, 200)
    t.equal(overHttp.headers['content-security-policy'], `default-src ${sources};frame-ancestors 'self';connect-src ${sources} ${gamejolt}`, `${path} over http: no upgrade (it would break localhost)`)
    t.equal(overHttp.headers['referrer-policy'], 'no-referrer', 'the token in the address never leaves in a Referer')
    const overHttps = await app.inject({ method: 'GET', url: path, headers: { 'x-forwarded-proto': 'https' } })
    t.equal(overHttps.headers['content-security-policy'], `default-src ${sources};frame-ancestors 'self';connect-src ${sources} ${gamejolt};upgrade-insecure-requests`, `${path} over https: an http:// build's calls upgraded, not blocked`)
  }
  t.equal((await get(app, '/games/demo/nothing-here.js')).json().error, 'not_found')
  t.equal(redactUrl('/games/demo/?gjapi_username=ann&gjapi_token=abc123'), '/games/demo/?gjapi_username=ann&gjapi_token=[redacted]', 'the token never reaches a log')
})
