import t from 'tap'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { admin, buildTestApp, createGame, dataOf, formBody, expectError } from '../../helpers/app.js'

/*
 * /api/rate (docs/interface.md#ratings): one rating
 * of 1..10 half-star units per user and game; read data {avg, count, mine},
 * avg in stars units rounded to 2 decimals and 0 when nobody rated, mine null
 * when the caller has not rated. game_id from the query (a form field when
 * the query has none).
 */

const JSON_TYPE = 'application/json; charset=utf-8'

type Headers = Record<string, string>

let counter = 0

/** A new user with an admin-made session, as a Cookie header value. */
async function newUser (app: FastifyInstance, prefix = 'rater_'): Promise<string> {
  const username = `${prefix}${++counter}`
  dataOf(await admin(app, 'POST', '/admin/users', { username }))
  const made = dataOf(await admin(app, 'POST', '/admin/sessions', { username }))
  return `sid=${String(made.session_id)}`
}

function rateUrl (gameId?: string): string {
  return gameId === undefined ? '/api/rate' : `/api/rate?game_id=${encodeURIComponent(gameId)}`
}

async function getRating (app: FastifyInstance, cookie: string | undefined, gameId?: string, headers: Headers = {}): Promise<LightMyRequestResponse> {
  return await app.inject({ method: 'GET', url: rateUrl(gameId), headers: { ...(cookie === undefined ? {} : { cookie }), ...headers } })
}

async function postRating (app: FastifyInstance, cookie: string | undefined, gameId: string | undefined, fields: Record<string, string>, headers: Headers = {}): Promise<LightMyRequestResponse> {
  return await app.inject({
    method: 'POST',
    url: rateUrl(gameId),
    payload: formBody(fields),
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie === undefined ? {} : { cookie }), ...headers }
  })
}

async function rate (app: FastifyInstance, cookie: string | undefined, gameId: string, stars: string, headers: Headers = {}): Promise<LightMyRequestResponse> {
  return await postRating(app, cookie, gameId, { stars }, headers)
}

async function deleteRating (app: FastifyInstance, cookie: string | undefined, gameId?: string, headers: Headers = {}): Promise<LightMyRequestResponse> {
  return await app.inject({ method: 'DELETE', url: rateUrl(gameId), headers: { ...(cookie === undefined ? {} : { cookie }), ...headers } })
}

/** v1's three fields of an answer, checked to be the whole answer but for weighted and distribution (added, docs/ratings.md). */
function v1 (response: LightMyRequestResponse | Record<string, unknown>): Record<string, unknown> {
  const data = 'json' in response && typeof response.json === 'function' ? dataOf(response as LightMyRequestResponse) : response
  const { weighted, distribution, ...rest } = data as Record<string, unknown>
  if (!(weighted === null || typeof weighted === 'number') || !Array.isArray(distribution) || distribution.length !== 10) throw new Error(`not a rating answer: ${JSON.stringify(data)}`)
  return rest
}
const v1Envelope = (body: { ok: boolean, data: Record<string, unknown> }): { ok: boolean, data: Record<string, unknown> } => ({ ok: body.ok, data: v1(body.data) })

const { app } = await buildTestApp(t)

t.test('no ratings: avg 0, count 0, mine null', async t => {
  const game = await createGame(app)
  const cookie = await newUser(app)
  const res = await getRating(app, cookie, game.gameId)
  t.equal(res.headers['content-type'], JSON_TYPE)
  t.same(v1Envelope(res.json()), { ok: true, data: { avg: 0, count: 0, mine: null } })
  t.match(res.body, /"avg":0,/, 'avg is the number 0')
})

t.test('POST sets the rating and returns the read data; avg is exact over several users', async t => {
  const game = await createGame(app)
  const [u1, u2, u3] = [await newUser(app), await newUser(app), await newUser(app)]

  const first = await rate(app, u1, game.gameId, '10')
  t.equal(first.headers['content-type'], JSON_TYPE)
  t.same(v1Envelope(first.json()), { ok: true, data: { avg: 10, count: 1, mine: 10 } }, '10 alone')
  t.same(v1(await getRating(app, u2, game.gameId)), { avg: 10, count: 1, mine: null }, 'another user who has not rated sees mine null')

  t.same(v1(await rate(app, u2, game.gameId, '8')), { avg: 9, count: 2, mine: 8 })
  t.same(v1(await rate(app, u3, game.gameId, '7')), { avg: 8.33, count: 3, mine: 7 }, '7, 8, 10 -> 8.33')
  t.same(v1(await getRating(app, u1, game.gameId)), { avg: 8.33, count: 3, mine: 10 })
  t.same(v1(await getRating(app, u2, game.gameId)), { avg: 8.33, count: 3, mine: 8 })

  // Changing a rating keeps the count and updates the average.
  t.same(v1(await rate(app, u1, game.gameId, '9')), { avg: 8, count: 3, mine: 9 }, '7, 8, 9 -> 8')
  t.same(v1(await rate(app, u1, game.gameId, '9')), { avg: 8, count: 3, mine: 9 }, 'the same value again')
  t.same(v1(await rate(app, u3, game.gameId, '1')), { avg: 6, count: 3, mine: 1 }, '1, 8, 9 -> 6')

  // Multipart works like form-encoded.
  const boundary = '----rateboundary'
  const payload = `--${boundary}\r\nContent-Disposition: form-data; name="stars"\r\n\r\n5\r\n--${boundary}--\r\n`
  const multipart = await app.inject({ method: 'POST', url: rateUrl(game.gameId), payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, cookie: u2 } })
  t.same(v1(multipart), { avg: 5, count: 3, mine: 5 }, 'multipart: 1, 5, 9 -> 5')
})

