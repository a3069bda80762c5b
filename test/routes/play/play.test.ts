import t from 'tap'
import { seedDemo } from '../../../src/operations/demo.js'
import { admin, buildTestApp, createGame, dataOf, errorOf, expectError, get, submit } from '../../helpers/app.js'
import { listeningApp } from '../../helpers/listening.js'
import { rawRequest } from '../../helpers/raw-http.js'

t.test('the play page of an approved game injects window.__platform and loads the game from the same origin', { timeout: 30_000 }, async t => {
  const { app } = await buildTestApp(t, { PLAYTIME_REPORT_S: '7' })
  await createGame(app, { gameId: 'demo' })
  const page = await get(app, '/play/demo')
  t.equal(page.statusCode, 200)
  t.equal(page.headers['content-type'], 'text/html; charset=utf-8')
  t.match(page.body, '<iframe id="game" src="/games/demo/"')
  t.match(page.body, 'window.__platform = {"gameId":"demo","username":null,"guest":false,"playable":true,"canSubmit":false,"rating":{"avg":0,"count":0,"mine":null,"weighted":null,"distribution":[0,0,0,0,0,0,0,0,0,0]},"periods":[],"order":"desc","format":{"type":"integer","decimals":0,"unit":""},"runs":"off","boards":[],"periodNames":{"all":"All time","daily":"Today","weekly":"This week","monthly":"This month"},"achievements":false}')
  t.match(page.body, 'window.__play = {"playtimeReportMs":7000}')
  t.match(page.body, '<a id="login" href="/login?next=%2Fplay%2Fdemo">Log in</a>', 'a link to the login page, no form beside the game')
  t.notMatch(page.body, '<form')
  t.match(page.body, '<script src="/static/play.js" defer></script>')
  const game = await get(app, '/games/demo/')
  t.equal(game.statusCode, 200)
  t.match(game.body, '<script src="game.js"></script>')
  t.equal((await get(app, '/static/play.js')).statusCode, 200)
  t.equal(errorOf(await get(app, '/static/nope.js')), 'not_found', 'a missing static file is not_found in the envelope')
})

t.test('an unknown game is a 404 page; an unapproved one says so and cannot submit', { timeout: 30_000 }, async t => {
  const { app } = await buildTestApp(t)
  const missing = await get(app, '/play/no_such_game')
  t.equal(missing.statusCode, 404)
  t.match(missing.body, '<h1>Game not found</h1>')
  t.equal((await get(app, '/play/bad%20id')).statusCode, 404)

  dataOf(await admin(app, 'POST', '/admin/games', { game_id: 'draft', name: '<script>alert(1)</script> & "Co"' }))
  const draft = await get(app, '/play/draft')
  t.equal(draft.statusCode, 200)
  t.match(draft.body, '<iframe id="game" src="/play/draft/unavailable"', 'the frame shows a page that says why, not the game')
  const unavailable = await get(app, '/play/draft/unavailable')
  t.equal(unavailable.headers['content-type'], 'text/html; charset=utf-8')
  t.match(unavailable.body, '<h1>Not available yet</h1>')
  t.match(unavailable.body, 'waiting for an operator to approve it')
  t.match(unavailable.headers['content-security-policy'], "frame-ancestors 'self'", 'the play page may frame it')
  t.match(draft.body, '<h1><bdi>&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;Co&quot;</bdi></h1>', 'the name is escaped')
  t.notMatch(draft.body, '<script>alert(1)', 'no markup from the name')
  t.equal(errorOf(await get(app, '/play/draft/board')), 'invalid_game')
})

t.test('an approved game without files frames a page that says so; an unknown one too', { timeout: 30_000 }, async t => {
  const { app } = await buildTestApp(t)
  await createGame(app, { gameId: 'no_files_yet' })
  const play = await get(app, '/play/no_files_yet')
  t.match(play.body, '<iframe id="game" src="/play/no_files_yet/unavailable"')
  const frame = await get(app, '/play/no_files_yet/unavailable')
  t.match(frame.body, '<h1>Not installed yet</h1>')
  t.match(frame.body, '<code>public/games/no_files_yet/</code>')
  t.match((await get(app, '/play/nobody_here/unavailable')).body, '<h1>Game not found</h1>')
  await createGame(app, { gameId: 'demo' })
  t.match((await get(app, '/play/demo/unavailable')).body, '<a href="/games/demo/">start it</a>', 'a game that can be played links to itself')
})

