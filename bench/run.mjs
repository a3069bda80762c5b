// The benchmark harness (`npm run bench`, `npm run bench:smoke`).
//
// Starts its own redis-server (persistence off) and the compiled service in
// production mode, seeds boards of 1,000, 100,000 and 1,000,000 players
// straight into Redis (pipelined, in the exact stored format of the scripts),
// then drives each scenario with autocannon after a warm-up and compares it
// with a bare Fastify server (bench/floor.mjs) loaded the same way. It also
// measures what each request costs Redis (INFO commandstats / stats around
// each scenario, plus a short MONITOR probe that tells top-level commands
// from the ones run inside scripts) and the memory per board entry.
//
// Every response must be HTTP 2xx with "ok":true; any other answer, error
// or timeout fails the run (exit 1) and names the scenario. Missed
// performance targets are reported, never fatal.
//
// Options (argv, or the BENCH_* environment variable in brackets):
//   --smoke              boards of 1,000 only, 2 s per scenario, 1 s warm-up
//   --workers=1,2        WORKERS values to run the service with [BENCH_WORKERS]
//   --duration=10        seconds per scenario [BENCH_DURATION]
//   --warmup=3           warm-up seconds before each scenario [BENCH_WARMUP]
//   --connections=50     autocannon connections [BENCH_CONNECTIONS]
//   --boards=1000,...    board sizes [BENCH_BOARDS]
//   --quiet-wait=120     before each scenario, wait up to this many seconds
//                        while other processes keep the CPUs busy (0 in smoke) [BENCH_QUIET_WAIT]
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { closeSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { connect, createServer } from 'node:net'
import os from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { ensureBuild, ensureDependencies, root } from '../scripts/runtime.mjs'

// ---------------------------------------------------------------- options

const argv = process.argv.slice(2)

function option (name, envName, fallback) {
  const prefix = `--${name}=`
  const given = argv.find(arg => arg.startsWith(prefix))
  if (given !== undefined) return given.slice(prefix.length)
  const fromEnv = process.env[envName]
  return fromEnv === undefined || fromEnv === '' ? fallback : fromEnv
}

function positiveNumbers (name, text) {
  const values = String(text).split(',').map(part => part.trim()).filter(part => part !== '').map(Number)
  if (values.length === 0 || values.some(value => !Number.isInteger(value) || value <= 0)) {
    console.error(`bench: --${name} must be positive integers, comma-separated (got "${text}")`)
    process.exit(2)
  }
  return values
}

for (const arg of argv) {
  if (arg !== '--smoke' && !/^--(workers|duration|warmup|connections|boards|quiet-wait)=/.test(arg)) {
    console.error(`bench: unknown option "${arg}" (see the top of bench/run.mjs)`)
    process.exit(2)
  }
}

const smoke = argv.includes('--smoke') || process.env.BENCH_SMOKE === '1'
const opts = {
  smoke,
  workers: positiveNumbers('workers', option('workers', 'BENCH_WORKERS', smoke ? '1' : '1,2')),
  duration: positiveNumbers('duration', option('duration', 'BENCH_DURATION', smoke ? '2' : '10'))[0],
  warmup: positiveNumbers('warmup', option('warmup', 'BENCH_WARMUP', smoke ? '1' : '3'))[0],
  connections: positiveNumbers('connections', option('connections', 'BENCH_CONNECTIONS', '50'))[0],
  boards: positiveNumbers('boards', option('boards', 'BENCH_BOARDS', smoke ? '1000' : '1000,100000,1000000')),
  quietWait: Number(option('quiet-wait', 'BENCH_QUIET_WAIT', smoke ? '0' : '120')),
  users: smoke ? 500 : 2000,
  /** Requests of the MONITOR probe that splits top-level from in-script commands. */
  probeRequests: 200
}

// ---------------------------------------------------------------- prerequisites

ensureDependencies()
ensureBuild()

const { default: autocannon } = await import('autocannon')
const { Redis } = await import('ioredis')
const { keys } = await import('../dist/src/keys.js')
const { encode } = await import('../dist/src/store/leaderboard.js')
const { computeSignature } = await import('../dist/src/signature.js')
if (encode === undefined) {
  console.error('bench: dist/src/store/leaderboard.js has no `encode` export; rebuild with npm run build.')
  process.exit(1)
}

// ---------------------------------------------------------------- processes and cleanup

const children = new Set()
const tempDirs = []
let cleanedUp = false

function killGroup (child, signal) {
  try {
    process.kill(-child.pid, signal) // the child leads its own process group (detached)
  } catch {}
}

function exited (child) {
  return child.exitCode !== null || child.signalCode !== null
}

/** Starts a process in its own process group, output to a log file. */
function startProcess (name, command, args, { env = process.env, logPath }) {
  const fd = openSync(logPath, 'a')
  const child = spawn(command, args, { cwd: root, env, stdio: ['ignore', fd, fd], detached: true })
  closeSync(fd)
  child.benchName = name
  child.logPath = logPath
  children.add(child)
  child.once('exit', () => { children.delete(child) })
  return child
}

/** SIGTERM to the process group, SIGKILL after timeoutMs. */
async function stopProcess (child, timeoutMs = 10_000) {
  if (child === undefined || exited(child)) return
  const gone = new Promise(resolve => child.once('exit', resolve))
  killGroup(child, 'SIGTERM')
  const timer = setTimeout(() => killGroup(child, 'SIGKILL'), timeoutMs)
  await gone
  clearTimeout(timer)
  killGroup(child, 'SIGKILL') // cluster workers left behind, if any
}

function cleanupSync () {
  if (cleanedUp) return
  cleanedUp = true
  for (const child of children) killGroup(child, 'SIGKILL')
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true })
}

process.on('exit', cleanupSync)
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.once(signal, () => {
    console.error(`\nbench: ${signal}, stopping everything it started.`)
    cleanupSync()
    process.exit(130)
  })
}

