import t from 'tap'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { admin, buildTestApp, createGame, dataOf, formBody, expectError } from '../../helpers/app.js'

/*
 * POST /api/playtime (docs/interface.md#play-time): data
 * {total_playtime_seconds, user_playtime_seconds, credited_seconds}. A report
 * claims the `seconds` just before it arrived; per user and game the service
 * remembers up to when play was credited, credits only the part of the claim
 * after that instant, never past 5 s ahead of the server clock.
 *
 * The credited-until instant lives in `rank:{game:<id>}:playtime` field
 * `c:<username>` (ms, Redis clock); the tests set it there to stand in for
 * time that has passed, instead of waiting.
 */

const JSON_TYPE = 'application/json; charset=utf-8'

type Headers = Record<string, string>

let counter = 0

async function newUser (app: FastifyInstance): Promise<{ username: string, cookie: string }> {
  const username = `player_${++counter}`
  dataOf(await admin(app, 'POST', '/admin/users', { username }))
  const made = dataOf(await admin(app, 'POST', '/admin/sessions', { username }))
  return { username, cookie: `sid=${String(made.session_id)}` }
}

async function report (app: FastifyInstance, cookie: string | undefined, fields: Record<string, string>, headers: Headers = {}): Promise<LightMyRequestResponse> {
  return await app.inject({
    method: 'POST',
    url: '/api/playtime',
    payload: formBody(fields),
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie === undefined ? {} : { cookie }), ...headers }
  })
}

async function play (app: FastifyInstance, cookie: string, gameId: string, seconds: number | string): Promise<any> {
  return dataOf(await report(app, cookie, { game_id: gameId, seconds: String(seconds) }))
}

/** The server (Redis) clock in ms. */
async function redisNowMs (app: FastifyInstance): Promise<number> {
  const [seconds, micros] = await app.redis.time()
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000)
}

function playtimeKey (gameId: string): string {
  return `rank:{game:${gameId}}:playtime`
}

async function setCreditedUntil (app: FastifyInstance, gameId: string, username: string, ms: number): Promise<void> {
  await app.redis.hset(playtimeKey(gameId), `c:${username}`, String(ms))
}

async function creditedUntil (app: FastifyInstance, gameId: string, username: string): Promise<number> {
  return Number(await app.redis.hget(playtimeKey(gameId), `c:${username}`))
}

const { app } = await buildTestApp(t)

t.test('the first report credits `seconds`; one right after credits at most 5', async t => {
  const game = await createGame(app)
  const { username, cookie } = await newUser(app)
  const started = Date.now()
  const first = await report(app, cookie, { game_id: game.gameId, seconds: '120' })
  t.equal(first.headers['content-type'], JSON_TYPE)
  t.same(first.json(), { ok: true, data: { total_playtime_seconds: 120, user_playtime_seconds: 120, credited_seconds: 120 } })
  const afterFirst = await creditedUntil(app, game.gameId, username)
  const now = await redisNowMs(app)
  t.ok(afterFirst <= now && afterFirst > now - 1000, 'credited up to the moment of the report')

  const second = await play(app, cookie, game.gameId, 30)
  const elapsed = Math.floor((Date.now() - started) / 1000)
  t.ok(second.credited_seconds >= 5 && second.credited_seconds <= 5 + elapsed, `credited ${String(second.credited_seconds)}: 5 ahead of the clock, no more`)
  t.same(second, { total_playtime_seconds: 120 + second.credited_seconds, user_playtime_seconds: 120 + second.credited_seconds, credited_seconds: second.credited_seconds })
  t.ok(await creditedUntil(app, game.gameId, username) <= await redisNowMs(app) + 5000, 'never more than 5 s ahead')

  // A third report at once finds nothing left to credit, and still answers the totals.
  const third = await play(app, cookie, game.gameId, 300)
  const total = 120 + second.credited_seconds + third.credited_seconds
  t.ok(third.credited_seconds <= elapsed + 1, `third credited ${String(third.credited_seconds)}`)
  t.same(third, { total_playtime_seconds: total, user_playtime_seconds: total, credited_seconds: third.credited_seconds })
})

