import t from 'tap'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { admin, buildTestApp, createGame, dataOf, errorOf, formBody, keysMatching, submit, top, type TestGame } from '../../helpers/app.js'
import { TIME_DIGITS, boardScopes, keys } from '../../../src/store/keys.js'

/*
 * Guests (docs/guide.md#guests): on a game that takes guests, a visitor plays
 * at once under a generated name; signing up or logging in moves the guest's
 * play to the account, game by game; an unclaimed guest is erased when its
 * time is up.
 */

const STRONG = 'correct horse battery staple'
const FORM = { 'content-type': 'application/x-www-form-urlencoded' }

function cookieOf (answer: LightMyRequestResponse): string {
  const header = answer.headers['set-cookie']
  const line = Array.isArray(header) ? header[0] : header
  return (line ?? '').split(';')[0] as string
}

async function guestGame (app: FastifyInstance, guests: 'listed' | 'unlisted' | 'off', extra: Record<string, unknown> = {}): Promise<TestGame> {
  const game = await createGame(app)
  const updated = await admin(app, 'PATCH', `/admin/games/${game.gameId}`, { guests, ...extra })
  if (dataOf(updated).guests !== guests) throw new Error(`guests not set: ${updated.body}`)
  return game
}

async function newGuest (app: FastifyInstance, game: TestGame, address = '127.0.0.1'): Promise<{ name: string, cookie: string, answer: LightMyRequestResponse }> {
  const answer = await app.inject({ method: 'POST', url: '/auth/guest', payload: formBody({ game_id: game.gameId }), headers: FORM, remoteAddress: address })
  return { name: answer.json().data?.username, cookie: cookieOf(answer), answer }
}

async function asSession (app: FastifyInstance, cookie: string, url: string, fields: Record<string, string>): Promise<LightMyRequestResponse> {
  return await app.inject({ method: 'POST', url, payload: formBody(fields), headers: { ...FORM, cookie } })
}

/**
 * A minute of play credited to a guest in a game, as a minute of reports
 * would credit it (a guest rates only after that: docs/interface.md#guests).
 */
async function aMinuteOfPlay (app: FastifyInstance, game: TestGame, guest: string): Promise<void> {
  await app.redis.hincrby(keys.playtime(game.gameId), `u:${guest}`, 60)
  await app.redis.hincrby(keys.playtime(game.gameId), 'total', 60)
}

/** A score stored under `player` directly, as a guest's request that was in flight would. */
async function submitAs (app: FastifyInstance, game: TestGame, player: string, score: number): Promise<void> {
  const record = await app.records.game(game.gameId, { fresh: true })
  if (record === null) throw new Error('no game')
  await app.leaderboard.submit(record, player, score, undefined)
}

async function boardOf (app: FastifyInstance, game: TestGame, query = ''): Promise<Array<{ player_name: string, score: number, created_at: string }>> {
  return dataOf(await app.inject({ method: 'GET', url: `/play/${game.gameId}/board${query}` })).items
}

t.test('a game takes no guests unless its operator says so', async t => {
  const { app } = await buildTestApp(t)
  const game = await createGame(app)
  t.equal(dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}`)).guests, 'off', 'off by default')
  const refused = await newGuest(app, game)
  t.equal(errorOf(refused.answer), 'forbidden')
  t.match(refused.answer.json().message, /does not take guests/)
  t.equal(refused.answer.headers['set-cookie'], undefined, 'no session')
  t.equal(dataOf(await admin(app, 'GET', '/admin/users?guest=true')).items.length, 0, 'nobody made')
  t.equal(errorOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}`, { guests: 'everyone' })), 'invalid_param', 'only off, listed, unlisted')
  const unapproved = await createGame(app, { approved: false })
  t.equal(errorOf((await newGuest(app, unapproved)).answer), 'invalid_game', 'a game that cannot be played')
  t.equal(errorOf(await app.inject({ method: 'POST', url: '/auth/guest', payload: '', headers: FORM })), 'missing_param')
  t.equal(errorOf(await app.inject({ method: 'POST', url: '/auth/guest', payload: formBody({ game_id: '__proto__' }), headers: FORM })), 'invalid_game')
  const foreign = await app.inject({ method: 'POST', url: '/auth/guest', payload: formBody({ game_id: game.gameId }), headers: { ...FORM, origin: 'https://evil.example' } })
  t.equal(errorOf(foreign), 'forbidden_origin')
})

