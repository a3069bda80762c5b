import { Writable } from 'node:stream'
import t from 'tap'
import { redactUrl } from '../../src/lib/redaction.js'
import { computeSignature } from '../../src/rules/signature.js'
import { ADMIN_TOKEN, multipartBody } from '../helpers/app.js'
import { listeningApp } from '../helpers/listening.js'
import { rawRequest } from '../helpers/raw-http.js'
import { waitFor } from '../helpers/wait.js'

/*
 * Item 2 of the hardening issue: at LOG_LEVEL=trace the log carries every
 * line the service, Fastify and its plugins write, and none of them may hold
 * the admin token, a session cookie, an API secret, a signature or a
 * password, whichever path a request takes: multipart bodies (whose parser
 * logs its options, headers included), client errors (whose error carries
 * the raw request), secrets in query strings, admin paths naming a session.
 */

const lines: string[] = []
const logStream = new Writable({ write (chunk, _encoding, done) { lines.push(String(chunk)); done() } })
const { baseUrl } = await listeningApp(t, { LOG_LEVEL: 'trace', WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_MS: '20' }, { logStream })
const port = Number(new URL(baseUrl).port)
const PASSWORD = 'correct-horse-battery-staple'

async function request (method: string, path: string, options: { fields?: Record<string, string>, headers?: Record<string, string>, json?: unknown } = {}): Promise<Response> {
  const init: RequestInit = { method, headers: { ...options.headers } }
  if (options.fields !== undefined) {
    const { payload, headers } = multipartBody(options.fields)
    init.body = payload
    Object.assign(init.headers as Record<string, string>, headers)
  }
  if (options.json !== undefined) {
    init.body = JSON.stringify(options.json)
    Object.assign(init.headers as Record<string, string>, { 'content-type': 'application/json' })
  }
  return await fetch(`${baseUrl}${path}`, init)
}
const authorization = { authorization: `Bearer ${ADMIN_TOKEN}` }

t.test('a trace-level log holds no secret, whichever path the requests take', { timeout: 30_000 }, async t => {
  // Operators: JSON and multipart admin bodies carrying the token.
  await request('POST', '/admin/games', { headers: authorization, json: { game_id: 'logged', approved: true } })
  const key = (await (await request('POST', '/admin/keys', { headers: authorization, fields: { game_id: 'logged' } })).json()).data
  t.match(key, { api_key: /^rk_/, api_secret: /^[0-9a-f]{64}$/ })
  await request('POST', '/admin/users', { headers: authorization, fields: { username: 'logger', password: PASSWORD } })

  // A player: login with a multipart body, then session-mode calls with the cookie.
  const login = await request('POST', '/auth/login', { fields: { username: 'logger', password: PASSWORD } })
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? ''
  const sessionId = cookie.split('=')[1] ?? ''
  t.match(sessionId, /^[A-Za-z0-9_-]{40,}$/, 'logged in')
  await request('POST', '/api/rank?action=submit-self', { headers: { cookie }, fields: { game_id: 'logged', score: '10' } })
  await request('POST', '/api/rate?game_id=logged', { headers: { cookie }, fields: { stars: '7' } })

  // A game server: a signed submit in a multipart body, and secrets in a query string.
  const ts = String(Math.floor(Date.now() / 1000))
  const signed = { api_key: key.api_key, game_id: 'logged', player_name: 'alice', score: '99', ts }
  const sign = computeSignature(key.api_secret, signed)
  t.equal((await (await request('POST', '/api/rank?action=submit', { fields: { ...signed, sign } })).json()).ok, true)
  await request('GET', `/api/rank?action=top&api_key=${key.api_key}&game_id=logged&sign=${sign}&api_secret=${key.api_secret}&%70assword=${PASSWORD}`)
  t.equal((await (await request('POST', `/auth/login?password=${PASSWORD}`, { fields: { username: 'logger' } })).json()).error, 'invalid_param', 'credentials in the URL are refused')

  // A webhook: its secret is shown once; deliveries to a receiver that fails are tried again and logged at debug.
  const hook = (await (await request('POST', '/admin/games/logged/webhooks', { headers: authorization, json: { url: 'http://127.0.0.1:9/nobody-listens' } })).json()).data
  t.match(hook, { secret: /^whsec_/ })
  t.equal((await (await request('POST', `/admin/games/logged/webhooks/${String(hook.webhook_id)}/test`, { headers: authorization })).json()).ok, true)
  await waitFor(() => lines.some(line => line.includes('webhook attempt failed')), { what: 'the failed webhook attempt to be logged' })
  t.pass('a failed delivery was logged')

  // Operators again: a session named in the path, a wrong token.
  await request('DELETE', `/admin/sessions/${sessionId}`, { headers: authorization })
  await request('POST', '/admin/games', { headers: { authorization: `Bearer ${ADMIN_TOKEN}x` }, fields: { game_id: 'nope' } })

  // Requests Node cannot parse: the error carries the raw bytes, headers and all.
  const broken = await rawRequest(port, `GET /healthz HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN_TOKEN}\r\nCookie: ${cookie}\r\nBad Header: ${key.api_secret}\r\n\r\n`)
  t.same(JSON.parse(broken.body), { ok: false, error: 'invalid_body', message: 'The request cannot be parsed as HTTP.' }, 'a client error is answered in the envelope')
  t.equal(broken.status, 200)
  await rawRequest(port, `POST /auth/login HTTP/1.1\r\nHost: x\r\nCookie: ${cookie}\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\npassword=${PASSWORD}`)

  await new Promise(resolve => setImmediate(resolve))
  const log = lines.join('')
  t.ok(lines.length > 30, `the trace log has ${lines.length} lines`)
  t.match(log, /"level":10/, 'trace lines are there')
  t.match(log, /Providing options to busboy/, 'multipart logged its options (headers redacted)')
  t.match(log, /client error/, 'the client error was logged')
  for (const [what, secret] of Object.entries({ 'admin token': ADMIN_TOKEN, 'session cookie': sessionId, api_secret: key.api_secret, sign, password: PASSWORD, 'webhook secret': hook.secret.slice('whsec_'.length) })) {
    t.notOk(log.includes(secret), `the log never holds the ${what}`)
  }
})

