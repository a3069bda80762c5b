import t from 'tap'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { ADMIN_TOKEN, admin, buildTestApp, createGame, dataOf, errorOf, formBody, me, multipartBody, submit, top, type TestGame } from '../../helpers/app.js'

/*
 * The operator API (docs/interface.md#operator-api): POST/PATCH /admin/games,
 * POST /admin/keys, POST /admin/keys/:api_key/revoke, in the admin check
 * order unauthorized -> missing_param -> invalid_param -> not_found ->
 * already_exists.
 */

/** The assertions the helpers below use, from the root test or any subtest. */
type Test = Pick<typeof t, 'equal' | 'same' | 'match' | 'notMatch' | 'type'>

const JSON_TYPE = 'application/json; charset=utf-8'
const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/
const AUTH = { authorization: `Bearer ${ADMIN_TOKEN}` }

function expectError (t: Test, response: LightMyRequestResponse, code: string, what: string): void {
  t.equal(response.statusCode, 200, `${what} (status)`)
  t.equal(response.headers['content-type'], JSON_TYPE, `${what} (content-type)`)
  let error: unknown
  try { error = errorOf(response) } catch { error = response.body }
  t.equal(error, code, what)
}

async function adminForm (app: FastifyInstance, method: 'POST' | 'PATCH', url: string, fields: Record<string, string> | Array<[string, string]>): Promise<LightMyRequestResponse> {
  return await app.inject({ method, url, payload: formBody(fields), headers: { ...AUTH, 'content-type': 'application/x-www-form-urlencoded' } })
}

async function adminMultipart (app: FastifyInstance, method: 'POST' | 'PATCH', url: string, fields: Record<string, string>): Promise<LightMyRequestResponse> {
  const body = multipartBody(fields)
  return await app.inject({ method, url, payload: body.payload, headers: { ...AUTH, ...body.headers } })
}

async function adminJson (app: FastifyInstance, method: 'POST' | 'PATCH', url: string, json: string, headers: Record<string, string> = AUTH, remoteAddress?: string): Promise<LightMyRequestResponse> {
  return await app.inject({ method, url, payload: json, headers: { ...headers, 'content-type': 'application/json' }, ...(remoteAddress === undefined ? {} : { remoteAddress }) })
}

/** Each wrong token from an address of its own, so the failure throttle stays out of the way. */
let addresses = 0
function freshAddress (): string {
  addresses++
  return `10.200.${Math.floor(addresses / 250)}.${addresses % 250}`
}

let counter = 0
function newId (): string {
  return `adm_${process.pid}_${++counter}`
}

const { app } = await buildTestApp(t)

const GAME_FIELDS = ['approved', 'created_at', 'developer', 'game_id', 'keep_periods', 'max_entries', 'max_meta_bytes', 'name', 'order', 'periods', 'periods_since', 'season', 'season_started_at', 'timezone', 'score_min', 'score_max', 'review_above', 'review_below', 'review_factor', 'notify_top', 'guests', 'runs', 'min_run_seconds', 'max_score_rate', 'implausible', 'run_ttl_s', 'submit_run', 'rating_full_weight_seconds', 'rating_min_play_seconds', 'listed', 'score_format', 'score_decimals', 'score_unit'].sort()
/** The board settings of a game that sets none: v1's one board, best score first. */
const V1_BOARD = { order: 'desc', periods: [], periods_since: {}, timezone: 'UTC', keep_periods: 12, season: 1, score_min: null, score_max: null, review_above: null, review_below: null, review_factor: null, notify_top: 10, guests: 'off', runs: 'off', min_run_seconds: 0, max_score_rate: null, implausible: 'hold', run_ttl_s: 3600, submit_run: 'off', rating_full_weight_seconds: 600, rating_min_play_seconds: 0, listed: true, score_format: 'integer', score_decimals: 0, score_unit: '' }

