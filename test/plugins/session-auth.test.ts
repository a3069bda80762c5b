import t from 'tap'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { PASSWORD_CHECKS_IN_FLIGHT, passwordChecksInFlight } from '../../src/store/passwords.js'
import { admin, buildTestApp, createGame, dataOf, errorOf, formBody, expectError } from '../helpers/app.js'

/*
 * Login sessions (docs/interface.md#sessions-and-login): POST /auth/login and
 * /auth/logout, the session cookie, the Origin check, the login rate limit,
 * and the session routes of the operator API.
 */

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/
const BASE64URL_ID = /^[A-Za-z0-9_-]{22,}$/
const JSON_TYPE = 'application/json; charset=utf-8'

type Headers = Record<string, string>

let counter = 0
function newName (prefix: string): string {
  return `${prefix}${++counter}`
}

async function createUser (app: FastifyInstance, username: string, options: { password?: string, is_admin?: boolean, hidden?: boolean } = {}): Promise<any> {
  const body: Record<string, unknown> = { username, is_admin: options.is_admin ?? false, hidden: options.hidden ?? false }
  if (options.password !== undefined) body.password = options.password
  return dataOf(await admin(app, 'POST', '/admin/users', body))
}

async function login (app: FastifyInstance, fields: Record<string, string>, headers: Headers = {}, remoteAddress?: string): Promise<LightMyRequestResponse> {
  return await app.inject({
    method: 'POST',
    url: '/auth/login',
    payload: formBody(fields),
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    ...(remoteAddress === undefined ? {} : { remoteAddress })
  })
}

async function logout (app: FastifyInstance, headers: Headers = {}): Promise<LightMyRequestResponse> {
  return await app.inject({ method: 'POST', url: '/auth/logout', payload: '', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers } })
}

/** The Set-Cookie header lines of a response. */
function setCookies (response: LightMyRequestResponse): string[] {
  const header = response.headers['set-cookie']
  if (header === undefined) return []
  return Array.isArray(header) ? header : [header]
}

interface ParsedCookie { name: string, value: string, attributes: string[] }

function parseSetCookie (line: string): ParsedCookie {
  const [pair = '', ...attributes] = line.split(';').map(part => part.trim())
  const eq = pair.indexOf('=')
  return { name: pair.slice(0, eq), value: pair.slice(eq + 1), attributes }
}

function hasAttribute (cookie: ParsedCookie, name: string): boolean {
  return cookie.attributes.some(attribute => attribute.toLowerCase() === name.toLowerCase())
}

function attributeValue (cookie: ParsedCookie, name: string): string | undefined {
  const found = cookie.attributes.find(attribute => attribute.toLowerCase().startsWith(`${name.toLowerCase()}=`))
  return found?.slice(name.length + 1)
}

/** The one session cookie a successful login sets, as `name=value` for a Cookie header. */
function sessionCookieOf (response: LightMyRequestResponse, name = 'sid'): string {
  const cookies = setCookies(response).map(parseSetCookie).filter(cookie => cookie.name === name)
  if (cookies.length !== 1) throw new Error(`expected one ${name} cookie, got ${JSON.stringify(response.headers['set-cookie'])}`)
  return `${name}=${cookies[0]!.value}`
}

async function meSelf (app: FastifyInstance, gameId: string, cookie?: string): Promise<LightMyRequestResponse> {
  return await app.inject({ method: 'GET', url: `/api/rank?action=me-self&game_id=${gameId}`, headers: cookie === undefined ? {} : { cookie } })
}

const { app } = await buildTestApp(t)
const game = await createGame(app)

