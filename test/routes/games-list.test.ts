import t from 'tap'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { admin, buildTestApp, buildTestApps, createGame, dataOf, errorOf, formBody, type TestGame } from '../helpers/app.js'
import { keys } from '../../src/store/keys.js'

/*
 * GET /api/games (docs/ratings.md#the-games-list): the listed games ranked
 * by the games index, which follows ratings and play as they change; its
 * cards carry the figures GET /api/rate answers; a walk with a cursor lists
 * every game once in the order of the moment it began, whatever changes
 * meanwhile; a game with `listed: false` (or not approved) is on no list.
 * RATING_PRIOR_MEAN is fixed, so each game's weighted score depends on its
 * own ratings only.
 */

const FORM = { 'content-type': 'application/x-www-form-urlencoded' }
/** GAMES_LIST_FRESH_S 0: every change of the index makes a new order for the next walk. */
const ENV = { RATING_PRIOR_MEAN: '5.5', GAMES_LIST_FRESH_S: '0' }

async function userCookie (app: FastifyInstance, username: string): Promise<string> {
  dataOf(await admin(app, 'POST', '/admin/users', { username }))
  return `sid=${String(dataOf(await admin(app, 'POST', '/admin/sessions', { username })).session_id)}`
}

async function report (app: FastifyInstance, cookie: string, game: TestGame, seconds: number): Promise<void> {
  dataOf(await app.inject({ method: 'POST', url: '/api/playtime', payload: formBody({ game_id: game.gameId, seconds: String(seconds) }), headers: { ...FORM, cookie } }))
}

async function rate (app: FastifyInstance, cookie: string, game: TestGame, stars: number): Promise<Record<string, any>> {
  return dataOf(await app.inject({ method: 'POST', url: `/api/rate?game_id=${game.gameId}`, payload: formBody({ stars: String(stars) }), headers: { ...FORM, cookie } }))
}

async function list (app: FastifyInstance, query = ''): Promise<Record<string, any>> {
  return dataOf(await app.inject({ method: 'GET', url: `/api/games${query}` }))
}

/** What the index has once this instance wrote what it noted (other instances write within PUSH_MS). */
async function settled (app: FastifyInstance): Promise<void> {
  await app.syncRecordCache()
  await app.gamesIndex.flush()
}

/** Every game of a walk from its first page, `limit` at a time, calling `between` after each page. */
async function walk (app: FastifyInstance, sort: string, limit: number, between: (page: number) => Promise<void> = async () => {}): Promise<string[]> {
  const ids: string[] = []
  let query = `?sort=${sort}&limit=${limit}`
  for (let page = 0; page < 20; page++) {
    const data = await list(app, query)
    ids.push(...data.items.map((item: { game_id: string }) => item.game_id))
    if (data.next_cursor === null) return ids
    await between(page)
    query = `?sort=${sort}&limit=${limit}&cursor=${String(data.next_cursor)}`
  }
  throw new Error('the walk did not end')
}

