import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { spawn } from 'node:child_process'
import { freePort, startTestRedis } from '../helpers/redis.js'
import { waitFor } from '../helpers/wait.js'
import { answers, spawnService, waitForHealth } from '../helpers/service-process.js'

/*
 * The entry point (src/server.ts) as a process of its own: a clean stop
 * on SIGTERM that finishes what is in flight, and bad configuration. Each
 * test starts the process, so each has its own budget: on an idle machine
 * a start takes a few seconds (the process compiles its TypeScript).
 */

t.test('SIGTERM: in-flight requests finish, then Redis is closed and a managed redis-server stopped', { timeout: 120_000 }, async t => {
  const dataDir = mkdtempSync(join(tmpdir(), 'ranking-server-test-'))
  t.teardown(() => { rmSync(dataDir, { recursive: true, force: true }) })
  const port = await freePort()
  const service = spawnService(t, { PORT: String(port), DATA_DIR: dataDir, REDIS_URL: '' })
  await waitForHealth(service, `http://127.0.0.1:${port}`)
  // A request truly in flight: headers and half the body sent before SIGTERM, the rest after.
  const body = 'api_key=rk_unknown&game_id=demo&player_name=p&score=1&ts=1&sign=' + 'a'.repeat(64)
  const socket = connect(port, '127.0.0.1')
  await new Promise(resolve => socket.once('connect', resolve))
  let answer = ''
  socket.on('data', (chunk: Buffer) => { answer += chunk.toString() })
  const closed = new Promise(resolve => socket.once('close', resolve))
  socket.write(`POST /api/rank?action=submit HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body.slice(0, 20)}`)
  // Part of the scenario, not a wait for something: the half-sent request
  // sits in the service when SIGTERM comes, and the rest follows a moment later.
  await sleep(200)
  service.child.kill('SIGTERM')
  await sleep(300)
  socket.write(body.slice(20)) // not end(): a half-closed client is dropped by Node's HTTP server
  await closed
  t.match(answer, /^HTTP\/1\.1 200 OK/, 'the request in flight is answered')
  t.match(answer, /\{"ok":false,"error":"invalid_key","message":"The API key is not valid\."\}$/, 'with Redis still there to look the key up')
  t.equal(await service.exited, 0, `clean exit ${service.stderr()}`)
  t.notOk(await answers(join(dataDir, 'redis.sock')), 'the managed redis-server is gone')
})

t.test('bad configuration stops the entry point with one line and exit 1', { timeout: 60_000 }, async t => {
  const service = spawnService(t, { PORT: 'eighty' })
  t.equal(await service.exited, 1)
  t.equal(service.stderr().trim(), 'Configuration error: PORT must be an integer from 0 to 65535 (got "eighty")')
})

t.test('on a developer\'s terminal, requests that went well are logged only at LOG_LEVEL=debug, so the banner stays in view', { timeout: 180_000 }, async t => {
  const redis = await startTestRedis()
  t.teardown(redis.stop)
  // `script` (util-linux, in every Debian) gives the process a terminal: the pretty log of development.
  // Returns what the terminal showed once `marker` was written after the requests (lines come in order).
  async function terminalAfterRequests (logLevel: string, marker: RegExp, beforeMarker: (url: string) => Promise<void>): Promise<string> {
    const port = await freePort()
    const url = `http://127.0.0.1:${port}`
    // `exec`: the shell `script` starts (SHELL, else dash, which does not exec
    // a last command itself) becomes the service, so the pid signalled is the service's.
    const command = 'exec ' + [process.execPath, ...process.execArgv, 'src/server.ts'].map(part => `'${part}'`).join(' ')
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      env: { ...process.env, SHELL: '/bin/sh', NODE_ENV: 'development', LOG_LEVEL: logLevel, PORT: String(port), REDIS_URL: redis.url, ADMIN_TOKEN: 'a-development-token-0123456789' },
      stdio: ['pipe', 'pipe', 'pipe']
    })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString() })
    let ended = false
    child.once('close', () => { ended = true })
    await waitFor(() => output.includes('For the README examples'), { what: () => `the banner (so far: ${output.slice(-300)})`, timeoutMs: 90_000 })
    // The service is `script`'s child: it is stopped itself, as a terminal's
    // Ctrl-C would, since a closed terminal (SIGHUP) is not what this tests.
    const service = Number(readFileSync(`/proc/${child.pid as number}/task/${child.pid as number}/children`, 'utf8').trim().split(' ')[0])
    t.teardown(() => {
      for (const pid of [service, child.pid as number]) try { process.kill(pid, 'SIGKILL') } catch {}
    })
    for (let i = 0; i < 3; i++) await (await fetch(`${url}/healthz`)).text()
    await beforeMarker(url)
    await waitFor(() => marker.test(output), { what: () => `${String(marker)} on the terminal (so far: ${output.slice(-500)})` })
    process.kill(service, 'SIGINT')
    await waitFor(() => ended, { what: () => `the service to end on SIGINT (terminal: ${output.slice(-500)})` })
    return output
  }
  // At info: a Redis outage after the requests is logged (warn), so the log has been written past them.
  const quiet = await terminalAfterRequests('info', /Redis unavailable|Redis connection lost/, async url => {
    await redis.kill()
    await (await fetch(`${url}/api/rank?action=top&api_key=rk_x&game_id=g`)).text()
  })
  await redis.start()
  t.match(quiet, /Ranking service \(development\)/, 'the banner is there')
  t.notMatch(quiet, /incoming request|request completed/, 'at info: no line for a request that went well')
  t.notMatch(quiet, /FSTDEP|DeprecationWarning/, 'and no deprecation warning')
  const chatty = await terminalAfterRequests('debug', /request completed/, async () => {})
  t.match(chatty, /incoming request/, 'at debug: a line per request')
})

