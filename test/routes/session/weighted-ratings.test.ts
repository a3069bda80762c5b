import t from 'tap'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { admin, buildTestApp, createGame, dataOf, errorOf, formBody, type TestGame } from '../../helpers/app.js'
import { keys } from '../../../src/store/keys.js'

/*
 * Ratings weighted by play (docs/ratings.md): each rating remembers its
 * rater's play at rating and weighs by their verified play in the game now
 * (none for none, fully from rating_full_weight_seconds); the weighted score
 * is a Bayesian mean toward a prior (RATING_PRIOR_MEAN fixed here, so the
 * worked example is the one in the docs); `distribution` counts each value;
 * rating_min_play_seconds refuses a rating with play_required. v1's avg,
 * count and mine stay as they were. Removal, erasure and a guest's claim keep
 * every figure exact.
 */

const FORM = { 'content-type': 'application/x-www-form-urlencoded' }
const STRONG = 'correct horse battery staple'
const NONE = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0]

function cookieOf (answer: LightMyRequestResponse): string {
  const header = answer.headers['set-cookie']
  const line = Array.isArray(header) ? header[0] : header
  return (line ?? '').split(';')[0] as string
}

async function userCookie (app: FastifyInstance, username: string): Promise<string> {
  dataOf(await admin(app, 'POST', '/admin/users', { username }))
  return `sid=${String(dataOf(await admin(app, 'POST', '/admin/sessions', { username })).session_id)}`
}

async function rate (app: FastifyInstance, cookie: string, game: TestGame, stars: number): Promise<LightMyRequestResponse> {
  return await app.inject({ method: 'POST', url: `/api/rate?game_id=${game.gameId}`, payload: formBody({ stars: String(stars) }), headers: { ...FORM, cookie } })
}

async function rating (app: FastifyInstance, cookie: string, game: TestGame): Promise<Record<string, any>> {
  return dataOf(await app.inject({ method: 'GET', url: `/api/rate?game_id=${game.gameId}`, headers: { cookie } }))
}

/** Play credited straight into the game's play time, as reports over a long session would have (a report credits at most 300 s). */
async function played (app: FastifyInstance, game: TestGame, username: string, seconds: number): Promise<void> {
  await app.redis.hincrby(keys.playtime(game.gameId), `u:${username}`, seconds)
  await app.redis.hincrby(keys.playtime(game.gameId), 'total', seconds)
}

async function report (app: FastifyInstance, cookie: string, game: TestGame, seconds: number): Promise<number> {
  const answer = await app.inject({ method: 'POST', url: '/api/playtime', payload: formBody({ game_id: game.gameId, seconds: String(seconds) }), headers: { ...FORM, cookie } })
  return dataOf(answer).credited_seconds
}

const distribution = (counts: Record<number, number>): number[] => NONE.map((_, i) => counts[i + 1] ?? 0)

