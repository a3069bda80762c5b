import { connect } from 'node:net'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { Readable, Writable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import v8 from 'node:v8'
import vm from 'node:vm'
import t from 'tap'
import { MULTIPART_FIELDS } from '../../plugins/external/forms.js'
import { createGame, dataOf, errorOf, multipartBody, submitFields } from '../helpers/app.js'
import { listeningApp } from '../helpers/listening.js'
import { LAST_CHUNK, chunk, rawRequest } from '../helpers/raw-http.js'
import { waitFor } from '../helpers/wait.js'

/*
 * Item 1 of the hardening issue: a body limit holds whatever the headers
 * claim. Every body is counted as it arrives (plugins/external/forms.ts, capBody), so
 * chunked bodies of any type, multipart included, stop at BODY_LIMIT, and
 * thousands of hostile bodies at once leave the service's memory bounded.
 */

const LIMIT = 16384
const METRICS_TOKEN = 'body-limits-metrics-token-0123456789'
/** What the service logs at level error (50) or above: a hostile client is never an error. */
const errorLines: string[] = []
const logStream = new Writable({
  write (line, _encoding, done) {
    if ((JSON.parse(String(line)) as { level: number }).level >= 50) errorLines.push(String(line).slice(0, 500))
    done()
  }
})
const { app, baseUrl } = await listeningApp(t, { METRICS_TOKEN, LOG_LEVEL: 'warn' }, { logStream })
const port = Number(new URL(baseUrl).port)
const game = await createGame(app)
const SUBMIT = '/api/rank?action=submit'

const head = (path: string, type: string, extra = ''): string =>
  `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: ${type}\r\nTransfer-Encoding: chunked\r\n${extra}\r\n`
const part = (name: string, value: string): string => `--B\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`
const MULTIPART = 'multipart/form-data; boundary=B'

t.test('a chunked multipart body past BODY_LIMIT is payload_too_large, and the connection is closed', async t => {
  const fields = Array.from({ length: 10 }, (_, i) => part(`f${i}`, 'a'.repeat(4000))).join('')
  const answer = await rawRequest(port, head('/auth/login', MULTIPART), [chunk(fields), chunk('--B--\r\n'), LAST_CHUNK])
  t.equal(answer.status, 200)
  t.equal(JSON.parse(answer.body).error, 'payload_too_large')
  t.equal(answer.headers.connection, 'close', 'the rest of the body is never read')
})

t.test('the crash report: 199 multipart fields of 16 KiB, chunked, never finished', async t => {
  const fields = Array.from({ length: 199 }, (_, i) => part(`f${i}`, 'a'.repeat(16384))).join('')
  const answer = await rawRequest(port, head('/auth/login', MULTIPART), [chunk(fields)])
  t.equal(JSON.parse(answer.body).error, 'payload_too_large', 'answered at the limit, not after 3.4 MB')
})

t.test('chunked form-encoded and unknown types past the limit are payload_too_large too', async t => {
  const form = await rawRequest(port, head(SUBMIT, 'application/x-www-form-urlencoded'), [chunk(`a=${'x'.repeat(LIMIT)}`), LAST_CHUNK])
  t.equal(JSON.parse(form.body).error, 'payload_too_large', 'form-encoded')
  const text = await rawRequest(port, head(SUBMIT, 'text/csv'), [chunk('x'.repeat(LIMIT + 10)), LAST_CHUNK])
  t.equal(JSON.parse(text.body).error, 'payload_too_large', 'a type the route does not take')
})

t.test('a multipart body that closes before the limit but keeps sending is still too large', async t => {
  const fields = part('api_key', game.apiKey) + '--B--\r\n' + 'epilogue'.repeat(3000)
  const answer = await rawRequest(port, head(SUBMIT, MULTIPART), [chunk(fields), LAST_CHUNK])
  t.equal(JSON.parse(answer.body).error, 'payload_too_large')
})

t.test('a body of exactly BODY_LIMIT bytes is read whole, chunked or not', async t => {
  const fields = submitFields(game, { player: 'exact', score: 7 })
  const base = Object.entries(fields).map(([name, value]) => part(name, value)).join('')
  const closing = '--B--\r\n'
  const padding = LIMIT - Buffer.byteLength(base + part('pad', '') + closing)
  const body = base + part('pad', 'p'.repeat(padding)) + closing
  t.equal(Buffer.byteLength(body), LIMIT)
  const answer = await rawRequest(port, head(SUBMIT, MULTIPART), [chunk(body.slice(0, 5000)), chunk(body.slice(5000)), LAST_CHUNK])
  t.same(JSON.parse(answer.body), { ok: true, data: { score: 7, improved: true, best_score: 7, rank: 1 } })
  const over = base + part('pad', 'p'.repeat(padding + 1)) + closing
  const answerOver = await rawRequest(port, head(SUBMIT, MULTIPART), [chunk(over), LAST_CHUNK])
  t.equal(JSON.parse(answerOver.body).error, 'payload_too_large', 'one byte more is too large')
})

t.test('headers past 16 KiB and requests that are not HTTP are answered in the envelope, and closed', async t => {
  const big = await rawRequest(port, `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Filler: ${'a'.repeat(20_000)}\r\n\r\n`)
  t.equal(big.status, 200)
  t.same(JSON.parse(big.body), { ok: false, error: 'payload_too_large', message: 'The request headers are too large.' })
  t.equal(big.headers.connection, 'close')
  const garbage = await rawRequest(port, 'NOT HTTP AT ALL\r\n\r\n')
  t.same(JSON.parse(garbage.body), { ok: false, error: 'invalid_body', message: 'The request cannot be parsed as HTTP.' })
  // Garbage behind a good request on the same connection: the good one is answered whole first.
  const behind = await rawRequest(port, 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nNOT HTTP AT ALL\r\n\r\n')
  t.equal(behind.status, 200)
  t.ok(behind.body.startsWith('{"ok":true,"data":{"redis":"up"}}'), `the request before the garbage is answered: ${behind.body.slice(0, 60)}`)
  // Several requests pipelined before the garbage: each is answered, in order, then the error, then the close.
  const pipelined = await readUntilClosed(port, 'GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n'.repeat(3) + 'NOT HTTP AT ALL\r\n\r\nMORE GARBAGE\r\n\r\n')
  const statuses = pipelined.match(/HTTP\/1\.1 \d+/g) ?? []
  t.same(statuses, ['HTTP/1.1 200', 'HTTP/1.1 200', 'HTTP/1.1 200', 'HTTP/1.1 200'], 'three answers and the error')
  t.equal(pipelined.split('{"ok":true,"data":{"redis":"up"}}').length - 1, 3, 'the three requests are answered whole')
  t.ok(pipelined.endsWith('{"ok":false,"error":"invalid_body","message":"The request cannot be parsed as HTTP."}'), 'the error is answered last')
  const smuggled = await rawRequest(port, `POST ${SUBMIT} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`)
  t.equal(JSON.parse(smuggled.body).error, 'invalid_body', 'Content-Length with Transfer-Encoding is refused')
})

t.test('a body that stalls is answered "did not arrive in time" after REQUEST_TIMEOUT_MS, and closed', { timeout: 90_000 }, async t => {
  const slow = await listeningApp(t, { REQUEST_TIMEOUT_MS: '1500' })
  const slowPort = Number(new URL(slow.baseUrl).port)
  const started = Date.now()
  const answer = await rawRequest(slowPort, `POST ${SUBMIT} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\napi`, [], { timeoutMs: 60_000 })
  const seconds = (Date.now() - started) / 1000
  t.same(JSON.parse(answer.body), { ok: false, error: 'invalid_body', message: 'The request did not arrive in time.' })
  t.equal(answer.status, 200)
  t.ok(seconds >= 1.4, `not before the timeout (${seconds.toFixed(1)} s)`)
})

t.test('a stream body without Content-Length is capped in inject too', async t => {
  const { payload, headers } = multipartBody({ f: 'a'.repeat(LIMIT) })
  const response = await app.inject({ method: 'POST', url: SUBMIT, headers, payload: Readable.from([Buffer.from(payload)]) })
  t.equal(errorOf(response), 'payload_too_large')
})

t.test(`more than ${MULTIPART_FIELDS} multipart fields is payload_too_large, however small`, async t => {
  const fields = Array.from({ length: MULTIPART_FIELDS + 1 }, (_, i): [string, string] => [`f${i}`, 'x'])
  const { payload, headers } = multipartBody(fields)
  t.ok(Buffer.byteLength(payload) < LIMIT)
  t.equal(errorOf(await app.inject({ method: 'POST', url: SUBMIT, headers, payload })), 'payload_too_large')
  const { payload: fits, headers: fitsHeaders } = multipartBody(fields.slice(1))
  t.not(errorOf(await app.inject({ method: 'POST', url: SUBMIT, headers: fitsHeaders, payload: fits })), 'payload_too_large', `${MULTIPART_FIELDS} fields are read`)
})

interface AttackReport {
  growthMb: number
  /** What the hostile client saw (test/helpers/hostile-bodies.mjs). */
  client: { codes: Record<string, number>, unanswered: number, open: number }
  /** The answers the service counted for the path meanwhile, by outcome (its own metrics). */
  answered: Record<string, number>
  /** Lines the service logged at level error or above meanwhile. */
  errors: string[]
  healthy: unknown
}

/** ranking_requests_total of a route by outcome, from the service's own /metrics. */
async function outcomes (route: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${baseUrl}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text()
  const counts: Record<string, number> = {}
  for (const line of text.split('\n')) {
    const outcome = line.startsWith(`ranking_requests_total{route="${route}",`) ? /outcome="([a-z_]+)"/.exec(line)?.[1] : undefined
    if (outcome !== undefined) counts[outcome] = Number(line.slice(line.lastIndexOf(' ') + 1))
  }
  return counts
}

/** Runs test/helpers/hostile-bodies.mjs against the service and measures this process meanwhile. */
async function underAttack (mode: 'oversized' | 'stalled', connections: number, path: string): Promise<AttackReport> {
  const route = path.split('?')[0] as string
  const answeredBefore = await outcomes(route)
  const errorsBefore = errorLines.length
  v8.setFlagsFromString('--expose-gc')
  const gc = vm.runInNewContext('gc') as () => void
  gc()
  const usage = (): number => { const { heapUsed, arrayBuffers } = process.memoryUsage(); return heapUsed + arrayBuffers }
  const before = usage()
  let peak = before
  const sampler = setInterval(() => { peak = Math.max(peak, usage()) }, 10)
  const script = fileURLToPath(new URL('../helpers/hostile-bodies.mjs', import.meta.url))
  const attacker = spawn(process.execPath, [script, String(port), mode, String(connections), path], { stdio: ['pipe', 'pipe', 'inherit'] })
  const exited = once(attacker, 'exit')
  let output = ''
  attacker.stdout.on('data', (data: Buffer) => { output += String(data) })
  await waitFor(() => output.includes('ready\n') || attacker.exitCode !== null, { what: 'every hostile connection has written its body', timeoutMs: 120_000 })
  if (!output.includes('ready\n')) throw new Error('the attacker exited early')
  // The service answers others while the attack goes on.
  const healthy = await (await fetch(`${baseUrl}/healthz`)).json()
  attacker.stdin.end()
  await exited
  clearInterval(sampler)
  const client = JSON.parse(output.split('\n').filter(line => line.startsWith('{')).pop() ?? '{}')
  // The service counts an answer once it has gone out: every one the client saw, at least.
  const answeredSince = async (): Promise<Record<string, number>> => {
    const now = await outcomes(route)
    return Object.fromEntries(Object.entries(now).map(([outcome, count]) => [outcome, count - (answeredBefore[outcome] ?? 0)]).filter(([, count]) => count !== 0))
  }
  const seen = Object.values(client.codes as Record<string, number>).reduce((sum, count) => sum + count, 0)
  await waitFor(async () => Object.values(await answeredSince()).reduce((sum, count) => sum + count, 0) >= seen, { what: 'the service has counted the answers the client saw' })
  return { growthMb: (peak - before) / 1e6, client, answered: await answeredSince(), errors: errorLines.slice(errorsBefore), healthy }
}

t.test('2,000 connections sending the crash report at once: memory stays bounded, the service answers', { timeout: 120_000 }, async t => {
  const { growthMb, client, answered, errors, healthy } = await underAttack('oversized', 2000, '/auth/login')
  t.comment(`peak growth ${growthMb.toFixed(1)} MB; the client saw ${JSON.stringify(client)}; the service answered ${JSON.stringify(answered)}`)
  t.same(healthy, { ok: true, data: { redis: 'up' } }, '/healthz answers during the attack')
  t.same(Object.keys(client.codes), ['payload_too_large'], 'every answer that reached the client is payload_too_large, and nothing else')
  t.same(Object.keys(answered), ['payload_too_large'], 'every hostile body the service read was refused at the limit (its own count)')
  t.ok((answered.payload_too_large ?? 0) >= (client.codes.payload_too_large ?? 0) && (answered.payload_too_large ?? 0) <= 2000, `${answered.payload_too_large ?? 0} refusals: each answer the client saw, at most one per connection`)
  // Not every connection gets its answer to the client, and that is the
  // client's side, not the service's: an answer written while the client is
  // still sending can be lost to the reset that closing a socket with unread
  // bytes sends (or to the client's own write error, EPIPE); and when 2,000
  // connections arrive at once, past the listen backlog (511), while this
  // process is busy, the kernel resets some before the service has accepted
  // them (seen: up to 350 of 2,000 on a busy 2-core machine, each one absent
  // from the server's 'connection' events). What must not happen is a
  // connection the service holds open, or any other answer.
  t.equal(client.open, 0, 'no connection is left open')
  t.equal((client.codes.payload_too_large ?? 0) + client.unanswered, 2000, 'each connection was answered or closed')
  t.same(errors, [], 'nothing logged at level error')
  // Unbounded, this is 2,000 × 3.4 MB; bounded, a few KB of parser state per connection.
  t.ok(growthMb < 200, `peak memory growth ${growthMb.toFixed(1)} MB < 200 MB`)
})

t.test('2,000 connections holding bodies just under the limit: memory grows by a bounded amount each', { timeout: 120_000 }, async t => {
  const { growthMb, healthy } = await underAttack('stalled', 2000, SUBMIT)
  t.comment(`peak growth ${growthMb.toFixed(1)} MB`)
  t.same(healthy, { ok: true, data: { redis: 'up' } }, '/healthz answers while 2,000 bodies are held')
  // Each open request holds at most BODY_LIMIT of body plus its socket, parser and request objects.
  t.ok(growthMb < 2000 * 64 * 1024 / 1e6, `peak memory growth ${growthMb.toFixed(1)} MB < 2,000 × 64 KiB`)
})

t.test('the 2,000 held connections end: no error is logged for them, and the next submit is stored', { timeout: 60_000 }, async t => {
  const errorsBefore = errorLines.length
  // Sent at once, while the service is still busy with the connections the attacker just closed:
  // it may be answered late, never `unavailable` (the command timeout measures Redis, not this process).
  const response = await app.inject({ method: 'POST', url: SUBMIT, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(submitFields(game, { player: 'after', score: 3 })).toString() })
  t.same(dataOf(response), { score: 3, improved: true, best_score: 3, rank: 2 })
  // (The test's own keep-alive fetches may keep a few open.)
  await waitFor(async () => await openConnections() < 10, { what: 'the held connections are closed', timeoutMs: 30_000 })
  t.same(errorLines.slice(errorsBefore), [], 'a client that leaves mid-body is not an error (no 500, no stack trace)')
})

async function openConnections (): Promise<number> {
  return await new Promise((resolve, reject) => { app.server.getConnections((error, count) => { if (error === null) resolve(count); else reject(error) }) })
}

/** Writes `text` on a fresh connection and reads everything until the server closes it. */
async function readUntilClosed (port: number, text: string): Promise<string> {
  return await new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    const chunks: Buffer[] = []
    const timer = setTimeout(() => { socket.destroy(); reject(new Error('the server did not close the connection')) }, 10_000)
    socket.on('data', chunk => chunks.push(chunk))
    socket.on('error', () => {})
    socket.on('close', () => { clearTimeout(timer); resolve(Buffer.concat(chunks).toString('utf8')) })
    socket.write(text)
  })
}