t.test('the list ranks the listed games by their figures, each card as GET /api/rate and play time say', async t => {
  const { app } = await buildTestApp(t, ENV)
  const [first, second, third] = [await createGame(app), await createGame(app), await createGame(app)]
  const hidden = await createGame(app)
  dataOf(await admin(app, 'PATCH', `/admin/games/${hidden.gameId}`, { listed: false }))
  await createGame(app, { approved: false })
  const ann = await userCookie(app, 'ann')
  const bob = await userCookie(app, 'bob')
  // first: two raters who played (9 and 7); second: one who played (10) and
  // one who did not (1); third: no rating, the most play in the last days.
  await report(app, ann, first, 300)
  await report(app, bob, first, 300)
  await report(app, ann, second, 120)
  await report(app, bob, third, 300)
  await report(app, ann, third, 300)
  await report(app, ann, hidden, 300)
  await rate(app, ann, first, 9)
  await rate(app, bob, first, 7)
  await rate(app, ann, second, 10)
  await rate(app, bob, second, 1)
  await rate(app, ann, hidden, 10)
  await settled(app)

  const top = await list(app)
  t.equal(top.sort, 'top_rated', 'top_rated is the default')
  t.same(top.items.map((item: { game_id: string }) => item.game_id), [first.gameId, second.gameId, third.gameId], 'by the weighted score; a game without a rating last; the unlisted and the unapproved on none')
  t.equal(top.total, 3, 'three games listed')
  t.equal(top.next_cursor, null, 'one page holds them')
  for (const game of [first, second]) {
    const card = top.items.find((item: { game_id: string }) => item.game_id === game.gameId)
    const answer = dataOf(await app.inject({ method: 'GET', url: `/api/rate?game_id=${game.gameId}`, headers: { cookie: ann } }))
    t.same({ weighted: card.weighted, avg: card.avg, ratings: card.ratings, distribution: card.distribution }, { weighted: answer.weighted, avg: answer.avg, ratings: answer.count, distribution: answer.distribution }, `${game.gameId}: the card's rating figures are GET /api/rate's`)
  }
  t.match(top.items[0], { name: first.gameId, playtime_seconds: 600, recent_playtime_seconds: 600, players: 2, play_url: null }, 'play time, recent play and players; no play page for a game without files here')
  t.match(top.items[2], { weighted: null, avg: 0, ratings: 0, distribution: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0] }, 'a game nobody rated')
  t.ok(Date.parse(top.items[0].created_at) > 0, 'created_at is a time')

  const played = await list(app, '?sort=most_played')
  t.same(played.items.map((item: { game_id: string }) => item.game_id), [first.gameId, third.gameId, second.gameId], 'most_played: 600, 600 (ties by id), 120')
  const players = await list(app, '?sort=players')
  t.same(players.items.map((item: { players: number }) => item.players), [2, 2, 1], 'players: the most first')
  const fresh = await list(app, '?sort=new')
  t.same(fresh.items.map((item: { game_id: string }) => item.game_id), [third.gameId, second.gameId, first.gameId], 'new: the latest made first')

  // Listed again: back on the lists, with its figures.
  dataOf(await admin(app, 'PATCH', `/admin/games/${hidden.gameId}`, { listed: true }))
  await settled(app)
  const again = await list(app, '?sort=top_rated&limit=50')
  t.equal(again.total, 4, 'a game listed again is on the list')
  t.match(again.items.find((item: { game_id: string }) => item.game_id === hidden.gameId), { ratings: 1, players: 1, playtime_seconds: 300 }, 'with its figures')
  // No longer approved: gone.
  dataOf(await admin(app, 'PATCH', `/admin/games/${hidden.gameId}`, { approved: false }))
  await settled(app)
  t.equal((await list(app)).total, 3, 'a game no longer approved leaves the list')
})

t.test('a walk lists every game once, in the order of the moment it began, while ratings change', async t => {
  const { app } = await buildTestApp(t, { ...ENV, GAMES_LIST_FRESH_S: '1' })
  const games = [await createGame(app), await createGame(app), await createGame(app), await createGame(app), await createGame(app)]
  const raters = [await userCookie(app, 'ann'), await userCookie(app, 'bob')]
  for (const [i, game] of games.entries()) {
    for (const rater of raters) {
      await report(app, rater, game, 300)
      await rate(app, rater, game, i + 2)
    }
  }
  await settled(app)
  await new Promise(resolve => setTimeout(resolve, 1100))
  const before = (await list(app, '?limit=50')).items.map((item: { game_id: string }) => item.game_id)
  t.same(before, games.map(game => game.gameId).reverse(), 'the best rated first')

  // After each page, the game at the end of the order becomes the best: the walk keeps its order.
  let flipped = 0
  const walked = await walk(app, 'top_rated', 2, async () => {
    const game = games[flipped++] as TestGame
    for (const rater of raters) await rate(app, rater, game, 10)
    await settled(app)
  })
  t.same(walked, before, 'every game once, in the order of the moment the walk began')
  const now = (await list(app, '?limit=50')).items
  t.same(now.map((item: { game_id: string }) => item.game_id), before, 'a new walk within GAMES_LIST_FRESH_S of the last order begins on it')

  // A new walk, past GAMES_LIST_FRESH_S, takes the order as it is now; its cards' figures match its order.
  await new Promise(resolve => setTimeout(resolve, 1100))
  const latest = await list(app, '?limit=50')
  const scores = latest.items.map((item: { weighted: number }) => item.weighted)
  t.not(latest.items.map((item: { game_id: string }) => item.game_id).join(), before.join(), 'past it, a new walk takes the order as it moved')
  t.same(scores, [...scores].sort((a: number, b: number) => b - a), 'a new walk is in the order of the figures now')
  t.equal(latest.items[0].weighted, dataOf(await app.inject({ method: 'GET', url: `/api/rate?game_id=${String(latest.items[0].game_id)}`, headers: { cookie: raters[0] as string } })).weighted, 'its best has the weighted score GET /api/rate answers')

  // Pages walk the sort they began on; a cursor is checked.
  const page = await list(app, '?sort=new&limit=2')
  t.equal(errorOf(await app.inject({ method: 'GET', url: `/api/games?sort=players&cursor=${String(page.next_cursor)}` })), 'invalid_param', 'a cursor of another sort')
  t.equal(errorOf(await app.inject({ method: 'GET', url: '/api/games?cursor=bm90IGEgY3Vyc29y' })), 'invalid_param', 'a cursor made up')
  // A walk whose order is gone (its 15 minutes passed): invalid_param, start again.
  const { v: version } = JSON.parse(Buffer.from(String(page.next_cursor), 'base64url').toString()) as { v: number }
  t.equal(await app.redis.del(keys.gamesSnapshot('new', version)), 1, 'the walk\'s order, as it expires')
  t.match((await app.inject({ method: 'GET', url: `/api/games?sort=new&limit=2&cursor=${String(page.next_cursor)}` })).json(), { ok: false, error: 'invalid_param', message: /start again/ }, 'a walk too old')
})

