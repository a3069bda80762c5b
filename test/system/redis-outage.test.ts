import { Writable } from 'node:stream'
import t from 'tap'
import { COMMAND_TIMEOUT_MS } from '../../src/store/redis-client.js'
import { STOPS_ITS_REDIS, buildTestApp, createGame, dataOf, errorOf, get, submit } from '../helpers/app.js'
import { waitFor } from '../helpers/wait.js'

/**
 * Failing fast means answering from the command timeout (COMMAND_TIMEOUT_MS,
 * 1 s) or at once, not waiting for Redis: a queued request would wait until
 * Redis is back, which these tests never allow before the check. The bound
 * is far above the expected second, so a busy machine cannot reach it, and
 * far below a hang.
 */
const FAIL_FAST_MS = 10_000

t.test('Redis down: requests fail fast with unavailable; Redis back: the service recovers alone', STOPS_ITS_REDIS, async t => {
  const lines: string[] = []
  const logStream = new Writable({ write (chunk, _encoding, done) { lines.push(String(chunk)); done() } })
  const { app, redis } = await buildTestApp(t, { LOG_LEVEL: 'info' }, { logStream })
  const game = await createGame(app)
  t.equal(dataOf(await submit(app, game, { player: 'before', score: 1 })).improved, true)
  const logged = (message: string): any[] => lines.map(line => JSON.parse(line)).filter(entry => entry.msg === message)

  await redis.kill()
  await waitFor(() => logged('Redis connection lost; retrying').length > 0, { what: 'the outage in the log' })
  const [lost] = logged('Redis connection lost; retrying')
  t.match(lost, { level: 40, reason: /\S/ }, 'one warning that says why')
  t.notMatch(JSON.stringify(lost), /\[object Object\]/, 'in words, not an object printed as text')

  for (const request of [
    async () => await get(app, '/healthz'),
    async () => await submit(app, game, { player: 'during', score: 2 }),
    async () => await get(app, '/api/rank', { action: 'top', api_key: game.apiKey, game_id: game.gameId })
  ]) {
    const started = Date.now()
    const response = await request()
    const elapsed = Date.now() - started
    t.equal(errorOf(response), 'unavailable')
    t.notMatch(response.json().message, /ECONNREFUSED|Stream|Redis|stack/i, 'no client or Redis text leaks')
    t.ok(elapsed < FAIL_FAST_MS, `answered in ${elapsed} ms, without queueing`)
  }

  await redis.start()
  await waitFor(async () => (await get(app, '/healthz')).json().ok === true, { what: '/healthz to be up again without a restart of the service' })
  t.pass('/healthz is up again without a restart of the service')
  t.equal(logged('Redis connection lost; retrying').length, 1, 'one warning for the outage, not one per reconnect')
  t.equal(logged('Redis connection restored').length, 1, 'and one line when it is back')
  // The restarted test Redis is empty: the scripts are loaded again (NOSCRIPT -> EVAL) and data written anew.
  const again = await createGame(app)
  t.same(dataOf(await submit(app, again, { player: 'after', score: 3 })), { score: 3, improved: true, best_score: 3, rank: 1 })
})

t.test('a Redis that hangs (SIGSTOP) is reported unavailable by the command timeout', STOPS_ITS_REDIS, async t => {
  const { app, redis } = await buildTestApp(t)
  const game = await createGame(app)
  const pid = await app.redis.info('server').then(text => Number(/process_id:(\d+)/.exec(text)?.[1]))
  t.ok(pid > 0)
  process.kill(pid, 'SIGSTOP')
  t.teardown(() => { try { process.kill(pid, 'SIGCONT') } catch {} })
  const started = Date.now()
  const response = await submit(app, game, { player: 'stuck', score: 1 })
  t.equal(errorOf(response), 'unavailable')
  t.ok(Date.now() - started < FAIL_FAST_MS, 'the command timeout ends the wait')
  process.kill(pid, 'SIGCONT')
  await waitFor(async () => (await get(app, '/healthz')).json().ok === true, { what: 'the service to recover when Redis resumes' })
  t.pass('recovers when Redis resumes')
  t.ok(redis.port > 0)
})

t.test('this process busy past the command timeout does not fail the commands Redis answered meanwhile', async t => {
  const { app } = await buildTestApp(t)
  const game = await createGame(app)
  // Commands sent, then the event loop held past the timeout, as 2,000
  // client sockets closing at once did on a loaded machine: the replies
  // arrive within microseconds and wait unread while the timers are due.
  const replies = [app.redis.ping(), app.redis.incr(`stall-test-${game.gameId}`), app.redis.get(`stall-test-${game.gameId}`)]
  const until = Date.now() + COMMAND_TIMEOUT_MS + 500
  while (Date.now() < until) { /* busy, on purpose */ }
  t.same(await Promise.all(replies), ['PONG', 1, '1'], 'every reply is read, none fails as timed out')
  // And the whole request: a submit in flight while the loop is held.
  const pending = submit(app, game, { player: 'stalled', score: 5 })
  await new Promise(resolve => setImmediate(resolve))
  const again = Date.now() + COMMAND_TIMEOUT_MS + 500
  while (Date.now() < again) { /* busy, on purpose */ }
  t.same(dataOf(await pending), { score: 5, improved: true, best_score: 5, rank: 1 })
})