t.test('POST /auth/login answers {username, is_admin} and sets an HttpOnly, SameSite=Lax, Path=/ cookie without Secure', async t => {
  const name = newName('login_ok_')
  await createUser(app, name, { password: 'correct horse' })
  const res = await login(app, { username: name, password: 'correct horse' })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-type'], JSON_TYPE)
  t.same(res.json(), { ok: true, data: { username: name, is_admin: false } })

  const lines = setCookies(res)
  t.equal(lines.length, 1, 'one Set-Cookie')
  const cookie = parseSetCookie(lines[0]!)
  t.equal(cookie.name, 'sid')
  t.ok(hasAttribute(cookie, 'HttpOnly'), 'HttpOnly')
  t.equal(attributeValue(cookie, 'SameSite'), 'Lax')
  t.equal(attributeValue(cookie, 'Path'), '/')
  t.notOk(hasAttribute(cookie, 'Secure'), 'no Secure outside production')

  // Opaque, at least 128 random bits: >= 22 base64url characters, not derived from the name.
  t.match(cookie.value, BASE64URL_ID)
  t.ok(Buffer.from(cookie.value, 'base64url').length >= 16, 'at least 16 bytes')
  t.notOk(cookie.value.includes(name), 'the id does not contain the username')
  const second = parseSetCookie(setCookies(await login(app, { username: name, password: 'correct horse' }))[0]!)
  t.not(second.value, cookie.value, 'each login gets a new id')

  // The session record lives in Redis with the default TTL of 30 days and names the user (and the user's session epoch).
  // A new user's epoch is the time it was made, so no session of an earlier user of that name reaches it.
  t.match(await app.redis.get(`rank:session:{${cookie.value}}`), new RegExp(`^\\d{13}:${name}$`))
  const ttl = await app.redis.ttl(`rank:session:{${cookie.value}}`)
  t.ok(ttl > 2592000 - 10 && ttl <= 2592000, `TTL ${ttl} is 30 days`)

  // The cookie works on session endpoints.
  t.same(dataOf(await meSelf(app, game.gameId, `sid=${cookie.value}`)), {
    player_name: name, best_score: null, rank: null, total_players: 0, is_dev_record: false, is_admin_record: false
  })
})

t.test('an admin user logs in with is_admin true', async t => {
  const name = newName('login_admin_')
  await createUser(app, name, { password: 'pw', is_admin: true })
  const res = await login(app, { username: name, password: 'pw' })
  t.same(res.json(), { ok: true, data: { username: name, is_admin: true } })
  t.equal(dataOf(await meSelf(app, game.gameId, sessionCookieOf(res))).is_admin_record, true)
})

t.test('multipart login works like form-encoded', async t => {
  const name = newName('login_mp_')
  await createUser(app, name, { password: 'pw-mp' })
  const boundary = '----testboundary123'
  const payload = `--${boundary}\r\nContent-Disposition: form-data; name="username"\r\n\r\n${name}\r\n--${boundary}\r\nContent-Disposition: form-data; name="password"\r\n\r\npw-mp\r\n--${boundary}--\r\n`
  const res = await app.inject({ method: 'POST', url: '/auth/login', payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } })
  t.same(res.json(), { ok: true, data: { username: name, is_admin: false } })
})

t.test('the cookie is Secure in production', { timeout: 30_000 }, async t => {
  const prod = await buildTestApp(t, { NODE_ENV: 'production', LOG_LEVEL: 'silent' })
  await createUser(prod.app, 'produser', { password: 'pw' })
  const res = await login(prod.app, { username: 'produser', password: 'pw' })
  t.same(res.json(), { ok: true, data: { username: 'produser', is_admin: false } })
  const cookie = parseSetCookie(setCookies(res)[0]!)
  t.equal(cookie.name, 'sid')
  t.ok(hasAttribute(cookie, 'Secure'), 'Secure')
  t.ok(hasAttribute(cookie, 'HttpOnly'), 'HttpOnly')
  t.equal(attributeValue(cookie, 'SameSite'), 'Lax')
  t.equal(attributeValue(cookie, 'Path'), '/')
})

t.test('SESSION_COOKIE names the cookie', { timeout: 30_000 }, async t => {
  const other = await buildTestApp(t, { SESSION_COOKIE: 'game_sid' })
  const g = await createGame(other.app)
  await createUser(other.app, 'cookieuser', { password: 'pw' })
  const res = await login(other.app, { username: 'cookieuser', password: 'pw' })
  const cookie = sessionCookieOf(res, 'game_sid')
  const value = cookie.slice('game_sid='.length)
  t.equal(dataOf(await meSelf(other.app, g.gameId, cookie)).player_name, 'cookieuser')
  expectError(t, await meSelf(other.app, g.gameId, `sid=${value}`), 'not_logged_in', 'the default name is not read')
  const made = dataOf(await admin(other.app, 'POST', '/admin/sessions', { username: 'cookieuser' }))
  t.equal(made.cookie_name, 'game_sid')
})

