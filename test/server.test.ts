import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { loadConfig } from '../src/ops/config.js'
import { runningManagedRedis, startManagedRedis } from '../src/ops/managed-redis.js'
import { startService } from '../src/ops/server.js'
import { computeSignature } from '../src/http/signature.js'
import { freePort, startTestRedis } from './helpers/redis.js'

function tempDir (t: { teardown: (fn: () => void) => void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'ranking-server-test-'))
  t.teardown(() => { rmSync(dir, { recursive: true, force: true }) })
  return dir
}

async function answers (socketPath: string): Promise<boolean> {
  return await new Promise(resolve => {
    const socket = connect(socketPath)
    socket.once('connect', () => { socket.end(); resolve(true) })
    socket.once('error', () => { resolve(false) })
  })
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

// A loaded CI box may take a while to start redis-server and compile the workers; a child that
// exits early fails at once, with what it wrote to stderr.
async function waitForHealth (url: string, child?: ChildProcess, stderr: () => string = () => ''): Promise<void> {
  const deadline = Date.now() + 30_000
  while (Date.now() < deadline) {
    if (child !== undefined && child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}: ${stderr()}`)
    try {
      const body = await (await fetch(`${url}/healthz`)).json() as { ok?: boolean }
      if (body.ok === true) return
    } catch {}
    await new Promise(resolve => setTimeout(resolve, 50))
  }
  throw new Error(`the service did not come up: ${stderr()}`)
}

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

t.test('WORKERS: workers that cannot start are retried, then the primary gives up with exit 1', async t => {
  const redis = await startTestRedis()
  t.teardown(redis.stop)
  // The port is taken by the test Redis, so every worker fails to listen.
  const child = spawn(process.execPath, [...process.execArgv, 'src/ops/server.ts'], {
    env: { ...process.env, NODE_ENV: 'test', WORKERS: '2', PORT: String(redis.port), REDIS_URL: redis.url },
    stdio: ['ignore', 'ignore', 'pipe']
  })
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  t.equal(await new Promise(resolve => child.once('exit', resolve)), 1)
  t.match(stderr, /Start-up failed: workers exited 3 times before listening; stopping/)
})

t.test('SIGTERM: in-flight requests finish, then Redis is closed and a managed redis-server stopped', async t => {
  const dataDir = tempDir(t)
  const port = await freePort()
  const child = spawn(process.execPath, [...process.execArgv, 'src/ops/server.ts'], {
    env: { ...process.env, NODE_ENV: 'test', PORT: String(port), DATA_DIR: dataDir, REDIS_URL: '' },
    stdio: ['ignore', 'ignore', 'pipe']
  })
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  const exited = new Promise<number | null>(resolve => child.once('exit', resolve))
  const url = `http://127.0.0.1:${port}`
  await waitForHealth(url, child, () => stderr)
  // A request truly in flight: headers and half the body sent before SIGTERM, the rest after.
  const body = 'api_key=rk_unknown&game_id=demo&player_name=p&score=1&ts=1&sign=' + 'a'.repeat(64)
  const socket = connect(port, '127.0.0.1')
  await new Promise(resolve => socket.once('connect', resolve))
  let answer = ''
  socket.on('data', (chunk: Buffer) => { answer += chunk.toString() })
  const closed = new Promise(resolve => socket.once('close', resolve))
  socket.write(`POST /api/rank?action=submit HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body.slice(0, 20)}`)
  await new Promise(resolve => setTimeout(resolve, 200))
  child.kill('SIGTERM')
  await new Promise(resolve => setTimeout(resolve, 300))
  socket.write(body.slice(20)) // not end(): a half-closed client is dropped by Node's HTTP server
  await closed
  t.match(answer, /^HTTP\/1\.1 200 OK/, 'the request in flight is answered')
  t.match(answer, /\{"ok":false,"error":"invalid_key","message":"The API key is not valid\."\}$/, 'with Redis still there to look the key up')
  t.equal(await exited, 0, `clean exit ${stderr}`)
  t.notOk(await answers(join(dataDir, 'redis.sock')), 'the managed redis-server is gone')
})

t.test('WORKERS=2: two processes share the port and the managed Redis; a dead worker is replaced', async t => {
  const dataDir = tempDir(t)
  const port = await freePort()
  const child = spawn(process.execPath, [...process.execArgv, 'src/ops/server.ts'], {
    env: { ...process.env, NODE_ENV: 'test', WORKERS: '2', PORT: String(port), DATA_DIR: dataDir, REDIS_URL: '' },
    stdio: ['ignore', 'ignore', 'pipe']
  })
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  // 'close', not 'exit': by then everything the primary wrote to stderr has been read.
  const exited = new Promise<number | null>(resolve => child.once('close', resolve))
  const url = `http://127.0.0.1:${port}`
  await waitForHealth(url, child, () => stderr)
  // The primary's children that run node: the workers (the other child is redis-server).
  const workers = (): number[] => {
    let children: number[]
    try {
      children = execFileSync('pgrep', ['-P', String(child.pid)]).toString().trim().split('\n').map(Number)
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
  const before = workers()
  t.equal(before.length, 2, `two workers: ${before.join(', ')}`)
  for (let i = 0; i < 10; i++) t.same(await (await fetch(`${url}/healthz`)).json(), { ok: true, data: { redis: 'up' } })
  const victim = before[0] as number
  process.kill(victim, 'SIGKILL')
  const deadline = Date.now() + 20_000
  let replaced = false
  while (!replaced && Date.now() < deadline) {
    const now = workers()
    replaced = now.length === 2 && !now.includes(victim)
    if (!replaced) await new Promise(resolve => setTimeout(resolve, 100))
  }
  t.ok(replaced, 'the killed worker was replaced')
  await waitForHealth(url, child, () => stderr)
  child.kill('SIGTERM')
  t.equal(await exited, 0, 'the primary exits cleanly after its workers')
  t.match(stderr, /worker \d exited \(SIGKILL\); starting another/)
  t.notOk(await answers(join(dataDir, 'redis.sock')), 'and stops the managed redis-server last')
})

t.test('bad configuration stops the entry point with one line and exit 1', async t => {
  const child = spawn(process.execPath, [...process.execArgv, 'src/ops/server.ts'], {
    env: { ...process.env, NODE_ENV: 'test', PORT: 'eighty' },
    stdio: ['ignore', 'ignore', 'pipe']
  })
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  t.equal(await new Promise(resolve => child.once('exit', resolve)), 1)
  t.equal(stderr.trim(), 'Configuration error: PORT must be an integer from 0 to 65535 (got "eighty")')
})
