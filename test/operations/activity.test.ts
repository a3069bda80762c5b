import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { ADMIN_TOKEN, admin, buildTestApp, createGame, dataOf, expectError, formBody, keysMatching, submit } from '../helpers/app.js'
import { listeningApp } from '../helpers/listening.js'
import { openStream } from '../helpers/sse.js'
import { keys } from '../../src/store/keys.js'
import { ACTIVITY_DAYS_KEPT, ACTIVITY_MINUTES_KEPT_S } from '../../src/store/activity.js'

/*
 * The activity counters behind the console's charts (
 * docs/guide.md#activity-counters): counted by the submit and play-time
 * scripts, read with GET /admin/games/:game_id/stats; the score spread of a
 * board (…/stats/scores); the operator's live top (…/live).
 */

const VIEWER_TOKEN = 'viewer-token-0123456789-abcdefghijkl'
const { app } = await buildTestApp(t, { ADMIN_TOKENS: `look:viewer:${VIEWER_TOKEN}` })

const today = (): string => new Date().toISOString().slice(0, 10)
async function stats (gameId: string, query = ''): Promise<any> {
  return dataOf(await admin(app, 'GET', `/admin/games/${gameId}/stats${query}`))
}

let users = 0
async function session (target: FastifyInstance): Promise<{ username: string, cookie: string }> {
  const username = `act_user_${++users}`
  dataOf(await admin(target, 'POST', '/admin/users', { username }))
  const made = dataOf(await admin(target, 'POST', '/admin/sessions', { username }))
  return { username, cookie: `sid=${String(made.session_id)}` }
}
async function sessionPost (url: string, cookie: string, fields: Record<string, string>): Promise<any> {
  return dataOf(await app.inject({ method: 'POST', url, payload: formBody(fields), headers: { 'content-type': 'application/x-www-form-urlencoded', cookie } }))
}