function logTail (child, lines = 20) {
  try {
    return readFileSync(child.logPath, 'utf8').trimEnd().split('\n').slice(-lines).join('\n')
  } catch {
    return '(no log)'
  }
}

async function freePort () {
  for (;;) {
    const port = await new Promise((resolve, reject) => {
      const server = createServer()
      server.once('error', reject)
      server.listen(0, '127.0.0.1', () => {
        const address = server.address()
        server.close(() => resolve(address.port))
      })
    })
    if (port !== 6379) return port
  }
}

// ---------------------------------------------------------------- random numbers

/** A small seeded generator, so every run picks the same players and scores. */
function mulberry32 (seed) {
  return () => {
    seed = (seed + 0x6D2B79F5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
const rng = mulberry32(20251122)
const randInt = (n) => Math.floor(rng() * n)

// ---------------------------------------------------------------- Redis

const tmp = mkdtempSync(join(os.tmpdir(), 'ranking-bench-'))
tempDirs.push(tmp)

async function startRedis () {
  const port = await freePort()
  // persistence off (no RDB snapshots, no AOF), so seeding is not slowed by disk writes
  const child = startProcess('redis-server', 'redis-server', [
    join(root, 'redis.conf'), '--port', String(port), '--bind', '127.0.0.1', '--dir', tmp,
    '--save', '', '--appendonly', 'no', '--daemonize', 'no'
  ], { logPath: join(tmp, 'redis.log') })
  const deadline = Date.now() + 10_000
  while (Date.now() < deadline) {
    if (exited(child)) throw new Error(`redis-server exited at start:\n${logTail(child)}`)
    const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null })
    client.on('error', () => {})
    try {
      await client.connect()
      if (await client.ping() === 'PONG') {
        client.disconnect()
        return { child, port }
      }
    } catch {}
    client.disconnect()
    await sleep(25)
  }
  throw new Error('redis-server did not answer within 10 s')
}

function parseInfo (text) {
  const fields = {}
  const commands = {}
  for (const line of text.split('\r\n')) {
    const colon = line.indexOf(':')
    if (line.startsWith('#') || colon === -1) continue
    const name = line.slice(0, colon)
    const value = line.slice(colon + 1)
    if (name.startsWith('cmdstat_')) commands[name.slice(8)] = Number(/calls=(\d+)/.exec(value)[1])
    else fields[name] = value
  }
  return { fields, commands }
}

/** One INFO command (one command, one read event), subtracted in diffStats. */
async function redisStats (redis) {
  return parseInfo(await redis.info('stats', 'commandstats'))
}

function diffStats (before, after) {
  const commands = {}
  for (const [name, calls] of Object.entries(after.commands)) {
    if (name === 'info') continue
    const delta = calls - (before.commands[name] ?? 0)
    if (delta > 0) commands[name] = delta
  }
  return {
    commands,
    // minus the INFO of `before`, counted in `after`
    total: Number(after.fields.total_commands_processed) - Number(before.fields.total_commands_processed) - 1,
    // minus the read event of the INFO of `after`, counted in `after`
    reads: Number(after.fields.total_reads_processed) - Number(before.fields.total_reads_processed) - 1
  }
}

// ---------------------------------------------------------------- service and floor

const adminToken = randomBytes(24).toString('hex')

async function waitForHttp (child, url, isReady, what) {
  const deadline = Date.now() + 30_000
  while (Date.now() < deadline) {
    if (exited(child)) throw new Error(`${what} exited at start (code ${child.exitCode ?? child.signalCode}):\n${logTail(child)}`)
    try {
      const response = await fetch(url)
      if (isReady(await response.json())) return
    } catch {}
    await sleep(50)
  }
  throw new Error(`${what} did not become ready within 30 s:\n${logTail(child)}`)
}

async function startService (redisPort, workers) {
  const port = await freePort()
  const env = {
    ...process.env,
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    PORT: String(port),
    HOST: '127.0.0.1',
    ADMIN_TOKEN: adminToken,
    RATE_LIMIT_MAX: '1000000000',
    SESSION_RATE_LIMIT_MAX: '1000000000',
    WORKERS: String(workers),
    DATA_DIR: join(tmp, 'service-data')
  }
  const logPath = join(tmp, `service-workers-${workers}.log`)
  const child = startProcess('service', process.execPath, ['dist/src/server.js'], { env, logPath })
  await waitForHttp(child, `http://127.0.0.1:${port}/healthz`, body => body?.ok === true, 'the service')
  return { child, port, base: `http://127.0.0.1:${port}`, logPath }
}

async function startFloor () {
  const port = await freePort()
  const child = startProcess('floor', process.execPath, ['bench/floor.mjs', String(port)], { logPath: join(tmp, 'floor.log') })
  await waitForHttp(child, `http://127.0.0.1:${port}/`, body => body?.ok === true, 'the floor server')
  return { child, port }
}

/** Every process: pid, process group and CPU used so far (utime + stime, clock ticks). */
function processTable () {
  const table = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ') // from field 3, state
      table.push({ pid: Number(entry), pgrp: Number(fields[2]), ticks: Number(fields[11]) + Number(fields[12]) })
    } catch {}
  }
  return table
}

/**
 * Waits (up to maxSeconds) until processes outside this run use less than
 * DISTURBED CPUs, so a scenario does not start while the box is busy.
 * Returns the seconds waited, or -1 when it gave up.
 */
async function waitForQuiet (maxSeconds) {
  if (!(maxSeconds > 0)) return 0
  const start = Date.now()
  let said = false
  for (;;) {
    const before = cpuSnapshot()
    await sleep(700)
    const { others, steal } = otherCpu(before, cpuSnapshot())
    const waited = (Date.now() - start) / 1000
    if (others + steal < DISTURBED) return waited
    if (waited >= maxSeconds) {
      console.log(`bench:   (gave up waiting for the box to quiet down after ${fmt(waited, 0)} s)`)
      return -1
    }
    if (!said) console.log(`bench:   (other processes use ${fmt(others + steal)} CPUs; waiting up to ${maxSeconds} s for them to finish)`)
    said = true
    await sleep(1000)
  }
}

