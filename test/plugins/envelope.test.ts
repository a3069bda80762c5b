import { connect } from 'node:net'
import t from 'tap'
import type { LightMyRequestResponse } from 'fastify'
import { ADMIN_TOKEN, buildTestApp, createGame, dataOf, formBody, multipartBody, submit, submitFields, top, keysMatching, STOPS_ITS_REDIS } from '../helpers/app.js'
import { listeningApp } from '../helpers/listening.js'
import { waitFor } from '../helpers/wait.js'

/*
 * The envelope (docs/interface.md#response-envelope): every answer is HTTP 200 with
 * `application/json; charset=utf-8`, `{ok:true,data}` or
 * `{ok:false,error,message}`; CORS only on the API-key actions; no stack
 * traces, Redis texts or secrets in messages.
 */

/** The assertions the helpers below use, from the root test or any subtest. */
type Test = Pick<typeof t, 'equal' | 'same' | 'match' | 'notMatch' | 'type'>

const JSON_TYPE = 'application/json; charset=utf-8'
const OTHER_ORIGIN = 'https://games.other.example'

/** The failure envelope, exactly: status, content type, the three keys, the code, a one-sentence message. */
function expectEnvelopeError (t: Test, response: LightMyRequestResponse, code: string, what: string): { ok: false, error: string, message: string } {
  t.equal(response.statusCode, 200, `${what} (status)`)
  t.equal(response.headers['content-type'], JSON_TYPE, `${what} (content-type)`)
  let body: any
  try { body = response.json() } catch { body = { unparsed: response.body } }
  t.same(Object.keys(body).sort(), ['error', 'message', 'ok'], `${what} (keys)`)
  t.equal(body.ok, false, `${what} (ok)`)
  t.equal(body.error, code, what)
  t.type(body.message, 'string')
  t.match(body.message, /^[A-Z][^\n]*[.!?]$/, `${what} (one sentence)`)
  t.notMatch(body.message, /\bat .*:\d+:\d+|node_modules|Error:/, `${what} (no stack trace)`)
  return body
}

const { app } = await buildTestApp(t)

t.test('GET /healthz answers {ok:true,data:{redis:"up"}}', async t => {
  const res = await app.inject({ method: 'GET', url: '/healthz' })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-type'], JSON_TYPE)
  t.same(res.json(), { ok: true, data: { redis: 'up' } })
  t.equal(res.body, '{"ok":true,"data":{"redis":"up"}}')
})

t.test('success envelope is exactly {ok, data}', async t => {
  const game = await createGame(app)
  const res = await submit(app, game, { player: 'alice', score: 3 })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-type'], JSON_TYPE)
  t.same(Object.keys(res.json()).sort(), ['data', 'ok'])
  t.same(res.json(), { ok: true, data: { score: 3, improved: true, best_score: 3, rank: 1 } })
})

t.test('unknown routes answer not_found in the envelope', async t => {
  for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const) {
    for (const url of ['/nope', '/api', '/api/rank/', '/api/rank/top', '/API/RANK?action=top', '/healthz/x', '/api/%zz', '/%E0%A4%A']) {
      expectEnvelopeError(t, await app.inject({ method, url }), 'not_found', `${method} ${url}`)
    }
  }
  expectEnvelopeError(t, await app.inject({ method: 'GET', url: `/${'a'.repeat(5000)}` }), 'not_found', 'a very long path')
})

t.test('wrong methods answer method_not_allowed', async t => {
  for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
    expectEnvelopeError(t, await app.inject({ method, url: '/healthz' }), 'method_not_allowed', `${method} /healthz`)
    // The front door is a page to GET; anything else is an API answer.
    expectEnvelopeError(t, await app.inject({ method, url: '/' }), 'method_not_allowed', `${method} /`)
  }
  expectEnvelopeError(t, await app.inject({ method: 'GET', url: '/api/rank?action=submit' }), 'method_not_allowed', 'GET submit')
  expectEnvelopeError(t, await app.inject({ method: 'POST', url: '/api/rank?action=top' }), 'method_not_allowed', 'POST top')
  expectEnvelopeError(t, await app.inject({ method: 'DELETE', url: '/api/rank?action=me' }), 'method_not_allowed', 'DELETE me')
  expectEnvelopeError(t, await app.inject({ method: 'OPTIONS', url: '/healthz' }), 'method_not_allowed', 'OPTIONS /healthz')
})