t.test('POST /admin/games returns the game record', async t => {
  const gameId = newId()
  const before = Date.now()
  const res = await admin(app, 'POST', '/admin/games', { game_id: gameId, name: 'Space Race', developer: 'dev.one', approved: true })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-type'], JSON_TYPE)
  const game = dataOf(res)
  t.same(Object.keys(game).sort(), GAME_FIELDS)
  t.match(game, { game_id: gameId, name: 'Space Race', developer: 'dev.one', approved: true, created_at: ISO_MS, max_entries: 10_000_000, max_meta_bytes: 1_073_741_824, ...V1_BOARD })
  t.equal(game.season_started_at, game.created_at, 'the first season starts with the game')
  t.ok(Math.abs(Date.parse(game.created_at) - before) < 5000, 'created_at is now')

  // Only game_id given: approved defaults to false.
  const bare = dataOf(await admin(app, 'POST', '/admin/games', { game_id: `${gameId}_b` }))
  t.same(Object.keys(bare).sort(), GAME_FIELDS)
  t.equal(bare.game_id, `${gameId}_b`)
  t.equal(bare.approved, false)
  t.match(bare.created_at, ISO_MS)
  // 64 characters from the allowed set
  const long = 'A-z_9'.repeat(12) + 'abcd'
  t.equal(long.length, 64)
  t.equal(dataOf(await admin(app, 'POST', '/admin/games', { game_id: long, approved: false })).game_id, long)
})

t.test('PATCH /admin/games/:game_id returns the updated game record', async t => {
  const gameId = newId()
  const created = dataOf(await admin(app, 'POST', '/admin/games', { game_id: gameId, name: 'First', approved: false }))
  const renamed = dataOf(await admin(app, 'PATCH', `/admin/games/${gameId}`, { name: 'Second' }))
  t.same(renamed, { ...created, name: 'Second' })
  const approved = dataOf(await admin(app, 'PATCH', `/admin/games/${gameId}`, { approved: true, developer: 'maker_2' }))
  t.same(approved, { game_id: gameId, name: 'Second', developer: 'maker_2', approved: true, created_at: created.created_at, max_entries: 10_000_000, max_meta_bytes: 1_073_741_824, ...V1_BOARD, season_started_at: created.created_at })
  const unchanged = dataOf(await admin(app, 'PATCH', `/admin/games/${gameId}`, {}))
  t.same(unchanged, approved, 'an empty PATCH changes nothing')
})

t.test('POST /admin/keys returns the new key and its secret; revoke returns the record without the secret', async t => {
  const gameId = newId()
  dataOf(await admin(app, 'POST', '/admin/games', { game_id: gameId, approved: true }))
  const res = await admin(app, 'POST', '/admin/keys', { game_id: gameId })
  t.equal(res.headers['content-type'], JSON_TYPE)
  const key = dataOf(res)
  t.match(key, { api_key: /^[A-Za-z0-9_-]{1,128}$/, api_secret: /^\S{16,}$/, game_id: gameId, revoked: false })
  t.same({ api_key: key.api_key, api_secret: key.api_secret, game_id: key.game_id, revoked: key.revoked }, { api_key: key.api_key, api_secret: key.api_secret, game_id: gameId, revoked: false })
  // The documented fields; a created_at time is the one extra field allowed.
  t.same(Object.keys(key).filter(name => name !== 'created_at').sort(), ['api_key', 'api_secret', 'game_id', 'revoked'])
  if ('created_at' in key) t.match(key.created_at, ISO_MS)

  // The key works, signed with the secret.
  const game: TestGame = { gameId, apiKey: key.api_key, apiSecret: key.api_secret }
  t.same(dataOf(await submit(app, game, { player: 'alice', score: 4 })), { score: 4, improved: true, best_score: 4, rank: 1 })

  // A game may have many keys, all different.
  const again = dataOf(await admin(app, 'POST', '/admin/keys', { game_id: gameId }))
  t.not(again.api_key, key.api_key)
  t.not(again.api_secret, key.api_secret)

  const revokeRes = await admin(app, 'POST', `/admin/keys/${key.api_key}/revoke`)
  const revoked = dataOf(revokeRes)
  t.equal(revoked.api_key, key.api_key)
  t.equal(revoked.game_id, gameId)
  t.equal(revoked.revoked, true)
  t.notOk('api_secret' in revoked, 'no api_secret')
  t.notOk('secret' in revoked, 'no secret')
  t.same(Object.keys(revoked).filter(name => name !== 'created_at').sort(), ['api_key', 'game_id', 'revoked'])
  t.notMatch(revokeRes.body, key.api_secret, 'the secret appears nowhere in the answer')
  t.equal(errorOf(await submit(app, game, { player: 'alice', score: 5 })), 'key_revoked')
  // The other key is untouched.
  t.same(dataOf(await me(app, { gameId, apiKey: again.api_key, apiSecret: again.api_secret }, 'alice')), { player_name: 'alice', best_score: 4, rank: 1 })
})