t.test('in development without a terminal (an editor\'s output pane, a pipe), requests that went well are not logged either', { timeout: 120_000 }, async t => {
  const redis = await startTestRedis()
  t.teardown(redis.stop)
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const child = spawn(process.execPath, [...process.execArgv, 'src/server.ts'], {
    env: { ...process.env, NODE_ENV: 'development', LOG_LEVEL: 'info', PORT: String(port), REDIS_URL: redis.url, ADMIN_TOKEN: 'a-development-token-0123456789' },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  t.teardown(() => { if (child.exitCode === null) child.kill('SIGKILL') })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString() })
  const exited = new Promise(resolve => child.once('close', resolve))
  await waitFor(() => output.includes('For the README examples'), { what: () => `the banner (so far: ${output.slice(-300)})`, timeoutMs: 90_000 })
  for (const path of ['/healthz', '/healthz', '/console/', '/api/rank?action=top&api_key=rk_x&game_id=g']) await (await fetch(`${url}${path}`)).text()
  child.kill('SIGINT')
  await exited
  // The shutdown line is written after the requests' would have been: the log was written past them.
  t.match(output, /"msg":"shutting down"/, 'the log is there, as JSON lines (no terminal: not pretty)')
  t.notMatch(output, /incoming request|request completed/, 'but no line for a request, static files included')
})

t.test('closing the terminal (SIGHUP) stops the service: a clean shutdown, its managed redis-server stopped, and the process gone', { timeout: 180_000 }, async t => {
  const dataDir = mkdtempSync(join(tmpdir(), 'ranking-server-test-'))
  t.teardown(() => { rmSync(dataDir, { recursive: true, force: true }) })
  for (const nodeEnv of ['development', 'production']) {
    const port = await freePort()
    // Without tap's process-info hook: its signal-exit kills the process on SIGHUP when no other listener is
    // left, which close-with-grace's once-listener no longer is while the shutdown runs (production has no such hook).
    const loaders = process.execArgv.filter(arg => !arg.includes('@tapjs/processinfo'))
    // `exec`: the shell that script starts becomes the service (as in the test above).
    const command = 'exec ' + [process.execPath, ...loaders, 'src/server.ts'].map(part => `'${part}'`).join(' ')
    const terminal = spawn('script', ['-qfec', command, '/dev/null'], {
      env: { ...process.env, SHELL: '/bin/sh', NODE_ENV: nodeEnv, PORT: String(port), REDIS_URL: '', DATA_DIR: dataDir, ADMIN_TOKEN: 'a-terminal-test-token-0123456789abcdef' },
      stdio: ['pipe', 'pipe', 'pipe']
    })
    let output = ''
    terminal.stdout.on('data', (chunk: Buffer) => { output += chunk.toString() })
    await waitFor(() => output.includes('Server listening'), { what: () => `the ${nodeEnv} service to listen (so far: ${output.slice(-300)})`, timeoutMs: 90_000 })
    const service = Number(readFileSync(`/proc/${terminal.pid as number}/task/${terminal.pid as number}/children`, 'utf8').trim().split(' ')[0])
    t.teardown(() => { try { process.kill(service, 'SIGKILL') } catch {} })
    // Listening, the service may still be starting (seeding, greeting): a signal then waits for the start to end.
    const socket = join(dataDir, 'redis.sock')
    t.ok(await answers(socket), `${nodeEnv}: its managed redis-server runs`)
    terminal.kill('SIGKILL') // the terminal goes: the service gets SIGHUP, and its output fails from now on (EIO)
    const gone = (): boolean => { try { return readFileSync(`/proc/${service}/stat`, 'utf8').split(' ')[2] === 'Z' } catch { return true } }
    // Before, it stayed for ever: pino retried its failed write, and Node's exit failed to reset the gone terminal.
    await waitFor(gone, { what: `the ${nodeEnv} service to end after SIGHUP`, timeoutMs: 60_000 })
    t.pass(`${nodeEnv}: the service ended`)
    t.notOk(await answers(socket), `${nodeEnv}: and stopped its managed redis-server`)
  }
})