t.test('averages round to 2 decimals', async t => {
  const cases: Array<[number[], number]> = [
    [[1, 2], 1.5],
    [[10], 10],
    [[7, 8, 10], 8.33],
    [[2, 3, 3], 2.67],
    [[1, 1, 2], 1.33],
    [[1, 1, 1, 2, 2, 2, 2], 1.57],
    [[1, 10], 5.5]
  ]
  for (const [stars, avg] of cases) {
    const game = await createGame(app)
    let last: any
    for (const value of stars) last = dataOf(await rate(app, await newUser(app), game.gameId, String(value)))
    t.same(v1(last), { avg, count: stars.length, mine: stars[stars.length - 1] }, `${stars.join(', ')} -> ${avg}`)
  }
})

t.test('DELETE, and POST with _method=DELETE, return the data after the removal', async t => {
  const game = await createGame(app)
  const [u1, u2, u3, never] = [await newUser(app), await newUser(app), await newUser(app), await newUser(app)]
  await rate(app, u1, game.gameId, '4')
  await rate(app, u2, game.gameId, '6')
  await rate(app, u3, game.gameId, '9')

  const deleted = await deleteRating(app, u1, game.gameId)
  t.equal(deleted.headers['content-type'], JSON_TYPE)
  t.same(v1Envelope(deleted.json()), { ok: true, data: { avg: 7.5, count: 2, mine: null } }, 'DELETE')
  t.same(v1(await deleteRating(app, u1, game.gameId)), { avg: 7.5, count: 2, mine: null }, 'DELETE again succeeds')
  t.same(v1(await deleteRating(app, never, game.gameId)), { avg: 7.5, count: 2, mine: null }, 'DELETE by a user who never rated')

  t.same(v1(await postRating(app, u2, game.gameId, { _method: 'DELETE' })), { avg: 9, count: 1, mine: null }, '_method=DELETE')
  t.same(v1(await postRating(app, u2, game.gameId, { _method: 'DELETE' })), { avg: 9, count: 1, mine: null }, '_method=DELETE again')
  // _method=DELETE needs no stars; sent stars are not applied.
  t.same(v1(await postRating(app, u3, game.gameId, { _method: 'DELETE', stars: '2' })), { avg: 0, count: 0, mine: null }, 'last rating removed')
  t.same(v1(await getRating(app, u3, game.gameId)), { avg: 0, count: 0, mine: null })
  t.same(v1(await deleteRating(app, u3, game.gameId)), { avg: 0, count: 0, mine: null }, 'DELETE on a game nobody rated')

  // Rating again after removal counts again.
  t.same(v1(await rate(app, u1, game.gameId, '3')), { avg: 3, count: 1, mine: 3 })
})

t.test('invalid_stars for anything but an integer 1..10', async t => {
  const game = await createGame(app)
  const cookie = await newUser(app)
  await rate(app, cookie, game.gameId, '6')
  for (const stars of ['0', '11', '7.5', 'abc', '-1', '100', '1e1', ' 5', '5 ', '+5', '0x5', '-0', '10.0']) {
    expectError(t, await rate(app, cookie, game.gameId, stars), 'invalid_stars', `stars ${JSON.stringify(stars)}`)
  }
  t.same(v1(await getRating(app, cookie, game.gameId)), { avg: 6, count: 1, mine: 6 }, 'the refused ratings changed nothing')
  for (const stars of ['1', '10']) {
    t.same(v1(await rate(app, cookie, game.gameId, stars)), { avg: Number(stars), count: 1, mine: Number(stars) }, `stars ${stars} is fine`)
  }
  // The documents say only "an integer in 1..10"; leading zeros are read as
  // scores are (`007` is 7): digits only, then the range (README decision).
  t.same(v1(await rate(app, cookie, game.gameId, '05')), { avg: 5, count: 1, mine: 5 }, '05 is read as 5')
  t.same(v1(await rate(app, cookie, game.gameId, '010')), { avg: 10, count: 1, mine: 10 }, '010 is read as 10')
})