/** Processes in the service's process group (1 without node:cluster). */
function processCount (leader) {
  return processTable().filter(entry => entry.pgrp === leader.pid).length
}

/**
 * The box's busy CPU time and the part of it used by this run (the harness
 * and every process group it started), in clock ticks (USER_HZ = 100).
 */
function cpuSnapshot () {
  const [user, nice, system, , , irq, softirq, steal] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number)
  const groups = new Set([...children].map(child => child.pid))
  let ours = 0
  for (const entry of processTable()) if (entry.pid === process.pid || groups.has(entry.pgrp)) ours += entry.ticks
  return { busy: user + nice + system + irq + softirq, steal, ours, at: performance.now() }
}

/** CPUs' worth of time used by processes that are not part of this run (and stolen by the hypervisor). */
function otherCpu (before, after) {
  const seconds = (after.at - before.at) / 1000
  return {
    others: Math.max(0, (after.busy - before.busy) - (after.ours - before.ours)) / 100 / seconds,
    steal: (after.steal - before.steal) / 100 / seconds
  }
}

// ---------------------------------------------------------------- admin API and seeding

async function call (base, method, path, body) {
  const response = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${adminToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body)
  })
  const answer = await response.json()
  if (answer.ok !== true) throw new Error(`${method} ${path} answered ${JSON.stringify(answer)}`)
  return answer.data
}

async function inParallel (count, concurrency, task) {
  const results = new Array(count)
  let next = 0
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, async () => {
    while (next < count) {
      const i = next++
      results[i] = await task(i)
    }
  }))
  return results
}

const playerName = (i) => `bench_user_${i}`
const gameIdOf = (size) => `bench_${size}`

function sizeLabel (size) {
  if (size >= 1_000_000 && size % 1_000_000 === 0) return `${size / 1_000_000}M`
  if (size >= 1000 && size % 1000 === 0) return `${size / 1000}k`
  return String(size)
}

/**
 * Writes `size` entries straight into the board zset and the entries hash,
 * in the stored form of the scripts (encode), 1,000 entries per HSET/ZADD and
 * 10,000 per pipeline. Returns the local mirror of the board.
 */
async function seedBoard (redis, gameId, size) {
  const best = new Float64Array(size)
  const ms = new Float64Array(size)
  const now = Date.now()
  const boardKey = keys.board(gameId)
  const CHUNK = 1000
  const BATCH = 10_000
  const inFlight = []
  for (let start = 0; start < size; start += BATCH) {
    const pipeline = redis.pipeline()
    for (let chunk = start; chunk < Math.min(size, start + BATCH); chunk += CHUNK) {
      const buckets = new Map()
      const zset = []
      for (let i = chunk; i < Math.min(size, chunk + CHUNK); i++) {
        const score = randInt(1_000_000)
        const time = now - randInt(30 * 86_400_000)
        best[i] = score
        ms[i] = time
        const name = playerName(i)
        // Entries are spread over hashes by a hash of the name (keys.entries).
        const entriesKey = keys.entries(gameId, name)
        let fields = buckets.get(entriesKey)
        if (fields === undefined) buckets.set(entriesKey, fields = [])
        fields.push(name, encode.entry(score, time))
        zset.push(encode.boardScore(score), encode.member(time, name))
      }
      for (const [entriesKey, fields] of buckets) pipeline.hset(entriesKey, ...fields)
      pipeline.zadd(boardKey, ...zset)
    }
    inFlight.push(pipeline.exec().then(results => {
      for (const [error] of results) if (error) throw error
    }))
    if (inFlight.length >= 4) await inFlight.shift()
  }
  await Promise.all(inFlight)
  return { gameId, size, best, ms }
}

/** The 1-based rank of player i by the board rule, counted over the mirror. */
function expectedRank (board, i) {
  const { best, ms, size } = board
  const name = playerName(i)
  let rank = 1
  for (let j = 0; j < size; j++) {
    if (best[j] > best[i] || (best[j] === best[i] && (ms[j] < ms[i] || (ms[j] === ms[i] && playerName(j) < name)))) rank++
  }
  return rank
}

async function verifySeed (service, board, apiKey) {
  const base = `${service.base}/api/rank?api_key=${apiKey}&game_id=${board.gameId}`
  const samples = [0, board.size - 1, randInt(board.size), randInt(board.size), randInt(board.size)]
  for (const i of samples) {
    const answer = await (await fetch(`${base}&action=me&player_name=${playerName(i)}`)).json()
    const rank = expectedRank(board, i)
    if (answer.ok !== true || answer.data.best_score !== board.best[i] || answer.data.rank !== rank) {
      throw new Error(`seed check failed on ${board.gameId} for ${playerName(i)}: expected best ${board.best[i]} rank ${rank}, got ${JSON.stringify(answer)}`)
    }
  }
  const top = await (await fetch(`${base}&action=top&limit=1`)).json()
  if (top.ok !== true || top.data.total !== board.size) throw new Error(`seed check failed on ${board.gameId}: top total ${JSON.stringify(top.data?.total)}, expected ${board.size}`)
}

// ---------------------------------------------------------------- load

const FORM = { 'content-type': 'application/x-www-form-urlencoded' }

/**
 * One autocannon run. Every response is checked: 2xx and "ok":true, or it
 * counts as failed. Latencies are kept at full resolution (autocannon's own
 * histogram has whole milliseconds).
 */
