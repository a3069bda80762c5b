import t from 'tap'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { solveChallenge, type Challenge } from 'altcha-lib'
import { deriveKey } from 'altcha-lib/algorithms/pbkdf2'
import { SignJWT } from 'jose'
import { admin, buildTestApp, createGame, dataOf, errorOf, formBody, submit } from '../../helpers/app.js'
import { buildApp } from '../../../src/app.js'
import { keys } from '../../../src/store/keys.js'

/*
 * POST /auth/signup and GET /auth/challenge (docs/interface.md#sign-up): a
 * player makes their own account, behind the operator's SIGNUP switch, limits
 * per address and for everyone, a password-strength check and a proof of
 * work, solved here as the page's widget solves it (altcha-lib).
 */

const STRONG = 'correct horse battery staple'
// One zero hex digit: the proof of work costs the test a few tries, the code path is the same.
const OPEN = { SIGNUP: 'open', SIGNUP_WORK: '1', SIGNUP_ADDRESS_RATE_LIMIT_MAX: '1000', SIGNUP_RATE_LIMIT_MAX: '1000' }

async function challengeOf (app: FastifyInstance, address = '127.0.0.1'): Promise<Challenge> {
  const answer = await app.inject({ method: 'GET', url: '/auth/challenge', remoteAddress: address })
  return dataOf(answer).challenge as Challenge
}

/** The payload the ALTCHA widget sends: base64 JSON of the challenge and its solution. */
async function solved (app: FastifyInstance, address = '127.0.0.1'): Promise<string> {
  const challenge = await challengeOf(app, address)
  const solution = await solveChallenge({ challenge, deriveKey })
  if (solution === null) throw new Error('no solution found')
  return Buffer.from(JSON.stringify({ challenge, solution })).toString('base64')
}

async function signup (app: FastifyInstance, fields: Record<string, string>, options: { address?: string, headers?: Record<string, string> } = {}): Promise<LightMyRequestResponse> {
  return await app.inject({
    method: 'POST',
    url: '/auth/signup',
    payload: formBody(fields),
    remoteAddress: options.address ?? '127.0.0.1',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...options.headers }
  })
}

function cookieOf (answer: LightMyRequestResponse): string {
  const header = answer.headers['set-cookie']
  const line = Array.isArray(header) ? header[0] : header
  return (line ?? '').split(';')[0] as string
}

t.test('closed unless the operator opens it (SIGNUP), closed by default outside development', async t => {
  const { app } = await buildTestApp(t)
  t.equal(app.config.signup, 'closed')
  t.equal(errorOf(await app.inject({ method: 'GET', url: '/auth/challenge' })), 'forbidden', 'no challenge')
  const answer = await signup(app, { username: 'ann', password: STRONG, altcha: 'x' })
  t.equal(errorOf(answer), 'forbidden')
  t.match(answer.json().message, /Sign-up is closed/)
})