t.test('invalid_credentials for an unknown user and a wrong password, with the same message', async t => {
  const name = newName('login_bad_')
  await createUser(app, name, { password: 'right' })
  const unknown = await login(app, { username: newName('nobody_'), password: 'right' })
  const wrong = await login(app, { username: name, password: 'wrong' })
  const caseChanged = await login(app, { username: name, password: 'RIGHT' })
  expectError(t, unknown, 'invalid_credentials', 'unknown user')
  expectError(t, wrong, 'invalid_credentials', 'wrong password')
  expectError(t, caseChanged, 'invalid_credentials', 'password is case-sensitive')
  t.equal(unknown.json().message, wrong.json().message, 'same message for both')
  t.same(Object.keys(unknown.json()).sort(), ['error', 'message', 'ok'])
  t.same(Object.keys(wrong.json()).sort(), ['error', 'message', 'ok'])
  t.equal(setCookies(unknown).length, 0, 'no cookie for an unknown user')
  t.equal(setCookies(wrong).length, 0, 'no cookie for a wrong password')

  // A user without a password (sessions from the platform only) cannot log in.
  const noPassword = newName('nopw_')
  await createUser(app, noPassword)
  const res = await login(app, { username: noPassword, password: 'anything' })
  expectError(t, res, 'invalid_credentials', 'user without a password')
  t.equal(res.json().message, wrong.json().message)
})

t.test('missing_param for an absent or empty username or password', async t => {
  expectError(t, await login(app, {}), 'missing_param', 'no fields')
  expectError(t, await login(app, { password: 'x' }), 'missing_param', 'no username')
  expectError(t, await login(app, { username: '', password: 'x' }), 'missing_param', 'empty username')
  expectError(t, await login(app, { username: 'someone' }), 'missing_param', 'no password')
  expectError(t, await login(app, { username: 'someone', password: '' }), 'missing_param', 'empty password')
})

t.test('login: 10 attempts per minute per username, across addresses', { timeout: 30_000 }, async t => {
  const limited = await buildTestApp(t)
  await createUser(limited.app, 'victim', { password: 'pw' })
  await createUser(limited.app, 'bystander', { password: 'pw' })
  for (let i = 1; i <= 10; i++) {
    // Ten addresses, one guess each: the spray of the hardening issue.
    const res = await login(limited.app, { username: 'victim', password: `guess${i}` }, {}, `198.51.100.${i}`)
    expectError(t, res, 'invalid_credentials', `attempt ${i}`)
    t.equal(res.headers['x-ratelimit-limit'], '30', `attempt ${i}: the headers count the address`)
    t.equal(res.headers['x-ratelimit-remaining'], '29', `attempt ${i}: one attempt from this address`)
  }
  // The 11th is refused even with the right password, from yet another address.
  const eleventh = await login(limited.app, { username: 'victim', password: 'pw' }, {}, '198.51.100.11')
  expectError(t, eleventh, 'rate_limited', '11th attempt')
  t.equal(setCookies(eleventh).length, 0, 'no cookie when limited')
  const retryAfter = Number(eleventh.headers['retry-after'])
  t.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `Retry-After ${String(eleventh.headers['retry-after'])} in whole seconds`)
  t.equal(eleventh.headers['x-ratelimit-remaining'], '0')
  t.equal(eleventh.headers['x-ratelimit-limit'], '10', 'the headers of a refusal name the limit that refused')

  // Another username from the same addresses is not limited.
  t.same(dataOf(await login(limited.app, { username: 'bystander', password: 'pw' }, {}, '198.51.100.1')), { username: 'bystander', is_admin: false })
})

t.test('login: 30 attempts per minute per address, across usernames; an IPv6 address counts by its /64', { timeout: 40_000 }, async t => {
  const limited = await buildTestApp(t)
  await createUser(limited.app, 'real', { password: 'pw' })
  for (let i = 1; i <= 30; i++) {
    expectError(t, await login(limited.app, { username: `sprayed${i}`, password: 'x' }, {}, `2001:db8:0:7::${i.toString(16)}`), 'invalid_credentials', `new username ${i}`)
  }
  const limited31 = await login(limited.app, { username: 'real', password: 'pw' }, {}, '2001:db8:0:7:ffff::1')
  expectError(t, limited31, 'rate_limited', 'another address of the same /64, with the right password')
  t.equal(limited31.headers['x-ratelimit-limit'], '30')
  t.same(dataOf(await login(limited.app, { username: 'real', password: 'pw' }, {}, '2001:db8:0:8::1')), { username: 'real', is_admin: false }, 'the next /64 is another client')
  const mapped = await login(limited.app, { username: 'real', password: 'pw' }, {}, '::ffff:192.0.2.1')
  t.equal(mapped.headers['x-ratelimit-remaining'], '29', 'an IPv4-mapped address: its first attempt')
  const plain = await login(limited.app, { username: 'real', password: 'pw' }, {}, '192.0.2.1')
  t.equal(plain.headers['x-ratelimit-remaining'], '28', 'the same IPv4 address unmapped: the same counter')
})