t.test('a burst of 20 reports of 300 credits at most 300 + 5 + elapsed seconds', async t => {
  const game = await createGame(app)
  const { username, cookie } = await newUser(app)
  const started = Date.now()
  const results = await Promise.all(Array.from({ length: 20 }, async () => await play(app, cookie, game.gameId, 300)))
  const elapsed = Math.ceil((Date.now() - started) / 1000)
  const credited = results.reduce((sum, result) => sum + Number(result.credited_seconds), 0)
  t.ok(credited >= 305 && credited <= 305 + elapsed, `credited ${credited} in total (elapsed ${elapsed} s)`)
  t.equal(results.filter(result => result.credited_seconds === 300).length, 1, 'one report got the full claim')
  t.equal(Math.max(...results.map(result => Number(result.user_playtime_seconds))), credited, 'the last answer has the sum')
  const after = await play(app, cookie, game.gameId, 1)
  t.same(after, { total_playtime_seconds: credited + after.credited_seconds, user_playtime_seconds: credited + after.credited_seconds, credited_seconds: after.credited_seconds })
  t.equal(Number(await app.redis.hget(playtimeKey(game.gameId), `u:${username}`)), credited + after.credited_seconds)
  t.ok(await creditedUntil(app, game.gameId, username) <= await redisNowMs(app) + 5000, 'credited-until at most 5 s ahead')
})

t.test('the game total adds up over users; users and games are separate', async t => {
  const game = await createGame(app)
  const other = await createGame(app)
  const a = await newUser(app)
  const b = await newUser(app)
  t.same(await play(app, a.cookie, game.gameId, 100), { total_playtime_seconds: 100, user_playtime_seconds: 100, credited_seconds: 100 })
  t.same(await play(app, b.cookie, game.gameId, 50), { total_playtime_seconds: 150, user_playtime_seconds: 50, credited_seconds: 50 }, 'b has its own credited-until')
  t.same(await play(app, a.cookie, other.gameId, 300), { total_playtime_seconds: 300, user_playtime_seconds: 300, credited_seconds: 300 }, 'another game starts afresh')

  // Time passes for both (30 s) on the first game.
  const now = await redisNowMs(app)
  await setCreditedUntil(app, game.gameId, a.username, now - 30000)
  await setCreditedUntil(app, game.gameId, b.username, now - 30000)
  t.same(await play(app, a.cookie, game.gameId, 30), { total_playtime_seconds: 180, user_playtime_seconds: 130, credited_seconds: 30 })
  t.same(await play(app, b.cookie, game.gameId, 30), { total_playtime_seconds: 210, user_playtime_seconds: 80, credited_seconds: 30 })
  t.same(await app.redis.hmget(playtimeKey(game.gameId), 'total', `u:${a.username}`, `u:${b.username}`), ['210', '130', '80'])
  t.equal(await app.redis.hget(playtimeKey(other.gameId), 'total'), '300')
})

t.test('30 every 30 seconds gets 30 each time despite jitter', async t => {
  const game = await createGame(app)
  const { username, cookie } = await newUser(app)
  t.equal((await play(app, cookie, game.gameId, 30)).credited_seconds, 30, 'the first report')
  let expectedTotal = 30
  for (const jitter of [-400, 250, -100, 400, 0, -250, 100]) {
    // The previous report was credited up to (30 s - jitter) ago: the page is late or early.
    await setCreditedUntil(app, game.gameId, username, await redisNowMs(app) - 30000 + jitter)
    const result = await play(app, cookie, game.gameId, 30)
    expectedTotal += 30
    t.same(result, { total_playtime_seconds: expectedTotal, user_playtime_seconds: expectedTotal, credited_seconds: 30 }, `jitter ${jitter} ms`)
    t.ok(await creditedUntil(app, game.gameId, username) <= await redisNowMs(app) + 5000, `jitter ${jitter}: at most 5 s ahead`)
  }
})

