import { once } from 'node:events'
import { Agent, request } from 'node:http'
import { connect } from 'node:net'
import t from 'tap'
import { computeSignature } from '../../src/rules/signature.js'
import { IDLE_GRACE_MS } from '../../src/lib/drain.js'
import { CLOSE_GRACE_MS } from '../../src/config.js'
import { freePort, startTestRedis } from '../helpers/redis.js'
import { spawnService, waitForHealth } from '../helpers/service-process.js'
import { waitFor } from '../helpers/wait.js'

/*
 * A rolling restart (src/lib/drain.ts): 30 keep-alive clients submit in a
 * loop through a SIGTERM. Every request the service received is answered,
 * each client is told `Connection: close` (or, after a second of silence,
 * meets HTTP's own race and retries) and then finds the port closed (it
 * would go to another instance), and the process
 * exits within SHUTDOWN_TIMEOUT_MS; a keep-alive client that sends nothing
 * is closed after IDLE_GRACE_MS instead of holding the shutdown.
 */

const ADMIN_TOKEN = 'drain-test-admin-token-0123456789abcdef'
const CLIENTS = 30
// The bound the process must exit within. It ends when drained, about
// IDLE_GRACE_MS after SIGTERM; the bound is far above that, so a busy
// machine cannot reach it, and an exit before it is the drain's own.
const SHUTDOWN_TIMEOUT_MS = 30_000

interface Answer { status: number, connection: string | undefined, body: string }

function send (agent: Agent, port: number, method: string, path: string, body: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ agent, host: '127.0.0.1', port, method, path, headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(Buffer.byteLength(body)), ...headers } }, response => {
      let text = ''
      response.on('data', (chunk: Buffer) => { text += chunk.toString() })
      response.on('end', () => { resolve({ status: response.statusCode ?? 0, connection: response.headers.connection, body: text }) })
      response.on('error', reject)
    })
    req.on('error', reject)
    req.end(body)
  })
}

t.test('30 keep-alive clients through SIGTERM: every request answered, none lost, exit within the bound', { timeout: 180_000 }, async t => {
  const redis = await startTestRedis()
  t.teardown(redis.stop)
  const port = await freePort()
  const service = spawnService(t, { PORT: String(port), REDIS_URL: redis.url, ADMIN_TOKEN, RATE_LIMIT_MAX: '1000000', SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS), LOG_LEVEL: 'warn' })
  await waitForHealth(service, `http://127.0.0.1:${port}`)
  const setup = new Agent({ keepAlive: false })
  const json = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }
  await send(setup, port, 'POST', '/admin/games', JSON.stringify({ game_id: 'drain', approved: true }), json)
  const key = JSON.parse((await send(setup, port, 'POST', '/admin/keys', JSON.stringify({ game_id: 'drain' }), json)).body).data

  const counts = { answered: 0, ok: 0, toldToClose: 0, refused: 0, resetsBeforeSigterm: 0, other: [] as string[] }
  /** For each connection closed under a request: ms between the client's previous answer and that request. */
  const resets: number[] = []
  let sigtermSent = false
  const isReset = (error: unknown): boolean => (error as { code?: string }).code === 'ECONNRESET' || /socket hang up/.test((error as Error).message)
  async function client (index: number): Promise<void> {
    let agent = new Agent({ keepAlive: true, maxSockets: 1 })
    let lastAnswerAt = Date.now()
    for (let n = 0; ; n++) {
      const ts = String(Math.floor(Date.now() / 1000))
      const fields = { api_key: key.api_key, game_id: 'drain', player_name: `p${index}`, score: String(n), ts }
      const body = new URLSearchParams({ ...fields, sign: computeSignature(key.api_secret, fields) }).toString()
      try {
        let answer: Answer
        try {
          answer = await send(agent, port, 'POST', '/api/rank?action=submit', body)
        } catch (error) {
          if (!isReset(error)) throw error
          // HTTP's own race (docs/guide.md, draining): a keep-alive connection
          // silent for IDLE_GRACE_MS is closed just as the client writes on it.
          // The client does what every HTTP client must: the same request once
          // more, on a fresh connection (a signed submit stores nothing twice).
          if (!sigtermSent) counts.resetsBeforeSigterm++
          resets.push(Date.now() - lastAnswerAt)
          agent.destroy()
          agent = new Agent({ keepAlive: true, maxSockets: 1 })
          answer = await send(agent, port, 'POST', '/api/rank?action=submit', body)
        }
        lastAnswerAt = Date.now()
        counts.answered++
        if (JSON.parse(answer.body).ok === true) counts.ok++
        if (answer.connection === 'close') counts.toldToClose++
      } catch (error) {
        const code = (error as { code?: string }).code
        if (code === 'ECONNREFUSED' && sigtermSent) counts.refused++
        else counts.other.push(String(code ?? (error as Error).message))
        agent.destroy()
        return
      }
    }
  }
  // And one keep-alive client that asked once and then sends nothing: it must not hold the shutdown.
  const idle = connect(port, '127.0.0.1')
  let idleAnswer = ''
  idle.on('data', (chunk: Buffer) => { idleAnswer += chunk.toString() })
  const idleClosed = once(idle, 'close')
  idle.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n')

  const running = Array.from({ length: CLIENTS }, async (_, index) => { await client(index) })
  // Every client has had answers on its keep-alive connection before the SIGTERM.
  await waitFor(() => counts.answered >= 3 * CLIENTS, { what: `${3 * CLIENTS} answers before SIGTERM` })
  const before = counts.answered
  const sigtermAt = Date.now()
  sigtermSent = true
  service.child.kill('SIGTERM')
  await Promise.all(running)
  const code = await service.exited
  const exitMs = Date.now() - sigtermAt

  t.ok(before > CLIENTS, `${before} submits answered before SIGTERM`)
  t.equal(counts.resetsBeforeSigterm, 0, 'no connection is closed under a client before the SIGTERM')
  t.same(counts.other, [], 'no other client error')
  t.equal(counts.ok, counts.answered, `every answer of ${counts.answered} was ok:true`)
  // On an idle machine no client is ever silent for a second, and none is
  // reset (0 of 30 in every run there). On a busy one the test's own clients
  // can be (each of their answers took about a second in a run with three
  // test files and two spinning processes on two cores), and the service
  // then closes their connection as idle, which is the documented race: the
  // client that retries loses nothing. What is asserted is that nothing is
  // lost: each client was told to close, or retried, and then found the
  // port closed; every request it sent was answered ok.
  t.comment(`connections closed under a request after SIGTERM: ${resets.length} (ms since that client's previous answer: ${resets.join(', ') || 'none'})`)
  t.equal(counts.toldToClose + resets.length, CLIENTS, 'each keep-alive client was told Connection: close once, or retried after the race')
  t.equal(counts.refused, CLIENTS, 'then found the port closed, to go elsewhere')
  t.equal(code, 0, `clean exit ${service.stderr()}`)
  t.ok(exitMs >= IDLE_GRACE_MS && exitMs < SHUTDOWN_TIMEOUT_MS, `exited ${exitMs} ms after SIGTERM: after the idle connection's grace (${IDLE_GRACE_MS} ms), before the bound (${SHUTDOWN_TIMEOUT_MS} ms)`)
  await idleClosed
  t.match(idleAnswer, /^HTTP\/1\.1 200 OK[\s\S]*Connection: keep-alive[\s\S]*\{"ok":true,"data":\{"redis":"up"\}\}$/, 'the idle client got its one answer, then the service closed its connection')
  t.comment(`drain: ${counts.answered - before} answers after SIGTERM, exit after ${exitMs} ms`)
})