t.test('unknown_action and missing action on /api/rank', async t => {
  expectEnvelopeError(t, await app.inject({ method: 'GET', url: '/api/rank?action=nope' }), 'unknown_action', 'GET nope')
  expectEnvelopeError(t, await app.inject({ method: 'GET', url: '/api/rank' }), 'missing_param', 'no action')
})

/** What a HEAD request receives on a real connection to `port`: the bytes after the header block (Node drops a HEAD body on the wire). */
async function headBodyOnTheWire (port: number, url: string): Promise<string> {
  return await new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    const chunks: Buffer[] = []
    socket.on('data', chunk => chunks.push(chunk))
    socket.on('error', reject)
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8')
      resolve(text.slice(text.indexOf('\r\n\r\n') + 4))
    })
    socket.write(`HEAD ${url} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`)
  })
}

t.test('HEAD gets the same headers as GET and no body', { timeout: 30_000 }, async t => {
  const game = await createGame(app)
  // One service on a real port for the answers on the wire (their paths need no game): one
  // fresh Redis (a cluster, TEST_REDIS=cluster) for the subtest, not one per path.
  const wire = Number(new URL((await listeningApp(t)).baseUrl).port)
  const pairs: Array<[string, string]> = [
    ['healthz', '/healthz'],
    ['top', `/api/rank?action=top&api_key=${game.apiKey}&game_id=${game.gameId}`],
    ['me', `/api/rank?action=me&api_key=${game.apiKey}&game_id=${game.gameId}&player_name=alice`],
    ['top error', `/api/rank?action=top&api_key=rk_nobody&game_id=${game.gameId}`],
    ['not_found', '/nope'],
    ['method_not_allowed', '/api/rank?action=submit'],
    ['unknown_action', '/api/rank?action=nope']
  ]
  for (const [what, url] of pairs) {
    const getRes = await app.inject({ method: 'GET', url })
    const headRes = await app.inject({ method: 'HEAD', url })
    t.equal(headRes.statusCode, 200, `${what}: HEAD status`)
    if (!url.includes('api_key')) t.equal(await headBodyOnTheWire(wire, url), '', `${what}: HEAD has no body on the wire`)
    t.equal(headRes.headers['content-type'], JSON_TYPE, `${what}: HEAD content-type`)
    t.equal(headRes.headers['content-type'], getRes.headers['content-type'], `${what}: same content-type`)
    if (what === 'method_not_allowed') {
      // The message names the method used ("not HEAD" / "not GET"), so only the length may differ.
      t.match(String(headRes.headers['content-length']), /^\d+$/, `${what}: content-length present`)
    } else {
      t.equal(headRes.headers['content-length'], getRes.headers['content-length'], `${what}: same content-length`)
      t.equal(headRes.headers['content-length'], String(Buffer.byteLength(getRes.body)), `${what}: content-length of the GET body`)
    }
    t.equal(headRes.headers['access-control-allow-origin'], getRes.headers['access-control-allow-origin'], `${what}: same CORS header`)
  }
})