t.test('a guest plays at once: scores, ratings and play time count like anyone\'s', async t => {
  const { app } = await buildTestApp(t, { GUEST_TTL_S: '3600' })
  const game = await guestGame(app, 'listed')
  const before = Date.now()
  const { name, cookie, answer } = await newGuest(app, game)
  t.match(name, /^guest-[0-9]{6}$/, 'a generated name, by the name rules')
  t.match(dataOf(answer), { is_admin: false, guest: true })
  const until = Date.parse(dataOf(answer).guest_until)
  t.ok(until >= before + 3600_000 && until <= Date.now() + 3600_000, 'lives GUEST_TTL_S')
  t.match(answer.headers['set-cookie'], /Max-Age=3600/, 'its session lasts as long')
  t.match(dataOf(await asSession(app, cookie, '/api/rank?action=submit-self', { game_id: game.gameId, score: '70' })), { score: 70, rank: 1 })
  t.ok(dataOf(await asSession(app, cookie, '/api/playtime', { game_id: game.gameId, seconds: '30' })).total_playtime_seconds > 0)
  await aMinuteOfPlay(app, game, name)
  t.match(dataOf(await asSession(app, cookie, '/api/rate', { game_id: game.gameId, stars: '8' })), { mine: 8, count: 1 }, 'after a minute of play, it rates')
  t.same((await boardOf(app, game)).map(item => item.player_name), [name], 'listed: on the board')
  // Asking again while a guest: the same guest, nothing new.
  const again = await app.inject({ method: 'POST', url: '/auth/guest', payload: formBody({ game_id: game.gameId }), headers: { ...FORM, cookie } })
  t.match(dataOf(again), { username: name, guest: true })
  t.equal(again.headers['set-cookie'], undefined)
  // Operators see guests, and can list only them.
  const guests = dataOf(await admin(app, 'GET', '/admin/users?guest=true')).items
  t.match(guests, [{ username: name, guest: true, guest_until: dataOf(answer).guest_until }])
  t.equal(dataOf(await admin(app, 'GET', '/admin/users?guest=false')).items.filter((user: { username: string }) => user.username === name).length, 0)
  // The play page says who is playing, and how to keep it.
  const page = await app.inject({ method: 'GET', url: `/play/${game.gameId}`, headers: { cookie } })
  t.match(page.body, new RegExp(`Playing as <strong><bdi>${name}</bdi></strong>, a guest`))
  t.match(page.body, /id="signup"|id="login"/)
})

t.test('a guest rates a game only after a minute of play in it, credited from its first request there (docs/security.md)', async t => {
  const { app } = await buildTestApp(t)
  const game = await guestGame(app, 'listed')
  // Five fresh guests from one address, each rating at once: none counts.
  for (let i = 0; i < 5; i++) {
    const guest = await newGuest(app, game, `127.0.0.${10 + i}`)
    const refused = await asSession(app, guest.cookie, '/api/rate', { game_id: game.gameId, stars: '1' })
    t.equal(errorOf(refused), 'play_required', `guest ${i + 1}: no play, no rating`)
    t.match(refused.json().message, /after 60 s of play in it: 60 more seconds of play are needed \(or sign up to rate now\)/)
  }
  const { name, cookie } = await newGuest(app, game, '127.0.0.20')
  // Its first report cannot claim time from before the guest came to the game.
  const report = dataOf(await asSession(app, cookie, '/api/playtime', { game_id: game.gameId, seconds: '300' }))
  t.ok(report.credited_seconds <= 5, `a first report of 300 s is credited only since the guest came (${String(report.credited_seconds)} s)`)
  const short = await asSession(app, cookie, '/api/rate', { game_id: game.gameId, stars: '1' })
  t.equal(errorOf(short), 'play_required')
  t.match(short.json().message, new RegExp(`: ${60 - Number(report.credited_seconds)} more seconds`), 'the message says how many more seconds')
  t.same(dataOf(await app.inject({ method: 'GET', url: `/api/rate?game_id=${game.gameId}`, headers: { cookie } })), { avg: 0, count: 0, mine: null, weighted: null, distribution: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0] }, 'nothing rated, nothing counted')
  t.match(dataOf(await asSession(app, cookie, '/api/rate', { game_id: game.gameId, stars: '1', _method: 'DELETE' })), { count: 0, mine: null }, 'removing no rating is as before')
  await aMinuteOfPlay(app, game, name)
  t.match(dataOf(await asSession(app, cookie, '/api/rate', { game_id: game.gameId, stars: '9' })), { mine: 9, count: 1, avg: 9 }, 'a minute of play in: it rates')
  // An account rates at once, as v1 does.
  await admin(app, 'POST', '/admin/users', { username: 'rita', password: STRONG })
  const rita = cookieOf(await asSession(app, '', '/auth/login', { username: 'rita', password: STRONG }))
  t.match(dataOf(await asSession(app, rita, '/api/rate', { game_id: game.gameId, stars: '6' })), { mine: 6, count: 2 })
})

