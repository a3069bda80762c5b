import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { answers } from '../helpers/service-process.js'
import { loadConfig } from '../../src/config.js'
import { runningManagedRedis, startManagedRedis } from '../../src/lib/managed-redis.js'
import { startService } from '../../src/server.js'
import { computeSignature } from '../../src/rules/signature.js'
import { startTestRedis } from '../helpers/redis.js'

/*
 * Starting the service in this process (src/server.ts, startService):
 * the redis-server it owns without REDIS_URL, the demo data of a development
 * start, and the admin routes without a token. The entry point as a process
 * of its own is tested in server-process.test.ts and server-workers.test.ts.
 */

function tempDir (t: { teardown: (fn: () => void) => void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'ranking-server-test-'))
  t.teardown(() => { rmSync(dir, { recursive: true, force: true }) })
  return dir
}

function baseUrl (service: Awaited<ReturnType<typeof startService>>): string {
  const address = service.app.server.address()
  return `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`
}

t.test('without REDIS_URL the service owns a redis-server: AOF in the data folder, stopped on close', async t => {
  const dataDir = tempDir(t)
  const service = await startService(loadConfig({ NODE_ENV: 'test', PORT: '0', DATA_DIR: dataDir }))
  const socket = service.managedRedis?.socketPath ?? ''
  t.ok(await answers(socket), 'redis-server answers on its Unix socket')
  t.same(await (await fetch(`${baseUrl(service)}/healthz`)).json(), { ok: true, data: { redis: 'up' } })
  t.equal(await service.app.redis.config('GET', 'appendonly').then(reply => (reply as string[])[1]), 'yes', 'the project redis.conf is used')
  await service.close()
  t.notOk(await answers(socket), 'redis-server is stopped with the service')
  t.ok(existsSync(join(dataDir, 'appendonlydir')), 'the append-only file is under the data folder')
})

t.test('a second service on the same data folder is refused with one clear line', async t => {
  const dataDir = tempDir(t)
  const first = await startManagedRedis(dataDir)
  t.teardown(first.stop)
  await t.rejects(startManagedRedis(dataDir), /already answers on .*redis-cli -s .* shutdown/)
})

t.test('a data folder too deep for a Unix socket path gets its socket in the temp folder', async t => {
  const dataDir = join(tempDir(t), 'a-folder-name-that-is-long-enough'.repeat(3))
  t.equal(await runningManagedRedis(dataDir), undefined, 'nothing runs there yet')
  const redis = await startManagedRedis(dataDir)
  t.teardown(redis.stop)
  t.ok(Buffer.byteLength(redis.socketPath) <= 100, redis.socketPath)
  t.notOk(redis.socketPath.startsWith(dataDir))
  t.equal(await runningManagedRedis(dataDir), redis.url, 'the CLI finds the running one')
})

t.test('a missing redis-server binary is named with the command that installs it', async t => {
  await t.rejects(startManagedRedis(tempDir(t), { binary: 'redis-server-not-installed-here' }), /sudo apt-get install -y redis-server/)
})

t.test('with REDIS_URL set nothing is started; a port in use fails start-up cleanly', async t => {
  const redis = await startTestRedis()
  t.teardown(redis.stop)
  const config = loadConfig({ NODE_ENV: 'test', PORT: '0', REDIS_URL: redis.url })
  const service = await startService(config)
  t.equal(service.managedRedis, undefined)
  const port = Number(new URL(baseUrl(service)).port)
  await t.rejects(startService({ ...config, port }), /EADDRINUSE/)
  await service.close()
})