t.test('unauthorized: no header, wrong token, Bearer prefix missing', async t => {
  const game = await createGame(app)
  const routes: Array<['POST' | 'PATCH', string, string]> = [
    ['POST', '/admin/games', JSON.stringify({ game_id: newId() })],
    ['PATCH', `/admin/games/${game.gameId}`, JSON.stringify({ approved: false })],
    ['POST', '/admin/keys', JSON.stringify({ game_id: game.gameId })],
    ['POST', `/admin/keys/${game.apiKey}/revoke`, '{}']
  ]
  const badHeaders: Array<[string, Record<string, string>]> = [
    ['no header', {}],
    ['wrong token', { authorization: 'Bearer wrong-token' }],
    ['no Bearer prefix', { authorization: ADMIN_TOKEN }],
    ['Basic scheme', { authorization: `Basic ${ADMIN_TOKEN}` }],
    ['token with a suffix', { authorization: `Bearer ${ADMIN_TOKEN}x` }],
    ['token prefix only', { authorization: `Bearer ${ADMIN_TOKEN.slice(0, -1)}` }],
    ['empty', { authorization: '' }],
    ['Bearer alone', { authorization: 'Bearer ' }]
  ]
  for (const [method, url, json] of routes) {
    for (const [what, headers] of badHeaders) {
      expectError(t, await adminJson(app, method, url, json, headers, freshAddress()), 'unauthorized', `${method} ${url.replace(/\/[^/]*$/, '/..')} ${what}`)
    }
    // unauthorized comes before any body fault
    expectError(t, await adminJson(app, method, url, '{broken', {}, freshAddress()), 'unauthorized', `${method} ${url}: broken JSON without token`)
    expectError(t, await adminJson(app, method, url, '{}', {}, freshAddress()), 'unauthorized', `${method} ${url}: missing fields without token`)
  }
  expectError(t, await adminJson(app, 'PATCH', '/admin/games/no_such_game', '{"approved":"maybe"}', {}, freshAddress()), 'unauthorized', 'unauthorized over invalid_param and not_found')
  expectError(t, await app.inject({ method: 'POST', url: '/admin/games', payload: `{"game_id":"${'x'.repeat(2_000_000)}"}`, headers: { 'content-type': 'application/json' }, remoteAddress: freshAddress() }), 'unauthorized', 'unauthorized over payload_too_large')
  // Nothing changed: the key still works, the game is still approved.
  t.same(dataOf(await top(app, game)), { game_id: game.gameId, total: 0, items: [] })
})

t.test('10 wrong admin tokens from an address: rate_limited there, right token or not, until the window ends', async t => {
  const game = await createGame(app)
  const from = '10.77.0.1'
  const patch = async (headers: Record<string, string>, remoteAddress = from): Promise<LightMyRequestResponse> =>
    await adminJson(app, 'PATCH', `/admin/games/${game.gameId}`, '{"name":"x"}', headers, remoteAddress)
  for (let i = 0; i < 15; i++) t.equal(dataOf(await patch(AUTH)).name, 'x', `right token ${i + 1}: never counted`)
  for (let i = 1; i <= 10; i++) expectError(t, await patch({ authorization: `Bearer guess-${i}` }), 'unauthorized', `wrong token ${i}`)
  const throttled = await patch({ authorization: 'Bearer guess-11' })
  expectError(t, throttled, 'rate_limited', 'the 11th wrong token')
  t.match(String(throttled.headers['retry-after']), /^\d+$/)
  expectError(t, await patch(AUTH), 'rate_limited', 'the right token from the throttled address waits too')
  expectError(t, await patch({}, '10.77.0.2'), 'unauthorized', 'another address is judged on its own')
  t.equal(dataOf(await patch(AUTH, '10.77.0.3')).name, 'x', 'and the right token works from there')
})

t.test('wrong admin tokens sent in parallel: only 10 are judged, the rest wait', async t => {
  const from = '10.78.0.1'
  const answers = await Promise.all(Array.from({ length: 200 }, async (_, i) => errorOf(await adminJson(app, 'POST', '/admin/games', '{"game_id":"x"}', { authorization: `Bearer parallel-${i}` }, from))))
  t.equal(answers.filter(code => code === 'unauthorized').length, 10, '10 answered unauthorized')
  t.equal(answers.filter(code => code === 'rate_limited').length, 190, 'the other 190 rate_limited')
})