async function load (port, request, { duration, amount, connections }) {
  const check = { failures: 0, examples: [], improved: 0, responses: 0 }
  const latencies = []
  const instance = autocannon({
    url: `http://127.0.0.1:${port}`,
    connections,
    pipelining: 1,
    timeout: 10,
    ...(amount === undefined ? { duration } : { amount }),
    requests: [{
      ...request,
      onResponse (status, body) {
        check.responses++
        if (status < 200 || status > 299 || !body.includes('"ok":true')) {
          check.failures++
          if (check.examples.length < 3) check.examples.push(`HTTP ${status} ${body.slice(0, 300)}`)
        } else if (body.includes('"improved":true')) {
          check.improved++
        }
      }
    }]
  })
  instance.on('response', (_client, _status, _bytes, responseTime) => { latencies.push(responseTime) })
  const result = await instance
  const failed = check.failures + result.errors + result.mismatches
  if (result.errors > 0 && check.examples.length < 3) check.examples.push(`${result.errors} connection errors, ${result.timeouts} of them timeouts`)
  return { result, latencies, check, failed }
}

function percentile (sorted, p) {
  if (sorted.length === 0) return NaN
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p / 100 * sorted.length) - 1))]
}

/**
 * Commands seen by MONITOR while `probe` runs: top-level and inside scripts
 * ("[0 lua]"), by name. A plain socket: ioredis's monitor mode can lose track
 * of its replies under a heavy stream.
 */
async function monitorProbe (port, probe) {
  const topLevel = {}
  const inScripts = {}
  const socket = connect(port, '127.0.0.1')
  socket.setEncoding('utf8')
  let buffered = ''
  let started
  const ready = new Promise((resolve, reject) => { started = resolve; socket.once('error', reject) })
  socket.on('data', (chunk) => {
    buffered += chunk
    const lines = buffered.split('\r\n')
    buffered = lines.pop()
    for (const line of lines) {
      if (line === '+OK') { started(); continue }
      const match = /^\+[\d.]+ \[\d+ ([^\]]+)\] "([^"]+)"/.exec(line)
      if (match === null) continue
      const into = match[1] === 'lua' ? inScripts : topLevel
      const name = match[2].toLowerCase()
      into[name] = (into[name] ?? 0) + 1
    }
  })
  socket.write('MONITOR\r\n')
  await ready
  let responses
  try {
    responses = await probe()
    await sleep(150)
  } finally {
    socket.destroy()
  }
  return { topLevel, inScripts, responses }
}

// ---------------------------------------------------------------- scenarios

/** A feed of requests rotating through a pool; `sent` counts what was used. */
function rotating (pool, apply) {
  const feed = { sent: 0, poolSize: pool.length }
  feed.setupRequest = (req) => {
    apply(req, pool[feed.sent % pool.length])
    feed.sent++
    return req
  }
  return feed
}

/**
 * Pre-signed submit bodies for random seeded players: about half improve the
 * player's best (by 1..1000), the others are at or below it. `commit` moves
 * the mirror's bests forward for the bodies that were sent.
 */
function submitPool (board, key, size) {
  const ts = String(Math.floor(Date.now() / 1000))
  const pending = new Map()
  const bodies = new Array(size)
  const players = new Int32Array(size)
  const scores = new Float64Array(size)
  for (let k = 0; k < size; k++) {
    const i = randInt(board.size)
    const current = pending.get(i) ?? board.best[i]
    const score = rng() < 0.5 ? current + 1 + randInt(1000) : randInt(current + 1)
    if (score > current) pending.set(i, score)
    players[k] = i
    scores[k] = score
    const fields = { api_key: key.api_key, game_id: board.gameId, player_name: playerName(i), score: String(score), ts }
    // every value is URL-safe as it is (hex, digits, [A-Za-z0-9_])
    bodies[k] = Buffer.from(`api_key=${fields.api_key}&game_id=${fields.game_id}&player_name=${fields.player_name}&score=${fields.score}&ts=${ts}&sign=${computeSignature(key.api_secret, fields)}`)
  }
  const feed = rotating(bodies, (req, body) => { req.body = body })
  return {
    request: { method: 'POST', path: '/api/rank?action=submit', headers: FORM, setupRequest: feed.setupRequest },
    commit: () => commitScores(board, players, scores, feed.sent),
    feed
  }
}

/** submit-self over many sessions (user i is seeded player i): same mix as submit. */
function submitSelfPool (board, sessions, size) {
  const users = Math.min(sessions.length, board.size)
  const pending = new Map()
  const pool = new Array(size)
  const players = new Int32Array(size)
  const scores = new Float64Array(size)
  for (let k = 0; k < size; k++) {
    const i = randInt(users)
    const current = pending.get(i) ?? board.best[i]
    const score = rng() < 0.5 ? current + 1 + randInt(1000) : randInt(current + 1)
    if (score > current) pending.set(i, score)
    players[k] = i
    scores[k] = score
    pool[k] = { cookie: sessions[i], body: Buffer.from(`game_id=${board.gameId}&score=${score}`) }
  }
  const feed = rotating(pool, (req, item) => { req.headers.cookie = item.cookie; req.body = item.body })
  return {
    request: { method: 'POST', path: '/api/rank?action=submit-self', headers: FORM, setupRequest: feed.setupRequest },
    commit: () => commitScores(board, players, scores, feed.sent),
    feed
  }
}

function commitScores (board, players, scores, sent) {
  for (let k = 0; k < Math.min(sent, players.length); k++) {
    const i = players[k]
    if (scores[k] > board.best[i]) board.best[i] = scores[k]
  }
}

function mePool (board, key, size) {
  const paths = Array.from({ length: size }, () =>
    `/api/rank?action=me&api_key=${key.api_key}&game_id=${board.gameId}&player_name=${playerName(randInt(board.size))}`)
  const feed = rotating(paths, (req, path) => { req.path = path })
  return { request: { method: 'GET', path: paths[0], setupRequest: feed.setupRequest }, feed }
}

function sessionPool (sessions, method, path, body) {
  const pool = sessions.map(cookie => cookie)
  for (let k = pool.length - 1; k > 0; k--) {
    const j = randInt(k + 1)
    ;[pool[k], pool[j]] = [pool[j], pool[k]]
  }
  const feed = rotating(pool, (req, cookie) => { req.headers.cookie = cookie })
  return {
    request: { method, path, ...(body === undefined ? {} : { headers: FORM, body }), setupRequest: feed.setupRequest },
    feed
  }
}