t.test('login: limits come from LOGIN_RATE_LIMIT_MAX and LOGIN_ADDRESS_RATE_LIMIT_MAX', { timeout: 30_000 }, async t => {
  const limited = await buildTestApp(t, { LOGIN_RATE_LIMIT_MAX: '2', LOGIN_ADDRESS_RATE_LIMIT_MAX: '3' })
  await createUser(limited.app, 'u', { password: 'pw' })
  expectError(t, await login(limited.app, { username: 'u', password: 'x' }, {}, '10.0.0.1'), 'invalid_credentials', 'u 1')
  expectError(t, await login(limited.app, { username: 'u', password: 'x' }, {}, '10.0.0.2'), 'invalid_credentials', 'u 2')
  expectError(t, await login(limited.app, { username: 'u', password: 'pw' }, {}, '10.0.0.3'), 'rate_limited', 'u 3: per username')
  expectError(t, await login(limited.app, { username: 'v', password: 'x' }, {}, '10.0.0.1'), 'invalid_credentials', '10.0.0.1: 2nd')
  expectError(t, await login(limited.app, { username: 'w', password: 'x' }, {}, '10.0.0.1'), 'invalid_credentials', '10.0.0.1: 3rd')
  expectError(t, await login(limited.app, { username: 'y', password: 'x' }, {}, '10.0.0.1'), 'rate_limited', '10.0.0.1: 4th, per address')
})

t.test('login: at most 8 password checks run at once; the rest are rate_limited at once', { timeout: 30_000 }, async t => {
  const busy = await buildTestApp(t, { LOGIN_ADDRESS_RATE_LIMIT_MAX: '1000', LOGIN_RATE_LIMIT_MAX: '1000' })
  let most = 0
  const watch = setInterval(() => { most = Math.max(most, passwordChecksInFlight()) }, 1)
  const answers = await Promise.all(Array.from({ length: 40 }, async (_, i) => await login(busy.app, { username: `flood${i}`, password: 'x' }, {}, `10.1.${i}.1`)))
  clearInterval(watch)
  t.equal(most, PASSWORD_CHECKS_IN_FLIGHT, `at most ${PASSWORD_CHECKS_IN_FLIGHT} checks ran at once, and the bound was reached`)
  const codes = answers.map(answer => errorOf(answer))
  const refused = answers.filter(answer => errorOf(answer) === 'rate_limited')
  t.ok(refused.length >= 1, `${refused.length} of 40 concurrent logins were refused while 8 were being checked`)
  t.ok(codes.filter(code => code === 'invalid_credentials').length >= 8, 'at least 8 were checked')
  t.same([...new Set(codes)].sort(), ['invalid_credentials', 'rate_limited'])
  t.equal(refused[0]?.headers['retry-after'], '1')
  t.match(refused[0]?.json().message, /retry in 1 s/)
  // Once the checks are done, logins are checked again.
  await createUser(busy.app, 'after', { password: 'pw' })
  t.same(dataOf(await login(busy.app, { username: 'after', password: 'pw' }, {}, '10.2.0.1')), { username: 'after', is_admin: false })
})

t.test('without TRUST_PROXY a spoofed X-Forwarded-For does not escape the login limit', { timeout: 30_000 }, async t => {
  const limited = await buildTestApp(t)
  await createUser(limited.app, 'spoofed', { password: 'pw' })
  for (let i = 1; i <= 30; i++) {
    expectError(t, await login(limited.app, { username: `spoofed${i}`, password: 'bad' }, { 'x-forwarded-for': `203.0.113.${i}` }), 'invalid_credentials', `attempt ${i}`)
  }
  expectError(t, await login(limited.app, { username: 'spoofed', password: 'pw' }, { 'x-forwarded-for': '198.51.100.77' }), 'rate_limited', '31st attempt with another X-Forwarded-For')
})

