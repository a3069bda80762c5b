import { createHmac } from 'node:crypto'
import { Readable } from 'node:stream'
import t from 'tap'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import {
  commandCalls,
  ADMIN_TOKEN, admin, buildTestApp, createGame, dataOf, errorOf, formBody, get, me, multipartBody, post, submit, submitFields, top,
  type Fields, type TestGame, keysMatching
} from '../../helpers/app.js'

/*
 * Every error code that the API-key actions (submit, top, me) can produce,
 * each from a real request (docs/interface.md#error-codes
 * and #check-order).
 */

/** The assertions the helpers below use, from the root test or any subtest. */
type Test = Pick<typeof t, 'equal' | 'same' | 'match' | 'notMatch' | 'type'>

const JSON_TYPE = 'application/json; charset=utf-8'
const SUBMIT = '/api/rank?action=submit'

function nowS (): number {
  return Math.floor(Date.now() / 1000)
}

/** The signature as the spec defines it, computed here independently of src/. */
function sign (secret: string, values: [string, string, string, string, string]): string {
  return createHmac('sha256', secret).update(values.join('|'), 'utf8').digest('hex')
}

/** Asserts an error envelope with exactly this code, HTTP 200 and the JSON content type. */
function expectError (t: Test, response: LightMyRequestResponse, code: string, what?: string): void {
  const label = what === undefined ? code : `${what}: ${code}`
  t.equal(response.statusCode, 200, `${label} (status)`)
  t.equal(response.headers['content-type'], JSON_TYPE, `${label} (content-type)`)
  let body: any
  try { body = response.json() } catch { body = response.body }
  t.equal(typeof body === 'object' && body !== null ? body.error : body, code, label)
  if (typeof body === 'object' && body !== null && body.ok === false) {
    t.equal(body.ok, false, `${label} (ok:false)`)
    t.equal(errorOf(response), code, `${label} (errorOf)`)
    t.same(Object.keys(body).sort(), ['error', 'message', 'ok'], `${label} (envelope keys)`)
    t.type(body.message, 'string')
    t.notMatch(body.message, /\n\s+at /, `${label} (no stack trace)`)
  }
}

function expectOk (t: Test, response: LightMyRequestResponse, what: string): any {
  t.equal(response.statusCode, 200, `${what} (status)`)
  t.equal(response.headers['content-type'], JSON_TYPE, `${what} (content-type)`)
  const body = response.json()
  t.equal(body.ok, true, what)
  return body.data
}

type Action = 'submit' | 'top' | 'me'

/** A valid request of each action: submit correctly signed, top and me plain. */
function validFields (game: TestGame, action: Action, player = 'alice'): Fields {
  if (action === 'submit') return submitFields(game, { player, score: 10 })
  if (action === 'top') return { api_key: game.apiKey, game_id: game.gameId }
  return { api_key: game.apiKey, game_id: game.gameId, player_name: player }
}

async function call (app: FastifyInstance, action: Action, fields: Fields, remoteAddress?: string): Promise<LightMyRequestResponse> {
  if (action === 'submit') {
    return await app.inject({ method: 'POST', url: SUBMIT, payload: formBody(fields), headers: { 'content-type': 'application/x-www-form-urlencoded' }, ...(remoteAddress === undefined ? {} : { remoteAddress }) })
  }
  return await app.inject({ method: 'GET', url: `/api/rank?${formBody({ action, ...fields })}`, ...(remoteAddress === undefined ? {} : { remoteAddress }) })
}

const REQUIRED: Record<Action, string[]> = {
  submit: ['api_key', 'game_id', 'player_name', 'score', 'ts', 'sign'],
  top: ['api_key', 'game_id'],
  me: ['api_key', 'game_id', 'player_name']
}

const { app } = await buildTestApp(t)

t.test('missing_param: each required parameter absent or sent empty', async t => {
  const game = await createGame(app)
  for (const action of ['submit', 'top', 'me'] as const) {
    // The complete request is accepted, so each failure below is the one missing field.
    expectOk(t, await call(app, action, validFields(game, action)), `${action} complete`)
    for (const name of REQUIRED[action]) {
      const absent = validFields(game, action)
      delete absent[name]
      expectError(t, await call(app, action, absent), 'missing_param', `${action} without ${name}`)
      const empty = { ...validFields(game, action), [name]: '' }
      expectError(t, await call(app, action, empty), 'missing_param', `${action} with empty ${name}`)
    }
  }
})

t.test('missing_param: /api/rank without action', async t => {
  const game = await createGame(app)
  expectError(t, await get(app, '/api/rank', { api_key: game.apiKey, game_id: game.gameId }), 'missing_param', 'GET without action')
  expectError(t, await app.inject({ method: 'GET', url: '/api/rank' }), 'missing_param', 'bare GET /api/rank')
  expectError(t, await post(app, '/api/rank', submitFields(game, { player: 'a', score: 1 })), 'missing_param', 'POST without action')
  expectError(t, await app.inject({ method: 'GET', url: '/api/rank?action=' }), 'missing_param', 'empty action')
  expectError(t, await post(app, '/api/rank?action=', submitFields(game, { player: 'a', score: 1 })), 'missing_param', 'POST with empty action')
})