t.test('missing_param', async t => {
  expectError(t, await admin(app, 'POST', '/admin/games', {}), 'missing_param', 'POST /admin/games {}')
  expectError(t, await admin(app, 'POST', '/admin/games', { game_id: '' }), 'missing_param', 'POST /admin/games game_id ""')
  expectError(t, await admin(app, 'POST', '/admin/games', { name: 'No id', approved: true }), 'missing_param', 'POST /admin/games without game_id')
  expectError(t, await app.inject({ method: 'POST', url: '/admin/games', headers: AUTH }), 'missing_param', 'POST /admin/games without a body')
  expectError(t, await adminForm(app, 'POST', '/admin/games', { name: 'x' }), 'missing_param', 'form without game_id')
  expectError(t, await adminForm(app, 'POST', '/admin/games', { game_id: '' }), 'missing_param', 'form with empty game_id')
  expectError(t, await admin(app, 'POST', '/admin/keys', {}), 'missing_param', 'POST /admin/keys {}')
  expectError(t, await adminForm(app, 'POST', '/admin/keys', { game_id: '' }), 'missing_param', 'POST /admin/keys form with empty game_id')
  // missing_param comes before invalid_param
  expectError(t, await adminJson(app, 'POST', '/admin/games', '{"approved":"maybe","color":"red"}'), 'missing_param', 'missing game_id over a bad approved and an unknown field')
})

t.test('invalid_param: wrong JSON types, bad values, unknown fields', async t => {
  const gameId = newId()
  dataOf(await admin(app, 'POST', '/admin/games', { game_id: gameId }))
  const cases: Array<['POST' | 'PATCH', string, string, string]> = [
    ['POST', '/admin/games', '{"game_id": 5}', 'numeric game_id'],
    ['POST', '/admin/games', '{"game_id": true}', 'boolean game_id'],
    ['POST', '/admin/games', '{"game_id": ["a"]}', 'array game_id'],
    ['POST', '/admin/games', '{"game_id": {"a":1}}', 'object game_id'],
    ['POST', '/admin/games', `{"game_id": "${newId()}", "approved": "maybe"}`, 'approved "maybe"'],
    ['POST', '/admin/games', `{"game_id": "${newId()}", "approved": 1}`, 'approved as the JSON number 1'],
    ['POST', '/admin/games', `{"game_id": "${newId()}", "color": "red"}`, 'unknown field'],
    ['POST', '/admin/games', '{"game_id": "a b"}', 'game_id with a space'],
    ['POST', '/admin/games', `{"game_id": "${'g'.repeat(65)}"}`, '65-character game_id'],
    ['POST', '/admin/games', `{"game_id": "${newId()}", "developer": "not a username!"}`, 'bad developer'],
    ['POST', '/admin/games', `{"game_id": "${newId()}", "name": 7}`, 'numeric name'],
    ['PATCH', `/admin/games/${gameId}`, '{"approved": "maybe"}', 'PATCH approved "maybe"'],
    ['PATCH', `/admin/games/${gameId}`, '{"game_id": "other"}', 'PATCH game_id (not a PATCH field)'],
    ['PATCH', `/admin/games/${gameId}`, '{"colour": "blue"}', 'PATCH unknown field'],
    ['PATCH', `/admin/games/${gameId}`, '{"developer": 12}', 'PATCH numeric developer'],
    ['POST', '/admin/keys', '{"game_id": 5}', 'keys numeric game_id'],
    ['POST', '/admin/keys', `{"game_id": "${gameId}", "extra": 1}`, 'keys unknown field']
  ]
  for (const [method, url, json, what] of cases) {
    expectError(t, await adminJson(app, method, url, json), 'invalid_param', what)
  }
  expectError(t, await adminForm(app, 'POST', '/admin/games', { game_id: newId(), approved: 'yes' }), 'invalid_param', 'form approved=yes')
  expectError(t, await adminForm(app, 'POST', '/admin/games', [['game_id', newId()], ['name', 'a'], ['name', 'b']]), 'invalid_param', 'form field sent twice')
  expectError(t, await adminForm(app, 'PATCH', `/admin/games/${gameId}`, { approved: 'TRUE' }), 'invalid_param', 'form approved=TRUE')
  expectError(t, await adminJson(app, 'POST', `/admin/keys/${'rk_x'}/revoke`, '{"x":1}'), 'invalid_param', 'revoke with a field')
  // The game is untouched by the failed PATCHes.
  t.match(dataOf(await admin(app, 'PATCH', `/admin/games/${gameId}`, {})), { game_id: gameId, approved: false })
})