t.test('with TRUST_PROXY the login limit counts the forwarded client address', { timeout: 30_000 }, async t => {
  const proxied = await buildTestApp(t, { TRUST_PROXY: 'true' })
  await createUser(proxied.app, 'behindproxy', { password: 'pw' })
  for (let i = 1; i <= 30; i++) {
    expectError(t, await login(proxied.app, { username: `guess${i}`, password: 'bad' }, { 'x-forwarded-for': '203.0.113.1' }), 'invalid_credentials', `attempt ${i}`)
  }
  expectError(t, await login(proxied.app, { username: 'behindproxy', password: 'pw' }, { 'x-forwarded-for': '203.0.113.1' }), 'rate_limited', '31st from the same client')
  t.same(dataOf(await login(proxied.app, { username: 'behindproxy', password: 'pw' }, { 'x-forwarded-for': '203.0.113.2' })), { username: 'behindproxy', is_admin: false }, 'another client behind the same proxy')
})

t.test('no Secure in development either; JSON login bodies are invalid_body', { timeout: 30_000 }, async t => {
  const dev = await buildTestApp(t, { NODE_ENV: 'development', LOG_LEVEL: 'silent' })
  await createUser(dev.app, 'devuser', { password: 'pw' })
  const res = await login(dev.app, { username: 'devuser', password: 'pw' })
  t.same(res.json(), { ok: true, data: { username: 'devuser', is_admin: false } })
  const cookie = parseSetCookie(setCookies(res)[0]!)
  t.notOk(hasAttribute(cookie, 'Secure'), 'no Secure')
  t.ok(hasAttribute(cookie, 'HttpOnly'), 'HttpOnly')

  const json = await dev.app.inject({ method: 'POST', url: '/auth/login', payload: JSON.stringify({ username: 'devuser', password: 'pw' }), headers: { 'content-type': 'application/json' } })
  expectError(t, json, 'invalid_body', 'JSON body')
  t.equal(setCookies(json).length, 0)
})

t.test('SESSION_COOKIE=__Host-sid: Secure even in development, or browsers would drop it', { timeout: 30_000 }, async t => {
  const prefixed = await buildTestApp(t, { NODE_ENV: 'development', LOG_LEVEL: 'silent', SESSION_COOKIE: '__Host-sid' })
  await createUser(prefixed.app, 'hostuser', { password: 'pw' })
  const cookie = parseSetCookie(setCookies(await login(prefixed.app, { username: 'hostuser', password: 'pw' }))[0]!)
  t.equal(cookie.name, '__Host-sid')
  t.ok(hasAttribute(cookie, 'Secure'), 'Secure')
  t.ok(cookie.attributes.some(attribute => /^Path=\/$/i.test(attribute)), 'Path=/')
  t.notOk(cookie.attributes.some(attribute => /^Domain=/i.test(attribute)), 'no Domain')
})

t.test('login refuses credentials in the query string', async t => {
  for (const query of ['password=pw', 'username=u', 'username=u&password=pw']) {
    const res = await app.inject({ method: 'POST', url: `/auth/login?${query}`, payload: 'username=u&password=pw', headers: { 'content-type': 'application/x-www-form-urlencoded' } })
    expectError(t, res, 'invalid_param', query)
    t.match(res.json().message, /in the request body, never in the URL/)
    t.equal(setCookies(res).length, 0)
  }
})