t.test('a guest plays only games that take guests', async t => {
  const { app } = await buildTestApp(t)
  const open = await guestGame(app, 'listed')
  const closed = await createGame(app)
  const { cookie } = await newGuest(app, open)
  const refused = await asSession(app, cookie, '/api/rank?action=submit-self', { game_id: closed.gameId, score: '5' })
  t.equal(errorOf(refused), 'forbidden')
  t.equal(errorOf(await asSession(app, cookie, '/api/rate', { game_id: closed.gameId, stars: '3' })), 'forbidden')
  t.same(await boardOf(app, closed), [], 'nothing stored')
  const page = await app.inject({ method: 'GET', url: `/play/${closed.gameId}`, headers: { cookie } })
  t.match(page.body, /"canSubmit":false/, 'the page does not offer it')
})

t.test('a guest whose generated name is already a player\'s in another game cannot play that game under it', async t => {
  const { app } = await buildTestApp(t)
  const first = await guestGame(app, 'listed')
  const other = await guestGame(app, 'unlisted')
  const guest = await newGuest(app, first)
  await submit(app, other, { player: guest.name, score: 40 })
  const refused = await asSession(app, guest.cookie, '/api/rank?action=submit-self', { game_id: other.gameId, score: '900' })
  t.equal(errorOf(refused), 'forbidden')
  t.match(refused.json().message, /is a player's in this game already/)
  t.match(dataOf(await admin(app, 'GET', `/admin/games/${other.gameId}/players/${guest.name}`)), { best_score: 40, hidden: false }, 'the player\'s entry is untouched, and not hidden')
  t.equal(errorOf(await asSession(app, guest.cookie, '/api/rank?action=submit-self', { game_id: other.gameId, score: '900' })), 'forbidden', 'every time')
  t.match(dataOf(await asSession(app, guest.cookie, '/api/rank?action=submit-self', { game_id: first.gameId, score: '5' })), { score: 5 }, 'its own game is fine')
})

t.test('unlisted: a guest\'s scores are kept but shown to no one; signing up shows them under the new name, with everything else', async t => {
  const { app } = await buildTestApp(t, { SIGNUP: 'open', SIGNUP_WORK: '1' })
  const game = await guestGame(app, 'unlisted', { periods: 'daily' })
  const { name, cookie } = await newGuest(app, game)
  await asSession(app, cookie, '/api/rank?action=submit-self', { game_id: game.gameId, score: '90' })
  await aMinuteOfPlay(app, game, name)
  dataOf(await asSession(app, cookie, '/api/rate', { game_id: game.gameId, stars: '6' }))
  const played = dataOf(await asSession(app, cookie, '/api/playtime', { game_id: game.gameId, seconds: '30' })).total_playtime_seconds
  t.same(await boardOf(app, game), [], 'not on the all-time board')
  t.same(await boardOf(app, game, '?period=daily'), [], 'nor on the day\'s')
  t.same(dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/players/${name}`)).best_score, 90, 'but kept')

  // Sign-up from the guest's browser: the account takes over the guest's play.
  const { solveChallenge } = await import('altcha-lib')
  const { deriveKey } = await import('altcha-lib/algorithms/pbkdf2')
  const challenge = dataOf(await app.inject({ method: 'GET', url: '/auth/challenge' })).challenge
  const solution = await solveChallenge({ challenge, deriveKey })
  const altcha = Buffer.from(JSON.stringify({ challenge, solution })).toString('base64')
  const signedUp = await asSession(app, cookie, '/auth/signup', { username: 'ann', password: STRONG, altcha })
  t.same(dataOf(signedUp), { username: 'ann', is_admin: false })
  const annCookie = cookieOf(signedUp)
  t.match(await boardOf(app, game), [{ player_name: 'ann', score: 90 }], 'the score, on the board, under the new name')
  t.match(await boardOf(app, game, '?period=daily'), [{ player_name: 'ann', score: 90 }], 'and on the day\'s board')
  const dayKeys = await keysMatching(app.redis, `rank:{game:${game.gameId}}:daily:*`)
  t.ok(dayKeys.length >= 2, 'the day\'s board and the account\'s bucket')
  for (const key of dayKeys) t.ok(await app.redis.pttl(key) > 0, `${key} expires with its period`)
  const account = dataOf(await app.inject({ method: 'GET', url: '/auth/account', headers: { cookie: annCookie } }))
  t.match(account.games, [{ game_id: game.gameId, best_score: 90, rank: 1, stars: 6, playtime_seconds: played }], 'rating and play time moved too')
  t.match(account, { guest: false, guest_until: null })
  const rating = dataOf(await app.inject({ method: 'GET', url: `/api/rate?game_id=${game.gameId}`, headers: { cookie: annCookie } }))
  t.match(rating, { count: 1, mine: 6 }, 'one rating, now the account\'s')
  // The guest is gone, its session with it.
  t.equal(errorOf(await admin(app, 'GET', `/admin/users/${name}`)), 'not_found')
  t.equal(errorOf(await asSession(app, cookie, '/api/rank?action=submit-self', { game_id: game.gameId, score: '1' })), 'not_logged_in')
  t.equal(errorOf(await admin(app, 'GET', `/admin/games/${game.gameId}/players/${name}`)), 'not_found')
  t.ok(Number(await app.redis.zscore(keys.guests(), name)) <= Date.now() + 60_000, 'the sweep looks once more within a minute, for requests that were in flight')
  const audit = dataOf(await admin(app, 'GET', '/admin/audit?action=user.claim_guest')).items
  t.match(audit, [{ actor: 'player:ann', target: 'ann', after: { games: 1, boards: 2, ratings: 1, playtime_seconds: played } }], 'audited as the player\'s')
})

t.test('logging in to an account that already played keeps the better entry; a tie keeps the earlier time', async t => {
  const { app } = await buildTestApp(t)
  const game = await guestGame(app, 'listed')
  await admin(app, 'POST', '/admin/users', { username: 'bob', password: STRONG })
  await admin(app, 'POST', '/admin/users', { username: 'cat', password: STRONG })
  async function login (cookie: string, username: string): Promise<LightMyRequestResponse> {
    return await asSession(app, cookie, '/auth/login', { username, password: STRONG })
  }
  // bob has 50; his guest self scores 80 (better): 80 stays, one entry.
  const bob = cookieOf(await login('', 'bob'))
  await asSession(app, bob, '/api/rank?action=submit-self', { game_id: game.gameId, score: '50' })
  await asSession(app, bob, '/api/rate', { game_id: game.gameId, stars: '10' })
  const first = await newGuest(app, game, '127.0.0.2')
  await asSession(app, first.cookie, '/api/rank?action=submit-self', { game_id: game.gameId, score: '80' })
  await aMinuteOfPlay(app, game, first.name)
  dataOf(await asSession(app, first.cookie, '/api/rate', { game_id: game.gameId, stars: '2' }))
  t.same(dataOf(await login(first.cookie, 'bob')), { username: 'bob', is_admin: false })
  t.match(await boardOf(app, game), [{ player_name: 'bob', score: 80 }])
  t.equal((await boardOf(app, game)).length, 1, 'one entry')
  const rating = dataOf(await app.inject({ method: 'GET', url: `/api/rate?game_id=${game.gameId}`, headers: { cookie: bob } }))
  t.match(rating, { count: 1, mine: 10, avg: 10 }, 'bob\'s own rating stays; the guest\'s is gone from the sums')

  // cat scored 40 first; a guest scores 40 later: the tie keeps cat's earlier time.
  const cat = cookieOf(await login('', 'cat'))
  await asSession(app, cat, '/api/rank?action=submit-self', { game_id: game.gameId, score: '40' })
  const catTime = (await boardOf(app, game)).find(item => item.player_name === 'cat')?.created_at
  await new Promise(resolve => setTimeout(resolve, 5))
  const second = await newGuest(app, game, '127.0.0.3')
  await asSession(app, second.cookie, '/api/rank?action=submit-self', { game_id: game.gameId, score: '40' })
  await login(second.cookie, 'cat')
  const board = await boardOf(app, game)
  t.same(board.map(item => [item.player_name, item.score]), [['bob', 80], ['cat', 40]])
  t.equal(board[1]?.created_at, catTime, 'the earlier time')
  // The counts of the board follow (two entries became one each time).
  t.match(dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}`)), { entries: 2 })
})