t.test('the worked example of docs/ratings.md: three raters, their play, the weighted score and the distribution', async t => {
  const { app } = await buildTestApp(t, { RATING_PRIOR_MEAN: '6' })
  const game = await createGame(app)
  const record = dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}`))
  t.match(record, { rating_full_weight_seconds: 600, rating_min_play_seconds: 0, listed: true }, 'the game record shows the three settings with their defaults')
  const ann = await userCookie(app, 'ann')
  const bob = await userCookie(app, 'bob')
  const cat = await userCookie(app, 'cat')
  t.same(await rating(app, ann, game), { avg: 0, count: 0, mine: null, weighted: null, distribution: NONE }, 'no rating: v1\'s figures, weighted null, ten zero counts')

  await played(app, game, 'ann', 900)
  await played(app, game, 'bob', 300)
  // ann: 10 stars, full weight (900 s is past 600); bob: 6 stars, half (300 of 600); cat: 2 stars, no play, no weight.
  t.same(dataOf(await rate(app, ann, game, 10)), { avg: 10, count: 1, mine: 10, weighted: 6.67, distribution: distribution({ 10: 1 }) }, '(5 x 6 + 1 x 10) / (5 + 1)')
  t.same(dataOf(await rate(app, bob, game, 6)), { avg: 8, count: 2, mine: 6, weighted: 6.62, distribution: distribution({ 6: 1, 10: 1 }) }, '(30 + 10 + 0.5 x 6) / 6.5')
  t.same(dataOf(await rate(app, cat, game, 2)), { avg: 6, count: 3, mine: 2, weighted: 6.62, distribution: distribution({ 2: 1, 6: 1, 10: 1 }) }, 'a rating without play weighs nothing: (30 + 13) / 6.5')
  t.same(await rating(app, bob, game), { avg: 6, count: 3, mine: 6, weighted: 6.62, distribution: distribution({ 2: 1, 6: 1, 10: 1 }) }, 'read back alike')

  // cat plays: the rating weighs what the play now is.
  t.equal(await report(app, cat, game, 300), 300, 'a first report credits what it claims')
  t.equal((await rating(app, cat, game)).weighted, 6.29, 'cat now weighs half: (30 + 10 + 3 + 1) / 7')
  // A changed rating weighs the play now, and remembers it.
  t.match(dataOf(await rate(app, cat, game, 4)), { avg: 6.67, count: 3, mine: 4, weighted: 6.43 }, '(30 + 10 + 3 + 2) / 7')

  // Removed: out of every figure.
  const removed = dataOf(await app.inject({ method: 'DELETE', url: `/api/rate?game_id=${game.gameId}`, headers: { cookie: cat } }))
  t.same(removed, { avg: 8, count: 2, mine: null, weighted: 6.62, distribution: distribution({ 6: 1, 10: 1 }) }, 'the rater\'s own DELETE')
})

t.test('twenty accounts that never played, rating 1 star, move a game rated 9 by ten players who played by less than half a star', async t => {
  // The prior's mean fixed at the middle of the scale, as a platform of many games would have it (this one alone would be its own mean).
  const { app } = await buildTestApp(t, { RATING_PRIOR_MEAN: '5.5' })
  const game = await createGame(app)
  for (let i = 0; i < 10; i++) {
    const cookie = await userCookie(app, `player${i}`)
    await played(app, game, `player${i}`, 1200)
    dataOf(await rate(app, cookie, game, 9))
  }
  const before = await rating(app, await userCookie(app, 'reader'), game)
  for (let i = 0; i < 20; i++) dataOf(await rate(app, await userCookie(app, `bomber${i}`), game, 1))
  const after = await rating(app, await userCookie(app, 'reader2'), game)
  t.equal(after.count, 30)
  t.equal(after.avg, 3.67, 'the plain average is dragged from 9 to 3.67')
  t.ok(Math.abs(after.weighted - before.weighted) < 1, `the weighted score moves ${String(before.weighted)} -> ${String(after.weighted)}: under one half-star unit (half a star)`)
  t.same(after.distribution, distribution({ 1: 20, 9: 10 }))
})

t.test('rating_min_play_seconds: a rating needs that much play, play_required says how much more; a guest needs the greater of it and a minute', async t => {
  const { app } = await buildTestApp(t)
  const game = await createGame(app)
  t.match(dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}`, { rating_min_play_seconds: 120, guests: 'listed' })), { rating_min_play_seconds: 120 })
  const dan = await userCookie(app, 'dan')
  await played(app, game, 'dan', 50)
  const refused = await rate(app, dan, game, 7)
  t.equal(errorOf(refused), 'play_required')
  t.equal(refused.json().message, 'This game takes a rating after 120 s of play in it: 70 more seconds of play are needed.')
  t.same(await rating(app, dan, game), { avg: 0, count: 0, mine: null, weighted: null, distribution: NONE }, 'nothing stored')
  await played(app, game, 'dan', 70)
  t.match(dataOf(await rate(app, dan, game, 7)), { count: 1, mine: 7 }, 'at 120 s: rated')

  const guest = await app.inject({ method: 'POST', url: '/auth/guest', payload: formBody({ game_id: game.gameId }), headers: FORM })
  const guestName = dataOf(guest).username as string
  await played(app, game, guestName, 90)
  const guestRefused = await rate(app, cookieOf(guest), game, 3)
  t.equal(guestRefused.json().message, 'This game takes a rating after 120 s of play in it: 30 more seconds of play are needed.', 'the game\'s rule, past a guest\'s minute, is the one said')
  for (const value of [-1, 360_001, 'ten']) t.equal(errorOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}`, { rating_min_play_seconds: value })), 'invalid_param', `rating_min_play_seconds ${String(value)}`)
  for (const value of [0, 360_001]) t.equal(errorOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}`, { rating_full_weight_seconds: value })), 'invalid_param', `rating_full_weight_seconds ${String(value)}`)
  t.equal(errorOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}`, { listed: 'no' })), 'invalid_param', 'listed is a boolean')
})

t.test('a guest\'s rating weighs by its play, and its claim keeps every figure exact', async t => {
  const { app } = await buildTestApp(t, { RATING_PRIOR_MEAN: '5' })
  const game = await createGame(app)
  dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}`, { guests: 'listed' }))
  const guest = await app.inject({ method: 'POST', url: '/auth/guest', payload: formBody({ game_id: game.gameId }), headers: FORM })
  const guestName = dataOf(guest).username as string
  const cookie = cookieOf(guest)
  await played(app, game, guestName, 60)
  // A minute of 600: a tenth of a rating. (5 x 5 + 0.1 x 10) / 5.1
  t.same(dataOf(await rate(app, cookie, game, 10)), { avg: 10, count: 1, mine: 10, weighted: 5.1, distribution: distribution({ 10: 1 }) }, 'a guest\'s rating weighs its minute')
  dataOf(await admin(app, 'POST', '/admin/users', { username: 'rita', password: STRONG }))
  await played(app, game, 'rita', 540)
  // rita had 540 s and no rating: the guest's rating becomes hers, and weighs her play with the guest's, 600 s: full.
  const login = await app.inject({ method: 'POST', url: '/auth/login', payload: formBody({ username: 'rita', password: STRONG }), headers: { ...FORM, cookie } })
  const rita = cookieOf(login)
  t.same(await rating(app, rita, game), { avg: 10, count: 1, mine: 10, weighted: 5.83, distribution: distribution({ 10: 1 }) }, 'claimed: (25 + 10) / 6')
  const listed = dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}`))
  t.match(listed, { rating_count: 1, rating_avg: 10, playtime_seconds: 600 })

  // A second guest who rated 2 with play logs in as rita, who rated: rita's stays, the guest's goes; her play grows by its.
  const second = await app.inject({ method: 'POST', url: '/auth/guest', payload: formBody({ game_id: game.gameId }), headers: FORM })
  const secondName = dataOf(second).username as string
  await played(app, game, secondName, 60)
  t.match(dataOf(await rate(app, cookieOf(second), game, 2)), { count: 2, avg: 6 })
  dataOf(await app.inject({ method: 'POST', url: '/auth/login', payload: formBody({ username: 'rita', password: STRONG }), headers: { ...FORM, cookie: cookieOf(second) } }))
  t.same(await rating(app, rita, game), { avg: 10, count: 1, mine: 10, weighted: 5.83, distribution: distribution({ 10: 1 }) }, 'the account\'s own rating stays; the guest\'s leaves every figure')

  // Erased: out of every figure.
  dataOf(await admin(app, 'DELETE', '/admin/users/rita?erase=true'))
  t.same(await rating(app, await userCookie(app, 'reader'), game), { avg: 0, count: 0, mine: null, weighted: null, distribution: NONE }, 'erased with the user')
})

t.test('a game rated before weights were kept is counted once from its ratings; a new full weight counts every rating again', async t => {
  const { app } = await buildTestApp(t, { RATING_PRIOR_MEAN: '5' })
  const game = await createGame(app)
  // As the service before this change stored ratings: stars, sum and count, no weights.
  await app.redis.hset(keys.ratings(game.gameId), 'old1', '8', 'old2', '4')
  await app.redis.hset(keys.ratingStats(game.gameId), 'sum', '12', 'count', '2')
  await played(app, game, 'old1', 600)
  await played(app, game, 'old2', 150)
  const reader = await userCookie(app, 'reader')
  // old1 full (8), old2 a quarter (4): (25 + 8 + 1) / 6.25
  t.same(await rating(app, reader, game), { avg: 6, count: 2, mine: null, weighted: 5.44, distribution: distribution({ 4: 1, 8: 1 }) }, 'counted from the ratings and the raters\' play')
  t.equal(await app.redis.hget(keys.ratingStats(game.gameId), 'weights'), '2', 'once: kept from then on (2: the way this version keeps them)')
  // old2 plays on: counted at a quarter, its rating weighs the play as it grows (the count marked it as weighing less than fully).
  await report(app, await userCookie(app, 'old2'), game, 300)
  // old2: 450 of 600, three quarters: (25 + 8 + 3) / 6.75
  t.equal((await rating(app, reader, game)).weighted, 5.33, 'a counted rating weighs its rater\'s play as it grows')
  dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}`, { rating_full_weight_seconds: 150 }))
  // Both full now: (25 + 8 + 4) / 7
  t.equal((await rating(app, reader, game)).weighted, 5.29, 'a new full weight: every rating weighs again')
})