t.test('invalid_param: a parameter sent more than once', async t => {
  const game = await createGame(app)
  // in the query
  expectError(t, await app.inject({ method: 'GET', url: `/api/rank?action=top&api_key=${game.apiKey}&game_id=${game.gameId}&game_id=${game.gameId}` }), 'invalid_param', 'top: game_id twice in query')
  expectError(t, await app.inject({ method: 'GET', url: `/api/rank?action=me&api_key=${game.apiKey}&game_id=${game.gameId}&player_name=a&player_name=a` }), 'invalid_param', 'me: player_name twice in query')
  // in the body
  const fields = submitFields(game, { player: 'alice', score: 5 })
  const twice: Array<[string, string]> = [...Object.entries(fields), ['score', '5']]
  expectError(t, await post(app, SUBMIT, twice), 'invalid_param', 'submit: score twice in form body')
  expectError(t, await post(app, SUBMIT, twice, 'multipart'), 'invalid_param', 'submit: score twice in multipart body')
  // in query and body
  expectError(t, await post(app, `${SUBMIT}&game_id=${game.gameId}`, fields), 'invalid_param', 'submit: game_id in query and body')
  expectError(t, await post(app, `${SUBMIT}&player_name=alice`, fields, 'multipart'), 'invalid_param', 'submit: player_name in query and multipart body')
  // the same name, same value, once each way is still twice
  expectError(t, await post(app, `${SUBMIT}&action=submit`, fields), 'invalid_param', 'submit: action twice in query')
  // nothing was stored
  t.same(dataOf(await top(app, game)), { game_id: game.gameId, total: 0, items: [] })
})

t.test('invalid_param: ts that is not an integer', async t => {
  const game = await createGame(app)
  const ts = `${nowS()}x`
  for (const bad of ['12x', ts, '1.5', ' 12', 'abc']) {
    const res = await post(app, SUBMIT, submitFields(game, { player: 'alice', score: 5, ts: bad }))
    expectError(t, res, 'invalid_param', `ts=${JSON.stringify(bad)}`)
  }
})

t.test('invalid_param: limit and offset of top', async t => {
  const game = await createGame(app)
  for (const limit of ['abc', '0', '-1', '1.5', '00']) {
    expectError(t, await top(app, game, { limit }), 'invalid_param', `limit=${limit}`)
  }
  for (const offset of ['-1', '1.5', 'abc']) {
    expectError(t, await top(app, game, { offset }), 'invalid_param', `offset=${offset}`)
  }
  // Valid values for contrast
  t.same(expectOk(t, await top(app, game, { limit: '1', offset: '0' }), 'limit=1 offset=0'), { game_id: game.gameId, total: 0, items: [] })
})

t.test('invalid_param: malformed percent-encoding in the query', async t => {
  const game = await createGame(app)
  expectError(t, await app.inject({ method: 'GET', url: `/api/rank?action=top&api_key=%zz&game_id=${game.gameId}` }), 'invalid_param', 'top api_key=%zz')
  expectError(t, await app.inject({ method: 'GET', url: `/api/rank?action=me&api_key=${game.apiKey}&game_id=${game.gameId}&player_name=%E0%A4%A` }), 'invalid_param', 'me player_name=%E0%A4%A')
  const fields = submitFields(game, { player: 'alice', score: 5 })
  delete fields.ts
  expectError(t, await post(app, `${SUBMIT}&ts=%zz`, fields), 'invalid_param', 'submit ts=%zz in query')
  expectError(t, await app.inject({ method: 'GET', url: `/api/rank?action=top&api_key=${game.apiKey}&game_id=${game.gameId}&%zz=1` }), 'invalid_param', 'malformed parameter name')
})

t.test('invalid_key: unknown key or a key with characters a key never has', async t => {
  const game = await createGame(app)
  const keysToTry = ['rk_00000000000000000000000000000000', '{x}', 'a'.repeat(500), 'a b', 'ключ', '*']
  for (const action of ['submit', 'top', 'me'] as const) {
    for (const apiKey of keysToTry) {
      let fields: Fields
      if (action === 'submit') {
        const ts = String(nowS())
        fields = { api_key: apiKey, game_id: game.gameId, player_name: 'alice', score: '5', ts, sign: sign(game.apiSecret, [apiKey, game.gameId, 'alice', '5', ts]) }
      } else {
        fields = { ...validFields(game, action), api_key: apiKey }
      }
      expectError(t, await call(app, action, fields), 'invalid_key', `${action} api_key=${apiKey.slice(0, 20)}`)
    }
  }
})

t.test('key_revoked: a key revoked through the admin API', async t => {
  const game = await createGame(app)
  expectOk(t, await submit(app, game, { player: 'alice', score: 5 }), 'before revoking')
  const revoked = await admin(app, 'POST', `/admin/keys/${game.apiKey}/revoke`)
  t.equal(revoked.json().data.revoked, true)
  for (const action of ['submit', 'top', 'me'] as const) {
    expectError(t, await call(app, action, validFields(game, action)), 'key_revoked', action)
  }
  // Another key of the same game still works.
  const other = dataOf(await admin(app, 'POST', '/admin/keys', { game_id: game.gameId }))
  const second: TestGame = { gameId: game.gameId, apiKey: other.api_key, apiSecret: other.api_secret }
  t.same(dataOf(await me(app, second, 'alice')), { player_name: 'alice', best_score: 5, rank: 1 })
})

t.test('invalid_game: nonexistent, unapproved, or not a game id', async t => {
  const game = await createGame(app)
  const unapproved = await createGame(app, { approved: false })
  const cases: Array<[string, TestGame]> = [
    ['nonexistent', { ...game, gameId: 'no_such_game_here' }],
    ['bad chars', { ...game, gameId: 'a b' }],
    ['65 chars', { ...game, gameId: 'g'.repeat(65) }],
    ['braces', { ...game, gameId: '{x}' }],
    ['unapproved (own key)', unapproved]
  ]
  for (const action of ['submit', 'top', 'me'] as const) {
    for (const [what, target] of cases) {
      expectError(t, await call(app, action, validFields(target, action)), 'invalid_game', `${action} ${what}`)
    }
  }
  // A 64-character game id is a valid id, so it is accepted once approved.
  const long = await createGame(app, { gameId: 'L'.repeat(64) })
  expectOk(t, await submit(app, long, { player: 'alice', score: 1 }), '64-char game id')
})

t.test('key_game_mismatch: key of game A with approved game B', async t => {
  const a = await createGame(app)
  const b = await createGame(app)
  const crossed: TestGame = { gameId: b.gameId, apiKey: a.apiKey, apiSecret: a.apiSecret }
  for (const action of ['submit', 'top', 'me'] as const) {
    expectError(t, await call(app, action, validFields(crossed, action)), 'key_game_mismatch', action)
  }
  t.equal(dataOf(await top(app, b)).total, 0)
})