t.test('invalid_body on admin routes: broken JSON, a body that is not an object', async t => {
  expectError(t, await adminJson(app, 'POST', '/admin/games', '{"game_id":'), 'invalid_body', 'broken JSON')
  expectError(t, await adminJson(app, 'POST', '/admin/keys', 'nope'), 'invalid_body', 'not JSON')
  expectError(t, await app.inject({ method: 'POST', url: '/admin/games', payload: 'game_id=%zz', headers: { ...AUTH, 'content-type': 'application/x-www-form-urlencoded' } }), 'invalid_body', 'form with %zz')
})

t.test('admin bodies may be up to 1 MiB', async t => {
  // 100 KB is over the public 16 KiB limit but allowed here; the over-long name is then invalid_param.
  expectError(t, await adminJson(app, 'POST', '/admin/games', JSON.stringify({ game_id: newId(), name: 'n'.repeat(100_000) })), 'invalid_param', '100 KB body read, name too long')
  expectError(t, await adminJson(app, 'POST', '/admin/games', JSON.stringify({ game_id: newId(), name: 'n'.repeat(1_100_000) })), 'payload_too_large', 'over 1 MiB')
})

t.test('form-encoded and multipart admin bodies: approved=true/1/false/0', async t => {
  for (const [text, value] of [['true', true], ['1', true], ['false', false], ['0', false]] as const) {
    const gameId = newId()
    const created = dataOf(await adminForm(app, 'POST', '/admin/games', { game_id: gameId, name: `Form ${text}`, approved: text }))
    t.match(created, { game_id: gameId, name: `Form ${text}`, approved: value, created_at: ISO_MS }, `POST approved=${text}`)
    const flipped = dataOf(await adminForm(app, 'PATCH', `/admin/games/${gameId}`, { approved: value ? '0' : '1' }))
    t.equal(flipped.approved, !value, `PATCH flips approved=${text}`)
    const key = dataOf(await adminForm(app, 'POST', '/admin/keys', { game_id: gameId }))
    t.match(key, { game_id: gameId, revoked: false })
  }
  const gameId = newId()
  const viaMultipart = dataOf(await adminMultipart(app, 'POST', '/admin/games', { game_id: gameId, approved: '1', developer: 'dev-x' }))
  t.match(viaMultipart, { game_id: gameId, approved: true, developer: 'dev-x' })
  t.equal(dataOf(await adminMultipart(app, 'PATCH', `/admin/games/${gameId}`, { approved: 'false' })).approved, false)
})

t.test('not_found: PATCH an unknown game, revoke an unknown key', async t => {
  expectError(t, await admin(app, 'PATCH', '/admin/games/no_such_game_here', { approved: true }), 'not_found', 'PATCH unknown game')
  expectError(t, await admin(app, 'PATCH', '/admin/games/no_such_game_here', {}), 'not_found', 'empty PATCH of unknown game')
  expectError(t, await admin(app, 'PATCH', '/admin/games/a%20b', { approved: true }), 'not_found', 'PATCH a malformed game id')
  expectError(t, await admin(app, 'POST', '/admin/keys/rk_00000000000000000000000000000000/revoke'), 'not_found', 'revoke unknown key')
  expectError(t, await admin(app, 'POST', '/admin/keys/%7Bx%7D/revoke'), 'not_found', 'revoke malformed key')
  // invalid_param comes before not_found
  expectError(t, await admin(app, 'PATCH', '/admin/games/no_such_game_here', { approved: 'maybe' }), 'invalid_param', 'invalid_param over not_found')
  // And the PATCH did not create the game.
  expectError(t, await admin(app, 'POST', '/admin/keys', { game_id: 'no_such_game_here' }), 'invalid_game', 'still no such game')
})

t.test('already_exists: creating a game twice', async t => {
  const gameId = newId()
  const first = dataOf(await admin(app, 'POST', '/admin/games', { game_id: gameId, name: 'One', approved: true }))
  expectError(t, await admin(app, 'POST', '/admin/games', { game_id: gameId, name: 'Two' }), 'already_exists', 'same game_id again')
  expectError(t, await adminForm(app, 'POST', '/admin/games', { game_id: gameId }), 'already_exists', 'same game_id as a form')
  // invalid_param comes before already_exists
  expectError(t, await admin(app, 'POST', '/admin/games', { game_id: gameId, approved: 'maybe' }), 'invalid_param', 'invalid_param over already_exists')
  // The first record is unchanged.
  t.same(dataOf(await admin(app, 'PATCH', `/admin/games/${gameId}`, {})), first)
  // Game ids are case-sensitive: another case is another game.
  t.equal(dataOf(await admin(app, 'POST', '/admin/games', { game_id: gameId.toUpperCase() })).game_id, gameId.toUpperCase())
})