t.test('login and logout: forbidden_origin for a foreign Origin and for Origin: null', async t => {
  const name = newName('origin_')
  await createUser(app, name, { password: 'pw' })
  const fields = { username: name, password: 'pw' }

  const evil = await login(app, fields, { origin: 'https://evil.example', host: 'localhost' })
  expectError(t, evil, 'forbidden_origin', 'foreign origin')
  t.equal(setCookies(evil).length, 0, 'no cookie for a foreign origin')
  expectError(t, await login(app, fields, { origin: 'null', host: 'localhost' }), 'forbidden_origin', 'Origin: null')
  expectError(t, await login(app, fields, { origin: 'http://localhost:8080', host: 'localhost' }), 'forbidden_origin', 'other port')
  expectError(t, await login(app, fields, { origin: 'https://localhost', host: 'localhost' }), 'forbidden_origin', 'other scheme')
  expectError(t, await login(app, fields, { origin: 'http://localhost.evil.example', host: 'localhost' }), 'forbidden_origin', 'lookalike host')

  // Same origin: scheme and Host of the request, default port left out, case ignored.
  t.same(dataOf(await login(app, fields, { origin: 'http://localhost:80', host: 'localhost' })), { username: name, is_admin: false })
  t.same(dataOf(await login(app, fields, { origin: 'http://localhost', host: 'localhost' })), { username: name, is_admin: false })
  t.same(dataOf(await login(app, fields, { origin: 'HTTP://LocalHost', host: 'localhost' })), { username: name, is_admin: false })
  t.same(dataOf(await login(app, fields, { origin: 'http://localhost:3000', host: 'localhost:3000' })), { username: name, is_admin: false })
  // No Origin header at all is accepted.
  t.same(dataOf(await login(app, fields)), { username: name, is_admin: false })

  const session = sessionCookieOf(await login(app, fields))
  expectError(t, await logout(app, { cookie: session, origin: 'https://evil.example', host: 'localhost' }), 'forbidden_origin', 'logout from a foreign origin')
  expectError(t, await logout(app, { cookie: session, origin: 'null', host: 'localhost' }), 'forbidden_origin', 'logout with Origin: null')
  t.equal(dataOf(await meSelf(app, game.gameId, session)).player_name, name, 'the refused logout did not end the session')
  t.same(dataOf(await logout(app, { cookie: session, origin: 'http://localhost:80', host: 'localhost' })), {})
  expectError(t, await meSelf(app, game.gameId, session), 'not_logged_in', 'same-origin logout ended it')
})

t.test('ALLOWED_ORIGINS lets a listed origin in', { timeout: 30_000 }, async t => {
  const other = await buildTestApp(t, { ALLOWED_ORIGINS: 'https://play.example.com, https://Partner.Example:8443' })
  await createUser(other.app, 'listed', { password: 'pw' })
  const fields = { username: 'listed', password: 'pw' }
  t.same(dataOf(await login(other.app, fields, { origin: 'https://play.example.com', host: 'localhost' })), { username: 'listed', is_admin: false })
  t.same(dataOf(await login(other.app, fields, { origin: 'https://play.example.com:443', host: 'localhost' })), { username: 'listed', is_admin: false })
  t.same(dataOf(await login(other.app, fields, { origin: 'https://partner.example:8443', host: 'localhost' })), { username: 'listed', is_admin: false })
  // The own origin is still accepted; others are not.
  t.same(dataOf(await login(other.app, fields, { origin: 'http://localhost', host: 'localhost' })), { username: 'listed', is_admin: false })
  expectError(t, await login(other.app, fields, { origin: 'https://evil.example', host: 'localhost' }), 'forbidden_origin', 'unlisted origin')
  expectError(t, await login(other.app, fields, { origin: 'http://play.example.com', host: 'localhost' }), 'forbidden_origin', 'listed host, other scheme')
  expectError(t, await login(other.app, fields, { origin: 'https://partner.example', host: 'localhost' }), 'forbidden_origin', 'listed host, other port')
})

t.test('PUBLIC_ORIGIN makes exactly that origin the own one', { timeout: 30_000 }, async t => {
  const other = await buildTestApp(t, { PUBLIC_ORIGIN: 'https://games.example.com' })
  await createUser(other.app, 'public', { password: 'pw' })
  const fields = { username: 'public', password: 'pw' }
  t.same(dataOf(await login(other.app, fields, { origin: 'https://games.example.com', host: 'localhost' })), { username: 'public', is_admin: false })
  t.same(dataOf(await login(other.app, fields, { origin: 'https://games.example.com:443', host: 'localhost' })), { username: 'public', is_admin: false })
  t.same(dataOf(await login(other.app, fields, { origin: 'https://GAMES.example.com', host: 'internal:3000' })), { username: 'public', is_admin: false })
  // The request's own scheme and Host no longer count.
  expectError(t, await login(other.app, fields, { origin: 'http://localhost', host: 'localhost' }), 'forbidden_origin', 'Host-derived origin is not the own one')
  expectError(t, await login(other.app, fields, { origin: 'http://games.example.com', host: 'games.example.com' }), 'forbidden_origin', 'http is not https')
  expectError(t, await login(other.app, fields, { origin: 'https://evil.example', host: 'games.example.com' }), 'forbidden_origin', 'foreign origin')
})