t.test('a sign-up makes the account, logs the player in, and is audited as theirs', async t => {
  const { app } = await buildTestApp(t, OPEN)
  const game = await createGame(app)
  const answer = await signup(app, { username: 'ann', password: STRONG, altcha: await solved(app) })
  t.same(dataOf(answer), { username: 'ann', is_admin: false })
  t.match(answer.headers['cache-control'], /no-store/)
  const cookie = cookieOf(answer)
  t.match(cookie, /^sid=.{20,}/, 'a session cookie')
  // The session plays: a score under the new name.
  const submitted = await app.inject({ method: 'POST', url: '/api/rank?action=submit-self', payload: formBody({ game_id: game.gameId, score: '42' }), headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' } })
  t.match(dataOf(submitted), { score: 42, rank: 1 })
  t.same(dataOf(await admin(app, 'GET', '/admin/users/ann')), { username: 'ann', is_admin: false, hidden: false, guest: false, guest_until: null, sign_in: [{ method: 'password' }], created_at: dataOf(await admin(app, 'GET', '/admin/users/ann')).created_at })
  const audit = dataOf(await admin(app, 'GET', '/admin/audit')).items as Array<Record<string, unknown>>
  t.match(audit.find(entry => entry.action === 'user.create'), { actor: 'player:ann', via: 'http', target: 'ann' }, 'audited as the player')
  t.notMatch(JSON.stringify(audit), /correct horse/, 'the password is never in the log')
  // And logs in again with the password chosen.
  const login = await app.inject({ method: 'POST', url: '/auth/login', payload: formBody({ username: 'ann', password: STRONG }), headers: { 'content-type': 'application/x-www-form-urlencoded' } })
  t.same(dataOf(login), { username: 'ann', is_admin: false })
})

t.test('passwords too easy to guess are refused with a sentence saying why; nothing is made', async t => {
  const { app } = await buildTestApp(t, OPEN)
  const altcha = await solved(app)
  for (const [password, why] of [['short', /at least 8 characters/], ['password1', /easy to guess.*(common|heavily used)/i], ['ann12345', /easy to guess/], ['qwertyuiop', /easy to guess/], ['x'.repeat(200), /easy to guess.*[Rr]epeat/]] as const) {
    const answer = await signup(app, { username: 'ann', password, altcha })
    t.equal(errorOf(answer), 'weak_password', password.slice(0, 20))
    t.match(answer.json().message, why)
  }
  t.equal(errorOf(await admin(app, 'GET', '/admin/users/ann')), 'not_found', 'no account')
  // The proof of work was not spent on a refused password.
  t.same(dataOf(await signup(app, { username: 'ann', password: STRONG, altcha })), { username: 'ann', is_admin: false })
})

t.test('hostile fields: names, huge passwords, repeated fields, credentials in the URL, another origin', async t => {
  const { app } = await buildTestApp(t, OPEN)
  const altcha = await solved(app)
  for (const username of ['', 'a'.repeat(31), 'ann smith', 'ann\u0000', 'zoë', '../ann']) {
    const answer = await signup(app, { username, password: STRONG, altcha })
    t.equal(errorOf(answer), username === '' ? 'missing_param' : 'invalid_param', JSON.stringify(username))
  }
  t.equal(errorOf(await signup(app, { username: 'ann', password: 'Zx9!'.repeat(300), altcha })), 'invalid_param', 'a password over 1024 characters')
  t.equal(errorOf(await signup(app, { username: 'ann', password: 'a'.repeat(20_000), altcha })), 'payload_too_large', 'a body over BODY_LIMIT')
  const repeated = await app.inject({ method: 'POST', url: '/auth/signup', payload: `username=ann&username=bob&password=${encodeURIComponent(STRONG)}&altcha=${encodeURIComponent(altcha)}`, headers: { 'content-type': 'application/x-www-form-urlencoded' } })
  t.equal(errorOf(repeated), 'invalid_param', 'a field sent twice')
  const inUrl = await app.inject({ method: 'POST', url: `/auth/signup?password=${encodeURIComponent(STRONG)}`, payload: formBody({ username: 'ann', altcha }), headers: { 'content-type': 'application/x-www-form-urlencoded' } })
  t.equal(errorOf(inUrl), 'invalid_param', 'a password in the URL')
  t.equal(errorOf(await signup(app, { username: 'ann', password: STRONG, altcha }, { headers: { origin: 'https://evil.example' } })), 'forbidden_origin')
  t.equal(errorOf(await admin(app, 'GET', '/admin/users/ann')), 'not_found', 'nothing was made')
  // A name that is an object's property in JavaScript is only a name.
  const proto = await signup(app, { username: '__proto__', password: STRONG, altcha })
  t.same(dataOf(proto), { username: '__proto__', is_admin: false })
  t.equal(dataOf(await admin(app, 'GET', '/admin/users/__proto__')).username, '__proto__')
})

t.test('the proof of work: missing, garbage, tampered, expired or used twice is invalid_challenge, and makes nothing', async t => {
  const { app } = await buildTestApp(t, OPEN)
  t.equal(errorOf(await signup(app, { username: 'ann', password: STRONG })), 'missing_param')
  const challenge = await challengeOf(app)
  t.match(challenge, { parameters: { algorithm: 'PBKDF2/SHA-256', keyPrefix: '0', expiresAt: Number }, signature: String })
  const solution = await solveChallenge({ challenge, deriveKey })
  const encode = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64')
  const unsolved = { challenge, solution: { counter: ((solution?.counter ?? 0) + 1), derivedKey: 'ff'.repeat(32) } }
  const easier = { challenge: { ...challenge, parameters: { ...challenge.parameters, keyPrefix: 'f' } }, solution }
  const later = { challenge: { ...challenge, parameters: { ...challenge.parameters, expiresAt: (challenge.parameters.expiresAt ?? 0) + 3600 } }, solution }
  const hostile = [
    'not base64 json', encode('a string'), encode({ challenge: null, solution }), encode({ __proto__: { challenge }, solution }),
    encode({ challenge: { ...challenge, parameters: { ...challenge.parameters, cost: 1e12 } }, solution }),
    encode(unsolved), encode(easier), encode(later), 'A'.repeat(5000)
  ]
  for (const altcha of hostile) {
    t.equal(errorOf(await signup(app, { username: 'ann', password: STRONG, altcha })), 'invalid_challenge', altcha.slice(0, 40))
  }
  t.equal(errorOf(await admin(app, 'GET', '/admin/users/ann')), 'not_found', 'nothing was made')
  const good = encode({ challenge, solution })
  t.same(dataOf(await signup(app, { username: 'ann', password: STRONG, altcha: good })), { username: 'ann', is_admin: false })
  const again = await signup(app, { username: 'bob', password: STRONG, altcha: good })
  t.equal(errorOf(again), 'invalid_challenge', 'one proof of work buys one account')
  t.match(again.json().message, /used already/)
  t.equal(errorOf(await admin(app, 'GET', '/admin/users/bob')), 'not_found')
})

t.test('a taken name is already_exists before the proof of work is spent', async t => {
  const { app } = await buildTestApp(t, OPEN)
  t.ok(dataOf(await signup(app, { username: 'ann', password: STRONG, altcha: await solved(app) })))
  const altcha = await solved(app)
  t.equal(errorOf(await signup(app, { username: 'ann', password: 'another horse battery staple', altcha })), 'already_exists')
  t.same(dataOf(await signup(app, { username: 'bob', password: STRONG, altcha })), { username: 'bob', is_admin: false })
})

t.test('names that differ only in letter case are one name: sign-up, operators and a platform\'s token take none of them (docs/security.md, "Names")', async t => {
  const SECRET = 'a-shared-secret-of-at-least-32-characters!'
  const { app, config } = await buildTestApp(t, { ...OPEN, TOKEN_SIGNIN_ISSUER: 'https://platform.example', TOKEN_SIGNIN_SECRET: SECRET })
  dataOf(await admin(app, 'POST', '/admin/users', { username: 'Victim', password: STRONG }))
  const altcha = await solved(app)
  for (const name of ['victim', 'VICTIM', 'vIcTiM']) {
    t.equal(errorOf(await signup(app, { username: name, password: STRONG, altcha })), 'already_exists', `sign-up as ${name}`)
    const made = await admin(app, 'POST', '/admin/users', { username: name, password: STRONG })
    t.equal(errorOf(made), 'already_exists', `operators make ${name}`)
    t.match(made.json().message, /user "Victim" has it, and names that differ only in letter case are one name/)
  }
  // A platform's player named VICTIM gets the next free name, as for a name taken exactly.
  const token = await new SignJWT({ name: 'VICTIM', jti: 'j-1' }).setProtectedHeader({ alg: 'HS256' }).setSubject('p-1').setIssuer('https://platform.example')
    .setAudience('ranking-service').setIssuedAt().setExpirationTime('5m').sign(new TextEncoder().encode(SECRET))
  const signedIn = await app.inject({ method: 'POST', url: '/auth/token', payload: formBody({ token }), headers: { 'content-type': 'application/x-www-form-urlencoded' } })
  t.equal(dataOf(signedIn).username, 'VICTIM-2')
  t.same(dataOf(await signup(app, { username: 'victim2', password: STRONG, altcha })), { username: 'victim2', is_admin: false }, 'another name is free, and the proof of work was not spent')

  // Many at once, each in another letter case: one is made.
  const racing = await Promise.all(['racer', 'Racer', 'RACER', 'rAcer', 'raCer', 'racEr'].map(async username => await admin(app, 'POST', '/admin/users', { username, password: STRONG })))
  t.equal(racing.filter(answer => answer.json().ok === true).length, 1, 'one of six made')
  t.equal(dataOf(await admin(app, 'GET', '/admin/users?prefix=r')).items.length + dataOf(await admin(app, 'GET', '/admin/users?prefix=R')).items.length, 1, 'and one listed')

  // Erased, the name is free again, in any case.
  dataOf(await admin(app, 'DELETE', '/admin/users/Victim?erase=true'))
  t.match(dataOf(await admin(app, 'POST', '/admin/users', { username: 'VICTIM', password: STRONG })), { username: 'VICTIM' })

  // Users made before the rule keep their names, both of them; no new one joins them.
  for (const name of ['Legacy', 'LEGACY']) {
    await app.redis.hset(keys.user(name), 'password', '', 'is_admin', '0', 'hidden', '0', 'created_at', new Date().toISOString(), 'session_epoch', '0')
    await app.redis.sadd(keys.users(), name)
  }
  await app.redis.del(keys.usernameFoldsFilled())
  const later = await buildApp(config)
  t.teardown(async () => { await later.close() })
  t.equal(errorOf(await admin(later, 'POST', '/admin/users', { username: 'legacy', password: STRONG })), 'already_exists', 'a third is refused')
  for (const name of ['Legacy', 'LEGACY']) t.match(dataOf(await admin(later, 'GET', `/admin/users/${name}`)), { username: name }, `${name} stays as it was`)
})

t.test('a name that is an API-key player\'s in any game cannot be taken: the account would own their scores', async t => {
  const { app } = await buildTestApp(t, OPEN)
  const game = await createGame(app)
  const other = await createGame(app)
  dataOf(await submit(app, game, { player: 'topplayer', score: 900 }))
  dataOf(await submit(app, other, { player: 'lastseason', score: 10 }))
  dataOf(await admin(app, 'POST', `/admin/games/${other.gameId}/seasons`, {}))
  dataOf(await submit(app, game, { player: 'banned', score: 5 }))
  dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}/players/banned`, { hidden: true }))
  dataOf(await admin(app, 'PATCH', `/admin/games/${other.gameId}`, { review_above: 1000 }))
  t.equal(dataOf(await submit(app, other, { player: 'heldonly', score: 5000 })).held, true)
  const altcha = await solved(app)
  for (const name of ['topplayer', 'lastseason', 'banned', 'heldonly']) {
    const answer = await signup(app, { username: name, password: STRONG, altcha })
    t.equal(errorOf(answer), 'already_exists', `${name}: on a board now, in a closed season, hidden, or with a held score only`)
  }
  t.equal(dataOf(await submit(app, game, { player: 'topplayer', score: 901 })).best_score, 901, 'and the player\'s scores are untouched')
  t.same(dataOf(await signup(app, { username: 'newname', password: STRONG, altcha })), { username: 'newname', is_admin: false }, 'the proof of work was not spent')
})

t.test('limits: per address (an IPv6 /64 counts as one), then every sign-up together', async t => {
  const { app } = await buildTestApp(t, { ...OPEN, SIGNUP_ADDRESS_RATE_LIMIT_MAX: '2', SIGNUP_RATE_LIMIT_MAX: '4' })
  const made: string[] = []
  const tryAs = async (name: string, address: string): Promise<string> => {
    const answer = await signup(app, { username: name, password: STRONG, altcha: await solved(app, address) }, { address })
    if (answer.json().ok !== true) return errorOf(answer)
    made.push(name)
    return 'ok'
  }
  t.equal(await tryAs('a1', '2001:db8:1:1::1'), 'ok')
  t.equal(await tryAs('a2', '2001:db8:1:1::2'), 'ok')
  const over = await signup(app, { username: 'a3', password: STRONG, altcha: await solved(app, '2001:db8:1:1::3') }, { address: '2001:db8:1:1::3' })
  t.equal(errorOf(over), 'rate_limited', 'a third from the same /64')
  t.ok(Number(over.headers['retry-after']) > 60, 'retry after up to an hour')
  t.equal(await tryAs('b1', '198.51.100.1'), 'ok')
  t.equal(await tryAs('c1', '198.51.100.2'), 'ok')
  t.equal(await tryAs('d1', '198.51.100.3'), 'rate_limited', 'a fifth within the minute, from anywhere')
  t.same(made, ['a1', 'a2', 'b1', 'c1'])
})

t.test('unsolved attempts from many addresses do not use up the limit for everyone', async t => {
  const { app } = await buildTestApp(t, { ...OPEN, SIGNUP_RATE_LIMIT_MAX: '2' })
  for (let i = 1; i <= 6; i++) {
    const address = `203.0.113.${i}`
    t.equal(errorOf(await signup(app, { username: `bot${i}`, password: STRONG, altcha: 'garbage' }, { address })), 'invalid_challenge', `an unsolved attempt from ${address}`)
  }
  t.same(dataOf(await signup(app, { username: 'ann', password: STRONG, altcha: await solved(app) })), { username: 'ann', is_admin: false }, 'a real sign-up still goes through')
})