t.test('bad input is a clear invalid_param; any origin may read; the rate limit holds', async t => {
  const { app } = await buildTestApp(t, { ...ENV, SESSION_RATE_LIMIT_MAX: '5' })
  for (const query of ['?sort=best', '?limit=0', '?limit=51', '?limit=x', '?limit=1&limit=2', '?sort=__proto__', '?cursor=%E0%A4%A', `?cursor=${'a'.repeat(5000)}`]) {
    const answer = await app.inject({ method: 'GET', url: `/api/games${query}` })
    t.equal(answer.statusCode, 200, `${query.slice(0, 40)}: HTTP 200`)
    t.match(answer.json(), { ok: false, error: /^(invalid_param|invalid_body)$/ }, `${query.slice(0, 40)}: refused`)
  }
  const answer = await app.inject({ method: 'GET', url: '/api/games', headers: { origin: 'https://elsewhere.example' } })
  t.equal(answer.headers['access-control-allow-origin'], '*', 'readable from any origin')
  const preflight = await app.inject({ method: 'OPTIONS', url: '/api/games', headers: { origin: 'https://elsewhere.example', 'access-control-request-method': 'GET' } })
  t.equal(preflight.statusCode, 204, 'a preflight is answered')
  t.equal(preflight.headers['access-control-allow-origin'], '*')
  let limited: LightMyRequestResponse | undefined
  for (let i = 0; i < 12 && limited === undefined; i++) {
    const one = await app.inject({ method: 'GET', url: '/api/games' })
    if (one.json().ok === false) limited = one
  }
  t.match(limited?.json(), { ok: false, error: 'rate_limited' }, 'the page limit per address')
  t.ok(Number(limited?.headers['retry-after']) > 0, 'with Retry-After')
})

t.test('instances share the index: what one noted, another lists', async t => {
  const { apps } = await buildTestApps(t, 2, ENV)
  const [one, two] = apps as [FastifyInstance, FastifyInstance]
  const game = await createGame(one)
  const ann = await userCookie(one, 'ann')
  await report(one, ann, game, 300)
  await rate(one, ann, game, 8)
  await settled(one)
  t.match((await list(two)).items, [{ game_id: game.gameId, ratings: 1, playtime_seconds: 300, players: 1 }], 'read on the other instance')
})