t.test('a client still sending its body at SIGTERM holds the drain until SHUTDOWN_TIMEOUT_MS, no longer, and the exit is clean', { timeout: 120_000 }, async t => {
  // Past Fastify's 10 s plugin timeout, which cut a drain run inside a close hook (AVV_ERR_READY_TIMEOUT, exit 1).
  const shutdownTimeoutMs = 11_000
  const redis = await startTestRedis()
  t.teardown(redis.stop)
  const port = await freePort()
  const service = spawnService(t, { PORT: String(port), REDIS_URL: redis.url, ADMIN_TOKEN, SHUTDOWN_TIMEOUT_MS: String(shutdownTimeoutMs), LOG_LEVEL: 'warn' })
  await waitForHealth(service, `http://127.0.0.1:${port}`)

  // A body of 10,000 bytes announced, one byte sent every 200 ms: never done, never idle.
  const slow = connect(port, '127.0.0.1')
  slow.on('error', () => {})
  const slowClosed = once(slow, 'close')
  slow.write('POST /api/rank?action=submit HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 10000\r\n\r\n')
  const trickle = setInterval(() => { if (!slow.destroyed) slow.write('a') }, 200)
  t.teardown(() => { clearInterval(trickle); slow.destroy() })
  await new Promise(resolve => setTimeout(resolve, 500))

  const sigtermAt = Date.now()
  service.child.kill('SIGTERM')
  const code = await service.exited
  const exitMs = Date.now() - sigtermAt
  await slowClosed
  clearInterval(trickle)
  t.equal(code, 0, `clean exit ${service.stderr()}`)
  t.notMatch(service.stderr(), /AVV_ERR_READY_TIMEOUT/, 'no plugin timeout on the way out')
  // The process's own last resort (close-with-grace) would end it with 1 at SHUTDOWN_TIMEOUT_MS + CLOSE_GRACE_MS.
  t.ok(exitMs >= shutdownTimeoutMs && exitMs < shutdownTimeoutMs + CLOSE_GRACE_MS, `exited ${exitMs} ms after SIGTERM: the sending client was kept until SHUTDOWN_TIMEOUT_MS (${shutdownTimeoutMs} ms), then closed`)
})