t.test('expired_ts: outside ±300 s rejected, inside accepted', async t => {
  const game = await createGame(app)
  const now = nowS()
  // Five seconds past the edge each way, so a second that ticks between here and the server changes nothing.
  expectError(t, await submit(app, game, { player: 'p1', score: 1, ts: now - 305 }), 'expired_ts', 'now-305')
  expectError(t, await submit(app, game, { player: 'p2', score: 1, ts: now + 305 }), 'expired_ts', 'now+305')
  expectError(t, await submit(app, game, { player: 'p3', score: 1, ts: 0 }), 'expired_ts', 'ts=0')
  expectError(t, await submit(app, game, { player: 'p4', score: 1, ts: -5 }), 'expired_ts', 'ts=-5')
  expectError(t, await submit(app, game, { player: 'p5', score: 1, ts: now * 1000 }), 'expired_ts', 'ts in milliseconds')
  t.same(dataOf(await submit(app, game, { player: 'early', score: 2, ts: now - 295 })), { score: 2, improved: true, best_score: 2, rank: 1 })
  t.same(dataOf(await submit(app, game, { player: 'late', score: 3, ts: now + 295 })), { score: 3, improved: true, best_score: 3, rank: 1 })
  t.equal(dataOf(await top(app, game)).total, 2)
})

t.test('invalid_signature', async t => {
  const game = await createGame(app)
  const ts = String(nowS())
  const base = { api_key: game.apiKey, game_id: game.gameId, player_name: 'alice', score: '10', ts }
  const right = sign(game.apiSecret, [game.apiKey, game.gameId, 'alice', '10', ts])

  expectError(t, await post(app, SUBMIT, { ...base, sign: sign('not-the-secret', [game.apiKey, game.gameId, 'alice', '10', ts]) }), 'invalid_signature', 'wrong secret')
  expectError(t, await post(app, SUBMIT, { ...base, sign: right.toUpperCase() }), 'invalid_signature', 'uppercase hex')
  expectError(t, await post(app, SUBMIT, { ...base, sign: right.slice(0, 63) }), 'invalid_signature', 'one hex digit short')
  expectError(t, await post(app, SUBMIT, { ...base, sign: `${right}0` }), 'invalid_signature', 'one hex digit more')
  expectError(t, await post(app, SUBMIT, { ...base, sign: 'zz' }), 'invalid_signature', 'not hex')
  expectError(t, await post(app, SUBMIT, { ...base, score: '11', sign: right }), 'invalid_signature', 'signed score 10, sent 11')
  // Fields in another order, or another separator
  expectError(t, await post(app, SUBMIT, { ...base, sign: sign(game.apiSecret, [game.gameId, game.apiKey, 'alice', '10', ts]) }), 'invalid_signature', 'fields out of order')
  const comma = createHmac('sha256', game.apiSecret).update([game.apiKey, game.gameId, 'alice', '10', ts].join(','), 'utf8').digest('hex')
  expectError(t, await post(app, SUBMIT, { ...base, sign: comma }), 'invalid_signature', 'wrong separator')
  // Signed over the trimmed name while the name was sent with a trailing space: no trimming.
  const trimmedSign = sign(game.apiSecret, [game.apiKey, game.gameId, 'alice', '10', ts])
  expectError(t, await post(app, SUBMIT, { ...base, player_name: 'alice ', sign: trimmedSign }), 'invalid_signature', 'trailing space trimmed before signing')
  expectError(t, await post(app, SUBMIT, { ...base, score: ' 10', sign: right }), 'invalid_signature', 'leading space in score')
  // Nothing was stored by any of the above.
  t.same(dataOf(await top(app, game)), { game_id: game.gameId, total: 0, items: [] })
  // And the right signature is accepted, in form and multipart.
  t.same(dataOf(await post(app, SUBMIT, { ...base, sign: right })), { score: 10, improved: true, best_score: 10, rank: 1 })
  // The name with a trailing space, signed as sent, is a player of its own.
  const spaced = sign(game.apiSecret, [game.apiKey, game.gameId, 'alice ', '10', ts])
  t.same(dataOf(await post(app, SUBMIT, { ...base, player_name: 'alice ', sign: spaced }, 'multipart')), { score: 10, improved: true, best_score: 10, rank: 2 })
})

t.test('invalid_player_name', async t => {
  const game = await createGame(app)
  // Empty (even when signed over the empty text) is a missing parameter.
  expectError(t, await submit(app, game, { player: '', score: 1 }), 'missing_param', 'empty name signed')
  expectError(t, await submit(app, game, { player: 'a'.repeat(31), score: 1 }), 'invalid_player_name', '31 ASCII characters')
  expectError(t, await submit(app, game, { player: '😀'.repeat(31), score: 1 }), 'invalid_player_name', '31 emoji')
  expectError(t, await submit(app, game, { player: 'bad\u0001name', score: 1 }), 'invalid_player_name', 'control char U+0001')
  expectError(t, await submit(app, game, { player: 'tab\there', score: 1 }), 'invalid_player_name', 'tab')
  expectError(t, await submit(app, game, { player: 'line\n', score: 1 }), 'invalid_player_name', 'newline')
  expectError(t, await submit(app, game, { player: 'del\u007f', score: 1 }), 'invalid_player_name', 'DEL')
  expectError(t, await submit(app, game, { player: '   ', score: 1 }), 'invalid_player_name', 'only spaces')
  expectError(t, await submit(app, game, { player: ' ', score: 1 }), 'invalid_player_name', 'one space')
  expectError(t, await submit(app, game, { player: '\u3000\u00a0', score: 1 }), 'invalid_player_name', 'only Unicode white space')
  // The same rule on me
  expectError(t, await me(app, game, 'a'.repeat(31)), 'invalid_player_name', 'me 31 characters')
  expectError(t, await me(app, game, '   '), 'invalid_player_name', 'me only spaces')
  expectError(t, await me(app, game, 'x\u0001'), 'invalid_player_name', 'me control char')
  t.equal(dataOf(await top(app, game)).total, 0)

  // Accepted: 30 emoji are 30 characters (60 UTF-16 units), 30 ASCII, one character.
  const emoji = '😀'.repeat(30)
  t.same(dataOf(await submit(app, game, { player: emoji, score: 3 })), { score: 3, improved: true, best_score: 3, rank: 1 })
  t.same(dataOf(await submit(app, game, { player: 'b'.repeat(30), score: 2 })), { score: 2, improved: true, best_score: 2, rank: 2 })
  t.same(dataOf(await submit(app, game, { player: 'c', score: 1 })), { score: 1, improved: true, best_score: 1, rank: 3 })
  t.same(dataOf(await me(app, game, emoji)), { player_name: emoji, best_score: 3, rank: 1 })
})

