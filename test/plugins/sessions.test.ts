import t from 'tap'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { buildApp } from '../../src/app.js'
import { runCli } from '../../src/cli.js'
import { keys } from '../../src/store/keys.js'
import { MAX_SESSIONS_PER_USER } from '../../src/store/users.js'
import { admin, buildTestApp, createGame, dataOf, errorOf, formBody } from '../helpers/app.js'

/*
 * Item 4 of the hardening issue: sessions end when they should. Sessions are
 * indexed per user; an operator lists them and ends them all (HTTP and CLI);
 * a new password ends them; every instance stops honouring them at once.
 */

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/
const { app, redis, config } = await buildTestApp(t)
const game = await createGame(app)

async function login (username: string, password: string, on: FastifyInstance = app): Promise<string> {
  const response = await on.inject({ method: 'POST', url: '/auth/login', payload: formBody({ username, password }), headers: { 'content-type': 'application/x-www-form-urlencoded' } })
  const header = response.headers['set-cookie']
  const line = Array.isArray(header) ? header[0] : header
  if (line === undefined) throw new Error(`login failed: ${response.body}`)
  return line.split(';', 1)[0]!
}

async function meSelf (cookie: string, on: FastifyInstance = app): Promise<LightMyRequestResponse> {
  return await on.inject({ method: 'GET', url: `/api/rank?action=me-self&game_id=${game.gameId}`, headers: { cookie } })
}

async function cli (argv: string[]): Promise<{ code: number, out: string, err: string }> {
  let out = ''
  let err = ''
  const code = await runCli(argv, { out: line => { out += line }, err: line => { err += line }, env: { REDIS_URL: redis.url }, readLine: async () => '' })
  return { code, out, err }
}

t.test('an operator lists a user\'s sessions and ends them all', async t => {
  dataOf(await admin(app, 'POST', '/admin/users', { username: 'ana', password: 'pw-ana' }))
  const phone = await login('ana', 'pw-ana')
  const laptop = await login('ana', 'pw-ana')
  const platform = dataOf(await admin(app, 'POST', '/admin/sessions', { username: 'ana' }))
  const listed = dataOf(await admin(app, 'GET', '/admin/users/ana/sessions'))
  t.equal(listed.username, 'ana')
  t.equal(listed.sessions.length, 3, 'two logins and one made by the operator API')
  for (const session of listed.sessions) {
    t.match(session.expires_at, ISO_MS)
    t.same(Object.keys(session), ['expires_at'], 'no session id is shown')
  }
  t.notOk(JSON.stringify(listed).includes(platform.session_id))
  t.equal(dataOf(await meSelf(phone)).player_name, 'ana')

  t.same(dataOf(await admin(app, 'DELETE', '/admin/users/ana/sessions')), { ended: 3 })
  for (const cookie of [phone, laptop, `sid=${platform.session_id as string}`]) t.equal(errorOf(await meSelf(cookie)), 'not_logged_in')
  t.same(dataOf(await admin(app, 'GET', '/admin/users/ana/sessions')).sessions, [])
  t.same(dataOf(await admin(app, 'DELETE', '/admin/users/ana/sessions')), { ended: 0 }, 'ending none is fine')
  t.equal(await app.redis.exists(keys.userSessions('ana')), 0, 'the index is gone with its sessions')
})

t.test('a new password ends the user\'s sessions; the new password logs in', async t => {
  dataOf(await admin(app, 'POST', '/admin/users', { username: 'bo', password: 'old-pw' }))
  const before = await login('bo', 'old-pw')
  dataOf(await admin(app, 'PATCH', '/admin/users/bo', { is_admin: true }))
  t.equal(dataOf(await meSelf(before)).is_admin_record, true, 'other changes keep the session')
  dataOf(await admin(app, 'PATCH', '/admin/users/bo', { password: 'new-pw' }))
  t.equal(errorOf(await meSelf(before)), 'not_logged_in', 'the old session is over')
  const after = await login('bo', 'new-pw')
  t.equal(dataOf(await meSelf(after)).player_name, 'bo')
})

t.test('logout and DELETE /admin/sessions/:id take the session out of the index', async t => {
  dataOf(await admin(app, 'POST', '/admin/users', { username: 'cy', password: 'pw' }))
  const first = await login('cy', 'pw')
  await login('cy', 'pw')
  const made = dataOf(await admin(app, 'POST', '/admin/sessions', { username: 'cy' }))
  t.equal(dataOf(await admin(app, 'GET', '/admin/users/cy/sessions')).sessions.length, 3)
  await app.inject({ method: 'POST', url: '/auth/logout', payload: '', headers: { cookie: first, 'content-type': 'application/x-www-form-urlencoded' } })
  t.equal(dataOf(await admin(app, 'GET', '/admin/users/cy/sessions')).sessions.length, 2)
  dataOf(await admin(app, 'DELETE', `/admin/sessions/${made.session_id as string}`))
  t.equal(dataOf(await admin(app, 'GET', '/admin/users/cy/sessions')).sessions.length, 1)
})