t.test('the front page shows the games played here as cards in three lists, and points to the docs and health', { timeout: 30_000 }, async t => {
  const { app } = await buildTestApp(t, { SIGNUP: 'open', RATING_PRIOR_MEAN: '5.5' })
  t.match((await get(app, '/')).body, 'No games are published yet.', 'no game yet: said so')
  // demo has its files in public/games; front_api is approved but played on other sites (no files here).
  await createGame(app, { gameId: 'demo' })
  dataOf(await admin(app, 'PATCH', '/admin/games/demo', { name: 'Asteroids <3' }))
  await createGame(app, { gameId: 'front_api' })
  dataOf(await admin(app, 'PATCH', '/admin/games/front_api', { name: 'Played elsewhere' }))
  dataOf(await admin(app, 'POST', '/admin/games', { game_id: 'front_draft', name: 'Secret draft' }))
  // A rating with play behind it: the card shows the weighted score in stars out of 5.
  dataOf(await admin(app, 'POST', '/admin/users', { username: 'rater' }))
  const cookie = `sid=${String(dataOf(await admin(app, 'POST', '/admin/sessions', { username: 'rater' })).session_id)}`
  const form = { 'content-type': 'application/x-www-form-urlencoded', cookie }
  dataOf(await app.inject({ method: 'POST', url: '/api/playtime', payload: 'game_id=demo&seconds=300', headers: form }))
  dataOf(await app.inject({ method: 'POST', url: '/api/rate?game_id=demo', payload: 'stars=10', headers: form }))
  await app.syncRecordCache()
  await app.gamesIndex.flush()

  const home = await get(app, '/')
  t.equal(home.statusCode, 200)
  t.equal(home.headers['content-type'], 'text/html; charset=utf-8')
  t.match(home.body, '<h1>Ranking service</h1>')
  for (const list of ['top-rated', 'most-played', 'new']) {
    const section = home.body.slice(home.body.indexOf(`<section id="${list}"`), home.body.indexOf('</section>', home.body.indexOf(`<section id="${list}"`)))
    t.match(section, '<a href="/play/demo"><bdi>Asteroids &lt;3</bdi></a>', `${list}: an approved game with its files, its name escaped`)
  }
  // (5 x 5.5 + 0.5 x 10) / 5.5 = 5.91 half stars: 3.0 stars.
  t.match(home.body, 'aria-label="Rated 3.0 out of 5 from 1 rating"', 'the stars as a screen reader hears them')
  t.match(home.body, '<strong>3.0</strong> <span class="muted">(1 rating)</span>', 'the stars and the ratings')
  t.match(home.body, '5 min played · 1 player', 'play time and players')
  t.match(home.body, '5 min played this week · 1 player', 'most played: this week\'s play')
  t.notMatch(home.body, 'Secret draft', 'an unapproved game is not listed')
  t.notMatch(home.body, 'Played elsewhere', 'nor one without files here (its play page would say "Not installed yet")')
  dataOf(await admin(app, 'PATCH', '/admin/games/demo', { listed: false }))
  await app.syncRecordCache()
  await app.gamesIndex.flush()
  t.notMatch((await get(app, '/')).body, 'Asteroids', 'nor one with listed: false')
  t.match(home.body, '<a id="nav-login" href="/login">Log in</a><a id="nav-signup" href="/signup">Sign up</a>', 'the header offers logging in and signing up')
  t.match(home.body, '<a href="/docs">API reference</a>')
  t.match(home.body, '<a href="/console/">Operator console</a>', 'the front page leads to the console')
  t.match(home.body, '<a href="/healthz">Health</a>')
  t.equal(errorOf(await app.inject({ method: 'POST', url: '/' })), 'method_not_allowed')
})

t.test('a logged-in player sees their name, canSubmit, the board beside the game', { timeout: 30_000 }, async t => {
  const { app } = await buildTestApp(t)
  await createGame(app, { gameId: 'arcade' })
  dataOf(await admin(app, 'POST', '/admin/users', { username: 'kim', password: 'pw-kim-1' }))
  const session = dataOf(await admin(app, 'POST', '/admin/sessions', { username: 'kim' }))
  const cookie = `sid=${session.session_id as string}`
  const page = await app.inject({ method: 'GET', url: '/play/arcade', headers: { cookie } })
  t.match(page.body, 'window.__platform = {"gameId":"arcade","username":"kim","guest":false,"playable":true,"canSubmit":true,"rating":null,"periods":[],"order":"desc","format":{"type":"integer","decimals":0,"unit":""},"runs":"off","boards":[],"periodNames":{"all":"All time","daily":"Today","weekly":"This week","monthly":"This month"},"achievements":false}')
  t.match(page.body, 'Logged in as <strong><bdi>kim</bdi></strong>')
  const submitted = await app.inject({ method: 'POST', url: '/api/rank?action=submit-self', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload: 'game_id=arcade&score=42' })
  t.equal(dataOf(submitted).rank, 1)
  t.same(dataOf(await get(app, '/play/arcade/board')), {
    game_id: 'arcade',
    total: 1,
    items: [{ rank: 1, player_name: 'kim', score: 42, created_at: dataOf(await get(app, '/play/arcade/board')).items[0].created_at }]
  })
})