t.test('missing_param for game_id and for stars on POST', async t => {
  const game = await createGame(app)
  const cookie = await newUser(app)
  expectError(t, await getRating(app, cookie), 'missing_param', 'GET without game_id')
  expectError(t, await getRating(app, cookie, ''), 'missing_param', 'GET with empty game_id')
  expectError(t, await rate(app, cookie, '', '5'), 'missing_param', 'POST with empty game_id')
  expectError(t, await postRating(app, cookie, undefined, { stars: '5' }), 'missing_param', 'POST without game_id')
  expectError(t, await deleteRating(app, cookie), 'missing_param', 'DELETE without game_id')
  expectError(t, await postRating(app, cookie, undefined, { _method: 'DELETE' }), 'missing_param', '_method=DELETE without game_id')
  expectError(t, await postRating(app, cookie, game.gameId, {}), 'missing_param', 'POST without stars')
  expectError(t, await postRating(app, cookie, game.gameId, { stars: '' }), 'missing_param', 'POST with empty stars')
  t.same(v1(await getRating(app, cookie, game.gameId)), { avg: 0, count: 0, mine: null })
})

t.test('game_id from the query, or from a form field when the query has none; both is invalid_param', async t => {
  const game = await createGame(app)
  const cookie = await newUser(app)
  t.same(v1(await postRating(app, cookie, undefined, { game_id: game.gameId, stars: '4' })), { avg: 4, count: 1, mine: 4 }, 'form field game_id on POST')
  t.same(v1(await getRating(app, cookie, game.gameId)), { avg: 4, count: 1, mine: 4 }, 'the same game')
  t.same(v1(await postRating(app, cookie, undefined, { game_id: game.gameId, _method: 'DELETE' })), { avg: 0, count: 0, mine: null }, 'form field game_id on _method=DELETE')

  expectError(t, await postRating(app, cookie, game.gameId, { game_id: game.gameId, stars: '4' }), 'invalid_param', 'the same game_id in query and form')
  const other = await createGame(app)
  expectError(t, await postRating(app, cookie, game.gameId, { game_id: other.gameId, stars: '4' }), 'invalid_param', 'different game_id in query and form')
  expectError(t, await app.inject({ method: 'GET', url: `/api/rate?game_id=${game.gameId}&game_id=${game.gameId}`, headers: { cookie } }), 'invalid_param', 'game_id twice in the query')
  t.same(v1(await getRating(app, cookie, game.gameId)), { avg: 0, count: 0, mine: null }, 'nothing stored')
  t.same(v1(await getRating(app, cookie, other.gameId)), { avg: 0, count: 0, mine: null }, 'nothing stored on the other game')
})

t.test('invalid_game for unknown, unapproved and malformed games', async t => {
  const cookie = await newUser(app)
  const unapproved = await createGame(app, { approved: false })
  for (const [what, gameId] of [['unknown', 'no_such_game'], ['unapproved', unapproved.gameId], ['malformed', 'bad id!'], ['65 characters', 'a'.repeat(65)]] as Array<[string, string]>) {
    expectError(t, await getRating(app, cookie, gameId), 'invalid_game', `GET: ${what}`)
    expectError(t, await rate(app, cookie, gameId, '5'), 'invalid_game', `POST: ${what}`)
    expectError(t, await deleteRating(app, cookie, gameId), 'invalid_game', `DELETE: ${what}`)
    expectError(t, await postRating(app, cookie, gameId, { _method: 'DELETE' }), 'invalid_game', `_method=DELETE: ${what}`)
  }
  // Check order: missing stars before invalid_game, invalid_game before invalid_stars.
  expectError(t, await postRating(app, cookie, 'no_such_game', {}), 'missing_param', 'missing stars before invalid_game')
  expectError(t, await rate(app, cookie, 'no_such_game', '11'), 'invalid_game', 'invalid_game before invalid_stars')
})

t.test('not_logged_in without a session', async t => {
  const game = await createGame(app)
  for (const [what, cookie] of [['no cookie', undefined], ['garbage cookie', 'sid=garbage']] as Array<[string, string | undefined]>) {
    expectError(t, await getRating(app, cookie, game.gameId), 'not_logged_in', `GET: ${what}`)
    expectError(t, await rate(app, cookie, game.gameId, '5'), 'not_logged_in', `POST: ${what}`)
    expectError(t, await deleteRating(app, cookie, game.gameId), 'not_logged_in', `DELETE: ${what}`)
    expectError(t, await postRating(app, cookie, game.gameId, { _method: 'DELETE' }), 'not_logged_in', `_method=DELETE: ${what}`)
  }
  // not_logged_in comes before every other fault.
  expectError(t, await postRating(app, undefined, 'bad id!', {}, { origin: 'https://evil.example', host: 'localhost' }), 'not_logged_in', 'before forbidden_origin and missing_param')
  expectError(t, await getRating(app, undefined), 'not_logged_in', 'GET without game_id')
  const cookie = await newUser(app)
  t.same(v1(await getRating(app, cookie, game.gameId)), { avg: 0, count: 0, mine: null }, 'nothing stored')
})

