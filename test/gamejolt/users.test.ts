import t from 'tap'
import type { LightMyRequestResponse } from 'fastify'
import { admin, buildTestApp, createGame, dataOf, errorOf, formBody } from '../helpers/app.js'
import { gamejolt, type Link } from '../helpers/gamejolt.js'

/*
 * Game Jolt names a player by username and user_token
 * (docs/gamejolt.md#players-and-tokens): every user can have a game token
 * (made by an operator, or by the player), and an integer user_id.
 */

const STRONG = 'correct horse battery staple'

function cookieOf (answer: LightMyRequestResponse): string {
  const header = answer.headers['set-cookie']
  return ((Array.isArray(header) ? header[0] : header) ?? '').split(';')[0] as string
}

t.test('an operator gives a user a game token; Game Jolt\'s users/auth takes it, in any letter case', async t => {
  const { app } = await buildTestApp(t)
  const game = await createGame(app)
  const link = dataOf(await admin(app, 'PUT', `/admin/games/${game.gameId}/gamejolt`, {})) as Link
  dataOf(await admin(app, 'POST', '/admin/users', { username: 'Ann.Lee', password: STRONG }))
  const noUser = { success: 'false', message: 'No such user with the credentials passed in could be found.' }
  t.same(await gamejolt(app, link, 'users/auth', { username: 'Ann.Lee', user_token: 'anything' }), noUser, 'a user without a token cannot be named')

  const made = dataOf(await admin(app, 'POST', '/admin/users/Ann.Lee/game-token', {}))
  t.equal(made.username, 'Ann.Lee')
  t.match(made.game_token, /^[a-z2-7]{26}$/, 'a lowercase token, safe in a URL unencoded')
  const token = made.game_token as string
  t.same(await gamejolt(app, link, 'users/auth', { username: 'Ann.Lee', user_token: token }), { success: 'true' }, 'a bare success')
  t.same(await gamejolt(app, link, 'users/auth', { username: 'ann.lee', user_token: token }), { success: 'true' }, 'the username in another case (gj-unity-api lowercases it)')
  t.same(await gamejolt(app, link, 'users/auth', { username: 'ANN.LEE', user_token: token.toUpperCase() }), { success: 'true' }, 'the token in capitals too')
  t.same(await gamejolt(app, link, 'users/auth', { username: 'Ann.Lee', user_token: `${token}x` }), noUser, 'a wrong token')
  t.same(await gamejolt(app, link, 'users/auth', { username: 'Bob', user_token: token }), noUser, 'another name')
  t.same(await gamejolt(app, link, 'users/auth', { username: 'Ann.Lee' }), noUser, 'no token')
  t.same(await gamejolt(app, link, 'users/auth', { user_token: token }), noUser, 'no username')
  t.same(await gamejolt(app, link, 'users/auth', { username: 'Ann Lee!', user_token: token }), noUser, 'a name no user could have')

  const next = dataOf(await admin(app, 'POST', '/admin/users/Ann.Lee/game-token', {})).game_token as string
  t.not(next, token, 'a new token')
  t.same(await gamejolt(app, link, 'users/auth', { username: 'Ann.Lee', user_token: token }), noUser, 'the old one stops at once')
  t.same(await gamejolt(app, link, 'users/auth', { username: 'Ann.Lee', user_token: next }), { success: 'true' })
  t.equal(errorOf(await admin(app, 'POST', '/admin/users/nobody/game-token', {})), 'not_found')

  const audit = dataOf(await admin(app, 'GET', '/admin/audit?action=user.game_token')).items as Array<{ after: Record<string, unknown> }>
  t.equal(audit.length, 2, 'each token audited')
  t.equal(audit[0]?.after.game_token, '(masked)', 'the token masked')
})

t.test('a player reads their game token (made the first time) and makes a new one', async t => {
  const { app } = await buildTestApp(t)
  const game = await createGame(app)
  const link = dataOf(await admin(app, 'PUT', `/admin/games/${game.gameId}/gamejolt`, {})) as Link
  dataOf(await admin(app, 'POST', '/admin/users', { username: 'cara', password: STRONG }))
  const cookie = cookieOf(await app.inject({ method: 'POST', url: '/auth/login', payload: formBody({ username: 'cara', password: STRONG }), headers: { 'content-type': 'application/x-www-form-urlencoded' } }))
  t.equal(errorOf(await app.inject({ method: 'GET', url: '/auth/game-token' })), 'not_logged_in')
  const first = dataOf(await app.inject({ method: 'GET', url: '/auth/game-token', headers: { cookie } }))
  t.equal(first.username, 'cara')
  t.match(first.game_token, /^[a-z2-7]{26}$/)
  t.same(dataOf(await app.inject({ method: 'GET', url: '/auth/game-token', headers: { cookie } })), first, 'the same one when read again')
  t.same(await gamejolt(app, link, 'users/auth', { username: 'cara', user_token: first.game_token }), { success: 'true' })
  const made = dataOf(await app.inject({ method: 'POST', url: '/auth/game-token', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload: '' }))
  t.not(made.game_token, first.game_token, 'a new one')
  t.equal((await gamejolt(app, link, 'users/auth', { username: 'cara', user_token: first.game_token })).success, 'false', 'the old one stops')
  t.equal(errorOf(await app.inject({ method: 'POST', url: '/auth/game-token', headers: { cookie, origin: 'https://evil.example' } })), 'forbidden_origin', 'another site cannot make one')
})

t.test('users (fetch): by username or user_id, comma lists, each with a stable integer id', async t => {
  const { app } = await buildTestApp(t)
  const game = await createGame(app, { developer: 'dev' })
  const link = dataOf(await admin(app, 'PUT', `/admin/games/${game.gameId}/gamejolt`, {})) as Link
  for (const username of ['dev', 'eve']) dataOf(await admin(app, 'POST', '/admin/users', { username, password: STRONG }))
  const one = await gamejolt(app, link, 'users', { username: 'EVE' })
  t.equal(one.success, 'true')
  t.equal(one.users.length, 1)
  const eve = one.users[0]
  t.match(eve, { type: 'User', username: 'eve', avatar_url: '', status: 'Active', developer_name: 'eve', developer_website: '', developer_description: '', last_logged_in: '', last_logged_in_timestamp: 0 })
  t.match(eve.id, /^[1-9]\d*$/, 'an integer id, as text')
  t.equal(typeof eve.signed_up_timestamp, 'number', 'timestamps are numbers')
  t.ok(Math.abs(eve.signed_up_timestamp - Date.now() / 1000) < 60)
  t.match(eve.signed_up, /^\d+ seconds? ago$/, 'when, in Game Jolt\'s words')

  const both = await gamejolt(app, link, 'users', { username: 'eve,dev,nobody' })
  t.same(both.users.map((user: { username: string }) => user.username), ['eve', 'dev'], 'in the order asked, unknown ones left out')
  t.equal(both.users[1].type, 'Developer', 'the game\'s developer')
  t.equal(both.users[0].id, eve.id, 'the same id each time')
  const byId = await gamejolt(app, link, 'users', { user_id: `${both.users[1].id as string},${eve.id as string}` })
  t.same(byId.users.map((user: { username: string }) => user.username), ['dev', 'eve'], 'by user_id')
  t.same(await gamejolt(app, link, 'users', { username: 'nobody' }), { success: 'false', message: 'No such user could be found.' })
  t.same(await gamejolt(app, link, 'users', { user_id: '999999,abc,-1' }), { success: 'false', message: 'No such user could be found.' })
  t.same(await gamejolt(app, link, 'users', {}), { success: 'false', message: 'You must enter in a user ID or username.' })
})
