import t from 'tap'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { admin, buildTestApp, createGame, dataOf, errorOf, formBody, get, me, multipartBody, post, submitFields, top, type Fields, type TestGame } from '../../helpers/app.js'

/*
 * The check order of docs/interface.md#response-envelope, one test per row: when a request
 * has several faults, the first in this order is the one reported.
 *
 *   route: not_found, unknown_action, method_not_allowed
 *   body:  payload_too_large, invalid_body
 *   API-key mode: missing_param -> rate_limited -> invalid_key, key_revoked ->
 *     invalid_game, key_game_mismatch -> invalid_param (ts), expired_ts ->
 *     invalid_signature -> player_name, score, meta, limit, offset
 */

/** The assertions the helpers below use, from the root test or any subtest. */
type Test = Pick<typeof t, 'equal' | 'same' | 'match' | 'notMatch' | 'type'>

const SUBMIT = '/api/rank?action=submit'
const BAD_SIGN = 'f'.repeat(64)

function nowS (): number {
  return Math.floor(Date.now() / 1000)
}

function expectError (t: Test, response: LightMyRequestResponse, code: string, what: string): void {
  t.equal(response.statusCode, 200, `${what} (status)`)
  t.equal(response.headers['content-type'], 'application/json; charset=utf-8', `${what} (content-type)`)
  let error: unknown
  try { error = errorOf(response) } catch { error = response.body }
  t.equal(error, code, what)
}

async function postForm (app: FastifyInstance, url: string, fields: Fields, remoteAddress?: string): Promise<LightMyRequestResponse> {
  return await app.inject({ method: 'POST', url, payload: formBody(fields), headers: { 'content-type': 'application/x-www-form-urlencoded' }, ...(remoteAddress === undefined ? {} : { remoteAddress }) })
}

async function getQuery (app: FastifyInstance, query: Fields, remoteAddress?: string): Promise<LightMyRequestResponse> {
  return await app.inject({ method: 'GET', url: `/api/rank?${formBody(query)}`, ...(remoteAddress === undefined ? {} : { remoteAddress }) })
}

/** A submit with every later fault too: bad ts form aside, an expired ts, a bad signature, bad fields. */
function everythingWrong (game: TestGame): Fields {
  return { api_key: game.apiKey, game_id: game.gameId, player_name: ' ', score: '1.5', ts: String(nowS() - 1000), sign: BAD_SIGN, meta: '{bad' }
}

const { app } = await buildTestApp(t)

// ---- route before body --------------------------------------------------

t.test('route errors come before body errors', async t => {
  const game = await createGame(app)
  const huge = `${formBody(submitFields(game, { player: 'a', score: 1 }))}&pad=${'x'.repeat(20000)}`
  const form = { 'content-type': 'application/x-www-form-urlencoded' }
  const json = { 'content-type': 'application/json' }
  expectError(t, await app.inject({ method: 'POST', url: '/nope', payload: huge, headers: form }), 'not_found', 'not_found over payload_too_large')
  expectError(t, await app.inject({ method: 'POST', url: '/nope', payload: '{bad', headers: json }), 'not_found', 'not_found over invalid_body')
  expectError(t, await app.inject({ method: 'POST', url: '/api/rank?action=nope', payload: huge, headers: form }), 'unknown_action', 'unknown_action over payload_too_large')
  expectError(t, await app.inject({ method: 'POST', url: '/api/rank?action=nope', payload: '{"a":1}', headers: json }), 'unknown_action', 'unknown_action over invalid_body (JSON)')
  expectError(t, await app.inject({ method: 'POST', url: '/api/rank?action=nope', payload: 'a=%zz', headers: form }), 'unknown_action', 'unknown_action over invalid_body (%zz)')
  expectError(t, await app.inject({ method: 'POST', url: '/api/rank?action=top', payload: huge, headers: form }), 'method_not_allowed', 'method_not_allowed over payload_too_large')
  expectError(t, await app.inject({ method: 'POST', url: '/api/rank?action=top', payload: 'x', headers: { 'content-type': 'text/plain' } }), 'method_not_allowed', 'method_not_allowed over invalid_body (text/plain)')
  expectError(t, await app.inject({ method: 'PUT', url: SUBMIT, payload: 'a=%zz', headers: form }), 'method_not_allowed', 'method_not_allowed over invalid_body (%zz)')
  const mp = multipartBody({ pad: 'y'.repeat(20000) })
  expectError(t, await app.inject({ method: 'POST', url: '/api/rank?action=me', payload: mp.payload, headers: mp.headers }), 'method_not_allowed', 'method_not_allowed over multipart payload_too_large')
  expectError(t, await app.inject({ method: 'POST', url: '/api/rank', payload: huge, headers: form }), 'missing_param', 'missing action over payload_too_large')
  expectError(t, await app.inject({ method: 'POST', url: '/api/rank?action=nope&action=top', payload: '{}', headers: json }), 'invalid_param', 'action sent twice over invalid_body')
})