/** A name as a test label: ASCII only, so no separator character breaks the TAP stream. */
function label (name: string): string {
  return [...name].map(char => /[\x20-\x7e]/.test(char) ? char : `\\u{${char.codePointAt(0)!.toString(16)}}`).join('')
}

t.test('invalid_player_name: names that cannot impersonate', async t => {
  const game = await createGame(app)
  const bidi = ['\u202Eecila', 'ali\u202Dce', 'a\u202Ab', 'a\u202Bb', 'a\u202Cb', '\u2066alice\u2069', 'a\u2067b', 'a\u2068b', 'alice\u200E', '\u200Falice', 'a\u061Cb']
  for (const player of bidi) {
    expectError(t, await submit(app, game, { player, score: 1 }), 'invalid_player_name', `bidi control in ${label(player)}`)
    expectError(t, await me(app, game, player), 'invalid_player_name', `me: bidi control in ${label(player)}`)
  }
  const invisible = ['\u200B', '\u200B\u200B\u200B', '\u200D', '\u200C', '\u2060', '\uFEFF', '\u00AD', '\u0301', '\uFE0F', ' \u200B ', '\u3164', '\u115F', '\u2800', ' \u2800 ', '\u{1D159}']
  for (const player of invisible) {
    expectError(t, await submit(app, game, { player, score: 1 }), 'invalid_player_name', `no visible character in ${label(player)}`)
  }
  // Names that draw exactly as "alice" but are other names.
  const lookalikes = ['al\u200Bice', 'alice\u2060', 'al\u00ADice', 'alice\uFEFF', 'a\u180Eb', 'alice\u{E0061}\u{E007F}', 'a\u200Db', 'a\u200Cb', 'alice\uFE0F', 'ali\u034Fce', 'ali\u2028ce', 'ali\u2029ce', 'a\u2061b',
    // a non-joiner where nothing joins: CJK, Hangul, kana, Thai, after an Arabic letter that never joins onward, at either end, across scripts
    '李\u200C小', '한\u200C국', 'か\u200Cな', 'ก\u200Cข', 'د\u200Cا', 'و\u200Cب', 'نور\u200C', '\u200Cنور', 'ن\u200Cक',
    // selectors where no variant exists: text, a digit with no keycap, a standardized selector after an emoji, a Mongolian selector after Latin
    'a\uFE0E', '1\uFE0F', '#\uFE0F', '😀\uFE00', '😀\u{E0100}', 'a\u180B', '❤\uFE0F\uFE0F',
    // tags that are not a subdivision flag: no cancel tag, tag space, too short, not after the black flag
    '🏴\u{E0067}\u{E0062}\u{E0073}', '🏴\u{E0020}\u{E0067}\u{E007F}', '🏴\u{E0067}\u{E007F}', '🏳\u{E0067}\u{E0062}\u{E007F}', '🏴\u{E0067}\u{E0062}\u{E007F}\u{E0067}\u{E0062}\u{E007F}',
    // a joiner after a mark that is not a virama
    'e\u0301\u200Dx']
  for (const player of lookalikes) {
    expectError(t, await submit(app, game, { player, score: 1 }), 'invalid_player_name', `an invisible character in ${label(player)}`)
  }
  t.equal(dataOf(await top(app, game)).total, 0, 'none of them was stored')

  // Joiners inside emoji sequences, and emoji with modifiers and flags, stay valid.
  // ...and so do a Persian non-joiner between letters, a heart with its emoji presentation, accents.
  const valid = ['👨‍👩‍👧‍👦', '🏳️‍🌈', '👍🏽', '🇯🇵', '🏴󠁧󠁢󠁳󠁣󠁴󠁿', '👩🏽‍💻 ada', 'Zoë', 'Zoe\u0308', '李小龙', 'मनोज', 'نور', 'می\u200Cخواهم', '❤\uFE0F', '😀'.repeat(30), '👩‍💻'.repeat(10),
    // joiners and non-joiners where scripts use them: Sinhala "Sri" (virama + joiner), Devanagari half form and explicit virama,
    // a Persian non-joiner after a mark, Kannada, Mongolian variation selectors, a keycap, an ideographic variation selector
    'ශ්\u200Dරී', 'क्\u200Dष', 'क्\u200Cष', 'ক্\u200Cষ', 'مِ\u200Cی', 'ನ್\u200Cನ', 'ᠠ\u180Bᠢ', '1\uFE0F\u20E3', '葛\u{E0100}', '☺\uFE0E']
  let rank = 0
  for (const player of valid) {
    t.same(dataOf(await submit(app, game, { player, score: 100 - rank })), { score: 100 - rank, improved: true, best_score: 100 - rank, rank: ++rank }, `valid: ${label(player)}`)
  }
})