t.test('operators list a game\'s ratings newest first with each rater\'s play, filter and page them, and remove one (audited)', async t => {
  const { app } = await buildTestApp(t, { RATING_PRIOR_MEAN: '5' })
  const game = await createGame(app)
  const cookies: Record<string, string> = {}
  for (const [name, play, stars] of [['ann', 600, 8], ['bob', 0, 1], ['cat', 120, 6], ['dan', 0, 1], ['eve', 45, 9]] as const) {
    cookies[name] = await userCookie(app, name)
    await played(app, game, name, play)
    dataOf(await rate(app, cookies[name] as string, game, stars))
    await new Promise(resolve => setTimeout(resolve, 3))
  }
  await report(app, cookies.eve as string, game, 30)
  const all = dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/ratings`))
  t.same(all.items.map((item: { username: string }) => item.username), ['eve', 'dan', 'cat', 'bob', 'ann'], 'newest first')
  t.match(all.items[0], { username: 'eve', stars: 9, play_at_rating_seconds: 45, playtime_seconds: 75, rated_at: /^\d{4}-\d\d-\d\dT/ }, 'play at rating, and play now')
  t.equal(all.next_cursor, null)

  const pages: string[] = []
  let cursor: string | null = null
  do {
    const page: { items: Array<{ username: string }>, next_cursor: string | null } = dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/ratings?limit=2${cursor === null ? '' : `&cursor=${cursor}`}`))
    t.ok(page.items.length <= 2)
    pages.push(...page.items.map(item => item.username))
    cursor = page.next_cursor
  } while (cursor !== null)
  t.same(pages, ['eve', 'dan', 'cat', 'bob', 'ann'], 'pages of two walk every rating once')
  t.same(dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/ratings?max_playtime_seconds=0`)).items.map((item: { username: string }) => item.username), ['dan', 'bob'], 'the raters who never played')
  t.same(dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/ratings?stars=8`)).items.map((item: { username: string }) => item.username), ['ann'])
  for (const bad of ['stars=11', 'stars=x', 'max_playtime_seconds=-1', 'cursor=abc', 'limit=0']) t.equal(errorOf(await admin(app, 'GET', `/admin/games/${game.gameId}/ratings?${bad}`)), 'invalid_param', bad)
  t.equal(errorOf(await admin(app, 'GET', '/admin/games/nope/ratings')), 'not_found')

  // (25 + 8 + 0.2 x 6 + 0.125 x 9) / (5 + 1 + 0.2 + 0.125): 35.33 / 6.33
  const before = await rating(app, cookies.ann as string, game)
  t.equal(before.weighted, 5.58)
  const removed = dataOf(await admin(app, 'DELETE', `/admin/games/${game.gameId}/ratings/BOB`))
  t.same(removed, { game_id: game.gameId, username: 'bob', stars: 1, avg: 6, count: 4, weighted: 5.58, distribution: distribution({ 1: 1, 6: 1, 8: 1, 9: 1 }) }, 'by any letter case; a rating without play leaves the weighted score as it was')
  t.equal(errorOf(await admin(app, 'DELETE', `/admin/games/${game.gameId}/ratings/bob`)), 'not_found', 'twice: none left')
  const audit = dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/audit?action=rating.remove`))
  t.match(audit.items, [{ action: 'rating.remove', target: 'bob', before: { username: 'bob', stars: 1 }, after: null }], 'audited')
  t.same((await rating(app, cookies.bob as string, game)).mine, null, 'bob has no rating now')
})

t.test('a rating weighs its rater\'s play as reports credit it, up to the full weight; then reports do nothing more for it', async t => {
  const { app } = await buildTestApp(t, { RATING_PRIOR_MEAN: '5' })
  const game = await createGame(app)
  dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}`, { rating_full_weight_seconds: 400 }))
  const ann = await userCookie(app, 'ann')
  t.same(dataOf(await rate(app, ann, game, 10)).weighted, 5, 'no play: no weight')
  t.equal(await app.redis.hget(keys.playtime(game.gameId), 'r:ann'), '10', 'while it weighs less than fully, its stars ride with the play time')
  t.equal(await report(app, ann, game, 300), 300)
  // 300 of 400: (25 + 0.75 x 10) / 5.75
  t.equal((await rating(app, ann, game)).weighted, 5.65, 'the report moved its weight')
  await app.redis.hset(keys.playtime(game.gameId), 'c:ann', String(Date.now() - 300_000))
  t.equal(await report(app, ann, game, 300), 300)
  // 600 of 400: full. (25 + 10) / 6
  t.equal((await rating(app, ann, game)).weighted, 5.83, 'up to the full weight')
  t.equal(await app.redis.hget(keys.playtime(game.gameId), 'r:ann'), null, 'then nothing rides with the play time')
  t.match(await app.redis.hmget(keys.ratingStats(game.gameId), 'wsec', 'wsum'), ['400', '4000'], 'the sums: the full weight, no more')
  t.same(dataOf(await rate(app, ann, game, 10)).weighted, 5.83, 'the same stars again: nothing moves')
  t.same(dataOf(await rate(app, ann, game, 4)).weighted, 4.83, 'other stars on the same play: (25 + 4) / 6')
})