t.test('not_found comes before method_not_allowed and unknown_action', async t => {
  expectError(t, await app.inject({ method: 'DELETE', url: '/api/rank/x?action=top' }), 'not_found', 'unknown path with a known action')
  expectError(t, await app.inject({ method: 'GET', url: '/api/ranking?action=nope' }), 'not_found', 'unknown path with unknown action')
})

t.test('unknown_action comes before method_not_allowed', async t => {
  expectError(t, await app.inject({ method: 'DELETE', url: '/api/rank?action=nope' }), 'unknown_action', 'DELETE of an unknown action')
})

t.test('payload_too_large comes before invalid_body', async t => {
  const big = `a=%zz&pad=${'x'.repeat(20000)}`
  expectError(t, await app.inject({ method: 'POST', url: SUBMIT, payload: big, headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 'payload_too_large', 'oversized form with %zz')
})

t.test('payload_too_large comes before invalid_body for a content type that is not accepted', async t => {
  const big = JSON.stringify({ pad: 'x'.repeat(20000) })
  expectError(t, await app.inject({ method: 'POST', url: SUBMIT, payload: big, headers: { 'content-type': 'application/json' } }), 'payload_too_large', 'oversized JSON')
  expectError(t, await app.inject({ method: 'POST', url: SUBMIT, payload: 'x'.repeat(20000), headers: { 'content-type': 'text/plain' } }), 'payload_too_large', 'oversized text/plain')
})

// ---- body before parameters ---------------------------------------------

t.test('body errors come before missing_param', async t => {
  expectError(t, await app.inject({ method: 'POST', url: SUBMIT, payload: `pad=${'x'.repeat(20000)}`, headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 'payload_too_large', 'oversized body without any field')
  expectError(t, await app.inject({ method: 'POST', url: SUBMIT, payload: '{}', headers: { 'content-type': 'application/json' } }), 'invalid_body', 'JSON body without any field')
  expectError(t, await app.inject({ method: 'POST', url: SUBMIT, payload: 'x=%zz', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 'invalid_body', 'malformed form without any field')
})

// ---- API-key mode -------------------------------------------------------

t.test('missing_param comes before every later check', async t => {
  const game = await createGame(app)
  // Unknown key, unknown game, expired ts, bad signature, bad score, and no player_name.
  const fields = { api_key: 'rk_nobody', game_id: 'no such game', score: '1.5', ts: '12x', sign: 'nope' }
  expectError(t, await postForm(app, SUBMIT, fields), 'missing_param', 'submit: missing player_name over invalid_key/invalid_game/ts/sign/score')
  expectError(t, await postForm(app, SUBMIT, { ...everythingWrong(game), sign: '' }), 'missing_param', 'submit: empty sign over expired_ts and field errors')
  expectError(t, await getQuery(app, { action: 'top', api_key: 'rk_nobody', limit: '0' }), 'missing_param', 'top: missing game_id over invalid_key and limit')
  expectError(t, await getQuery(app, { action: 'me', api_key: '{x}', game_id: 'a b' }), 'missing_param', 'me: missing player_name over invalid_key')
})

t.test('missing_param comes before rate_limited', { timeout: 30_000 }, async t => {
  const { app } = await buildTestApp(t, { RATE_LIMIT_MAX: '1' })
  const game = await createGame(app)
  t.equal(dataOf(await top(app, game)).total, 0, 'the one allowed call')
  expectError(t, await top(app, game), 'rate_limited', 'the key is now limited')
  expectError(t, await getQuery(app, { action: 'top', api_key: game.apiKey }), 'missing_param', 'top without game_id')
  expectError(t, await getQuery(app, { action: 'me', api_key: game.apiKey, game_id: game.gameId }), 'missing_param', 'me without player_name')
  const fields = submitFields(game, { player: 'alice', score: 1 })
  delete fields.sign
  expectError(t, await postForm(app, SUBMIT, fields), 'missing_param', 'submit without sign')
  // Unknown keys are limited per address: that address is limited too after one call.
  expectError(t, await getQuery(app, { action: 'top', api_key: 'rk_nobody', game_id: game.gameId }, '10.0.0.7'), 'invalid_key', 'first unknown-key call')
  expectError(t, await getQuery(app, { action: 'top', api_key: 'rk_nobody', game_id: game.gameId }, '10.0.0.7'), 'rate_limited', 'second unknown-key call')
  expectError(t, await getQuery(app, { action: 'top', game_id: game.gameId }, '10.0.0.7'), 'missing_param', 'missing api_key over rate_limited')
})

t.test('rate_limited comes before invalid_key, key_revoked and all later checks', { timeout: 30_000 }, async t => {
  const { app } = await buildTestApp(t, { RATE_LIMIT_MAX: '1' })
  // invalid_key: unknown keys counted per address
  expectError(t, await getQuery(app, { action: 'top', api_key: 'rk_unknown', game_id: 'g' }, '10.0.0.1'), 'invalid_key', 'first call from the address')
  expectError(t, await getQuery(app, { action: 'top', api_key: 'rk_unknown2', game_id: 'g' }, '10.0.0.1'), 'rate_limited', 'rate_limited over invalid_key')
  expectError(t, await postForm(app, SUBMIT, { api_key: '{x}', game_id: 'a b', player_name: ' ', score: 'x', ts: '1x', sign: 'x' }, '10.0.0.1'), 'rate_limited', 'rate_limited over invalid_key (malformed key) on submit')

  // key_revoked: a known key is counted per (key, address) even once revoked
  const revokedGame = await createGame(app)
  t.equal(dataOf(await top(app, revokedGame)).total, 0)
  t.equal(dataOf(await admin(app, 'POST', `/admin/keys/${revokedGame.apiKey}/revoke`)).revoked, true)
  expectError(t, await top(app, revokedGame), 'rate_limited', 'rate_limited over key_revoked')

  // invalid_game, key_game_mismatch, expired_ts, invalid_signature, field values
  const game = await createGame(app)
  const other = await createGame(app)
  t.equal(dataOf(await me(app, game, 'alice')).best_score, null)
  expectError(t, await getQuery(app, { action: 'top', api_key: game.apiKey, game_id: 'no_such_game' }), 'rate_limited', 'rate_limited over invalid_game')
  expectError(t, await getQuery(app, { action: 'top', api_key: game.apiKey, game_id: other.gameId }), 'rate_limited', 'rate_limited over key_game_mismatch')
  expectError(t, await postForm(app, SUBMIT, everythingWrong(game)), 'rate_limited', 'rate_limited over expired_ts, invalid_signature and field errors')
  expectError(t, await postForm(app, SUBMIT, { ...everythingWrong(game), ts: '12x' }), 'rate_limited', 'rate_limited over invalid_param ts')
  expectError(t, await getQuery(app, { action: 'top', api_key: game.apiKey, game_id: game.gameId, limit: '0', offset: '-1' }), 'rate_limited', 'rate_limited over limit/offset')
  expectError(t, await getQuery(app, { action: 'me', api_key: game.apiKey, game_id: game.gameId, player_name: ' ' }), 'rate_limited', 'rate_limited over invalid_player_name (me)')
})

t.test('invalid_key comes before invalid_game and all later checks', async t => {
  const unapproved = await createGame(app, { approved: false })
  for (const apiKey of ['rk_nobody', '{x}', 'k'.repeat(500)]) {
    expectError(t, await getQuery(app, { action: 'top', api_key: apiKey, game_id: 'no_such_game', limit: '0' }), 'invalid_key', `top ${apiKey.slice(0, 12)}: over nonexistent game`)
    expectError(t, await getQuery(app, { action: 'me', api_key: apiKey, game_id: 'a b', player_name: ' ' }), 'invalid_key', `me ${apiKey.slice(0, 12)}: over bad game id`)
    expectError(t, await postForm(app, SUBMIT, { ...everythingWrong(unapproved), api_key: apiKey }), 'invalid_key', `submit ${apiKey.slice(0, 12)}: over unapproved game and later faults`)
    expectError(t, await postForm(app, SUBMIT, { ...everythingWrong(unapproved), api_key: apiKey, ts: '1x' }), 'invalid_key', `submit ${apiKey.slice(0, 12)}: over malformed ts`)
  }
})

t.test('key_revoked comes before invalid_game and all later checks', async t => {
  const game = await createGame(app)
  const other = await createGame(app)
  const unapproved = await createGame(app, { approved: false })
  t.equal(dataOf(await admin(app, 'POST', `/admin/keys/${game.apiKey}/revoke`)).revoked, true)
  expectError(t, await getQuery(app, { action: 'top', api_key: game.apiKey, game_id: 'no_such_game' }), 'key_revoked', 'over nonexistent game')
  expectError(t, await getQuery(app, { action: 'top', api_key: game.apiKey, game_id: unapproved.gameId }), 'key_revoked', 'over unapproved game')
  expectError(t, await getQuery(app, { action: 'me', api_key: game.apiKey, game_id: 'a b', player_name: 'x' }), 'key_revoked', 'over malformed game id')
  expectError(t, await getQuery(app, { action: 'top', api_key: game.apiKey, game_id: other.gameId }), 'key_revoked', 'over key_game_mismatch')
  expectError(t, await postForm(app, SUBMIT, everythingWrong(game)), 'key_revoked', 'over expired_ts, signature and fields')
  expectError(t, await getQuery(app, { action: 'top', api_key: game.apiKey, game_id: game.gameId, limit: 'abc' }), 'key_revoked', 'over limit')
})

t.test('invalid_game comes before key_game_mismatch and all later checks', async t => {
  const game = await createGame(app)
  const unapproved = await createGame(app, { approved: false })
  // game's key with another game that is unapproved, nonexistent or malformed: invalid_game, not key_game_mismatch
  for (const gameId of [unapproved.gameId, 'no_such_game', 'a b', 'g'.repeat(65)]) {
    expectError(t, await getQuery(app, { action: 'top', api_key: game.apiKey, game_id: gameId }), 'invalid_game', `top ${gameId.slice(0, 20)}`)
    expectError(t, await getQuery(app, { action: 'me', api_key: game.apiKey, game_id: gameId, player_name: ' ' }), 'invalid_game', `me ${gameId.slice(0, 20)}`)
    expectError(t, await postForm(app, SUBMIT, { ...everythingWrong(game), game_id: gameId }), 'invalid_game', `submit ${gameId.slice(0, 20)} with later faults`)
    expectError(t, await postForm(app, SUBMIT, { ...everythingWrong(game), game_id: gameId, ts: '1x' }), 'invalid_game', `submit ${gameId.slice(0, 20)} with malformed ts`)
  }
})

t.test('top: invalid_game comes before limit=0 (no schema rejects it early)', async t => {
  const game = await createGame(app)
  for (const [limit, offset] of [['0', '0'], ['abc', '0'], ['-1', '0'], ['5', '-1'], ['5', '1.5']]) {
    const query = { action: 'top', api_key: game.apiKey, game_id: 'no_such_game', limit: limit ?? '', offset: offset ?? '' }
    expectError(t, await getQuery(app, query), 'invalid_game', `limit=${limit} offset=${offset}`)
  }
  // With the right game, limit=0 is invalid_param.
  expectError(t, await top(app, game, { limit: '0' }), 'invalid_param', 'limit=0 on a valid game')
})

t.test('key_game_mismatch comes before ts, signature and field checks', async t => {
  const a = await createGame(app)
  const b = await createGame(app)
  const crossed: TestGame = { gameId: b.gameId, apiKey: a.apiKey, apiSecret: a.apiSecret }
  expectError(t, await postForm(app, SUBMIT, { ...everythingWrong(crossed), ts: '12x' }), 'key_game_mismatch', 'over invalid_param ts')
  expectError(t, await postForm(app, SUBMIT, everythingWrong(crossed)), 'key_game_mismatch', 'over expired_ts')
  expectError(t, await postForm(app, SUBMIT, { ...submitFields(crossed, { player: ' ', score: '1.5', meta: '{' }), sign: BAD_SIGN }), 'key_game_mismatch', 'over invalid_signature and fields')
  expectError(t, await top(app, crossed, { limit: '0', offset: '-1' }), 'key_game_mismatch', 'top: over limit/offset')
  expectError(t, await me(app, crossed, 'x'.repeat(31)), 'key_game_mismatch', 'me: over invalid_player_name')
})

t.test('malformed ts (invalid_param) comes before expired_ts, signature and fields', async t => {
  const game = await createGame(app)
  for (const ts of ['12x', '1.5', 'yesterday', `${nowS() - 100000}x`]) {
    expectError(t, await postForm(app, SUBMIT, { ...everythingWrong(game), ts }), 'invalid_param', `ts=${ts}`)
  }
})

t.test('expired_ts comes before invalid_signature and fields', async t => {
  const game = await createGame(app)
  expectError(t, await postForm(app, SUBMIT, everythingWrong(game)), 'expired_ts', 'old ts with bad signature and bad fields')
  expectError(t, await postForm(app, SUBMIT, { ...everythingWrong(game), ts: String(nowS() + 1000) }), 'expired_ts', 'future ts with bad signature and bad fields')
})

t.test('invalid_signature comes before invalid_player_name, invalid_score and invalid_meta', async t => {
  const game = await createGame(app)
  expectError(t, await postForm(app, SUBMIT, { ...submitFields(game, { player: 'x'.repeat(31), score: 1 }), sign: BAD_SIGN }), 'invalid_signature', 'over invalid_player_name')
  expectError(t, await postForm(app, SUBMIT, { ...submitFields(game, { player: 'alice', score: '1.5' }), sign: BAD_SIGN }), 'invalid_signature', 'over invalid_score')
  expectError(t, await postForm(app, SUBMIT, { ...submitFields(game, { player: 'alice', score: 1, meta: '{bad' }), sign: BAD_SIGN }), 'invalid_signature', 'over invalid_meta')
  expectError(t, await postForm(app, SUBMIT, { ...submitFields(game, { player: '   ', score: 'abc', meta: '{bad' }), sign: BAD_SIGN }), 'invalid_signature', 'over all three')
  t.same(dataOf(await top(app, game)), { game_id: game.gameId, total: 0, items: [] })
})

t.test('field values: invalid_player_name before invalid_score before invalid_meta (correctly signed)', async t => {
  const game = await createGame(app)
  // Each request is correctly signed over the bad values, so only the fields are wrong.
  expectError(t, await postForm(app, SUBMIT, submitFields(game, { player: 'x'.repeat(31), score: 'abc', meta: '{bad' })), 'invalid_player_name', 'name, score and meta bad')
  expectError(t, await postForm(app, SUBMIT, submitFields(game, { player: 'bad\u0001', score: '1.5' })), 'invalid_player_name', 'name and score bad')
  expectError(t, await postForm(app, SUBMIT, submitFields(game, { player: '  ', score: '1', meta: '{bad' })), 'invalid_player_name', 'name and meta bad')
  expectError(t, await postForm(app, SUBMIT, submitFields(game, { player: 'alice', score: '9007199254740992', meta: '{bad' })), 'invalid_score', 'score and meta bad')
  expectError(t, await postForm(app, SUBMIT, submitFields(game, { player: 'alice', score: '1', meta: '{bad' })), 'invalid_meta', 'only meta bad')
  t.same(dataOf(await top(app, game)), { game_id: game.gameId, total: 0, items: [] })
})

t.test('same order with multipart bodies', async t => {
  const game = await createGame(app)
  const cases: Array<[Fields, string]> = [
    [{ ...everythingWrong(game), api_key: 'rk_nobody' }, 'invalid_key'],
    [{ ...everythingWrong(game), game_id: 'no_such_game' }, 'invalid_game'],
    [{ ...everythingWrong(game), ts: '1x' }, 'invalid_param'],
    [everythingWrong(game), 'expired_ts'],
    [{ ...submitFields(game, { player: ' ', score: 'x' }), sign: BAD_SIGN }, 'invalid_signature'],
    [submitFields(game, { player: ' ', score: 'x', meta: '{' }), 'invalid_player_name'],
    [submitFields(game, { player: 'a', score: 'x', meta: '{' }), 'invalid_score'],
    [submitFields(game, { player: 'a', score: '1', meta: '{' }), 'invalid_meta']
  ]
  for (const [fields, code] of cases) {
    expectError(t, await post(app, SUBMIT, fields, 'multipart'), code, `multipart ${code}`)
  }
})

t.test('top: limit=0 with offset=-1 is invalid_param; me: player_name is checked after the key and the game', async t => {
  const game = await createGame(app)
  const bad = await get(app, '/api/rank', { action: 'top', api_key: game.apiKey, game_id: game.gameId, limit: '0', offset: '-1' })
  expectError(t, bad, 'invalid_param', 'limit=0 and offset=-1')
  expectError(t, await me(app, { ...game, gameId: 'no_such_game' }, ' '), 'invalid_game', 'me: invalid_game over invalid_player_name')
  expectError(t, await me(app, { ...game, apiKey: 'rk_nobody' }, ' '), 'invalid_key', 'me: invalid_key over invalid_player_name')
  expectError(t, await me(app, game, ' '), 'invalid_player_name', 'me: only the name is wrong')
})