// ---------------------------------------------------------------- report helpers

/** Other processes' CPU use (in CPUs) from which a scenario's figures are flagged as disturbed. */
const DISTURBED = 0.2
const fmt = (value, digits = 2) => Number.isFinite(value) ? value.toFixed(digits) : 'n/a'
const int = (value) => Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : 'n/a'

/** align: one letter per column, l or r. */
function markdownTable (header, rows, align) {
  const widths = header.map((title, c) => Math.max(title.length, ...rows.map(row => String(row[c]).length)))
  const left = (c) => align[c] === 'l'
  const line = (cells) => `| ${cells.map((cell, c) => left(c) ? String(cell).padEnd(widths[c]) : String(cell).padStart(widths[c])).join(' | ')} |`
  return [line(header), `|${widths.map((w, c) => left(c) ? `-${'-'.repeat(w)}-` : `-${'-'.repeat(w)}:`).join('|')}|`, ...rows.map(line)].join('\n')
}

function perRequest (counts, n) {
  return Object.entries(counts).sort((a, b) => b[1] - a[1]).map(([name, calls]) => `${name} ${fmt(calls / n)}`).join(', ')
}

// ---------------------------------------------------------------- the run

const started = Date.now()
const failures = []
const passes = []
let redisServer
let service
let floor
let redis
let statsRedis