t.test('figures kept by the version before (a record\'s own counted seconds, w:<user>) are counted again once, then kept this way', async t => {
  const { app } = await buildTestApp(t, { RATING_PRIOR_MEAN: '5' })
  const game = await createGame(app)
  const ann = await userCookie(app, 'ann')
  const reader = await userCookie(app, 'reader')
  // As the version before left them: ann rated 8 with 150 s of play, flagged w:ann, weights 1.
  await app.redis.hset(keys.ratings(game.gameId), 'ann', '8')
  await app.redis.hset(keys.playtime(game.gameId), 'u:ann', '150', 'total', '150', 'w:ann', '1')
  await app.redis.hset(keys.ratingPlay(game.gameId), 'ann', '8|150|150|1700000000000')
  await app.redis.hset(keys.ratingStats(game.gameId), 'sum', '8', 'count', '1', 's8', '1', 'wsec', '150', 'wsum', '1200', 'weights', '1')
  // 150 of 600: (25 + 0.25 x 8) / 5.25
  t.equal((await rating(app, reader, game)).weighted, 5.14, 'counted again from the ratings and the play')
  t.equal(await app.redis.hget(keys.ratingStats(game.gameId), 'weights'), '2', 'kept this way from then on')
  t.same(await app.redis.hmget(keys.playtime(game.gameId), 'r:ann', 'w:ann'), ['8', null], 'the flag of the version before gives way to the stars')
  t.equal(await report(app, ann, game, 150), 150)
  // 300 of 600: (25 + 0.5 x 8) / 5.5
  t.equal((await rating(app, reader, game)).weighted, 5.27, 'and play moves its weight again')
})