t.test('an operator\'s hide of a guest follows it into the account, on every board', async t => {
  const { app } = await buildTestApp(t)
  const game = await guestGame(app, 'listed')
  await admin(app, 'POST', '/admin/users', { username: 'dee', password: STRONG })
  const dee = cookieOf(await asSession(app, '', '/auth/login', { username: 'dee', password: STRONG }))
  dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/boards`, { board_id: 'lap', order: 'asc' }))
  dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/boards`, { board_id: 'solo' }))
  await asSession(app, dee, '/api/rank?action=submit-self', { game_id: game.gameId, score: '500' })
  await asSession(app, dee, '/api/rank?action=submit-self', { game_id: game.gameId, score: '70', board: 'lap' })
  await asSession(app, dee, '/api/rank?action=submit-self', { game_id: game.gameId, score: '7', board: 'solo' })
  const guest = await newGuest(app, game)
  await asSession(app, guest.cookie, '/api/rank?action=submit-self', { game_id: game.gameId, score: '10' })
  await asSession(app, guest.cookie, '/api/rank?action=submit-self', { game_id: game.gameId, score: '90', board: 'lap' })
  await admin(app, 'PATCH', `/admin/games/${game.gameId}/players/${guest.name}`, { hidden: true })
  await asSession(app, guest.cookie, '/auth/login', { username: 'dee', password: STRONG })
  t.same(await boardOf(app, game), [], 'dee\'s own better entry left the board with the hide')
  t.equal(dataOf(await top(app, game, { board: 'lap' })).total, 0, 'and the named board the guest played')
  t.equal(dataOf(await top(app, game, { board: 'solo' })).total, 0, 'and a named board only dee had played')
  t.match(dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/players/dee`)), { best_score: 500, hidden: true })
})

t.test('on named boards, a claimed guest\'s entry joins the account\'s as each board\'s operator would: best, latest, sum', async t => {
  const { app } = await buildTestApp(t)
  const game = await guestGame(app, 'listed')
  for (const [boardId, order, operator] of [['lap', 'asc', 'best'], ['last', 'desc', 'latest'], ['coins', 'desc', 'sum']]) {
    dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/boards`, { board_id: boardId, order, operator }))
  }
  await admin(app, 'POST', '/admin/users', { username: 'eli', password: STRONG })
  const eli = cookieOf(await asSession(app, '', '/auth/login', { username: 'eli', password: STRONG }))
  const play = async (cookie: string, board: string, score: number): Promise<void> => {
    dataOf(await asSession(app, cookie, '/api/rank?action=submit-self', { game_id: game.gameId, score: String(score), board }))
  }
  await play(eli, 'lap', 61_000)
  await play(eli, 'last', 70)
  await play(eli, 'coins', 30)
  await new Promise(resolve => setTimeout(resolve, 5))
  const guest = await newGuest(app, game)
  await play(guest.cookie, 'lap', 65_000)
  await play(guest.cookie, 'last', 20)
  await play(guest.cookie, 'coins', 12)
  await asSession(app, guest.cookie, '/auth/login', { username: 'eli', password: STRONG })
  const topOf = async (board: string): Promise<Array<[string, number]>> =>
    dataOf(await top(app, game, { board })).items.map((item: { player_name: string, score: number }) => [item.player_name, item.score])
  t.same(await topOf('lap'), [['eli', 61_000]], 'best, lower is better: the account\'s faster lap stays')
  t.same(await topOf('last'), [['eli', 20]], 'latest: the guest\'s later score')
  t.same(await topOf('coins'), [['eli', 42]], 'sum: the two totals added')
  const coins = dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/players/eli?board=coins`))
  t.match(coins, { best_score: 42, rank: 1, board: 'coins' })
  t.equal(errorOf(await admin(app, 'GET', `/admin/games/${game.gameId}/players/${guest.name}?board=coins`)), 'not_found', 'nothing left under the guest\'s name')
})

t.test('a claimed guest\'s achievements join the account\'s: one the account had keeps its time, the counts follow', async t => {
  const { app } = await buildTestApp(t)
  const game = await guestGame(app, 'listed')
  dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/achievements`, { achievement_id: 'ten', rule: { board: 'default', at_least: 10 } }))
  dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/achievements`, { achievement_id: 'door' }))
  await admin(app, 'POST', '/admin/users', { username: 'ivy', password: STRONG })
  const ivy = cookieOf(await asSession(app, '', '/auth/login', { username: 'ivy', password: STRONG }))
  await asSession(app, ivy, '/api/rank?action=submit-self', { game_id: game.gameId, score: '20' })
  const list = async (cookie: string): Promise<any> => dataOf(await app.inject({ method: 'GET', url: `/api/rank?action=achievements-self&game_id=${game.gameId}`, headers: { cookie } }))
  const ivyTen = (await list(ivy)).items.find((item: any) => item.achievement_id === 'ten').unlocked_at
  await new Promise(resolve => setTimeout(resolve, 5))
  const guest = await newGuest(app, game)
  await asSession(app, guest.cookie, '/api/rank?action=submit-self', { game_id: game.gameId, score: '30' })
  await asSession(app, guest.cookie, '/api/rank?action=unlock-self', { game_id: game.gameId, achievement_id: 'door' })
  t.match(await list(guest.cookie), { players: 2, unlocked: 2 })
  const signedIn = cookieOf(await asSession(app, guest.cookie, '/auth/login', { username: 'ivy', password: STRONG }))
  const joined = await list(signedIn)
  t.match(joined, { player_name: 'ivy', players: 1, unlocked: 2 }, 'two players became one')
  t.same(joined.items.map((item: any) => [item.achievement_id, item.rarity]), [['door', 100], ['ten', 100]], 'each counted once')
  t.equal(joined.items.find((item: any) => item.achievement_id === 'ten').unlocked_at, ivyTen, 'the account\'s own time stays')
})

t.test('sign-up refuses the guests\' names', async t => {
  const { app } = await buildTestApp(t, { SIGNUP: 'open' })
  const answer = await app.inject({ method: 'POST', url: '/auth/signup', payload: formBody({ username: 'guest-123456', password: STRONG, altcha: 'x' }), headers: FORM })
  t.equal(errorOf(answer), 'invalid_param')
  t.match(answer.json().message, /guest-/)
})

t.test('an unclaimed guest is erased with its play when its time is up', async t => {
  const { app } = await buildTestApp(t)
  const game = await guestGame(app, 'listed')
  const gone = await newGuest(app, game)
  const kept = await newGuest(app, game, '127.0.0.2')
  for (const [guest, score] of [[gone, '30'], [kept, '20']] as const) {
    await asSession(app, guest.cookie, '/api/rank?action=submit-self', { game_id: game.gameId, score })
    await aMinuteOfPlay(app, game, guest.name)
    dataOf(await asSession(app, guest.cookie, '/api/rate', { game_id: game.gameId, stars: '4' }))
  }
  // Its time, as if it had passed.
  await app.redis.zadd(keys.guests(), Date.now() - 1, gone.name)
  t.same(await app.admin.as({ name: 'service', via: 'service' }).expireGuests(), { erased: 1, failed: 0 }, 'one guest erased')
  t.same((await boardOf(app, game)).map(item => item.player_name), [kept.name], 'its entry went; the other guest\'s stays')
  t.match(dataOf(await app.inject({ method: 'GET', url: `/api/rate?game_id=${game.gameId}`, headers: { cookie: kept.cookie } })), { count: 1 }, 'its rating went from the sums')
  t.equal(errorOf(await admin(app, 'GET', `/admin/users/${gone.name}`)), 'not_found')
  t.equal(errorOf(await asSession(app, gone.cookie, '/api/rank?action=submit-self', { game_id: game.gameId, score: '1' })), 'not_logged_in', 'its session too')
  t.same(await app.redis.exists(keys.guestGames(gone.name)), 0)
  // A request of the guest's that was in flight stores a score after the erasure: the sweep's second look erases it.
  await app.redis.sadd(keys.guestGames(gone.name), game.gameId)
  await submitAs(app, game, gone.name, 99)
  t.same(await app.admin.as({ name: 'service', via: 'service' }).expireGuests(), { erased: 0, failed: 0 }, 'not yet: the second look is a minute later')
  await app.redis.zadd(keys.guests(), Date.now() - 1, gone.name)
  t.same(await app.admin.as({ name: 'service', via: 'service' }).expireGuests(), { erased: 0, failed: 0 }, 'the record was already gone')
  t.same((await boardOf(app, game)).map(item => item.player_name), [kept.name], 'the straggler\'s score went too')
  t.equal(await app.redis.zscore(keys.guests(), gone.name), null, 'and the sweep is done with it')
  // A name in the sweep that is no guest's (an operator gave the guest a password) is spared.
  await admin(app, 'PATCH', `/admin/users/${kept.name}`, { password: STRONG })
  t.match(dataOf(await admin(app, 'GET', `/admin/users/${kept.name}`)), { guest: false, guest_until: null }, 'a guest given a password is a user')
  await app.redis.zadd(keys.guests(), Date.now() - 1, kept.name)
  await app.admin.as({ name: 'service', via: 'service' }).expireGuests()
  t.match(dataOf(await admin(app, 'GET', `/admin/users/${kept.name}`)), { username: kept.name }, 'not erased')
  t.equal((await boardOf(app, game)).length, 1, 'nor its score')
})

t.test('guests are counted per address and for everyone', async t => {
  const { app } = await buildTestApp(t, { GUEST_ADDRESS_RATE_LIMIT_MAX: '2', GUEST_RATE_LIMIT_MAX: '3' })
  const game = await guestGame(app, 'listed')
  t.ok((await newGuest(app, game, '127.0.0.2')).name)
  t.ok((await newGuest(app, game, '127.0.0.2')).name)
  const third = await newGuest(app, game, '127.0.0.2')
  t.equal(errorOf(third.answer), 'rate_limited', 'one address')
  t.ok(Number(third.answer.headers['retry-after']) > 0)
  // IPv6: one /64 is one address.
  t.ok((await newGuest(app, game, '2001:db8::1')).name)
  const everyone = await newGuest(app, game, '2001:db8:1::2')
  t.equal(errorOf(everyone.answer), 'rate_limited', 'everyone together')
  t.equal(dataOf(await admin(app, 'GET', '/admin/users?guest=true')).items.length, 3, 'nothing half-made')
})

t.test('a hide of the guest that lands while its claim is under way reaches every board the claim moved, named ones too', async t => {
  const { app } = await buildTestApp(t)
  const game = await guestGame(app, 'listed')
  dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/boards`, { board_id: 'lap', order: 'asc' }))
  const record = await app.records.game(game.gameId, { fresh: true })
  if (record === null) throw new Error('no game')
  const named = (await app.namedBoards.boards(game.gameId, { fresh: true })).get('lap')!
  const onBoard = async (player: string, scope: string): Promise<boolean> =>
    (await app.redis.zrange(keys.board(game.gameId, scope), 0, -1)).some(member => member.slice(TIME_DIGITS) === player)
  let hiddenRounds = 0
  // The claim is a call per group of named boards, then the final one: the hide may land before, between or after them.
  for (let round = 0; round < 40; round++) {
    const guest = `guest_${round}`
    const user = `user_${round}`
    await app.leaderboard.submit(record, guest, 10, undefined)
    await app.leaderboard.submit(record, guest, 60_000, undefined, { board: named })
    await Promise.all([
      app.leaderboard.claimPlayer(record, guest, user),
      new Promise(resolve => setTimeout(resolve, round % 4)).then(async () => await app.leaderboard.setVisibility(record, guest, { boardHidden: true }))
    ])
    const hidden = await app.redis.sismember(keys.hiddenPlayers(game.gameId), user) === 1
    if (hidden) hiddenRounds++
    const ownScope = boardScopes.season(record.season)
    const lapScope = boardScopes.named('lap') + boardScopes.season(record.season)
    t.equal(await onBoard(user, ownScope), !hidden, `round ${round}: the game's own board follows the user's flag (${hidden ? 'hidden' : 'shown'})`)
    t.equal(await onBoard(user, lapScope), !hidden, `round ${round}: the named board too`)
    t.notOk(await onBoard(guest, lapScope), `round ${round}: nothing left under the guest's name`)
  }
  t.ok(hiddenRounds > 0, `the hide moved to the user in ${hiddenRounds} of 40 rounds`)
})