t.test('forbidden_origin on POST and DELETE, not on GET', async t => {
  const game = await createGame(app)
  const cookie = await newUser(app)
  await rate(app, cookie, game.gameId, '7')
  const evil = { origin: 'https://evil.example', host: 'localhost' }
  expectError(t, await rate(app, cookie, game.gameId, '2', evil), 'forbidden_origin', 'POST')
  expectError(t, await rate(app, cookie, game.gameId, '2', { origin: 'null', host: 'localhost' }), 'forbidden_origin', 'POST with Origin: null')
  expectError(t, await deleteRating(app, cookie, game.gameId, evil), 'forbidden_origin', 'DELETE')
  expectError(t, await postRating(app, cookie, game.gameId, { _method: 'DELETE' }, evil), 'forbidden_origin', '_method=DELETE')
  expectError(t, await postRating(app, cookie, 'bad id!', {}, evil), 'forbidden_origin', 'forbidden_origin before missing_param and invalid_game')
  t.same(v1(await getRating(app, cookie, game.gameId, evil)), { avg: 7, count: 1, mine: 7 }, 'GET with a foreign Origin is answered; nothing changed')

  t.same(v1(await rate(app, cookie, game.gameId, '2', { origin: 'http://localhost:80', host: 'localhost' })), { avg: 2, count: 1, mine: 2 }, 'same origin POST')
  t.same(v1(await deleteRating(app, cookie, game.gameId, { origin: 'http://localhost', host: 'localhost' })), { avg: 0, count: 0, mine: null }, 'same origin DELETE')
})

t.test('concurrency: 20 users rating in parallel give the exact sum and count', async t => {
  const game = await createGame(app)
  const users = await Promise.all(Array.from({ length: 20 }, async () => await newUser(app, 'par_')))
  const stars = users.map((_, i) => (i % 10) + 1)
  const results = await Promise.all(users.map(async (cookie, i) => dataOf(await rate(app, cookie, game.gameId, String(stars[i])))))
  t.same(results.map(result => result.mine), stars, 'each sees its own rating')
  t.same(results.map(result => result.count).sort((a, b) => a - b).at(-1), 20, 'the last to finish sees 20')
  t.same(v1(await getRating(app, users[0]!, game.gameId)), { avg: 5.5, count: 20, mine: 1 }, '110 / 20')
  const each = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`s${i + 1}`, '2']))
  t.same(await app.redis.hgetall(`rank:{game:${game.gameId}}:rating`), { sum: '110', count: '20', ...each, wsec: '0', wsum: '0', weights: '2' }, 'the stored sum and count, two ratings of each value, and no weight (nobody played)')

  // In parallel: half change their rating to 10, half delete theirs.
  await Promise.all(users.map(async (cookie, i) => {
    if (i < 10) dataOf(await rate(app, cookie, game.gameId, '10'))
    else dataOf(await deleteRating(app, cookie, game.gameId))
  }))
  t.same(v1(await getRating(app, users[0]!, game.gameId)), { avg: 10, count: 10, mine: 10 })
  t.same(v1(await getRating(app, users[19]!, game.gameId)), { avg: 10, count: 10, mine: null })

  // The same user changing the rating many times in parallel still counts once.
  const one = users[15]!
  const many = await Promise.all(Array.from({ length: 10 }, async (_, i) => dataOf(await rate(app, one, game.gameId, String(i + 1)))))
  t.same(many.map(result => result.count), Array(10).fill(11), 'count 11 in every answer')
  const final = dataOf(await getRating(app, one, game.gameId))
  t.equal(final.count, 11)
  t.equal(final.avg, Math.round(((100 + final.mine) / 11) * 100) / 100, 'avg matches the one stored value')
})

t.test('ratings are per game', async t => {
  const g1 = await createGame(app)
  const g2 = await createGame(app)
  const cookie = await newUser(app)
  await rate(app, cookie, g1.gameId, '3')
  t.same(v1(await getRating(app, cookie, g2.gameId)), { avg: 0, count: 0, mine: null })
  t.same(v1(await rate(app, cookie, g2.gameId, '8')), { avg: 8, count: 1, mine: 8 })
  t.same(v1(await getRating(app, cookie, g1.gameId)), { avg: 3, count: 1, mine: 3 })
})