t.test('invalid_score', async t => {
  const game = await createGame(app)
  for (const score of ['1.5', '1e3', '+5', 'abc', '9007199254740992', '-9007199254740992', '0x10', '1_000', '--1', '-', ' 5', '5 ', '١٢', '99999999999999999999']) {
    expectError(t, await submit(app, game, { player: 'alice', score }), 'invalid_score', `score=${JSON.stringify(score)}`)
  }
  t.equal(dataOf(await top(app, game)).total, 0)
  t.same(dataOf(await submit(app, game, { player: 'max', score: '9007199254740991' })), { score: 9007199254740991, improved: true, best_score: 9007199254740991, rank: 1 })
  t.same(dataOf(await submit(app, game, { player: 'min', score: '-9007199254740991' })), { score: -9007199254740991, improved: true, best_score: -9007199254740991, rank: 2 })
  const board = dataOf(await top(app, game))
  t.same(board.items.map((item: any) => [item.rank, item.player_name, item.score]), [[1, 'max', 9007199254740991], [2, 'min', -9007199254740991]])
})

t.test('invalid_meta', async t => {
  const game = await createGame(app)
  const atLimit = `"${'a'.repeat(2046)}"`
  t.equal(Buffer.byteLength(atLimit), 2048)
  const overLimit = `"${'a'.repeat(2047)}"`
  t.equal(Buffer.byteLength(overLimit), 2049)
  const multibyteOver = `"${'é'.repeat(1024)}"` // 1026 characters, 2050 bytes
  const multibyteAt = `"${'é'.repeat(1023)}"` // 2048 bytes
  t.equal(Buffer.byteLength(multibyteAt), 2048)
  for (const [what, meta] of [['not JSON', '{bad'], ['bare word', 'hello'], ['trailing comma', '[1,]'], ['2049 bytes', overLimit], ['2050 bytes in 1026 characters', multibyteOver], ['single quotes', "{'a':1}"]] as const) {
    expectError(t, await submit(app, game, { player: 'alice', score: 1, meta }), 'invalid_meta', what)
  }
  t.equal(dataOf(await top(app, game)).total, 0)
  t.same(dataOf(await submit(app, game, { player: 'alice', score: 1, meta: atLimit })), { score: 1, improved: true, best_score: 1, rank: 1 })
  t.same(dataOf(await submit(app, game, { player: 'bob', score: 2, meta: multibyteAt })), { score: 2, improved: true, best_score: 2, rank: 1 })
  t.same(dataOf(await submit(app, game, { player: 'carol', score: 3, meta: '{"level":3,"ok":true}' })), { score: 3, improved: true, best_score: 3, rank: 1 })
  t.same(dataOf(await submit(app, game, { player: 'dave', score: 4, meta: '42' })), { score: 4, improved: true, best_score: 4, rank: 1 })
  // Empty meta counts as absent.
  t.same(dataOf(await submit(app, game, { player: 'erin', score: 5, meta: '' })), { score: 5, improved: true, best_score: 5, rank: 1 })
})

t.test('unknown_action', async t => {
  const game = await createGame(app)
  for (const action of ['foo', 'SUBMIT', 'Top', 'submit-selfish', 'top ']) {
    expectError(t, await get(app, '/api/rank', { action, api_key: game.apiKey, game_id: game.gameId }), 'unknown_action', `GET action=${action}`)
    expectError(t, await post(app, `/api/rank?${formBody({ action })}`, submitFields(game, { player: 'a', score: 1 })), 'unknown_action', `POST action=${action}`)
  }
})

