import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { ADMIN_TOKEN, buildTestApp, createGame, dataOf, errorOf, me, submit, top } from '../helpers/app.js'
import { freePort, startTestRedis } from '../helpers/redis.js'
import { WORKERS_START_MS, spawnService, waitForHealth } from '../helpers/service-process.js'
import { computeSignature } from '../../src/rules/signature.js'

/*
 * Prometheus metrics (docs/guide.md#metrics): GET /metrics with
 * METRICS_TOKEN, or METRICS_PORT, summed over WORKERS.
 */

const TOKEN = 'metrics-token-0123456789'

/** The value of one sample of the exposition text, 0 when absent. */
function sample (text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([label, value]) => `${label}="${value}"`)
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue
    const braces = line.match(/^[^{ ]+\{([^}]*)\}/)?.[1] ?? ''
    const have = braces === '' ? [] : braces.split(/,(?=[a-z_]+=")/)
    if (wanted.every(pair => have.includes(pair)) && have.length === wanted.length) return Number(line.slice(line.lastIndexOf(' ') + 1))
  }
  return 0
}

async function scrape (app: FastifyInstance): Promise<string> {
  const response = await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } })
  if (response.statusCode !== 200 || !/^text\/plain/.test(String(response.headers['content-type']))) throw new Error(`metrics: ${response.statusCode} ${response.body.slice(0, 200)}`)
  return response.body
}

t.test('GET /metrics needs METRICS_TOKEN, and counts what the service did', async t => {
  const { app } = await buildTestApp(t, { METRICS_TOKEN: TOKEN, RATE_LIMIT_MAX: '5' })
  t.equal(errorOf(await app.inject({ method: 'GET', url: '/metrics' })), 'unauthorized', 'no token')
  t.equal(errorOf(await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer wrong-token-xxxxxxxx' } })), 'unauthorized', 'a wrong token')
  t.equal(errorOf(await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })), 'unauthorized', 'the admin token is not the metrics token')

  const before = await scrape(app)
  const game = await createGame(app)
  dataOf(await submit(app, game, { player: 'ann', score: 10 }))
  dataOf(await submit(app, game, { player: 'ann', score: 3 }))
  const replayed = { player: 'bob', score: 7, ts: Math.floor(Date.now() / 1000) }
  dataOf(await submit(app, game, replayed))
  dataOf(await submit(app, game, replayed))
  t.equal(errorOf(await top(app, game, { limit: 'x' })), 'invalid_param')
  t.equal(errorOf(await me(app, game, 'ann')), 'rate_limited', 'the 6th request of the key is limited')
  const after = await scrape(app)

  const delta = (name: string, labels: Record<string, string> = {}): number => sample(after, name, labels) - sample(before, name, labels)
  t.equal(delta('ranking_requests_total', { route: '/api/rank', action: 'submit', outcome: 'ok' }), 4, 'four submits answered ok')
  t.equal(delta('ranking_requests_total', { route: '/api/rank', action: 'top', outcome: 'invalid_param' }), 1, 'one top answered invalid_param')
  t.equal(delta('ranking_requests_total', { route: '/api/rank', action: 'me', outcome: 'rate_limited' }), 1, 'one me answered rate_limited')
  t.equal(delta('ranking_request_duration_seconds_count', { route: '/api/rank', action: 'submit' }), 4, 'and timed')
  t.equal(delta('ranking_submits_total', { mode: 'api_key', result: 'improved' }), 2, 'two improved a best')
  t.equal(delta('ranking_submits_total', { mode: 'api_key', result: 'unchanged' }), 1, 'one did not')
  t.equal(delta('ranking_submits_total', { mode: 'api_key', result: 'replay' }), 1, 'one was a replay')
  t.equal(delta('ranking_rate_limited_total', { limit: 'apiKey' }), 1, 'one request limited per (key, address)')
  // A plain game's submits take the plain script (lua/submit.lua's variants).
  t.ok(delta('ranking_redis_script_duration_seconds_count', { script: 'rankSubmitPlain' }) >= 4, 'submit scripts timed')
  t.ok(delta('ranking_record_cache_lookups_total', { kind: 'key', result: 'hit' }) >= 4, 'the key came from the cache')
  t.ok(sample(after, 'process_cpu_user_seconds_total') > 0, 'process metrics')
  t.match(after, /# HELP ranking_requests_total /, 'with help texts')
})

t.test('without METRICS_TOKEN there is no /metrics route', async t => {
  const { app } = await buildTestApp(t)
  t.equal(errorOf(await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } })), 'not_found')
})

