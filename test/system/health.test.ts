import { Redis } from 'ioredis'
import t from 'tap'
import { ADMIN_TOKEN, buildTestApp, dataOf, errorOf } from '../helpers/app.js'

/*
 * Item 5 of the hardening issue: operators see how full Redis is, and hear at
 * start-up when Redis would be killed (no maxmemory) or would forget scores
 * (an eviction policy).
 */

t.test('GET /healthz stays {redis:"up"}; ?detail=true with the admin token adds memory use', async t => {
  const { app, redis, config } = await buildTestApp(t)
  const client = new Redis(redis.url)
  t.teardown(() => { client.disconnect() })
  await client.config('SET', 'maxmemory', '0')
  const lines: string[] = []
  const { buildApp } = await import('../../src/app.js')
  const unbounded = await buildApp({ ...config, logLevel: 'warn' }, { logStream: { write: line => { lines.push(line) } } })
  await unbounded.close()
  t.match(lines.join(''), /Redis has no maxmemory/, 'a Redis without maxmemory is reported at start-up')

  t.same((await app.inject({ method: 'GET', url: '/healthz' })).json(), { ok: true, data: { redis: 'up' } })
  t.equal(errorOf(await app.inject({ method: 'GET', url: '/healthz?detail=true' })), 'unauthorized', 'detail needs the admin token')
  t.equal(errorOf(await app.inject({ method: 'GET', url: '/healthz?detail=maybe' })), 'invalid_param')

  await client.config('SET', 'maxmemory', String(100 * 1024 * 1024))
  const detail = dataOf(await app.inject({ method: 'GET', url: '/healthz?detail=true', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }))
  t.equal(detail.redis, 'up')
  t.equal(detail.memory.redis_max_bytes, 100 * 1024 * 1024)
  t.ok(detail.memory.redis_used_bytes > 0)
  t.equal(detail.memory.redis_used_ratio, Math.round(detail.memory.redis_used_bytes / detail.memory.redis_max_bytes * 1000) / 1000)
  t.equal(detail.memory.redis_policy, 'noeviction')
  t.ok(detail.memory.process_rss_bytes > detail.memory.process_heap_used_bytes)
})

t.test('start-up warns about an eviction policy, and is quiet when Redis is set up as redis.conf says', async t => {
  const lines: string[] = []
  const first = await buildTestApp(t, { LOG_LEVEL: 'warn' }, { logStream: { write: line => { lines.push(line) } } })
  t.same(lines, [], 'the test Redis is set up as redis.conf says')
  const client = new Redis(first.redis.url)
  t.teardown(() => { client.disconnect() })
  await client.config('SET', 'maxmemory-policy', 'allkeys-lru')
  await client.config('SET', 'maxmemory', '1gb')
  lines.length = 0
  const { buildApp } = await import('../../src/app.js')
  const evicting = await buildApp(first.config, { logStream: { write: line => { lines.push(line) } } })
  await evicting.close()
  t.match(lines.join(''), /evicts keys when full \(maxmemory-policy allkeys-lru\)/)
  t.notMatch(lines.join(''), /no maxmemory/)

  await client.config('SET', 'maxmemory-policy', 'noeviction')
  lines.length = 0
  const quiet = await buildApp(first.config, { logStream: { write: line => { lines.push(line) } } })
  await quiet.close()
  t.same(lines, [], 'nothing to report')
})
