import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { freePort, startTestRedis } from '../helpers/redis.js'
import { WORKERS_START_MS, answers, spawnService, waitForHealth } from '../helpers/service-process.js'
import { waitFor } from '../helpers/wait.js'

/*
 * WORKERS: the entry point as a primary process with its workers. Each
 * worker compiles the service's TypeScript as it starts, a few seconds each
 * on an idle machine, so these tests have the largest budgets of the suite.
 */

t.test('WORKERS: workers that cannot start are retried, then the primary gives up with exit 1', { timeout: 240_000 }, async t => {
  const redis = await startTestRedis()
  t.teardown(redis.stop)
  // The port is taken by the test Redis, so every worker fails to listen.
  const service = spawnService(t, { WORKERS: '2', PORT: String(redis.port), REDIS_URL: redis.url })
  t.equal(await service.exited, 1)
  t.match(service.stderr(), /Start-up failed: workers exited 3 times before listening; stopping/)
})

t.test('WORKERS=2: two processes share the port and the managed Redis; a dead worker is replaced', { timeout: 2 * WORKERS_START_MS + 60_000 }, async t => {
  const dataDir = mkdtempSync(join(tmpdir(), 'ranking-server-test-'))
  t.teardown(() => { rmSync(dataDir, { recursive: true, force: true }) })
  const port = await freePort()
  const service = spawnService(t, { WORKERS: '2', PORT: String(port), DATA_DIR: dataDir, REDIS_URL: '' })
  const url = `http://127.0.0.1:${port}`
  await waitForHealth(service, url, WORKERS_START_MS)
  // The primary's children that run node: the workers (the other child is redis-server).
  const workers = (): number[] => {
    let children: number[]
    try {
      children = execFileSync('pgrep', ['-P', String(service.child.pid)]).toString().trim().split('\n').map(Number)
    } catch {
      return []
    }
    return children.filter(pid => {
      try {
        return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'node'
      } catch {
        return false
      }
    })
  }
  // /healthz answers once one worker listens; the other may still be starting.
  await waitFor(() => workers().length === 2, { what: 'two workers' })
  const before = workers()
  t.equal(before.length, 2, `two workers: ${before.join(', ')}`)
  for (let i = 0; i < 10; i++) t.same(await (await fetch(`${url}/healthz`)).json(), { ok: true, data: { redis: 'up' } })
  const victim = before[0] as number
  process.kill(victim, 'SIGKILL')
  await waitFor(() => { const now = workers(); return now.length === 2 && !now.includes(victim) }, { what: 'the killed worker to be replaced', timeoutMs: WORKERS_START_MS })
  t.pass('the killed worker was replaced')
  await waitForHealth(service, url)
  service.child.kill('SIGTERM')
  t.equal(await service.exited, 0, 'the primary exits cleanly after its workers')
  t.match(service.stderr(), /worker \d exited \(SIGKILL\); starting another/)
  t.notOk(await answers(join(dataDir, 'redis.sock')), 'and stops the managed redis-server last')
})