t.test('after a gap the claim is still bounded: credited-until 40 s ago and a report of 30 credits 30', async t => {
  const game = await createGame(app)
  const { username, cookie } = await newUser(app)
  await play(app, cookie, game.gameId, 10)
  const now = await redisNowMs(app)
  await setCreditedUntil(app, game.gameId, username, now - 40000)
  t.same(await play(app, cookie, game.gameId, 30), { total_playtime_seconds: 40, user_playtime_seconds: 40, credited_seconds: 30 }, 'not 40')
  const until = await creditedUntil(app, game.gameId, username)
  const after = await redisNowMs(app)
  t.ok(until >= now && until <= after, 'credited up to the report, not beyond')

  // A claim smaller than the gap credits the claim only.
  await setCreditedUntil(app, game.gameId, username, await redisNowMs(app) - 200000)
  t.same(await play(app, cookie, game.gameId, 1), { total_playtime_seconds: 41, user_playtime_seconds: 41, credited_seconds: 1 })
  // A gap of 10 s and a claim of 30 credits 10 + 5 s ahead at most, in whole seconds.
  await setCreditedUntil(app, game.gameId, username, await redisNowMs(app) - 10000)
  const partial = await play(app, cookie, game.gameId, 30)
  t.ok(partial.credited_seconds === 15 || partial.credited_seconds === 14, `credited ${String(partial.credited_seconds)}: the 10 s since, plus at most 5 ahead`)
  t.equal(partial.user_playtime_seconds, 41 + partial.credited_seconds)
})

t.test('invalid_seconds for anything but an integer 1..300', async t => {
  const game = await createGame(app)
  const { cookie } = await newUser(app)
  for (const seconds of ['0', '301', '1.5', 'abc', '-1', '1e2', '+5', ' 5', '1000', '300.0']) {
    expectError(t, await report(app, cookie, { game_id: game.gameId, seconds }), 'invalid_seconds', `seconds ${JSON.stringify(seconds)}`)
  }
  t.equal(await app.redis.exists(playtimeKey(game.gameId)), 0, 'nothing was recorded')
  t.same(await play(app, cookie, game.gameId, 300), { total_playtime_seconds: 300, user_playtime_seconds: 300, credited_seconds: 300 }, '300 is fine')
  const other = await newUser(app)
  t.same(await play(app, other.cookie, game.gameId, 1), { total_playtime_seconds: 301, user_playtime_seconds: 1, credited_seconds: 1 }, '1 is fine')
})

t.test('missing_param, invalid_game, not_logged_in, forbidden_origin and their order', async t => {
  const game = await createGame(app)
  const unapproved = await createGame(app, { approved: false })
  const { cookie } = await newUser(app)
  expectError(t, await report(app, cookie, { seconds: '30' }), 'missing_param', 'no game_id')
  expectError(t, await report(app, cookie, { game_id: '', seconds: '30' }), 'missing_param', 'empty game_id')
  expectError(t, await report(app, cookie, { game_id: game.gameId }), 'missing_param', 'no seconds')
  expectError(t, await report(app, cookie, { game_id: game.gameId, seconds: '' }), 'missing_param', 'empty seconds')
  expectError(t, await report(app, cookie, { game_id: 'no_such_game' }), 'missing_param', 'missing seconds before invalid_game')

  for (const [what, gameId] of [['unknown', 'no_such_game'], ['unapproved', unapproved.gameId], ['malformed', 'bad id!']] as Array<[string, string]>) {
    expectError(t, await report(app, cookie, { game_id: gameId, seconds: '30' }), 'invalid_game', `${what} game`)
  }
  expectError(t, await report(app, cookie, { game_id: 'no_such_game', seconds: '0' }), 'invalid_game', 'invalid_game before invalid_seconds')

  expectError(t, await report(app, undefined, { game_id: game.gameId, seconds: '30' }), 'not_logged_in', 'no cookie')
  expectError(t, await report(app, 'sid=garbage', { game_id: game.gameId, seconds: '30' }), 'not_logged_in', 'garbage cookie')
  expectError(t, await report(app, undefined, {}, { origin: 'https://evil.example', host: 'localhost' }), 'not_logged_in', 'not_logged_in first')

  expectError(t, await report(app, cookie, { game_id: game.gameId, seconds: '30' }, { origin: 'https://evil.example', host: 'localhost' }), 'forbidden_origin', 'foreign origin')
  expectError(t, await report(app, cookie, {}, { origin: 'null', host: 'localhost' }), 'forbidden_origin', 'forbidden_origin before missing_param')
  t.equal(await app.redis.exists(playtimeKey(game.gameId)), 0, 'nothing was recorded')
  t.same(await play(app, cookie, game.gameId, 30), { total_playtime_seconds: 30, user_playtime_seconds: 30, credited_seconds: 30 })
})