t.test('a guest\'s claim, an erasure and an operator\'s removal keep the list\'s figures exact', async t => {
  const { app } = await buildTestApp(t, ENV)
  const game = await createGame(app)
  dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}`, { guests: 'listed' }))
  const card = async (): Promise<Record<string, any>> => {
    await settled(app)
    return (await list(app)).items.find((item: { game_id: string }) => item.game_id === game.gameId)
  }
  const figures = async (cookie: string): Promise<Record<string, any>> => dataOf(await app.inject({ method: 'GET', url: `/api/rate?game_id=${game.gameId}`, headers: { cookie } }))

  // A guest plays and rates; rita, who played too, logs in from the guest's session: one player, one rating.
  const guest = await app.inject({ method: 'POST', url: '/auth/guest', payload: formBody({ game_id: game.gameId }), headers: FORM })
  const guestCookie = String(guest.headers['set-cookie']).split(';')[0] as string
  // (A guest's clock starts when it first plays: its two minutes are written as reports over them would have.)
  const guestName = dataOf(guest).username as string
  await app.redis.hincrby(keys.playtime(game.gameId), `u:${guestName}`, 120)
  await app.redis.hincrby(keys.playtime(game.gameId), 'total', 120)
  await rate(app, guestCookie, game, 8)
  dataOf(await admin(app, 'POST', '/admin/users', { username: 'rita', password: 'correct horse battery staple' }))
  const rita = `sid=${String(dataOf(await admin(app, 'POST', '/admin/sessions', { username: 'rita' })).session_id)}`
  await report(app, rita, game, 60)
  t.match(await card(), { ratings: 1, players: 2, playtime_seconds: 180 }, 'before the claim: two players')
  const login = await app.inject({ method: 'POST', url: '/auth/login', payload: formBody({ username: 'rita', password: 'correct horse battery staple' }), headers: { ...FORM, cookie: guestCookie } })
  t.equal(login.json().ok, true, 'rita logs in from the guest\'s session: its play and rating are hers')
  const claimed = await card()
  t.match(claimed, { ratings: 1, players: 1, playtime_seconds: 180 }, 'after the claim: one player, the same play')
  t.equal(claimed.weighted, (await figures(rita)).weighted, 'the card\'s weighted score is the rating\'s, her play now behind it')

  // Another rater, removed by an operator; then rita erased.
  const bob = await userCookie(app, 'bob')
  await report(app, bob, game, 300)
  await rate(app, bob, game, 2)
  t.match(await card(), { ratings: 2, players: 2 }, 'bob rated')
  dataOf(await admin(app, 'DELETE', `/admin/games/${game.gameId}/ratings/bob`))
  const removed = await card()
  t.match(removed, { ratings: 1, players: 2 }, 'an operator\'s removal: the rating leaves, the player stays')
  t.equal(removed.weighted, (await figures(bob)).weighted, 'and the weighted score follows')
  dataOf(await admin(app, 'DELETE', '/admin/users/rita?erase=true'))
  t.match(await card(), { ratings: 0, weighted: null, players: 1, playtime_seconds: 300 }, 'erased: her rating, play and place among the players leave')

  // A change no instance saw (a CLI command, another process's erasure) is taken from the changed set.
  await app.redis.hset(keys.playtime(game.gameId), 'players', '7')
  t.match(await card(), { players: 1 }, 'unnoted: the card stays')
  await app.redis.sadd(keys.gamesChanged(), game.gameId)
  t.match(await card(), { players: 7 }, 'noted in the changed set: the next write takes it')
})

t.test('the platform\'s mean, which every weighted score leans on, is the play-weighted mean of every listed game\'s ratings', async t => {
  const { app } = await buildTestApp(t, { GAMES_LIST_FRESH_S: '0' })
  const [first, second] = [await createGame(app), await createGame(app)]
  const ann = await userCookie(app, 'ann')
  const bob = await userCookie(app, 'bob')
  // first: ann 10 stars, second: bob 4 stars, each with half the full weight (300 s of 600).
  await report(app, ann, first, 300)
  await report(app, bob, second, 300)
  await rate(app, ann, first, 10)
  await rate(app, bob, second, 4)
  await settled(app)
  // The platform: (0.5 x 10 + 0.5 x 4) / 1 = 7. Each game's weighted score pulls toward it with the prior's weight 5.
  const mean = 7
  const weighted = (stars: number, weight: number): number => Math.round((5 * mean + weight * stars) / (5 + weight) * 100) / 100
  // (Written once more: each card was worked out with the mean of the moment it was written.)
  await app.redis.sadd(keys.gamesChanged(), first.gameId, second.gameId)
  await settled(app)
  const items = (await list(app)).items
  t.same(items.map((item: { game_id: string, weighted: number }) => [item.game_id, item.weighted]), [[first.gameId, weighted(10, 0.5)], [second.gameId, weighted(4, 0.5)]], 'each card toward the platform\'s mean')
  t.equal(dataOf(await app.inject({ method: 'GET', url: `/api/rate?game_id=${second.gameId}`, headers: { cookie: bob } })).weighted, weighted(4, 0.5), 'GET /api/rate leans on the same mean')
})