t.test('POST /auth/logout answers {} with and without a session and ends the session', async t => {
  const name = newName('logout_')
  await createUser(app, name, { password: 'pw' })
  const session = sessionCookieOf(await login(app, { username: name, password: 'pw' }))
  const other = sessionCookieOf(await login(app, { username: name, password: 'pw' }))
  t.equal(dataOf(await meSelf(app, game.gameId, session)).player_name, name)

  const out = await logout(app, { cookie: session })
  t.equal(out.headers['content-type'], JSON_TYPE)
  t.same(out.json(), { ok: true, data: {} })
  t.equal(await app.redis.exists(`rank:session:{${session.slice(4)}}`), 0, 'the session record is gone from Redis')
  expectError(t, await meSelf(app, game.gameId, session), 'not_logged_in', 'a later me-self')
  // Only that session ended.
  t.equal(dataOf(await meSelf(app, game.gameId, other)).player_name, name, 'the other session still works')

  t.same((await logout(app)).json(), { ok: true, data: {} }, 'without a cookie')
  t.same((await logout(app, { cookie: session })).json(), { ok: true, data: {} }, 'with an ended session')
  t.same((await logout(app, { cookie: 'sid=garbage' })).json(), { ok: true, data: {} }, 'with a garbage cookie')
  t.same((await logout(app, { cookie: 'sid=' })).json(), { ok: true, data: {} }, 'with an empty cookie')
})

t.test('a session deleted through the admin API gives not_logged_in', async t => {
  const name = newName('admdel_')
  await createUser(app, name)
  const made = dataOf(await admin(app, 'POST', '/admin/sessions', { username: name }))
  const cookie = `sid=${String(made.session_id)}`
  t.equal(dataOf(await meSelf(app, game.gameId, cookie)).player_name, name)
  t.same((await admin(app, 'DELETE', `/admin/sessions/${String(made.session_id)}`)).json(), { ok: true, data: {} })
  expectError(t, await meSelf(app, game.gameId, cookie), 'not_logged_in', 'after DELETE')
  expectError(t, await admin(app, 'DELETE', `/admin/sessions/${String(made.session_id)}`), 'not_found', 'deleting it again')

  // A login session can be deleted the same way.
  await admin(app, 'PATCH', `/admin/users/${name}`, { password: 'pw' })
  const loginCookie = sessionCookieOf(await login(app, { username: name, password: 'pw' }))
  t.same(dataOf(await admin(app, 'DELETE', `/admin/sessions/${loginCookie.slice(4)}`)), {})
  expectError(t, await meSelf(app, game.gameId, loginCookie), 'not_logged_in', 'deleted login session')
})

t.test('DELETE /admin/sessions/:id for an unknown session is not_found', async t => {
  expectError(t, await admin(app, 'DELETE', '/admin/sessions/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'), 'not_found', 'well-formed unknown id')
  expectError(t, await admin(app, 'DELETE', '/admin/sessions/nope'), 'not_found', 'short id')
})

t.test('a session expired by its TTL gives not_logged_in', { timeout: 40_000 }, async t => {
  // 3 s: the sessions must still work when they are checked, a few requests after the first was
  // made; 1 s left a busy machine little room for those requests.
  const short = await buildTestApp(t, { SESSION_TTL_S: '3' })
  const g = await createGame(short.app)
  await createUser(short.app, 'brief', { password: 'pw' })
  const loginCookie = sessionCookieOf(await login(short.app, { username: 'brief', password: 'pw' }))
  const made = dataOf(await admin(short.app, 'POST', '/admin/sessions', { username: 'brief' }))
  const adminCookie = `sid=${String(made.session_id)}`
  t.ok(Math.abs(Date.parse(made.expires_at) - (Date.now() + 3000)) < 1500, 'expires_at is about 3 s ahead')
  t.equal(dataOf(await meSelf(short.app, g.gameId, loginCookie)).player_name, 'brief')
  t.equal(dataOf(await meSelf(short.app, g.gameId, adminCookie)).player_name, 'brief')
  // Part of the scenario: the TTL passes (both sessions were stored before this point).
  await new Promise(resolve => setTimeout(resolve, 3200))
  expectError(t, await meSelf(short.app, g.gameId, loginCookie), 'not_logged_in', 'login session after its TTL')
  expectError(t, await meSelf(short.app, g.gameId, adminCookie), 'not_logged_in', 'admin session after its TTL')
})