t.test('invalid_game: POST /admin/keys for an unknown game', async t => {
  expectError(t, await admin(app, 'POST', '/admin/keys', { game_id: 'no_such_game_at_all' }), 'invalid_game', 'unknown game')
  expectError(t, await admin(app, 'POST', '/admin/keys', { game_id: 'a b' }), 'invalid_game', 'malformed game id')
  // An existing game that is not approved may still get keys.
  const gameId = newId()
  dataOf(await admin(app, 'POST', '/admin/games', { game_id: gameId, approved: false }))
  t.match(dataOf(await admin(app, 'POST', '/admin/keys', { game_id: gameId })), { game_id: gameId, revoked: false })
})

t.test('an unapproved game becomes usable after approved=true, unusable after approved=false', async t => {
  const game = await createGame(app, { approved: false })
  t.equal(errorOf(await submit(app, game, { player: 'alice', score: 10 })), 'invalid_game')
  t.equal(errorOf(await top(app, game)), 'invalid_game')
  t.equal(errorOf(await me(app, game, 'alice')), 'invalid_game')

  t.equal(dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}`, { approved: true })).approved, true)
  t.same(dataOf(await submit(app, game, { player: 'alice', score: 10 })), { score: 10, improved: true, best_score: 10, rank: 1 })
  t.match(dataOf(await top(app, game)), { game_id: game.gameId, total: 1, items: [{ rank: 1, player_name: 'alice', score: 10 }] })

  t.equal(dataOf(await adminForm(app, 'PATCH', `/admin/games/${game.gameId}`, { approved: 'false' })).approved, false)
  t.equal(errorOf(await submit(app, game, { player: 'alice', score: 20 })), 'invalid_game')
  t.equal(errorOf(await top(app, game)), 'invalid_game')
  t.equal(errorOf(await me(app, game, 'alice')), 'invalid_game')

  // Approving again brings the board back as it was.
  t.equal(dataOf(await adminForm(app, 'PATCH', `/admin/games/${game.gameId}`, { approved: '1' })).approved, true)
  t.same(dataOf(await me(app, game, 'alice')), { player_name: 'alice', best_score: 10, rank: 1 })
})

t.test('with ADMIN_TOKEN unset every /admin route answers not_found', { timeout: 30_000 }, async t => {
  const { app } = await buildTestApp(t, { ADMIN_TOKEN: '' })
  const requests: Array<{ method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string }> = [
    { method: 'POST', url: '/admin/games' },
    { method: 'PATCH', url: '/admin/games/some_game' },
    { method: 'POST', url: '/admin/keys' },
    { method: 'POST', url: '/admin/keys/rk_abc/revoke' },
    { method: 'GET', url: '/admin/games' },
    { method: 'DELETE', url: '/admin/games/some_game' },
    { method: 'GET', url: '/admin' }
  ]
  for (const { method, url } of requests) {
    for (const headers of [{}, { authorization: `Bearer ${ADMIN_TOKEN}` }, { authorization: 'Bearer ' }, { authorization: 'Bearer undefined' }]) {
      const res = await app.inject({ method, url, headers: { ...headers, 'content-type': 'application/json' }, ...(method === 'GET' || method === 'DELETE' ? {} : { payload: '{"game_id":"some_game"}' }) })
      expectError(t, res, 'not_found', `${method} ${url} ${JSON.stringify(headers)}`)
    }
  }
  // The public API still answers (a game cannot exist here, so invalid_key).
  expectError(t, await app.inject({ method: 'GET', url: '/api/rank?action=top&api_key=rk_x&game_id=g' }), 'invalid_key', 'public route still served')
})

t.test('JSON bodies keep their types; form bodies read true/false/1/0 as booleans', { timeout: 30_000 }, async t => {
  const { app } = await buildTestApp(t)
  const json = await admin(app, 'POST', '/admin/games', { game_id: 'typed_json', approved: 'true' })
  t.equal(json.json().error, 'invalid_param', '"true" is a string in JSON')
  const form = await app.inject({
    method: 'POST',
    url: '/admin/games',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'game_id=typed_form&approved=1'
  })
  t.equal(form.json().data.approved, true, 'approved=1 in a form is true')
})