t.test('development start with DEMO=true: demo game, admin token, key and secret, and a signed example that works', async t => {
  const redis = await startTestRedis()
  t.teardown(redis.stop)
  const printed: string[] = []
  const log = console.log
  console.log = (...parts: unknown[]) => { printed.push(parts.join(' ')) }
  // What scripts/start.mjs (npm start) sets.
  process.env.RANKING_GENERATE_ADMIN_TOKEN = '1'
  let service: Awaited<ReturnType<typeof startService>>
  try {
    service = await startService(loadConfig({ NODE_ENV: 'development', LOG_LEVEL: 'silent', PORT: '0', REDIS_URL: redis.url, DEMO: 'true' }))
  } finally {
    console.log = log
    delete process.env.RANKING_GENERATE_ADMIN_TOKEN
  }
  t.teardown(service.close)
  const text = printed.join('\n')
  const token = /Admin token: +(\S+)/.exec(text)?.[1] ?? ''
  const apiKey = /API key: +(\S+)/.exec(text)?.[1] ?? ''
  const apiSecret = /API secret: +(\S+)/.exec(text)?.[1] ?? ''
  t.match(token, /^\S{16,}$/)
  t.equal(token, service.config.adminToken)
  t.match(apiKey, /^rk_[0-9a-f]{32}$/)
  t.match(apiSecret, /^[0-9a-f]{64}$/)
  t.match(text, /curl -s -X POST '.*\/api\/rank\?action=submit'/)

  // What the printed example does, with the printed values.
  const ts = String(Math.floor(Date.now() / 1000))
  const sign = computeSignature(apiSecret, { api_key: apiKey, game_id: 'demo', player_name: 'alice', score: '1234', ts })
  const response = await fetch(`${baseUrl(service)}/api/rank?action=submit`, {
    method: 'POST',
    body: new URLSearchParams({ api_key: apiKey, game_id: 'demo', player_name: 'alice', score: '1234', ts, sign })
  })
  t.same(await response.json(), { ok: true, data: { score: 1234, improved: true, best_score: 1234, rank: 1 } })

  // The admin token works.
  const games = await fetch(`${baseUrl(service)}/admin/games/demo`, { method: 'PATCH', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{}' })
  t.match(await games.json(), { ok: true, data: { game_id: 'demo', approved: true } })

  // A second start reuses the demo key and does not print its stored secret.
  const again: string[] = []
  console.log = (...parts: unknown[]) => { again.push(parts.join(' ')) }
  let second: Awaited<ReturnType<typeof startService>>
  try {
    second = await startService(loadConfig({ NODE_ENV: 'development', LOG_LEVEL: 'silent', PORT: '0', REDIS_URL: redis.url, DEMO: 'true' }))
  } finally {
    console.log = log
  }
  t.teardown(second.close)
  const secondText = again.join('\n')
  t.equal(/API key: +(\S+)/.exec(secondText)?.[1], apiKey, 'the same key')
  t.notOk(secondText.includes(apiSecret), 'its secret is not printed again')
  t.match(secondText, /API secret: +\(shown once, when the key was made; a new key: npm run cli -- keys create demo\)/)
  t.notMatch(secondText, /curl -s -X POST/, 'no signed example without the secret')
})

t.test('a development start against a Redis the operator runs makes no demo data unless DEMO=true', async t => {
  const redis = await startTestRedis()
  t.teardown(redis.stop)
  const printed: string[] = []
  const log = console.log
  console.log = (...parts: unknown[]) => { printed.push(parts.join(' ')) }
  let service: Awaited<ReturnType<typeof startService>>
  try {
    service = await startService(loadConfig({ NODE_ENV: 'development', LOG_LEVEL: 'silent', PORT: '0', REDIS_URL: redis.url, ADMIN_TOKEN: 'x'.repeat(32) }))
  } finally {
    console.log = log
  }
  t.teardown(service.close)
  t.match(printed.join('\n'), /Demo data: +off \(DEMO=true creates/)
  t.equal(await service.app.records.game('demo'), null, 'no demo game')
  t.equal(await service.app.users.user('demo'), null, 'no demo login')
  const login = await fetch(`${baseUrl(service)}/auth/login`, { method: 'POST', body: new URLSearchParams({ username: 'demo', password: 'demo-password' }) })
  t.match(await login.json(), { ok: false, error: 'invalid_credentials' })
  t.equal(loadConfig({ NODE_ENV: 'development' }).demo, true, 'development with the managed Redis: demo data by default')
  t.equal(loadConfig({ NODE_ENV: 'development', DEMO: 'false' }).demo, false, 'DEMO=false turns it off')
  t.equal(loadConfig({ NODE_ENV: 'production' }).demo, false, 'never by default in production')
  t.equal(loadConfig({ NODE_ENV: 'production', DEMO: 'true', ADMIN_TOKEN: 'x'.repeat(32) }).demo, true, 'unless asked for')
})

t.test('outside npm start, an unset ADMIN_TOKEN leaves the admin routes off, also in development', async t => {
  const redis = await startTestRedis()
  t.teardown(redis.stop)
  const log = console.log
  console.log = () => {}
  let service: Awaited<ReturnType<typeof startService>>
  try {
    service = await startService(loadConfig({ NODE_ENV: 'development', LOG_LEVEL: 'silent', PORT: '0', REDIS_URL: redis.url }))
  } finally {
    console.log = log
  }
  t.teardown(service.close)
  t.equal(service.config.adminToken, undefined)
  const response = await fetch(`${baseUrl(service)}/admin/games`, { method: 'POST', headers: { authorization: 'Bearer anything' } })
  t.same(await response.json(), { ok: false, error: 'not_found', message: 'No such route.' })
})