t.test('method_not_allowed', async t => {
  const game = await createGame(app)
  expectError(t, await get(app, '/api/rank', { action: 'submit', ...submitFields(game, { player: 'a', score: 1 }) }), 'method_not_allowed', 'GET submit')
  expectError(t, await post(app, '/api/rank?action=top', { api_key: game.apiKey, game_id: game.gameId }), 'method_not_allowed', 'POST top')
  expectError(t, await post(app, '/api/rank?action=me', { api_key: game.apiKey, game_id: game.gameId, player_name: 'a' }), 'method_not_allowed', 'POST me')
  expectError(t, await app.inject({ method: 'DELETE', url: `/api/rank?action=me&api_key=${game.apiKey}&game_id=${game.gameId}&player_name=a` }), 'method_not_allowed', 'DELETE me')
  expectError(t, await app.inject({ method: 'PUT', url: SUBMIT, payload: formBody(submitFields(game, { player: 'a', score: 1 })), headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 'method_not_allowed', 'PUT submit')
  expectError(t, await app.inject({ method: 'PATCH', url: '/api/rank?action=top' }), 'method_not_allowed', 'PATCH top')
  t.equal(dataOf(await top(app, game)).total, 0)
})

t.test('not_found', async t => {
  for (const url of ['/nope', '/api', '/api/rank/extra?action=top', '/api/ranks?action=top', '/api/%zz', '/%zz/rank', '/api/rank%zz', '/admin2']) {
    expectError(t, await app.inject({ method: 'GET', url }), 'not_found', `GET ${url}`)
  }
  expectError(t, await app.inject({ method: 'POST', url: '/api/%zz', payload: 'a=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 'not_found', 'POST /api/%zz')
})

t.test('invalid_body: a body that is not form fields or cannot be parsed', async t => {
  const game = await createGame(app)
  const fields = submitFields(game, { player: 'alice', score: 5 })
  expectError(t, await app.inject({ method: 'POST', url: SUBMIT, payload: JSON.stringify(fields), headers: { 'content-type': 'application/json' } }), 'invalid_body', 'JSON body')
  expectError(t, await app.inject({ method: 'POST', url: SUBMIT, payload: formBody(fields), headers: { 'content-type': 'text/plain' } }), 'invalid_body', 'text/plain body')
  expectError(t, await app.inject({ method: 'POST', url: SUBMIT, payload: formBody(fields), headers: { 'content-type': 'application/octet-stream' } }), 'invalid_body', 'octet-stream body')
  expectError(t, await app.inject({ method: 'POST', url: SUBMIT, payload: `${formBody(fields)}&x=%zz`, headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 'invalid_body', 'form body with %zz value')
  expectError(t, await app.inject({ method: 'POST', url: SUBMIT, payload: `${formBody(fields)}&%zz=1`, headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 'invalid_body', 'form body with %zz name')
  // Multipart with a file part is not a form field.
  const boundary = 'bnd123'
  const withFile = `--${boundary}\r\nContent-Disposition: form-data; name="meta"; filename="m.json"\r\nContent-Type: application/json\r\n\r\n{}\r\n--${boundary}--\r\n`
  expectError(t, await app.inject({ method: 'POST', url: SUBMIT, payload: withFile, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } }), 'invalid_body', 'multipart with a file part')
  t.equal(dataOf(await top(app, game)).total, 0)
})

t.test('invalid_body: malformed multipart', async t => {
  const game = await createGame(app)
  const fields = submitFields(game, { player: 'alice', score: 5 })
  expectError(t, await app.inject({ method: 'POST', url: SUBMIT, payload: '--xyz\r\nContent-Disposition: form-data; name="api_key"\r\n\r\nabc', headers: { 'content-type': 'multipart/form-data; boundary=xyz' } }), 'invalid_body', 'multipart cut short')
  expectError(t, await app.inject({ method: 'POST', url: SUBMIT, payload: 'this is not multipart at all', headers: { 'content-type': 'multipart/form-data; boundary=xyz' } }), 'invalid_body', 'multipart garbage')
  expectError(t, await app.inject({ method: 'POST', url: SUBMIT, payload: formBody(fields), headers: { 'content-type': 'multipart/form-data' } }), 'invalid_body', 'multipart without boundary')
  t.equal(dataOf(await top(app, game)).total, 0)
})

t.test('payload_too_large: form bodies over BODY_LIMIT (16384)', async t => {
  const game = await createGame(app)
  const big = `"${'x'.repeat(17000)}"`
  expectError(t, await post(app, SUBMIT, submitFields(game, { player: 'alice', score: 1, meta: big })), 'payload_too_large', 'form body of ~17 KB')
  // Exactly one byte over the limit
  const over = `pad=${'z'.repeat(16385 - 'pad='.length)}`
  t.equal(Buffer.byteLength(over), 16385)
  expectError(t, await app.inject({ method: 'POST', url: SUBMIT, payload: over, headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 'payload_too_large', '16385-byte form body')
  t.equal(dataOf(await top(app, game)).total, 0)
})

t.test('payload_too_large: multipart bodies over BODY_LIMIT (16384)', async t => {
  const game = await createGame(app)
  const big = `"${'x'.repeat(17000)}"`
  expectError(t, await post(app, SUBMIT, submitFields(game, { player: 'alice', score: 1, meta: big }), 'multipart'), 'payload_too_large', 'multipart body of ~17 KB')
  // Multipart whose size is not declared up front (streamed): the limit must still hold.
  const mp = multipartBody(submitFields(game, { player: 'alice', score: 1, meta: `"${'y'.repeat(20000)}"` }))
  const chunked = await app.inject({ method: 'POST', url: SUBMIT, payload: Readable.from([Buffer.from(mp.payload)]), headers: mp.headers })
  expectError(t, chunked, 'payload_too_large', 'streamed multipart of ~20 KB')
  t.equal(dataOf(await top(app, game)).total, 0)
})

t.test('payload_too_large follows a smaller BODY_LIMIT', { timeout: 30_000 }, async t => {
  const { app } = await buildTestApp(t, { BODY_LIMIT: '2048' })
  const game = await createGame(app)
  const meta = `"${'m'.repeat(1900)}"` // valid meta, but the whole body is over 2048 bytes
  expectError(t, await post(app, SUBMIT, submitFields(game, { player: 'alice', score: 1, meta })), 'payload_too_large', 'form over 2048')
  t.same(dataOf(await submit(app, game, { player: 'bob', score: 1, meta: '{}' })), { score: 1, improved: true, best_score: 1, rank: 1 })
  t.test('multipart over a smaller BODY_LIMIT', async t => {
    expectError(t, await post(app, SUBMIT, submitFields(game, { player: 'carol', score: 2, meta }), 'multipart'), 'payload_too_large', 'multipart over 2048')
    t.same(dataOf(await me(app, game, 'carol')), { player_name: 'carol', best_score: null, rank: null }, 'nothing stored')
  })
})

t.test('rate_limited: submit, top and me counted together per key', { timeout: 30_000 }, async t => {
  const { app } = await buildTestApp(t, { RATE_LIMIT_MAX: '3' })
  const game = await createGame(app)
  const first = await submit(app, game, { player: 'alice', score: 1 })
  expectOk(t, first, 'call 1 (submit)')
  t.equal(first.headers['x-ratelimit-limit'], '3')
  t.equal(first.headers['x-ratelimit-remaining'], '2')
  const second = await top(app, game)
  expectOk(t, second, 'call 2 (top)')
  t.equal(second.headers['x-ratelimit-limit'], '3')
  t.equal(second.headers['x-ratelimit-remaining'], '1')
  const third = await me(app, game, 'alice')
  expectOk(t, third, 'call 3 (me)')
  t.equal(third.headers['x-ratelimit-remaining'], '0')

  for (const action of ['submit', 'top', 'me'] as const) {
    const limited = await call(app, action, validFields(game, action))
    expectError(t, limited, 'rate_limited', `call 4+ (${action})`)
    const retry = String(limited.headers['retry-after'])
    t.match(retry, /^\d+$/, 'retry-after in whole seconds')
    t.ok(Number(retry) >= 1 && Number(retry) <= 60, `retry-after ${retry} within the 60 s window`)
    t.equal(limited.headers['x-ratelimit-limit'], '3')
    t.equal(limited.headers['x-ratelimit-remaining'], '0')
  }
  // A different key of the same game is counted on its own; best_score 1 shows the limited submit (score 10) stored nothing.
  const other = dataOf(await admin(app, 'POST', '/admin/keys', { game_id: game.gameId }))
  const second2: TestGame = { gameId: game.gameId, apiKey: other.api_key, apiSecret: other.api_secret }
  t.same(dataOf(await me(app, second2, 'alice')), { player_name: 'alice', best_score: 1, rank: 1 })
  // The same key from another address is counted on its own.
  const elsewhere = await call(app, 'top', validFields(game, 'top'), '10.1.2.3')
  t.equal(expectOk(t, elsewhere, 'same key, other address').total, 1)
  t.equal(elsewhere.headers['x-ratelimit-remaining'], '2')
})

t.test('rate_limited: a key\'s signed submits have a total across addresses, RATE_LIMIT_MAX × RATE_LIMIT_KEY_MULTIPLE', { timeout: 30_000 }, async t => {
  const { app } = await buildTestApp(t, { RATE_LIMIT_MAX: '2', RATE_LIMIT_KEY_MULTIPLE: '3' })
  const game = await createGame(app)
  // Three addresses use their whole share: 6 signed submits, the key's total.
  for (let address = 1; address <= 3; address++) {
    for (let i = 0; i < 2; i++) {
      const res = await call(app, 'submit', validFields(game, 'submit'), `10.3.0.${address}`)
      expectOk(t, res, `address ${address}, submit ${i + 1}`)
      t.equal(res.headers['x-ratelimit-limit'], '2', 'the headers count (key, address), as in v1')
    }
  }
  const over = await call(app, 'submit', validFields(game, 'submit'), '10.3.0.4')
  expectError(t, over, 'rate_limited', 'a fourth address: the key has used its total')
  t.equal(over.headers['x-ratelimit-limit'], '6', 'the refusal names the limit that refused')
  t.match(over.headers['retry-after'], /^\d+$/)
  expectOk(t, await call(app, 'top', validFields(game, 'top'), '10.3.0.5'), 'reads are not part of the total')
})

t.test('rate_limited: knowing the public api_key is not enough to use up its total', { timeout: 30_000 }, async t => {
  const { app } = await buildTestApp(t, { RATE_LIMIT_MAX: '2', RATE_LIMIT_KEY_MULTIPLE: '3' })
  const game = await createGame(app)
  // Twenty addresses read, and send submits with a wrong signature: none of it counts toward the total.
  for (let address = 1; address <= 20; address++) {
    await call(app, 'top', validFields(game, 'top'), `10.4.0.${address}`)
    expectError(t, await call(app, 'submit', { ...validFields(game, 'submit'), sign: 'f'.repeat(64) }, `10.4.0.${address}`), 'invalid_signature', `forged submit from address ${address}`)
  }
  for (let i = 0; i < 2; i++) expectOk(t, await call(app, 'submit', validFields(game, 'submit'), '10.4.1.1'), `the game server's signed submit ${i + 1}`)
})

t.test('rate_limited: an IPv6 client is counted by its /64', { timeout: 30_000 }, async t => {
  const { app } = await buildTestApp(t, { RATE_LIMIT_MAX: '2' })
  const game = await createGame(app)
  expectOk(t, await call(app, 'top', validFields(game, 'top'), '2001:db8:1:2::1'), 'first address')
  expectOk(t, await call(app, 'top', validFields(game, 'top'), '2001:db8:1:2:aaaa:bbbb:cccc:dddd'), 'another address of the /64')
  expectError(t, await call(app, 'top', validFields(game, 'top'), '2001:db8:1:2::ffff'), 'rate_limited', 'a third address of the same /64')
  expectOk(t, await call(app, 'top', validFields(game, 'top'), '2001:db8:1:3::1'), 'the next /64')
  expectError(t, await call(app, 'top', { api_key: 'rk_unknown', game_id: game.gameId }, '2001:db8:9:9::1'), 'invalid_key', 'unknown key: first')
  expectError(t, await call(app, 'top', { api_key: 'rk_unknown', game_id: game.gameId }, '2001:db8:9:9::2'), 'invalid_key', 'unknown key: second')
  expectError(t, await call(app, 'top', { api_key: 'rk_unknown', game_id: game.gameId }, '2001:db8:9:9:1::3'), 'rate_limited', 'unknown keys: per /64 too')
})

t.test('rate_limited: unknown keys are limited per address', { timeout: 30_000 }, async t => {
  const { app } = await buildTestApp(t, { RATE_LIMIT_MAX: '3' })
  const game = await createGame(app)
  for (let i = 0; i < 3; i++) {
    const res = await call(app, 'top', { api_key: `rk_unknown${i}`, game_id: game.gameId })
    expectError(t, res, 'invalid_key', `unknown key ${i}`)
    t.equal(res.headers['x-ratelimit-remaining'], String(2 - i))
  }
  expectError(t, await call(app, 'top', { api_key: 'rk_unknown_next', game_id: game.gameId }), 'rate_limited', 'a fourth unknown key from the same address')
  expectError(t, await call(app, 'me', { api_key: '{x}', game_id: game.gameId, player_name: 'a' }), 'rate_limited', 'a malformed key from the same address')
  // Another address is not limited.
  expectError(t, await call(app, 'top', { api_key: 'rk_unknown_next', game_id: game.gameId }, '10.9.9.9'), 'invalid_key', 'other address')
  // A known key from the limited address is counted per (key, address), so it still works.
  t.same(dataOf(await me(app, game, 'nobody')), { player_name: 'nobody', best_score: null, rank: null })
})

t.test('rate_limited: the limit comes from RATE_LIMIT_MAX', { timeout: 30_000 }, async t => {
  const { app } = await buildTestApp(t, { RATE_LIMIT_MAX: '1' })
  const game = await createGame(app)
  expectOk(t, await top(app, game), 'first call')
  expectError(t, await top(app, game), 'rate_limited', 'second call')
  // Routes outside API-key mode are not counted.
  const health = await app.inject({ method: 'GET', url: '/healthz' })
  t.same(health.json(), { ok: true, data: { redis: 'up' } })
  t.equal(health.headers['x-ratelimit-limit'], undefined)
  const adminRes = await app.inject({ method: 'POST', url: '/admin/keys', headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, payload: { game_id: game.gameId } })
  t.equal(adminRes.json().ok, true)
  t.equal(adminRes.headers['x-ratelimit-limit'], undefined)
})

t.test('a form body of exactly BODY_LIMIT bytes is accepted', async t => {
  const game = await createGame(app)
  const base = formBody(submitFields(game, { player: 'exact', score: 16384 }))
  const body = `${base}&pad=${'p'.repeat(16384 - base.length - '&pad='.length)}`
  t.equal(Buffer.byteLength(body), 16384)
  const res = await app.inject({ method: 'POST', url: SUBMIT, payload: body, headers: { 'content-type': 'application/x-www-form-urlencoded' } })
  t.same(expectOk(t, res, '16384-byte body'), { score: 16384, improved: true, best_score: 16384, rank: 1 })
})

t.test('rate_limited: X-Forwarded-For does not pick the address unless TRUST_PROXY says so', { timeout: 30_000 }, async t => {
  const { app } = await buildTestApp(t, { RATE_LIMIT_MAX: '1' })
  const query = (n: number): string => `/api/rank?action=top&api_key=rk_unknown${n}&game_id=g`
  expectError(t, await app.inject({ method: 'GET', url: query(1), headers: { 'x-forwarded-for': '203.0.113.1' } }), 'invalid_key', 'first call')
  expectError(t, await app.inject({ method: 'GET', url: query(2), headers: { 'x-forwarded-for': '203.0.113.2' } }), 'rate_limited', 'a spoofed X-Forwarded-For does not escape the limit')

  const trusted = await buildTestApp(t, { RATE_LIMIT_MAX: '1', TRUST_PROXY: 'true' })
  expectError(t, await trusted.app.inject({ method: 'GET', url: query(1), headers: { 'x-forwarded-for': '203.0.113.1' } }), 'invalid_key', 'trusted: first client')
  expectError(t, await trusted.app.inject({ method: 'GET', url: query(2), headers: { 'x-forwarded-for': '203.0.113.1' } }), 'rate_limited', 'trusted: same client limited')
  expectError(t, await trusted.app.inject({ method: 'GET', url: query(3), headers: { 'x-forwarded-for': '203.0.113.2' } }), 'invalid_key', 'trusted: another client is counted on its own')
})

t.test('rate_limited: an X-Forwarded-For that is no address is counted by a short hash', { timeout: 30_000 }, async t => {
  const { app } = await buildTestApp(t, { RATE_LIMIT_MAX: '1', TRUST_PROXY: '1' })
  const forwarded = 'not-an-address-'.repeat(500)
  const query = (n: number): string => `/api/rank?action=top&api_key=rk_unknown${n}&game_id=g`
  expectError(t, await app.inject({ method: 'GET', url: query(1), headers: { 'x-forwarded-for': forwarded } }), 'invalid_key', 'first call')
  expectError(t, await app.inject({ method: 'GET', url: query(2), headers: { 'x-forwarded-for': forwarded } }), 'rate_limited', 'the same text is the same client')
  const counters = await keysMatching(app.redis, 'rank:rl:*')
  t.ok(counters.length > 0 && counters.every(key => key.length < 120), `every counter key is short: ${counters.join(', ')}`)
})

t.test('rate_limited: fixed window from RATE_LIMIT_WINDOW_MS', { timeout: 30_000 }, async t => {
  // 2 s, so a loaded machine cannot let the window pass between the first two calls.
  const { app } = await buildTestApp(t, { RATE_LIMIT_MAX: '1', RATE_LIMIT_WINDOW_MS: '2000' })
  const game = await createGame(app)
  expectOk(t, await top(app, game), 'first call')
  const limited = await top(app, game)
  expectError(t, limited, 'rate_limited', 'second call in the window')
  t.match(limited.headers['retry-after'], /^[12]$/, 'retry-after in whole seconds, never 0, never past the window')
  // Part of the scenario: the 2 s window, begun by the first call, passes.
  await new Promise(resolve => setTimeout(resolve, 2100))
  expectOk(t, await top(app, game), 'a call in the next window')
})

t.test('rate_limited: counters live in Redis and are shared by instances', { timeout: 30_000 }, async t => {
  const first = await buildTestApp(t, { RATE_LIMIT_MAX: '2' })
  const { buildApp } = await import('../../../src/app.js')
  const { loadConfig } = await import('../../../src/config.js')
  const second = await buildApp(loadConfig({ NODE_ENV: 'test', ADMIN_TOKEN, REDIS_URL: first.redis.url, RATE_LIMIT_MAX: '2' }))
  t.teardown(async () => { await second.close() })
  const game = await createGame(first.app)
  expectOk(t, await top(first.app, game), 'instance 1, call 1')
  expectOk(t, await top(second, game), 'instance 2, call 2')
  expectError(t, await top(first.app, game), 'rate_limited', 'instance 1, call 3')
  expectError(t, await top(second, game), 'rate_limited', 'instance 2, call 4')
})

t.test('a counter whose window this process saw begin is counted without reading its TTL; its headers still count down', { timeout: 30_000 }, async t => {
  const { app } = await buildTestApp(t, { RATE_LIMIT_MAX: '100', RATE_LIMIT_WINDOW_MS: '60000' })
  const game = await createGame(app)
  const pttlCalls = async (): Promise<number> => await commandCalls(app.redis, 'pttl')
  const first = await top(app, game)
  const before = await pttlCalls()
  const second = await top(app, game)
  const third = await top(app, game)
  t.equal(await pttlCalls(), before, 'no PTTL for the second and third calls')
  const reset = (answer: typeof first): number => Number(answer.headers['x-ratelimit-reset'])
  t.equal(reset(first), 60, 'the window begun by the first call')
  t.ok(reset(third) <= reset(second) && reset(second) <= reset(first) && reset(third) >= 58, `counting down: ${reset(first)}, ${reset(second)}, ${reset(third)}`)
  t.same([first, second, third].map(answer => Number(answer.headers['x-ratelimit-remaining'])), [99, 98, 97], 'every call counted in Redis')
})