t.test('submissions count per minute and per day; a replay and an approval do not', async t => {
  const game = await createGame(app)
  const empty = await stats(game.gameId)
  t.equal(empty.minutes.length, 60, 'the last hour by default')
  t.equal(empty.days.length, 30, 'the last 30 days by default')
  t.same(empty.days.at(-1), { day: today(), submissions: 0, active_players: 0, playtime_seconds: 0 }, 'zeros where nothing happened')
  t.ok(empty.minutes.every((minute: any) => minute.submissions === 0))
  t.equal(Date.parse(empty.minutes.at(-1).at) % 60_000, 0, 'minutes are whole UTC minutes')
  t.ok(Date.now() - Date.parse(empty.minutes.at(-1).at) < 120_000, 'the current minute last')

  const ts = Math.floor(Date.now() / 1000)
  t.equal((await submit(app, game, { player: 'ann', score: 10, ts })).json().ok, true)
  t.equal((await submit(app, game, { player: 'ann', score: 10, ts })).json().ok, true, 'the same signed request again: a replay')
  await submit(app, game, { player: 'bob', score: 5 })
  await submit(app, game, { player: 'bob', score: 3 })
  await submit(app, game, { player: 'cid', score: 7 })

  const after = await stats(game.gameId, '?minutes=5&days=3')
  t.equal(after.minutes.length, 5)
  t.equal(after.days.length, 3)
  const lastTwo = after.minutes.slice(-2).reduce((sum: number, minute: any) => sum + minute.submissions, 0)
  t.equal(lastTwo, 4, 'four submissions (the replay left out), in the last minute or two')
  t.same(after.days.at(-1), { day: today(), submissions: 4, active_players: 3, playtime_seconds: 0 })

  // A held score counts as a submission when it arrives; its approval does not again.
  dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}`, { review_above: 100 }))
  const held = await submit(app, game, { player: 'dee', score: 500 })
  t.equal(held.json().data.held, true, 'held for review')
  const pending = dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/review`))
  dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/review/${String(pending.items[0].held_id)}/approve`, {}))
  t.same((await stats(game.gameId, '?days=1')).days, [{ day: today(), submissions: 5, active_players: 4, playtime_seconds: 0 }])

  // Each counter expires on its own.
  const minuteTtl = await app.redis.ttl(keys.activityMinutes(game.gameId, Math.floor(Date.now() / 3_600_000)))
  t.ok(minuteTtl > ACTIVITY_MINUTES_KEPT_S - 120 && minuteTtl <= ACTIVITY_MINUTES_KEPT_S, `the minutes of an hour are kept two days (${minuteTtl} s)`)
  for (const key of [keys.activityDay(game.gameId, today()), keys.activityPlayers(game.gameId, today())]) {
    const ttl = await app.redis.ttl(key)
    t.ok(ttl > ACTIVITY_DAYS_KEPT * 86_400 && ttl <= (ACTIVITY_DAYS_KEPT + 1) * 86_400, `${key} is kept ${ACTIVITY_DAYS_KEPT} days and a day (${ttl} s)`)
  }
  t.same((await keysMatching(app.redis, `rank:{game:${game.gameId}}:activity:*`)).length, 3, 'three keys for a quiet hour: minutes, the day, its players')
})

t.test('play time counts per day, with its players; session submits count too', async t => {
  const game = await createGame(app)
  const a = await session(app)
  const b = await session(app)
  t.equal((await sessionPost('/api/playtime', a.cookie, { game_id: game.gameId, seconds: '30' })).credited_seconds, 30)
  await sessionPost('/api/playtime', b.cookie, { game_id: game.gameId, seconds: '45' })
  await sessionPost(`/api/rank?action=submit-self&game_id=${game.gameId}`, a.cookie, { score: '12' })
  t.same((await stats(game.gameId, '?days=1')).days, [{ day: today(), submissions: 1, active_players: 2, playtime_seconds: 75 }], 'a played and submitted: two players')
})

t.test('the ratings spread over the ten values, kept with every change', async t => {
  const game = await createGame(app)
  const raters = await Promise.all([1, 2, 3, 4].map(async () => await session(app)))
  const rate = async (cookie: string, stars: string): Promise<void> => { await sessionPost(`/api/rate?game_id=${game.gameId}`, cookie, { stars }) }
  await rate(raters[0]!.cookie, '10')
  await rate(raters[1]!.cookie, '10')
  await rate(raters[2]!.cookie, '7')
  await rate(raters[3]!.cookie, '3')
  await rate(raters[3]!.cookie, '7') // changed
  await app.inject({ method: 'DELETE', url: `/api/rate?game_id=${game.gameId}`, headers: { cookie: raters[1]!.cookie } })
  const expected = { count: 3, avg: 8, weighted: 5.5, items: Array.from({ length: 10 }, (_, i) => ({ stars: i + 1, count: i + 1 === 10 ? 1 : i + 1 === 7 ? 2 : 0 })) }
  t.same((await stats(game.gameId)).ratings, expected)

  // A game rated before the counts (and the weights, docs/ratings.md) were kept: counted once from the ratings, then kept.
  await app.redis.hdel(keys.ratingStats(game.gameId), 's7', 's10', 'weights')
  t.same((await stats(game.gameId)).ratings, expected, 'counted again from the ratings')
  t.equal(await app.redis.hget(keys.ratingStats(game.gameId), 's7'), '2', 'and stored')

  // Erasing a rater takes their rating out of the spread.
  dataOf(await app.inject({ method: 'DELETE', url: `/admin/users/${raters[0]!.username}?erase=true`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }))
  t.same((await stats(game.gameId)).ratings.items[9], { stars: 10, count: 0 })
})

t.test('the score spread of a board: ranges of whole scores, lowest first, on either order', async t => {
  const desc = await createGame(app)
  for (let i = 0; i < 100; i++) await submit(app, desc, { player: `p${i}`, score: i })
  const spread = dataOf(await admin(app, 'GET', `/admin/games/${desc.gameId}/stats/scores`))
  t.match(spread, { game_id: desc.gameId, total: 100, min: 0, max: 99 })
  t.equal(spread.items.length, 20, '20 ranges by default')
  t.same(spread.items.slice(0, 2), [{ from: 0, to: 4, count: 5 }, { from: 5, to: 9, count: 5 }], 'whole scores, both bounds held')
  t.ok(spread.items.every((bucket: any) => bucket.count === 5), 'every score counted once')
  t.same(dataOf(await admin(app, 'GET', `/admin/games/${desc.gameId}/stats/scores?buckets=7`)).items.map((bucket: any) => [bucket.from, bucket.to, bucket.count]),
    [[0, 14, 15], [15, 29, 15], [30, 44, 15], [45, 59, 15], [60, 74, 15], [75, 89, 15], [90, 99, 10]], 'the last range narrower')

  const asc = await createGame(app)
  dataOf(await admin(app, 'PATCH', `/admin/games/${asc.gameId}`, { order: 'asc' }))
  for (const [player, score] of [['a', 10], ['b', 20], ['c', 20], ['d', 40]] as const) await submit(app, asc, { player, score })
  t.same(dataOf(await admin(app, 'GET', `/admin/games/${asc.gameId}/stats/scores?buckets=3`)).items,
    [{ from: 10, to: 20, count: 3 }, { from: 21, to: 31, count: 0 }, { from: 32, to: 40, count: 1 }])
  // Hidden entries are on no board: they are not counted.
  dataOf(await admin(app, 'PATCH', `/admin/games/${asc.gameId}/players/d`, { hidden: true }))
  t.match(dataOf(await admin(app, 'GET', `/admin/games/${asc.gameId}/stats/scores?buckets=3`)), { total: 3, min: 10, max: 20 })

  const wide = await createGame(app)
  for (const [player, score] of [['low', -Number.MAX_SAFE_INTEGER], ['mid', 0], ['high', Number.MAX_SAFE_INTEGER]] as const) await submit(app, wide, { player, score })
  t.same(dataOf(await admin(app, 'GET', `/admin/games/${wide.gameId}/stats/scores?buckets=2`)).items,
    [{ from: -Number.MAX_SAFE_INTEGER, to: 0, count: 2 }, { from: 1, to: Number.MAX_SAFE_INTEGER, count: 1 }], 'a board spanning 2^54: exact bounds, each score once')

  const same = await createGame(app)
  await submit(app, same, { player: 'x', score: 7 })
  await submit(app, same, { player: 'y', score: 7 })
  t.same(dataOf(await admin(app, 'GET', `/admin/games/${same.gameId}/stats/scores`)).items, [{ from: 7, to: 7, count: 2 }], 'one score: one range')
  t.match(dataOf(await admin(app, 'GET', `/admin/games/${(await createGame(app)).gameId}/stats/scores`)), { total: 0, min: null, max: null, items: [] }, 'an empty board')

  dataOf(await admin(app, 'PATCH', `/admin/games/${same.gameId}`, { periods: ['daily'] }))
  await submit(app, same, { player: 'z', score: 9 })
  t.match(dataOf(await admin(app, 'GET', `/admin/games/${same.gameId}/stats/scores?period=daily`)), { period: 'daily', total: 1, min: 9, max: 9 }, 'a period board')
})

t.test('around a player, for the console', async t => {
  const game = await createGame(app)
  for (let i = 1; i <= 9; i++) await submit(app, game, { player: `r${i}`, score: i * 10 })
  const around = dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/around?player_name=r5&before=1&after=2`))
  t.match(around, { game_id: game.gameId, total: 9, player: { player_name: 'r5', best_score: 50, rank: 5 } })
  t.same(around.items.map((item: any) => item.player_name), ['r6', 'r5', 'r4', 'r3'])
  t.match(dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/around?player_name=nobody`)), { player: { rank: null }, items: [] }, 'a player with no entry')
  expectError(t, await admin(app, 'GET', `/admin/games/${game.gameId}/around`), 'missing_param', 'the player is required')
  expectError(t, await admin(app, 'GET', `/admin/games/${game.gameId}/around?player_name=r5&before=51`), 'invalid_param', 'at most 50 above')
})

t.test('bad queries are clear errors; a viewer reads', async t => {
  const game = await createGame(app)
  expectError(t, await admin(app, 'GET', `/admin/games/${game.gameId}/stats?minutes=0`), 'invalid_param', 'minutes below 1')
  expectError(t, await admin(app, 'GET', `/admin/games/${game.gameId}/stats?minutes=2881`), 'invalid_param', 'minutes past two days')
  expectError(t, await admin(app, 'GET', `/admin/games/${game.gameId}/stats?days=92`), 'invalid_param', 'days past what is kept')
  expectError(t, await admin(app, 'GET', `/admin/games/${game.gameId}/stats?days=1&days=2`), 'invalid_param', 'a parameter twice')
  expectError(t, await admin(app, 'GET', `/admin/games/${game.gameId}/stats?__proto__=1`), 'invalid_param', 'an unknown parameter')
  expectError(t, await admin(app, 'GET', `/admin/games/${game.gameId}/stats/scores?buckets=101`), 'invalid_param', 'too many ranges')
  expectError(t, await admin(app, 'GET', `/admin/games/${game.gameId}/stats/scores?period=daily`), 'invalid_param', 'a period the game does not keep')
  expectError(t, await admin(app, 'GET', '/admin/games/nope/stats'), 'not_found', 'no such game')
  expectError(t, await app.inject({ method: 'GET', url: `/admin/games/${game.gameId}/stats` }), 'unauthorized', 'without a token')
  t.same(dataOf(await app.inject({ method: 'GET', url: '/admin/whoami', headers: { authorization: `Bearer ${VIEWER_TOKEN}` } })), { name: 'look', role: 'viewer' }, 'whoami: the token\'s name and role')
  t.same(dataOf(await admin(app, 'GET', '/admin/whoami')), { name: 'admin', role: 'admin' })
  const viewed = await app.inject({ method: 'GET', url: `/admin/games/${game.gameId}/stats`, headers: { authorization: `Bearer ${VIEWER_TOKEN}` } })
  t.equal(viewed.json().ok, true, 'a viewer reads the figures')
  t.equal(viewed.headers['cache-control'], 'no-store')
})

t.test('the operator live top: the token in a header, the first frame at once, a new top as it changes', { timeout: 30_000 }, async t => {
  const { app: served, baseUrl } = await listeningApp(t)
  const game = await createGame(served)
  await submit(served, game, { player: 'first', score: 10 })
  const refused = await openStream(`${baseUrl}/admin/games/${game.gameId}/live`)
  t.equal(refused.status, 200, 'no token, no stream: the envelope')
  t.match(JSON.parse(refused.body ?? '{}'), { ok: false, error: 'unauthorized' })
  const stream = await openStream(`${baseUrl}/admin/games/${game.gameId}/live?limit=10`, { authorization: `Bearer ${ADMIN_TOKEN}` })
  t.teardown(stream.close)
  t.equal(stream.status, 200)
  t.equal(stream.headers.get('cache-control'), 'no-store', 'never cached')
  const first = await stream.frame(0)
  t.equal(first.event, 'top')
  t.match(JSON.parse(first.data), { game_id: game.gameId, total: 1, items: [{ rank: 1, player_name: 'first', score: 10 }] })
  await submit(served, game, { player: 'second', score: 20 })
  t.match(JSON.parse((await stream.frame(1)).data), { total: 2, items: [{ player_name: 'second' }, { player_name: 'first' }] }, 'the new top, pushed')
  const bad = await openStream(`${baseUrl}/admin/games/${game.gameId}/live?limit=0`, { authorization: `Bearer ${ADMIN_TOKEN}` })
  t.match(JSON.parse(bad.body ?? '{}'), { ok: false, error: 'invalid_param' }, 'a bad query gets the envelope, not a stream')
})