t.test('POST /admin/sessions: not_found for an unknown user, {session_id, cookie_name, expires_at} for a known one', async t => {
  expectError(t, await admin(app, 'POST', '/admin/sessions', { username: newName('ghost_') }), 'not_found', 'unknown user')
  expectError(t, await admin(app, 'POST', '/admin/sessions', {}), 'missing_param', 'no username')
  expectError(t, await admin(app, 'POST', '/admin/sessions', { username: '' }), 'missing_param', 'empty username')

  const name = newName('mksess_')
  await createUser(app, name)
  const before = Date.now()
  const res = await admin(app, 'POST', '/admin/sessions', { username: name })
  t.equal(res.headers['content-type'], JSON_TYPE)
  const made = dataOf(res)
  t.same(Object.keys(made).sort(), ['cookie_name', 'expires_at', 'session_id'])
  t.equal(made.cookie_name, 'sid')
  t.match(made.session_id, BASE64URL_ID)
  t.ok(Buffer.from(made.session_id, 'base64url').length >= 16, 'at least 128 bits')
  t.match(made.expires_at, ISO_MS)
  const expected = before + 2592000 * 1000
  t.ok(Math.abs(Date.parse(made.expires_at) - expected) < 5000, 'expires_at is 30 days ahead')
  t.equal(dataOf(await meSelf(app, game.gameId, `sid=${String(made.session_id)}`)).player_name, name, 'the session works as a cookie')
  const again = dataOf(await admin(app, 'POST', '/admin/sessions', { username: name }))
  t.not(again.session_id, made.session_id, 'a new id each time')
})

t.test('user flags changed through PATCH /admin/users take effect at once on an existing session', async t => {
  const name = newName('flags_')
  await createUser(app, name, { password: 'pw' })
  const cookie = sessionCookieOf(await login(app, { username: name, password: 'pw' }))
  t.equal(dataOf(await meSelf(app, game.gameId, cookie)).is_admin_record, false)

  t.match(dataOf(await admin(app, 'PATCH', `/admin/users/${name}`, { is_admin: true })), { username: name, is_admin: true, hidden: false })
  t.equal(dataOf(await meSelf(app, game.gameId, cookie)).is_admin_record, true, 'admin at once')
  const submitted = await app.inject({
    method: 'POST',
    url: '/api/rank?action=submit-self',
    payload: formBody({ game_id: game.gameId, score: '42' }),
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie }
  })
  t.same(dataOf(submitted), { score: 42, improved: true, best_score: 42, rank: 1, total_players: 1, is_dev_record: false, is_admin_record: true })

  await admin(app, 'PATCH', `/admin/users/${name}`, { hidden: true })
  t.same(dataOf(await meSelf(app, game.gameId, cookie)), {
    player_name: name, best_score: 42, rank: null, total_players: 0, is_dev_record: false, is_admin_record: true
  }, 'hidden at once')

  await admin(app, 'PATCH', `/admin/users/${name}`, { is_admin: false, hidden: false })
  t.same(dataOf(await meSelf(app, game.gameId, cookie)), {
    player_name: name, best_score: 42, rank: 1, total_players: 1, is_dev_record: false, is_admin_record: false
  }, 'both flags back at once')

  // The developer flag follows the game record at once too.
  await admin(app, 'PATCH', `/admin/games/${game.gameId}`, { developer: name })
  t.equal(dataOf(await meSelf(app, game.gameId, cookie)).is_dev_record, true)
  await admin(app, 'PATCH', `/admin/games/${game.gameId}`, { developer: 'someone_else' })
  t.equal(dataOf(await meSelf(app, game.gameId, cookie)).is_dev_record, false)
})

t.test('a password change through PATCH /admin/users applies to the next login', async t => {
  const name = newName('pwchange_')
  await createUser(app, name, { password: 'old-pw' })
  await admin(app, 'PATCH', `/admin/users/${name}`, { password: 'new-pw' })
  expectError(t, await login(app, { username: name, password: 'old-pw' }), 'invalid_credentials', 'old password')
  t.same(dataOf(await login(app, { username: name, password: 'new-pw' })), { username: name, is_admin: false })
})

t.test('auth responses carry no CORS headers', async t => {
  const name = newName('nocors_')
  await createUser(app, name, { password: 'pw' })
  const res = await login(app, { username: name, password: 'pw' }, { origin: 'http://localhost', host: 'localhost' })
  t.equal(res.json().ok, true)
  t.equal(res.headers['access-control-allow-origin'], undefined)
  t.equal(res.headers['access-control-allow-credentials'], undefined)
  const refused = await login(app, { username: name, password: 'pw' }, { origin: 'https://evil.example', host: 'localhost' })
  t.equal(refused.headers['access-control-allow-origin'], undefined)
})