t.test('OPTIONS preflight of the API-key actions: 204, wildcard origin, no credentials', async t => {
  for (const [action, method] of [['submit', 'POST'], ['top', 'GET'], ['me', 'GET']] as const) {
    const res = await app.inject({ method: 'OPTIONS', url: `/api/rank?action=${action}`, headers: { origin: OTHER_ORIGIN, 'access-control-request-method': method } })
    t.equal(res.statusCode, 204, `${action} preflight status`)
    t.equal(res.headers['access-control-allow-origin'], '*', `${action} allow-origin`)
    t.equal(res.headers['access-control-allow-credentials'], undefined, `${action} no allow-credentials`)
    t.match(String(res.headers['access-control-allow-methods']), new RegExp(`\\b${method}\\b`), `${action} allows ${method}`)
    t.equal(res.body, '')
  }
  // With a content-type header asked for (a form POST from a page)
  const withHeaders = await app.inject({ method: 'OPTIONS', url: '/api/rank?action=submit', headers: { origin: OTHER_ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' } })
  t.equal(withHeaders.statusCode, 204)
  t.equal(withHeaders.headers['access-control-allow-origin'], '*')
  t.equal(withHeaders.headers['access-control-allow-credentials'], undefined)
})

t.test('OPTIONS of any other action of /api/rank: the route error of that action, and no CORS headers', async t => {
  const expected = { '?action=submit-self': 'method_not_allowed', '?action=me-self': 'method_not_allowed', '?action=nope': 'unknown_action', '?action=submit&action=top': 'invalid_param', '': 'missing_param' }
  for (const [query, code] of Object.entries(expected)) {
    const res = await app.inject({ method: 'OPTIONS', url: `/api/rank${query}`, headers: { origin: OTHER_ORIGIN, 'access-control-request-method': 'POST' } })
    expectEnvelopeError(t, res, code, `OPTIONS /api/rank${query}`)
    t.equal(res.headers['access-control-allow-origin'], undefined, `${query}: no allow-origin`)
    t.equal(res.headers['access-control-allow-methods'], undefined, `${query}: no allow-methods`)
  }
})

t.test('OPTIONS that is not a valid preflight still gets the envelope', async t => {
  const bare = await app.inject({ method: 'OPTIONS', url: '/api/rank?action=submit' })
  t.ok(bare.statusCode === 204 || bare.statusCode === 200, `status ${bare.statusCode} is 204 or 200`)
  if (bare.statusCode !== 204) t.equal(bare.headers['content-type'], JSON_TYPE)
  const originOnly = await app.inject({ method: 'OPTIONS', url: '/api/rank?action=top', headers: { origin: OTHER_ORIGIN } })
  t.ok(originOnly.statusCode === 204 || originOnly.statusCode === 200, `status ${originOnly.statusCode} is 204 or 200`)
  if (originOnly.statusCode !== 204) t.equal(originOnly.headers['content-type'], JSON_TYPE)
})

t.test('CORS header on submit/top/me responses, successes and errors', async t => {
  const game = await createGame(app)
  const headers = { origin: OTHER_ORIGIN }
  const responses: Array<[string, LightMyRequestResponse]> = [
    ['submit ok', await app.inject({ method: 'POST', url: '/api/rank?action=submit', payload: formBody(submitFields(game, { player: 'alice', score: 1 })), headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' } })],
    ['submit multipart ok', await app.inject({ method: 'POST', url: '/api/rank?action=submit', ...(() => { const mp = multipartBody(submitFields(game, { player: 'bob', score: 2 })); return { payload: mp.payload, headers: { ...headers, ...mp.headers } } })() })],
    ['top ok', await app.inject({ method: 'GET', url: `/api/rank?action=top&api_key=${game.apiKey}&game_id=${game.gameId}`, headers })],
    ['me ok', await app.inject({ method: 'GET', url: `/api/rank?action=me&api_key=${game.apiKey}&game_id=${game.gameId}&player_name=alice`, headers })],
    ['top invalid_key', await app.inject({ method: 'GET', url: `/api/rank?action=top&api_key=rk_nobody&game_id=${game.gameId}`, headers })],
    ['me missing_param', await app.inject({ method: 'GET', url: `/api/rank?action=me&api_key=${game.apiKey}`, headers })],
    ['submit invalid_signature', await app.inject({ method: 'POST', url: '/api/rank?action=submit', payload: formBody({ ...submitFields(game, { player: 'x', score: 1 }), sign: 'f'.repeat(64) }), headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' } })],
    ['submit payload_too_large', await app.inject({ method: 'POST', url: '/api/rank?action=submit', payload: `a=${'x'.repeat(20000)}`, headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' } })]
  ]
  for (const [what, res] of responses) {
    t.equal(res.statusCode, 200, `${what} (status)`)
    t.equal(res.headers['access-control-allow-origin'], '*', `${what}: allow-origin *`)
    t.equal(res.headers['access-control-allow-credentials'], undefined, `${what}: no allow-credentials`)
  }
  t.equal(responses[0]?.[1].json().ok, true)
  t.equal(responses[4]?.[1].json().error, 'invalid_key')
  t.equal(responses[7]?.[1].json().error, 'payload_too_large')
  // Without an Origin header too (a wildcard does not depend on it)
  const plain = await top(app, game)
  t.equal(plain.headers['access-control-allow-origin'], '*')
})

t.test('no CORS headers on /admin and /healthz', async t => {
  const game = await createGame(app)
  const headers = { origin: OTHER_ORIGIN }
  const auth = { ...headers, authorization: `Bearer ${ADMIN_TOKEN}` }
  const responses: Array<[string, LightMyRequestResponse]> = [
    ['healthz', await app.inject({ method: 'GET', url: '/healthz', headers })],
    ['healthz HEAD', await app.inject({ method: 'HEAD', url: '/healthz', headers })],
    ['admin unauthorized', await app.inject({ method: 'POST', url: '/admin/games', headers, payload: { game_id: 'x' } })],
    ['admin create game', await app.inject({ method: 'POST', url: '/admin/games', headers: auth, payload: { game_id: `cors_${Date.now()}` } })],
    ['admin create key', await app.inject({ method: 'POST', url: '/admin/keys', headers: auth, payload: { game_id: game.gameId } })],
    ['admin patch', await app.inject({ method: 'PATCH', url: `/admin/games/${game.gameId}`, headers: auth, payload: { name: 'N' } })],
    ['admin preflight', await app.inject({ method: 'OPTIONS', url: '/admin/games', headers: { ...headers, 'access-control-request-method': 'POST' } })],
    ['healthz preflight', await app.inject({ method: 'OPTIONS', url: '/healthz', headers: { ...headers, 'access-control-request-method': 'GET' } })]
  ]
  for (const [what, res] of responses) {
    t.equal(res.statusCode, 200, `${what} (status)`)
    t.equal(res.headers['content-type'], JSON_TYPE, `${what} (content-type)`)
    t.equal(res.headers['access-control-allow-origin'], undefined, `${what}: no allow-origin`)
    t.equal(res.headers['access-control-allow-credentials'], undefined, `${what}: no allow-credentials`)
    t.equal(res.headers['access-control-allow-methods'], undefined, `${what}: no allow-methods`)
  }
  t.equal(responses[2]?.[1].json().error, 'unauthorized')
  t.equal(responses[3]?.[1].json().ok, true)
  t.equal(responses[6]?.[1].json().ok, false)
})

t.test('oversized and malformed bodies answer in the envelope', async t => {
  const url = '/api/rank?action=submit'
  const form = { 'content-type': 'application/x-www-form-urlencoded' }
  expectEnvelopeError(t, await app.inject({ method: 'POST', url, payload: `a=${'x'.repeat(16384)}`, headers: form }), 'payload_too_large', 'form over 16 KiB')
  expectEnvelopeError(t, await app.inject({ method: 'POST', url, payload: 'x'.repeat(100_000), headers: form }), 'payload_too_large', 'form of 100 KB')
  expectEnvelopeError(t, await app.inject({ method: 'POST', url, payload: 'a=%zz', headers: form }), 'invalid_body', 'bad form encoding')
  expectEnvelopeError(t, await app.inject({ method: 'POST', url, payload: 'a=1&a=%zz', headers: form }), 'invalid_body', 'bad form encoding in a repeated name: the body is checked before names sent twice')
  expectEnvelopeError(t, await app.inject({ method: 'POST', url, payload: '{"a":', headers: { 'content-type': 'application/json' } }), 'invalid_body', 'broken JSON')
  expectEnvelopeError(t, await app.inject({ method: 'POST', url, payload: '<a/>', headers: { 'content-type': 'application/xml' } }), 'invalid_body', 'XML')
  expectEnvelopeError(t, await app.inject({ method: 'POST', url, payload: 'a=1', headers: { 'content-type': 'nonsense' } }), 'invalid_body', 'nonsense content type')
  expectEnvelopeError(t, await app.inject({ method: 'POST', url: '/admin/games', payload: '{"game_id":', headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` } }), 'invalid_body', 'admin broken JSON')
  expectEnvelopeError(t, await app.inject({ method: 'POST', url: '/admin/games', payload: `{"game_id":"${'x'.repeat(1_100_000)}"}`, headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` } }), 'payload_too_large', 'admin body over 1 MiB')
  // An empty body with a form content type is just no fields.
  expectEnvelopeError(t, await app.inject({ method: 'POST', url, payload: '', headers: form }), 'missing_param', 'empty form body')
  expectEnvelopeError(t, await app.inject({ method: 'POST', url }), 'missing_param', 'no body at all')
})

t.test('malformed multipart answers invalid_body in the envelope', async t => {
  const url = '/api/rank?action=submit'
  expectEnvelopeError(t, await app.inject({ method: 'POST', url, payload: 'garbage', headers: { 'content-type': 'multipart/form-data; boundary=zz' } }), 'invalid_body', 'multipart garbage')
  expectEnvelopeError(t, await app.inject({ method: 'POST', url, payload: 'garbage', headers: { 'content-type': 'multipart/form-data' } }), 'invalid_body', 'multipart without boundary')
})

t.test('query keys like __proto__, constructor, toString do not crash', async t => {
  const game = await createGame(app)
  t.same(dataOf(await submit(app, game, { player: 'alice', score: 9 })), { score: 9, improved: true, best_score: 9, rank: 1 })
  const expected = { game_id: game.gameId, total: 1, items: [{ rank: 1, player_name: 'alice', score: 9 }] }
  for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__']) {
    for (const value of ['1', '', '{}']) {
      const res = await app.inject({ method: 'GET', url: `/api/rank?action=top&api_key=${game.apiKey}&game_id=${game.gameId}&${name}=${encodeURIComponent(value)}` })
      t.equal(res.statusCode, 200)
      t.match(res.json(), { ok: true, data: expected }, `top with ${name}=${value}`)
    }
    const bracket = await app.inject({ method: 'GET', url: `/api/rank?action=top&api_key=${game.apiKey}&game_id=${game.gameId}&${name}[x]=1` })
    t.match(bracket.json(), { ok: true, data: expected }, `top with ${name}[x]`)
    expectEnvelopeError(t, await app.inject({ method: 'GET', url: `/api/rank?action=${name}` }), 'unknown_action', `action=${name}`)
    expectEnvelopeError(t, await app.inject({ method: 'GET', url: `/api/rank?${name}=top` }), 'missing_param', `${name}=top without action`)
    expectEnvelopeError(t, await app.inject({ method: 'GET', url: `/api/rank?action=top&${name}=1&${name}=2` }), 'invalid_param', `${name} twice`)
    const health = await app.inject({ method: 'GET', url: `/healthz?${name}=1` })
    t.same(health.json(), { ok: true, data: { redis: 'up' } }, `/healthz?${name}=1`)
    // As a parameter value, a player name or a game id
    t.same(dataOf(await app.inject({ method: 'GET', url: `/api/rank?action=me&api_key=${game.apiKey}&game_id=${game.gameId}&player_name=${name}` })), { player_name: name, best_score: null, rank: null }, `player_name=${name}`)
    expectEnvelopeError(t, await app.inject({ method: 'GET', url: `/api/rank?action=top&api_key=${game.apiKey}&game_id=${name}` }), 'invalid_game', `game_id=${name}`)
    expectEnvelopeError(t, await app.inject({ method: 'GET', url: `/api/rank?action=top&api_key=${name}&game_id=${game.gameId}` }), 'invalid_key', `api_key=${name}`)
  }
  t.equal(({} as Record<string, unknown>).x, undefined, 'Object.prototype untouched')
})

/**
 * Replaces with plain strings the keys of this test's own Redis whose names
 * contain `marker`, except those `keep` accepts, so the service meets data it
 * cannot read. Works whatever the key layout is.
 */
async function corrupt (marker: string, keep: (name: string) => Promise<boolean> = async () => false): Promise<number> {
  let count = 0
  for (const name of await keysMatching(app.redis, `*${marker}*`)) {
    if (await keep(name)) continue
    await app.redis.del(name)
    await app.redis.set(name, 'corrupt')
    count++
  }
  return count
}

t.test('internal errors never leak a stack trace or Redis text', async t => {
  const game = await createGame(app)
  t.same(dataOf(await submit(app, game, { player: 'alice', score: 5 })), { score: 5, improved: true, best_score: 5, rank: 1 })
  // Keep the game record (a hash with created_at) so the request gets as far as the board scripts.
  const isGameRecord = async (name: string): Promise<boolean> => await app.redis.type(name) === 'hash' && await app.redis.hexists(name, 'created_at') === 1
  t.ok(await corrupt(game.gameId, isGameRecord) > 0, 'board keys replaced')
  for (const [what, res] of [
    ['me', await app.inject({ method: 'GET', url: `/api/rank?action=me&api_key=${game.apiKey}&game_id=${game.gameId}&player_name=alice` })],
    ['top', await top(app, game)],
    ['submit', await submit(app, game, { player: 'alice', score: 6 })]
  ] as const) {
    const body = expectEnvelopeError(t, res, 'internal_error', `${what} on a corrupt board`)
    t.notMatch(body.message, /\bERR\b|WRONGTYPE|Operation against a key/, `${what}: no Redis reply text`)
    t.notMatch(body.message, /script|user_function|lua|attempt to|redis|nil value/i, `${what}: no Redis or Lua text`)
    t.match(body.message, /request id [0-9a-f-]{36}/, `${what}: the message names the request id`)
    t.notMatch(res.body, game.apiSecret, `${what}: no secret`)
  }

  // A key record of the wrong Redis type
  const other = await createGame(app)
  t.ok(await corrupt(other.apiKey) > 0, 'key record replaced')
  const typeRes = await top(app, other)
  const typeBody = expectEnvelopeError(t, typeRes, 'internal_error', 'WRONGTYPE reply on the key record')
  t.notMatch(typeBody.message, /WRONGTYPE|Operation against a key|redis/i)
  t.notMatch(typeRes.body, other.apiSecret, 'no secret in the answer')

  // The service still serves other games.
  const fine = await createGame(app)
  t.same(dataOf(await submit(app, fine, { player: 'bob', score: 1 })), { score: 1, improved: true, best_score: 1, rank: 1 })
})

t.test('Redis down: unavailable, fast, without Redis text; back up afterwards', { ...STOPS_ITS_REDIS, timeout: 30_000 }, async t => {
  const { app, redis } = await buildTestApp(t)
  const game = await createGame(app)
  t.same(dataOf(await submit(app, game, { player: 'alice', score: 5 })), { score: 5, improved: true, best_score: 5, rank: 1 })
  await redis.kill()
  for (const [what, run] of [
    ['healthz', async () => await app.inject({ method: 'GET', url: '/healthz' })],
    ['top', async () => await top(app, game)],
    ['submit', async () => await submit(app, game, { player: 'alice', score: 6 })],
    ['admin', async () => await app.inject({ method: 'POST', url: '/admin/keys', headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, payload: { game_id: game.gameId } })]
  ] as const) {
    const started = Date.now()
    const res = await run()
    const elapsed = Date.now() - started
    const body = expectEnvelopeError(t, res, 'unavailable', `${what} while Redis is down`)
    t.notMatch(body.message, /ECONNREFUSED|Connection is closed|Stream isn't writeable|127\.0\.0\.1|redis:\/\//i, `${what}: no Redis text`)
    // Fast is at once (the offline queue is off), or at worst the 1 s command timeout
    // (src/store/redis-client.ts); slow would be waiting for Redis to come back, which it does
    // only after these requests. 5 s is far from both, even on a busy machine.
    t.ok(elapsed < 5000, `${what} failed fast (${elapsed} ms)`)
  }
  await redis.start()
  // The client reconnects on its own.
  await waitFor(async () => (await app.inject({ method: 'GET', url: '/healthz' })).json().ok === true, { what: 'healthz to answer ok once Redis is back' })
  t.same((await app.inject({ method: 'GET', url: '/healthz' })).json(), { ok: true, data: { redis: 'up' } }, 'healthz up again after Redis restarts')
})

t.test('a limited route sends its rate-limit headers also when it fails before being counted', { timeout: 30_000 }, async t => {
  const { app } = await buildTestApp(t, { RATE_LIMIT_MAX: '7', SESSION_RATE_LIMIT_MAX: '9' })
  const missing = await app.inject({ method: 'GET', url: '/api/rank?action=top&game_id=x' })
  t.equal(missing.json().error, 'missing_param')
  t.equal(missing.headers['x-ratelimit-limit'], '7')
  t.equal(missing.headers['x-ratelimit-remaining'], '7', 'read, not counted')
  const anonymous = await app.inject({ method: 'GET', url: '/api/rank?action=me-self&game_id=x' })
  t.equal(anonymous.json().error, 'not_logged_in')
  t.equal(anonymous.headers['x-ratelimit-limit'], '9')
  t.equal(anonymous.headers['x-ratelimit-remaining'], '9')
  const health = await app.inject({ method: 'GET', url: '/healthz' })
  t.equal(health.headers['x-ratelimit-limit'], undefined, 'unlimited routes send none')
})
