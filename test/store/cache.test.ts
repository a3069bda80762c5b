import t from 'tap'
import { buildApp } from '../../src/app.js'
import { runCli } from '../../src/cli.js'
import { loadConfig } from '../../src/config.js'
import { MAX_AGE_MS, RecordCache } from '../../src/store/cache.js'
import { ADMIN_TOKEN, admin, buildTestApp, createGame, dataOf, errorOf, get, submit } from '../helpers/app.js'
import { waitFor } from '../helpers/wait.js'

/** Pub/sub delivery is asynchronous: waits (waitFor's generous bound) for an instance to hear of a change. */
async function eventually (t: { pass: (message: string) => void }, check: () => Promise<boolean>, what: string): Promise<void> {
  await waitFor(check, { what, intervalMs: 10 })
  t.pass(what)
}

t.test('records cached by one instance follow changes made on another, and by the CLI', { timeout: 50_000 }, async t => {
  const { app, redis } = await buildTestApp(t)
  const other = await buildApp(loadConfig({ NODE_ENV: 'test', ADMIN_TOKEN, REDIS_URL: redis.url, RATE_LIMIT_MAX: '1000000' }))
  t.teardown(async () => { await other.close() })

  const game = await createGame(app)
  // Both instances read (and cache) the key and the game.
  t.equal(dataOf(await submit(app, game, { player: 'p', score: 1 })).improved, true)
  t.equal(dataOf(await submit(other, game, { player: 'p', score: 2 })).improved, true)

  // The game is unapproved on the first instance: the second stops accepting it.
  dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}`, { approved: false }))
  t.equal(errorOf(await submit(app, game, { player: 'p', score: 3 })), 'invalid_game', 'at once where the change was made')
  await eventually(t, async () => (await submit(other, game, { player: 'p', score: 3 })).json().error === 'invalid_game', 'and on the other instance')
  dataOf(await admin(other, 'PATCH', `/admin/games/${game.gameId}`, { approved: true }))
  await eventually(t, async () => (await submit(app, game, { player: 'p', score: 4 })).json().ok === true, 'approval travels back')

  // The CLI writes straight to Redis and is heard by both.
  let out = ''
  const code = await runCli(['keys', 'revoke', game.apiKey], { out: line => { out += line }, err: () => {}, env: { REDIS_URL: redis.url }, readLine: async () => '' })
  t.equal(code, 0, out)
  await eventually(t, async () => (await submit(app, game, { player: 'p', score: 5 })).json().error === 'key_revoked', 'the revocation reaches the first instance')
  await eventually(t, async () => (await submit(other, game, { player: 'p', score: 5 })).json().error === 'key_revoked', 'and the second instance')
})

t.test('sessions and user flags cached by one instance follow changes made on another', { timeout: 30_000 }, async t => {
  const { app, redis } = await buildTestApp(t)
  const other = await buildApp(loadConfig({ NODE_ENV: 'test', ADMIN_TOKEN, REDIS_URL: redis.url }))
  t.teardown(async () => { await other.close() })
  const game = await createGame(app)
  dataOf(await admin(app, 'POST', '/admin/users', { username: 'cached_user' }))
  const session = dataOf(await admin(app, 'POST', '/admin/sessions', { username: 'cached_user' }))
  const meSelf = async (instance: typeof app): Promise<Record<string, unknown>> =>
    (await instance.inject({ method: 'GET', url: `/api/rank?action=me-self&game_id=${game.gameId}`, headers: { cookie: `sid=${session.session_id as string}` } })).json()

  t.equal((await meSelf(other)).ok, true)
  t.equal(((await meSelf(other)).data as { is_admin_record: boolean }).is_admin_record, false)
  dataOf(await admin(app, 'PATCH', '/admin/users/cached_user', { is_admin: true }))
  await eventually(t, async () => ((await meSelf(other)).data as { is_admin_record: boolean }).is_admin_record, 'a flag change reaches the other instance')

  await admin(app, 'DELETE', `/admin/sessions/${session.session_id as string}`)
  await eventually(t, async () => (await meSelf(other)).error === 'not_logged_in', 'a deleted session ends on the other instance')
})

t.test('a session is cached no longer than its TTL', { timeout: 30_000 }, async t => {
  const { app } = await buildTestApp(t, { SESSION_TTL_S: '1' })
  const game = await createGame(app)
  dataOf(await admin(app, 'POST', '/admin/users', { username: 'short_lived' }))
  const session = dataOf(await admin(app, 'POST', '/admin/sessions', { username: 'short_lived' }))
  const url = `/api/rank?action=me-self&game_id=${game.gameId}`
  const headers = { cookie: `sid=${session.session_id as string}` }
  t.equal((await app.inject({ method: 'GET', url, headers })).json().ok, true)
  // Part of the scenario: the session's TTL (1 s) passes.
  await new Promise(resolve => setTimeout(resolve, 1100))
  t.equal(errorOf(await app.inject({ method: 'GET', url, headers })), 'not_logged_in')
  t.equal(errorOf(await get(app, url)), 'not_logged_in')
})

t.test('a cached record is read again after MAX_AGE_MS, even when no invalidation came', async t => {
  let now = 1_000_000
  const cache = new RecordCache(() => true, () => now)
  cache.set('key', 'rk_a', { revoked: false }, cache.stamp())
  cache.set('session', 's1', { username: 'u' }, cache.stamp(), now + 5000)
  now += 4999
  t.same(cache.get('key', 'rk_a'), { revoked: false }, 'served from the cache while young')
  t.same(cache.get('session', 's1'), { username: 'u' })
  now += 1
  t.equal(cache.get('session', 's1'), undefined, 'a session goes with its own TTL')
  now += MAX_AGE_MS - 5000 - 1
  t.same(cache.get('key', 'rk_a'), { revoked: false }, 'until MAX_AGE_MS')
  now += 1
  t.equal(cache.get('key', 'rk_a'), undefined, 'then it is gone')
})

t.test('a fresh read that raced a change of another record drops the older copy instead of keeping it', async t => {
  const cache = new RecordCache(() => true)
  cache.set('game', 'laps', { review_below: 2000 }, cache.stamp())
  // The record is changed where no invalidation is published (by hand) and read afresh,
  // while an invalidation of another record arrives: the fresh copy cannot be kept.
  const stamp = cache.stamp()
  cache.invalidate('game', 'points')
  cache.set('game', 'laps', { review_below: null }, stamp)
  t.equal(cache.get('game', 'laps'), undefined, 'the older copy is gone: the next read goes to Redis')
  cache.set('game', 'laps', { review_below: null }, cache.stamp())
  t.same(cache.get('game', 'laps'), { review_below: null }, 'and that read is kept')
})