t.test(`a user keeps at most ${MAX_SESSIONS_PER_USER} sessions: a new one ends the oldest, on every instance`, async t => {
  const other = await buildApp(config)
  t.teardown(async () => { await other.close() })
  dataOf(await admin(app, 'POST', '/admin/users', { username: 'many', password: 'pw-many' }))
  const first = await login('many', 'pw-many')
  t.equal(dataOf(await meSelf(first, other)).player_name, 'many', 'the other instance has cached the first session')
  const made: string[] = [first]
  // Operator-made sessions are sessions like any (and cost no password hash).
  for (let i = 1; i < MAX_SESSIONS_PER_USER + 5; i++) made.push(`sid=${dataOf(await admin(app, 'POST', '/admin/sessions', { username: 'many' })).session_id as string}`)
  t.equal(dataOf(await admin(app, 'GET', '/admin/users/many/sessions')).sessions.length, MAX_SESSIONS_PER_USER, 'the index holds the cap')
  t.equal(await app.redis.zcard(keys.userSessions('many')), MAX_SESSIONS_PER_USER)
  await other.syncRecordCache()
  for (const [index, cookie] of made.entries()) {
    const answer = await meSelf(cookie, index % 2 === 0 ? app : other)
    if (index < 5) t.equal(errorOf(answer), 'not_logged_in', `session ${index + 1}, among the 5 oldest, is over`)
    else t.equal(dataOf(answer).player_name, 'many', `session ${index + 1} goes on`)
  }
  const newest = await login('many', 'pw-many')
  t.equal(dataOf(await meSelf(newest)).player_name, 'many', 'a login past the cap works')
  t.equal(errorOf(await meSelf(made[5] as string)), 'not_logged_in', 'and ends the oldest left')
})

t.test('not_found for an unknown user; unauthorized without the token', async t => {
  t.equal(errorOf(await admin(app, 'GET', '/admin/users/nobody/sessions')), 'not_found')
  t.equal(errorOf(await admin(app, 'DELETE', '/admin/users/nobody/sessions')), 'not_found')
  t.equal(errorOf(await app.inject({ method: 'DELETE', url: '/admin/users/cy/sessions' })), 'unauthorized')
})

t.test('every instance stops honouring ended sessions, also ones it had cached', async t => {
  const other = await buildApp(config)
  t.teardown(async () => { await other.close() })
  dataOf(await admin(app, 'POST', '/admin/users', { username: 'di', password: 'pw' }))
  const cookie = await login('di', 'pw')
  t.equal(dataOf(await meSelf(cookie, other)).player_name, 'di', 'the other instance has cached the session')
  t.same(dataOf(await admin(app, 'DELETE', '/admin/users/di/sessions')), { ended: 1 })
  await other.syncRecordCache()
  t.equal(errorOf(await meSelf(cookie, other)), 'not_logged_in')
})

t.test('the CLI lists and ends a user\'s sessions, and a password set there ends them too', async t => {
  dataOf(await admin(app, 'POST', '/admin/users', { username: 'ed', password: 'pw' }))
  const first = await login('ed', 'pw')
  await login('ed', 'pw')
  const listed = await cli(['sessions', 'list', 'ed'])
  t.equal(listed.code, 0)
  t.equal(JSON.parse(listed.out).sessions.length, 2)
  const ended = await cli(['sessions', 'end', 'ed'])
  t.equal(ended.code, 0, ended.err)
  t.same(JSON.parse(ended.out), { ended: 2 })
  await app.syncRecordCache()
  t.equal(errorOf(await meSelf(first)), 'not_logged_in')

  const again = await login('ed', 'pw')
  t.equal((await cli(['users', 'update', 'ed', '--password', 'changed'])).code, 0)
  await app.syncRecordCache()
  t.equal(errorOf(await meSelf(again)), 'not_logged_in', 'a password set by the CLI ends the session')
  t.equal((await cli(['sessions', 'end', 'nobody'])).code, 1, 'an unknown user fails')
})

t.test('a login that read the user before its sessions were ended makes a session that is already over', async t => {
  dataOf(await admin(app, 'POST', '/admin/users', { username: 'fay', password: 'old' }))
  // The race of a login checking the old password while the operator sets a new one:
  // the login read the user record (and its session epoch) before the change...
  const readBefore = await app.users.user('fay')
  dataOf(await admin(app, 'PATCH', '/admin/users/fay', { password: 'new' }))
  // ...and stores its session after the change ended every session.
  const late = await app.users.createSession(readBefore!, 60)
  t.equal(errorOf(await meSelf(`sid=${late.sessionId}`)), 'not_logged_in', 'the late session is over')
  const fresh = await login('fay', 'new')
  t.equal(dataOf(await meSelf(fresh)).player_name, 'fay', 'a login after the change works')
})

t.test('sessions made before sessions were indexed are ended too', async t => {
  dataOf(await admin(app, 'POST', '/admin/users', { username: 'gus', password: 'pw' }))
  // A user and a session record as the previous version wrote them: no session epoch (0), and the bare username, in no index.
  await app.redis.hdel(keys.user('gus'), 'session_epoch')
  const legacy = 'L'.repeat(43)
  await app.redis.set(keys.session(legacy), 'gus', 'EX', 3000)
  t.equal(dataOf(await meSelf(`sid=${legacy}`)).player_name, 'gus', 'it works until its user\'s sessions are ended')
  t.same(dataOf(await admin(app, 'GET', '/admin/users/gus/sessions')).sessions, [], 'it cannot be listed')
  dataOf(await admin(app, 'DELETE', '/admin/users/gus/sessions'))
  t.equal(errorOf(await meSelf(`sid=${legacy}`)), 'not_logged_in', 'ending the user\'s sessions ends it')
  t.equal(dataOf(await admin(app, 'PATCH', '/admin/users/gus', { is_admin: true })).username, 'gus', 'the user record stays whole')
  t.same(Object.keys(dataOf(await admin(app, 'PATCH', '/admin/users/gus', {}))).sort(), ['created_at', 'guest', 'guest_until', 'hidden', 'is_admin', 'sign_in', 'username'], 'the epoch is never shown')
})