t.test('METRICS_PORT with WORKERS=2: one scrape sums both workers', { timeout: WORKERS_START_MS + 120_000 }, async t => {
  const redis = await startTestRedis()
  t.teardown(redis.stop)
  const [port, metricsPort] = [await freePort(), await freePort()]
  const service = spawnService(t, { WORKERS: '2', PORT: String(port), METRICS_PORT: String(metricsPort), METRICS_TOKEN: TOKEN, REDIS_URL: redis.url, ADMIN_TOKEN: 'metrics-test-admin-token-0123456789', RATE_LIMIT_MAX: '100000' })
  const url = `http://127.0.0.1:${port}`
  await waitForHealth(service, url, WORKERS_START_MS)
  const adminHeaders = { authorization: 'Bearer metrics-test-admin-token-0123456789', 'content-type': 'application/json' }
  const created = await (await fetch(`${url}/admin/games`, { method: 'POST', headers: adminHeaders, body: JSON.stringify({ game_id: 'g1', approved: true }) })).json() as { ok: boolean }
  t.equal(created.ok, true)
  const key = (await (await fetch(`${url}/admin/keys`, { method: 'POST', headers: adminHeaders, body: JSON.stringify({ game_id: 'g1' }) })).json() as { data: { api_key: string, api_secret: string } }).data
  // 40 submits on fresh connections: the kernel spreads them over both workers.
  const ts = String(Math.floor(Date.now() / 1000))
  const answers = await Promise.all(Array.from({ length: 40 }, async (_, i) => {
    const fields = { api_key: key.api_key, game_id: 'g1', player_name: `p${i}`, score: String(i), ts }
    const body = new URLSearchParams({ ...fields, sign: computeSignature(key.api_secret, fields) })
    return await (await fetch(`${url}/api/rank?action=submit`, { method: 'POST', body, headers: { connection: 'close' } })).json() as { ok: boolean }
  }))
  t.equal(answers.filter(answer => answer.ok).length, 40, 'all 40 stored')

  // A scrape the workers do not all answer within prom-client's 5 s is a 503 that says so (as a
  // scraper sees it, and tries at its next interval); on a machine busy enough for that, so does this test.
  let onPort = await fetch(`http://127.0.0.1:${metricsPort}/metrics`)
  let text = await onPort.text()
  for (let retry = 0; retry < 5 && onPort.status === 503 && /timed out/.test(text); retry++) {
    t.comment(`METRICS_PORT: ${text.trim()}; scraping again`)
    onPort = await fetch(`http://127.0.0.1:${metricsPort}/metrics`)
    text = await onPort.text()
  }
  t.equal(onPort.status, 200, `METRICS_PORT answers (got ${onPort.status}: ${text.slice(0, 200)}; the service said: ${service.stderr().slice(-500)})`)
  t.match(onPort.headers.get('content-type'), /^text\/plain/, 'in the text format')
  t.equal(sample(text, 'ranking_requests_total', { route: '/api/rank', action: 'submit', outcome: 'ok' }), 40, 'METRICS_PORT: the 40 submits, whichever worker served them')
  t.equal(sample(text, 'ranking_submits_total', { mode: 'api_key', result: 'improved' }), 40)
  const viaService = await (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text()
  t.equal(sample(viaService, 'ranking_requests_total', { route: '/api/rank', action: 'submit', outcome: 'ok' }), 40, 'GET /metrics on the service port: the same sum, from either worker')

  service.child.kill('SIGTERM')
  t.equal(await service.exited, 0, 'and it stops cleanly')
})