try {
  console.log(`bench: ${smoke ? 'SMOKE run' : 'full run'}: boards ${opts.boards.map(sizeLabel).join(', ')}; WORKERS ${opts.workers.join(', ')}; ` +
    `${opts.connections} connections, ${opts.warmup} s warm-up + ${opts.duration} s per scenario, pipelining 1`)

  redisServer = await startRedis()
  redis = new Redis({ port: redisServer.port, host: '127.0.0.1' })
  statsRedis = new Redis({ port: redisServer.port, host: '127.0.0.1' })
  for (const client of [redis, statsRedis]) client.on('error', (error) => { console.error(`bench: Redis client: ${error.message}`) })
  const redisVersion = parseInfo(await redis.info('server')).fields.redis_version
  console.log(`bench: redis-server ${redisVersion} on 127.0.0.1:${redisServer.port} (persistence off)`)

  service = await startService(redisServer.port, opts.workers[0])
  console.log(`bench: service on ${service.base} (WORKERS=${opts.workers[0]})`)

  // games, keys, users, sessions: through the admin HTTP API
  const setupStart = Date.now()
  const games = {}
  for (const size of opts.boards) {
    const gameId = gameIdOf(size)
    await call(service.base, 'POST', '/admin/games', { game_id: gameId, name: `Bench ${sizeLabel(size)}`, developer: 'bench', approved: true })
    games[size] = { gameId, key: await call(service.base, 'POST', '/admin/keys', { game_id: gameId }) }
  }
  await inParallel(opts.users, 32, i => call(service.base, 'POST', '/admin/users', { username: playerName(i) }))
  let cookieName = 'sid'
  const sessions = await inParallel(opts.users, 32, async i => {
    const session = await call(service.base, 'POST', '/admin/sessions', { username: playerName(i) })
    cookieName = session.cookie_name
    return session.session_id
  })
  const cookies = sessions.map(id => `${cookieName}=${id}`)
  console.log(`bench: ${opts.boards.length} games with keys, ${opts.users} users and sessions in ${fmt((Date.now() - setupStart) / 1000, 1)} s`)

  // boards, straight into Redis
  const boards = {}
  const seeding = []
  let memory
  const largest = Math.max(...opts.boards)
  for (const size of [...opts.boards].sort((a, b) => a - b)) {
    const gameId = gameIdOf(size)
    const before = parseInfo(await redis.info('memory')).fields
    const seedStart = Date.now()
    boards[size] = await seedBoard(redis, gameId, size)
    const seconds = (Date.now() - seedStart) / 1000
    seeding.push(`${int(size)} in ${fmt(seconds, 1)} s`)
    if (size === largest) {
      await sleep(200)
      const after = parseInfo(await redis.info('memory')).fields
      const boardBytes = await redis.call('MEMORY', 'USAGE', keys.board(gameId), 'SAMPLES', '5000')
      // The entries are spread over many small hashes: add up every bucket's size.
      let entriesBytes = 0
      const bucketKeys = new Set()
      for (let i = 0; i < size; i++) bucketKeys.add(keys.entries(gameId, playerName(i)))
      const bucketList = [...bucketKeys]
      for (let i = 0; i < bucketList.length; i += 500) {
        const pipeline = redis.pipeline()
        for (const key of bucketList.slice(i, i + 500)) pipeline.call('MEMORY', 'USAGE', key, 'SAMPLES', '0')
        for (const [error, bytes] of await pipeline.exec()) {
          if (error) throw error
          entriesBytes += Number(bytes)
        }
      }
      memory = {
        size,
        usedBefore: Number(before.used_memory),
        usedAfter: Number(after.used_memory),
        perEntry: (Number(after.used_memory) - Number(before.used_memory)) / size,
        boardPerEntry: boardBytes / size,
        entriesPerEntry: entriesBytes / size,
        encodings: [await redis.object('ENCODING', keys.board(gameId)), await redis.object('ENCODING', keys.entries(gameId, playerName(0)))]
      }
    }
    await verifySeed(service, boards[size], games[size].key.api_key)
    console.log(`bench: seeded ${gameId}: ${int(size)} players in ${fmt(seconds, 1)} s (${int(size / seconds)} entries/s), checked through the API`)
  }

  const duration = opts.duration
  const warmup = opts.warmup
  const connections = opts.connections
  /** Pre-signed bodies per second of load: enough not to repeat below 30,000 req/s (or twice the warm-up's rate). */
  const WARMUP_POOL_PER_S = 30_000
  const MAIN_POOL_PER_S = 30_000
  const smallest = Math.min(...opts.boards)

  for (const [passIndex, workers] of opts.workers.entries()) {
    if (passIndex > 0) {
      await stopProcess(service.child)
      service = await startService(redisServer.port, workers)
    }
    const processes = processCount(service.child)
    console.log(`\nbench: WORKERS=${workers}: service ${service.base}, ${processes} process(es) in its group`)
    const rows = []

    /** makeFeed(poolSize) gives a fresh request feed; redisCost is off for the floor. */
    async function scenario (name, size, port, makeFeed, { redisCost = true } = {}) {
      const waited = await waitForQuiet(opts.quietWait)
      // warm-up: its own feed, its responses checked too
      const warm = makeFeed(WARMUP_POOL_PER_S * warmup)
      const warmRun = await load(port, warm.request, { duration: warmup, connections })
      warm.commit?.()
      // sized from the warm-up's rate, so pre-signed bodies are (almost) never reused
      const warmRate = warmRun.result.requests.total / Math.max(0.1, warmRun.result.duration)
      const main = makeFeed(Math.max(MAIN_POOL_PER_S * duration, Math.ceil(warmRate * duration * 2)))
      const before = redisCost ? await redisStats(statsRedis) : undefined
      const cpuBefore = cpuSnapshot()
      const run = await load(port, main.request, { duration, connections })
      const cpu = otherCpu(cpuBefore, cpuSnapshot())
      const after = redisCost ? await redisStats(statsRedis) : undefined
      main.commit?.()
      let probe
      if (redisCost) {
        const extra = makeFeed(opts.probeRequests + connections)
        probe = await monitorProbe(redisServer.port, async () => {
          const probeRun = await load(port, extra.request, { amount: opts.probeRequests, connections: 4 })
          if (probeRun.failed > 0) run.check.examples.push(...probeRun.check.examples)
          run.failed += probeRun.failed
          return probeRun.check.responses
        })
        extra.commit?.()
      }
      const sorted = Float64Array.from(run.latencies).sort()
      const ok = run.result.requests.total
      const row = {
        name,
        size,
        rps: ok / run.result.duration,
        p50: percentile(sorted, 50),
        p99: percentile(sorted, 99),
        responses: run.check.responses,
        improved: run.check.improved / Math.max(1, run.check.responses),
        wrapped: main.feed !== undefined && main.feed.sent > main.feed.poolSize,
        failed: run.failed + warmRun.failed,
        examples: [...warmRun.check.examples, ...run.check.examples],
        cpu,
        waited
      }
      if (before !== undefined) {
        const delta = diffStats(before, after)
        const n = Math.max(1, run.check.responses)
        let topLevel = 0
        const topNames = {}
        const scriptNames = {}
        for (const [command, calls] of Object.entries(delta.commands)) {
          const seenTop = probe.topLevel[command] ?? 0
          const seenLua = probe.inScripts[command] ?? 0
          const topShare = seenTop + seenLua === 0 ? 1 : seenTop / (seenTop + seenLua)
          topLevel += calls * topShare
          if (topShare > 0) topNames[command] = calls * topShare
          if (topShare < 1) scriptNames[command] = calls * (1 - topShare)
        }
        if (Math.abs(Object.values(delta.commands).reduce((a, b) => a + b, 0) - delta.total) > 0.01 * delta.total + 2) {
          console.log(`bench: note: ${name}: commandstats calls and total_commands_processed disagree (${JSON.stringify(delta)})`)
        }
        row.redis = {
          commands: delta.total / n,
          topLevel: topLevel / n,
          reads: delta.reads / n,
          topNames: perRequest(topNames, n),
          scriptNames: perRequest(scriptNames, n),
          probe: `top-level ${perRequest(probe.topLevel, probe.responses)}; in scripts ${perRequest(probe.inScripts, probe.responses) || '-'}`
        }
      }
      rows.push(row)
      if (row.failed > 0) {
        failures.push({ workers, name, size, failed: row.failed, examples: row.examples })
        console.log(`bench: FAILED ${name} ${size === undefined ? '' : sizeLabel(size)}: ${row.failed} responses failed; e.g. ${row.examples.join(' / ')}`)
      }
      if (exited(service.child)) throw new Error(`the service exited during ${name}:\n${logTail(service.child)}`)
      const label = size === undefined ? name : `${name} ${sizeLabel(size)}`
      console.log(`bench:   ${label.padEnd(17)} ${int(row.rps).padStart(7)} req/s  p50 ${fmt(row.p50)} ms  p99 ${fmt(row.p99)} ms` +
        (row.redis === undefined ? '' : `  redis ${fmt(row.redis.commands)} cmds, ${fmt(row.redis.topLevel)} top-level, ${fmt(row.redis.reads)} reads /req`) +
        (name.startsWith('submit') ? `  improved ${fmt(row.improved * 100, 0)}%` : '') +
        (row.cpu.others + row.cpu.steal >= DISTURBED ? `  (other processes used ${fmt(row.cpu.others)} CPUs, steal ${fmt(row.cpu.steal)})` : ''))
      return row
    }

    // the floor at the start and at the end of the pass; ratios are to the mean of the two
    floor = await startFloor()
    const floorFeed = () => ({ request: { method: 'GET', path: '/' } })
    const floorStart = await scenario('floor', undefined, floor.port, floorFeed, { redisCost: false })

    for (const size of opts.boards) {
      const board = boards[size]
      const { key } = games[size]
      const topPath = (limit) => `/api/rank?action=top&api_key=${key.api_key}&game_id=${board.gameId}&limit=${limit}`
      await scenario('submit', size, service.port, n => submitPool(board, key, n))
      await scenario('top20', size, service.port, () => ({ request: { method: 'GET', path: topPath(20) } }))
      await scenario('top100', size, service.port, () => ({ request: { method: 'GET', path: topPath(100) } }))
      await scenario('me', size, service.port, () => mePool(board, key, smoke ? 2000 : 20_000))
      await scenario('submit-self', size, service.port, n => submitSelfPool(board, cookies, n))
    }
    // play time and ratings do not touch the board: run once, on the smallest board's game
    const gameId = gameIdOf(smallest)
    await scenario('playtime', undefined, service.port, () => sessionPool(cookies, 'POST', '/api/playtime', `game_id=${gameId}&seconds=30`))
    await scenario('rate-get', undefined, service.port, () => sessionPool(cookies, 'GET', `/api/rate?game_id=${gameId}`))

    const floorEnd = await scenario('floor (end)', undefined, floor.port, floorFeed, { redisCost: false })
    await stopProcess(floor.child)
    const floorRow = { rps: (floorStart.rps + floorEnd.rps) / 2 }
    for (const row of rows) row.ratio = row.rps / floorRow.rps
    const log = readFileSync(service.logPath, 'utf8').trim()
    passes.push({ workers, processes, rows, floorRow, logLines: log === '' ? [] : log.split('\n') })
  }

  // ---------------------------------------------------------------- report
  const report = []
  const push = (...lines) => report.push(...lines)
  push(`Scenarios: ${opts.connections} connections, pipelining 1, ${opts.warmup} s warm-up then ${opts.duration} s measured, each; ` +
    'p50/p99 over every response of the measured part. "x floor" is req/s over the mean of the two floor runs of the same pass.', '')
  push('Redis per request: "cmds" counts every command Redis ran, including those run inside Lua scripts (INFO stats total_commands_processed; ' +
    'commandstats gives the same sum); "top-level" the commands the service itself sent, i.e. the Redis round trips on the request\'s path ' +
    `(commandstats split into top-level and in-script with a MONITOR probe of ${opts.probeRequests} requests after each scenario); ` +
    '"reads" Redis read events (INFO stats total_reads_processed), fewer than the round trips when commands of concurrent requests arrive in one read. ' +
    'The INFO calls of the harness are subtracted. "other CPU": CPUs\' worth of time used during the measured part by processes that are not part of the run, plus hypervisor steal ' +
    '(/proc/stat minus the CPU time of the harness, the service, redis-server and the floor); near 0 on a quiet box.', '')
  for (const pass of passes) {
    push(`### WORKERS=${pass.workers} (${pass.processes} service process${pass.processes === 1 ? '' : 'es'})`, '')
    push(markdownTable(
      ['scenario', 'board', 'req/s', 'p50 ms', 'p99 ms', 'x floor', 'cmds/req', 'top-level/req', 'reads/req', 'other CPU'],
      pass.rows.map(row => [
        row.name, row.size === undefined ? '-' : sizeLabel(row.size), int(row.rps), fmt(row.p50), fmt(row.p99),
        fmt(row.ratio), row.redis === undefined ? '-' : fmt(row.redis.commands), row.redis === undefined ? '-' : fmt(row.redis.topLevel),
        row.redis === undefined ? '-' : fmt(row.redis.reads),
        fmt(row.cpu.others + row.cpu.steal)
      ]),
      'llrrrrrrrr'
    ), '')
    const submits = pass.rows.filter(row => row.name.startsWith('submit'))
    push(`Submits that improved the best: ${submits.map(row => `${row.name} ${sizeLabel(row.size)} ${fmt(row.improved * 100, 0)}%${row.wrapped ? ' (pool reused)' : ''}`).join(', ')}.`, '')
    const disturbed = pass.rows.filter(row => row.cpu.others + row.cpu.steal >= DISTURBED)
    if (disturbed.length > 0) push(`**Disturbed:** other processes on the box used ${DISTURBED} CPUs or more during ${disturbed.map(row => `${row.name}${row.size === undefined ? '' : ` ${sizeLabel(row.size)}`}`).join(', ')}; those figures are not representative.`, '')
    if (pass.logLines.length > 0) push(`Service log at warn and above: ${pass.logLines.length} line(s), first: \`${pass.logLines[0].slice(0, 300)}\``, '')
  }
  const firstPass = passes[0]
  push('### Redis commands per request, by name', '')
  push(markdownTable(['scenario', 'board', 'top-level (under load)', 'inside scripts (under load)'],
    firstPass.rows.filter(row => row.redis !== undefined).map(row => [row.name, row.size === undefined ? '-' : sizeLabel(row.size), row.redis.topNames, row.redis.scriptNames || '-']), 'llll'), '')
  push(`(From the WORKERS=${firstPass.workers} pass.)`, '')
  push(`### Memory at ${int(memory.size)} players`, '')
  push(`- INFO memory used_memory grew by ${int(memory.usedAfter - memory.usedBefore)} bytes while the board was seeded: **${fmt(memory.perEntry, 1)} bytes per board entry** (board zset + entries hash together).`)
  push(`- MEMORY USAGE ... SAMPLES 5000: board zset ${fmt(memory.boardPerEntry, 1)} + entries hash ${fmt(memory.entriesPerEntry, 1)} = ${fmt(memory.boardPerEntry + memory.entriesPerEntry, 1)} bytes per entry (encodings ${memory.encodings.join(' / ')}; player names \`bench_user_<i>\`, ${playerName(memory.size - 1).length} characters at most).`, '')

  push('### Targets', '')
  const checks = []
  const check = (pass, text) => checks.push(`${pass ? 'PASS' : 'FAIL'} ${text}`)
  const one = passes.find(pass => pass.workers === 1)
  if (one !== undefined) {
    for (const row of one.rows.filter(row => ['submit', 'submit-self', 'top20', 'me'].includes(row.name))) {
      check(row.ratio >= 0.6, `${row.name} ${sizeLabel(row.size)} with one worker: ${int(row.rps)} req/s = ${fmt(row.ratio * 100, 0)}% of the floor's ${int(one.floorRow.rps)} (target >= 60%)`)
    }
  } else {
    checks.push('n/a  rps vs floor with one worker: WORKERS=1 was not run')
  }
  const big = opts.boards.includes(1_000_000)
  const small = opts.boards.includes(1000)
  for (const pass of passes) {
    if (!big || !small) {
      checks.push(`n/a  p99 at 1M vs 1k (WORKERS=${pass.workers}): needs boards of 1k and 1M`)
      break
    }
    for (const name of ['submit', 'top20', 'top100', 'me', 'submit-self']) {
      const at1k = pass.rows.find(row => row.name === name && row.size === 1000)
      const at1m = pass.rows.find(row => row.name === name && row.size === 1_000_000)
      check(at1m.p99 <= 1.3 * at1k.p99, `${name} p99 at 1M ${fmt(at1m.p99)} ms vs 1k ${fmt(at1k.p99)} ms = ${fmt(at1m.p99 / at1k.p99)}x (WORKERS=${pass.workers}, target <= 1.3x)`)
    }
  }
  if (memory.size === 1_000_000) check(memory.perEntry <= 200, `${fmt(memory.perEntry, 1)} bytes per board entry at 1M (target <= 200)`)
  else checks.push(`n/a  bytes per entry at 1M: largest board here is ${sizeLabel(memory.size)} (${fmt(memory.perEntry, 1)} bytes per entry)`)
  push(...checks.map(line => `- ${line}`), '')

  if (failures.length > 0) {
    push('### FAILED responses', '')
    for (const f of failures) push(`- WORKERS=${f.workers} ${f.name}${f.size === undefined ? '' : ` ${sizeLabel(f.size)}`}: ${f.failed} failed; e.g. ${f.examples.join(' / ')}`)
    push('')
  }

  const body = report.join('\n')
  console.log(`\n${body}`)
  console.log(`bench: finished in ${fmt((Date.now() - started) / 1000, 0)} s`)

  if (!smoke) {
    if (failures.length > 0) {
      console.log('bench: bench/RESULTS.md left as it was, since responses failed.')
    } else {
      const args = argv.join(' ')
      const command = process.env.npm_lifecycle_event === 'bench' ? `npm run bench${args === '' ? '' : ` -- ${args}`}` : `node bench/run.mjs${args === '' ? '' : ` ${args}`}`
      const cpus = os.cpus()
      const machine = [
        `- OS: ${os.type()} ${os.release()} (${os.arch()})`,
        `- CPU: ${cpus[0]?.model ?? 'unknown'} x ${cpus.length}`,
        `- Memory: ${fmt(os.totalmem() / 2 ** 30, 1)} GiB`,
        `- Node.js ${process.version}, redis-server ${redisVersion}, autocannon ${JSON.parse(readFileSync(join(root, 'node_modules/autocannon/package.json'), 'utf8')).version}`
      ]
      writeFileSync(join(root, 'bench', 'RESULTS.md'), [
        '# Benchmark results', '',
        `The latest figures of \`npm run bench\` (code in \`bench/\`), from ${new Date().toISOString()} (run took ${fmt((Date.now() - started) / 60_000, 1)} min).`, '',
        '```sh', command, '```', '',
        '## Machine', '', ...machine,
        '- Everything on this one box over 127.0.0.1: the autocannon client (one thread, in the harness process), the service, ' +
        'redis-server and the floor server share these CPUs, so the figures are a lower bound of what a dedicated box gives.', '',
        '## Setup', '',
        '- redis-server with the project\'s `redis.conf`, but persistence off (`--save "" --appendonly no`) so seeding is not slowed by disk writes; ' +
        'with AOF `everysec` (the production setting) writes cost a little more.',
        `- The service: \`node dist/src/server.js\` with NODE_ENV=production, LOG_LEVEL=warn, RATE_LIMIT_MAX and SESSION_RATE_LIMIT_MAX raised to 1000000000 (the rate limiter still runs), WORKERS=${opts.workers.join(' then ')}.`,
        `- Boards of ${opts.boards.map(size => int(size)).join(', ')} players, seeded straight into Redis (pipelined HSET/ZADD of 1,000 entries, 10,000 per pipeline, 4 pipelines in flight) with the scripts' stored format (\`encode\` of src/store/leaderboard.ts), then checked through \`me\` and \`top\`: ${seeding.join(', ')}.`,
        `- ${opts.users} users with a session each (admin API); submit-self, playtime and rate-get rotate over them (submit-self over the first min(${opts.users}, board size), all on the board).`,
        '- submit: a pool of pre-signed bodies (fresh ts) for random seeded players; about half raise the player\'s best by 1..1000, the others are at or below it. me: random seeded players.',
        '- playtime (seconds=30) and rate-get do not touch the board, so they run once per pass, on the smallest board\'s game.',
        '- The floor: bench/floor.mjs, a bare Fastify server answering GET / with {"ok":true}, one process, loaded with the same settings at the start and at the end of each pass; "x floor" is to the mean of the two.',
        '- Every response was checked: HTTP 2xx and `"ok":true` (none failed in this run).',
        `- The box is shared: before each scenario the harness waited (up to ${opts.quietWait} s) until processes outside the run used less than ${DISTURBED} CPUs, and the "other CPU" column shows what they used during the measured part.`, '',
        '## Results', '', body
      ].join('\n'))
      console.log('bench: wrote bench/RESULTS.md')
    }
  }
} catch (error) {
  console.error(`bench: ${error.stack ?? error}`)
  process.exitCode = 1
} finally {
  redis?.disconnect()
  statsRedis?.disconnect()
  await stopProcess(floor?.child)
  await stopProcess(service?.child)
  await stopProcess(redisServer?.child)
  cleanupSync()
}

if (failures.length > 0) {
  console.error(`bench: FAILED: responses failed in ${failures.map(f => `${f.name}${f.size === undefined ? '' : ` ${sizeLabel(f.size)}`} (WORKERS=${f.workers}, ${f.failed})`).join(', ')}`)
  process.exitCode = 1
}
