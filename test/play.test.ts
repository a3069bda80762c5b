import t from 'tap'
import { seedDemo } from '../src/demo.js'
import { admin, buildTestApp, createGame, dataOf, errorOf, get } from './helpers/app.js'

t.test('the play page of an approved game injects window.__platform and loads the game from the same origin', async t => {
  const { app } = await buildTestApp(t, { PLAYTIME_REPORT_S: '7' })
  await createGame(app, { gameId: 'demo' })
  const page = await get(app, '/play/demo')
  t.equal(page.statusCode, 200)
  t.equal(page.headers['content-type'], 'text/html; charset=utf-8')
  t.match(page.body, '<iframe id="game" src="/games/demo/"')
  t.match(page.body, 'window.__platform = {"gameId":"demo","username":null,"canSubmit":false}')
  t.match(page.body, 'window.__play = {"playtimeReportMs":7000}')
  t.match(page.body, '<form class="login"')
  t.match(page.body, '<script src="/static/play.js" defer></script>')
  const game = await get(app, '/games/demo/')
  t.equal(game.statusCode, 200)
  t.match(game.body, '<script src="game.js"></script>')
  t.equal((await get(app, '/static/play.js')).statusCode, 200)
  t.equal(errorOf(await get(app, '/static/nope.js')), 'not_found', 'a missing static file is not_found in the envelope')
})

t.test('an unknown game is a 404 page; an unapproved one says so and cannot submit', async t => {
  const { app } = await buildTestApp(t)
  const missing = await get(app, '/play/no_such_game')
  t.equal(missing.statusCode, 404)
  t.match(missing.body, '<h1>Game not found</h1>')
  t.equal((await get(app, '/play/bad%20id')).statusCode, 404)

  dataOf(await admin(app, 'POST', '/admin/games', { game_id: 'draft', name: '<script>alert(1)</script> & "Co"' }))
  const draft = await get(app, '/play/draft')
  t.equal(draft.statusCode, 200)
  t.match(draft.body, 'not approved yet')
  t.match(draft.body, '<h1>&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;Co&quot;</h1>', 'the name is escaped')
  t.notMatch(draft.body, '<script>alert(1)', 'no markup from the name')
  t.equal(errorOf(await get(app, '/play/draft/board')), 'invalid_game')
})

t.test('a logged-in player sees their name, canSubmit, the board beside the game', async t => {
  const { app } = await buildTestApp(t)
  await createGame(app, { gameId: 'arcade' })
  dataOf(await admin(app, 'POST', '/admin/users', { username: 'kim', password: 'pw-kim-1' }))
  const session = dataOf(await admin(app, 'POST', '/admin/sessions', { username: 'kim' }))
  const cookie = `sid=${session.session_id as string}`
  const page = await app.inject({ method: 'GET', url: '/play/arcade', headers: { cookie } })
  t.match(page.body, 'window.__platform = {"gameId":"arcade","username":"kim","canSubmit":true}')
  t.match(page.body, 'Logged in as <strong>kim</strong>')
  const submitted = await app.inject({ method: 'POST', url: '/api/rank?action=submit-self', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload: 'game_id=arcade&score=42' })
  t.equal(dataOf(submitted).rank, 1)
  t.same(dataOf(await get(app, '/play/arcade/board')), {
    game_id: 'arcade',
    total: 1,
    items: [{ rank: 1, player_name: 'kim', score: 42, created_at: dataOf(await get(app, '/play/arcade/board')).items[0].created_at }]
  })
})

t.test('the development seed is idempotent and replaces a revoked demo key', async t => {
  const { app } = await buildTestApp(t)
  const first = await seedDemo(app)
  t.equal(first.gameId, 'demo')
  t.same(await seedDemo(app), first, 'a second start reuses the key')
  dataOf(await admin(app, 'POST', `/admin/keys/${first.apiKey}/revoke`))
  const third = await seedDemo(app)
  t.not(third.apiKey, first.apiKey, 'a revoked key is replaced')
  const login = await app.inject({ method: 'POST', url: '/auth/login', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'username=demo&password=demo-password' })
  t.same(dataOf(login), { username: 'demo', is_admin: false })
})