t.test('redactUrl: secret parameters by their decoded name, secret admin segments', async t => {
  t.equal(redactUrl('/api/rank?action=top&api_key=rk_1&game_id=g'), '/api/rank?action=top&api_key=[redacted]&game_id=g')
  t.equal(redactUrl('/x?%73ign=abc&a=1'), '/x?%73ign=[redacted]&a=1')
  t.equal(redactUrl('/x?pass%zzword=abc'), '/x?pass%zzword=[redacted]', 'a name that cannot be decoded hides its value')
  t.equal(redactUrl('/x?password'), '/x?password', 'a name alone has no value to hide')
  t.equal(redactUrl('/admin/sessions/abc?x=1'), '/admin/sessions/[redacted]?x=1')
  t.equal(redactUrl('/admin/keys/rk_1/revoke'), '/admin/keys/[redacted]/revoke')
  t.equal(redactUrl('/play/demo'), '/play/demo')
  for (const name of ['SIGN', 'Sign', 'sign%00', '+sign', 'api-key', 'API_KEY', 'new_password', 'client_secret', 'access_token']) {
    t.equal(redactUrl(`/x?${name}=abc`), `/x?${name}=[redacted]`, `${name} in any spelling`)
  }
  t.equal(redactUrl('/x?a=1;sign=abc'), '/x?a=1;sign=[redacted]', 'a ; separator')
  t.equal(redactUrl('/x?a=1&b=2'), '/x?a=1&b=2', 'other values stay readable')
  t.equal(redactUrl('/ADMIN/Sessions/abc'), '/ADMIN/Sessions/[redacted]')
  t.equal(redactUrl('//admin//sessions//abc'), '//admin//sessions//[redacted]')
  t.equal(redactUrl('/admin/%73essions/abc'), '/admin/%73essions/[redacted]', 'percent-encoded letters in the path')
  t.equal(redactUrl('/%61dmin/KEYS/rk_1/revoke'), '/%61dmin/KEYS/[redacted]/revoke')
  t.equal(redactUrl('/admin/users/alice/sessions'), '/admin/users/alice/sessions', 'a username is not a secret')
  t.equal(redactUrl('/x?sign=abc;def&a=1'), '/x?sign=[redacted]&a=1', 'the parser ends a value at & only: all of it is hidden')
  t.equal(redactUrl('/x?a=1;sign=abc;def&b=2'), '/x?a=1;sign=[redacted]&b=2', 'a secret after ; is hidden to the next &')
  t.equal(redactUrl('/x?a=1;b=2&c=3'), '/x?a=1;b=2&c=3')
  // Game Jolt's API: a player's token, and the sub-requests of a batch (which carry tokens of their own).
  t.equal(redactUrl('/api/game/v1_2/scores/?game_id=1&username=a&user_token=abc&signature=00'), '/api/game/v1_2/scores/?game_id=1&username=a&user_token=[redacted]&signature=00')
  t.equal(redactUrl('/api/game/v1_2/batch/?game_id=1&requests%5B%5D=%2Fscores%2F%3Fuser_token%3Dabc&requests[]=x'), '/api/game/v1_2/batch/?game_id=1&requests%5B%5D=[redacted]&requests[]=[redacted]')
  t.equal(redactUrl('/x?private_key=abc'), '/x?private_key=[redacted]')
})