t.test('the play board reads a calendar board by period, with its id and bounds; a period the game does not keep is invalid_param', { timeout: 30_000 }, async t => {
  const { app } = await buildTestApp(t)
  const game = await createGame(app)
  dataOf(await admin(app, 'POST', '/admin/users', { username: 'mei', password: 'pw-mei-1' }))
  const session = dataOf(await admin(app, 'POST', '/admin/sessions', { username: 'mei' }))
  // Before the game keeps periods, a score reaches the all-time board only.
  dataOf(await submit(app, game, { player: 'early', score: 70 }))
  dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}`, { periods: ['daily', 'weekly'], timezone: 'UTC' }))
  dataOf(await submit(app, game, { player: 'mei', score: 50 }))
  dataOf(await submit(app, game, { player: 'noor', score: 60 }))
  const url = `/play/${game.gameId}/board`

  const before = Date.now()
  const daily = dataOf(await get(app, url, { period: 'daily' }))
  const after = Date.now()
  t.match(daily, { game_id: game.gameId, total: 2, period: 'daily', period_id: /^\d{4}-\d{2}-\d{2}$/, starts_at: /^\d{4}-\d{2}-\d{2}T00:00:00\.000Z$/, resets_at: /^\d{4}-\d{2}-\d{2}T00:00:00\.000Z$/ })
  t.same(daily.items.map((item: { rank: number, player_name: string, score: number }) => [item.rank, item.player_name, item.score]), [[1, 'noor', 60], [2, 'mei', 50]], 'only the scores since the game keeps days')
  t.ok(Date.parse(daily.starts_at) <= after && before < Date.parse(daily.resets_at), `now is in ${daily.starts_at} .. ${daily.resets_at}`)
  t.equal(Date.parse(daily.resets_at) - Date.parse(daily.starts_at), 24 * 3_600_000, 'a UTC day')
  t.equal(daily.period_id, daily.starts_at.slice(0, 10), 'the day is named for its date')
  t.match(dataOf(await get(app, url, { period: 'weekly' })), { total: 2, period: 'weekly', period_id: /^\d{4}-W\d{2}$/ })

  const allTime = dataOf(await get(app, url, { period: 'all' }))
  t.same(Object.keys(allTime).sort(), ['game_id', 'items', 'total'], 'the all-time board carries no period fields')
  t.equal(allTime.total, 3)
  t.same(allTime, dataOf(await get(app, url)), 'period=all is the board without a period')

  for (const period of ['monthly', 'hourly', 'DAILY']) {
    expectError(t, await get(app, url, { period }), 'invalid_param', `period=${period}`)
  }
  expectError(t, await get(app, `/play/${game.gameId}/board?period=daily&period=weekly`), 'invalid_param', 'period sent twice')

  // The page gets the game's periods and, for a logged-in user, the place for their neighbourhood.
  const page = await app.inject({ method: 'GET', url: `/play/${game.gameId}`, headers: { cookie: `sid=${session.session_id as string}` } })
  t.match(page.body, `window.__platform = {"gameId":"${game.gameId}","username":"mei","guest":false,"playable":true,"canSubmit":true,"rating":null,"periods":["daily","weekly"],"order":"desc","format":{"type":"integer","decimals":0,"unit":""},"runs":"off","boards":[],"periodNames":{"all":"All time","daily":"Today","weekly":"This week","monthly":"This month"},"achievements":false}`)
  t.match(page.body, '<div class="board-switch" role="group" aria-label="Which period"><button type="button" data-period="all" aria-pressed="true" aria-controls="board">All time</button><button type="button" data-period="daily" aria-pressed="false" aria-controls="board">Today</button><button type="button" data-period="weekly" aria-pressed="false" aria-controls="board">This week</button></div>')
  t.match(page.body, '<ol id="around" aria-labelledby="around-title"></ol>')
  const anonymous = await get(app, `/play/${game.gameId}`)
  t.match(anonymous.body, 'class="board-switch"', 'the switch does not need a login')
  t.notMatch(anonymous.body, 'id="around"', 'no neighbourhood without a user')

  // A game without periods: no switch, no reset line.
  const plain = await createGame(app)
  const plainPage = await get(app, `/play/${plain.gameId}`)
  t.notMatch(plainPage.body, 'board-switch')
  t.notMatch(plainPage.body, 'board-resets')
  expectError(t, await get(app, `/play/${plain.gameId}/board`, { period: 'daily' }), 'invalid_param', 'a game without periods has no daily board')
})

t.test('the development seed is idempotent and replaces a revoked demo key', { timeout: 30_000 }, async t => {
  const { app } = await buildTestApp(t)
  const first = await seedDemo(app)
  t.equal(first.gameId, 'demo')
  t.match(first.apiSecret, /^[0-9a-f]{64}$/, 'the secret of a new key')
  t.same(await seedDemo(app), { ...first, apiSecret: undefined }, 'a second start reuses the key and does not hand out its secret')
  dataOf(await admin(app, 'POST', `/admin/keys/${first.apiKey}/revoke`))
  const third = await seedDemo(app)
  t.not(third.apiKey, first.apiKey, 'a revoked key is replaced')
  const login = await app.inject({ method: 'POST', url: '/auth/login', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'username=demo&password=demo-password' })
  t.same(dataOf(login), { username: 'demo', is_admin: false })
})

t.test('hostile static paths are not_found, never internal_error, and log no error', { timeout: 30_000 }, async t => {
  const lines: string[] = []
  const { app, baseUrl } = await listeningApp(t, { LOG_LEVEL: 'debug' }, { logStream: { write: line => { lines.push(line) } } })
  const port = Number(new URL(baseUrl).port)
  await createGame(app, { gameId: 'demo' })
  // Written on a raw socket: a client library would rewrite the dot segments first.
  const paths = ['/static/%2e%2e/package.json', '/static/%2e%2e%2fpackage.json', '/static/..%2fpackage.json', '/static/%00', '/static/play.css%00',
    '/games/demo%00/', '/games/%2e%2e/play.css', '/games/%2e%2e%2f%2e%2e%2fpackage.json', '/games/demo/index.html/', '/static/play.css/x',
    `/static/${'a'.repeat(300)}`, `/games/demo/${'a/'.repeat(3000)}`, '/games/demo/%2e%2e/%2e%2e/redis.conf']
  for (const path of paths) {
    const answer = await rawRequest(port, `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`)
    t.equal(answer.status, 200, `${path.slice(0, 60)} (status)`)
    t.equal(JSON.parse(answer.body).error, 'not_found', path.slice(0, 60))
  }
  // A file that exists, with a precondition or range that does not hold: the ordinary HTTP answers.
  const precondition = await rawRequest(port, 'GET /static/play.js HTTP/1.1\r\nHost: 127.0.0.1\r\nIf-Match: "nope"\r\nConnection: close\r\n\r\n')
  t.equal(precondition.status, 412)
  const range = await rawRequest(port, 'GET /static/play.js HTTP/1.1\r\nHost: 127.0.0.1\r\nRange: bytes=999999-\r\nConnection: close\r\n\r\n')
  t.equal(range.status, 416)
  t.match(range.headers['content-range'], /^bytes \*\/\d+$/)
  t.same(lines.filter(line => /"level":(40|50|60)/.test(line)), [], 'no warning or error was logged')
  t.notOk(lines.some(line => line.includes('"stack"')), 'no stack trace was logged')
})

t.test('the login page of a logged-in user says who is logged in and offers to log out', { timeout: 30_000 }, async t => {
  const { app } = await buildTestApp(t)
  dataOf(await admin(app, 'POST', '/admin/users', { username: 'lin', password: 'pw' }))
  const session = dataOf(await admin(app, 'POST', '/admin/sessions', { username: 'lin' }))
  const page = await app.inject({ method: 'GET', url: '/login?next=/play/x', headers: { cookie: `sid=${session.session_id as string}` } })
  t.equal(page.statusCode, 200)
  t.match(page.body, 'You are logged in as <strong><bdi>lin</bdi></strong>')
  t.match(page.body, '<button id="logout" type="button">Log out</button>', 'in the header')
  t.match(page.body, '<a id="continue" href="/play/x">Back</a>')
  t.match(page.body, '<a href="/account">Your account</a>')
  t.notMatch(page.body, 'type="password"')
})

t.test('the score formatter is served to pages at /sdk/format.js, and nothing else of its folder', async t => {
  const { app } = await buildTestApp(t)
  const module = await app.inject({ method: 'GET', url: '/sdk/format.js' })
  t.equal(module.statusCode, 200)
  t.match(module.headers['content-type'], /^(text|application)\/javascript/)
  t.match(module.body, /RankingFormat/, 'a classic script setting one global')
  t.ok(Buffer.byteLength(module.body) < 4096, `small: ${Buffer.byteLength(module.body)} bytes`)
  for (const path of ['/sdk/.build-stamp', '/sdk/', '/sdk/../package.json', '/sdk/format.js.map']) t.equal(errorOf(await app.inject({ method: 'GET', url: path })), 'not_found', `${path} is not served`)
})
