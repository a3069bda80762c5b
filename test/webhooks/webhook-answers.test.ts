import { createServer, type ServerResponse } from 'node:http'
import { once } from 'node:events'
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { admin, buildTestApp, createGame, dataOf, submit, type TestGame } from '../helpers/app.js'
import { waitFor } from '../helpers/wait.js'
import { PER_WEBHOOK_IN_FLIGHT } from '../../src/webhooks/dispatcher.js'
import { MAX_ANSWER_BYTES } from '../../src/webhooks/send.js'

/*
 * What the service reads of a receiver's answer (hardening, round 2, item
 * 3): the status, then at most MAX_ANSWER_BYTES of body. An attempt holds its
 * receiver's slot until its connection is done, so a receiver that answers
 * 200 at once and streams its body slowly gets its 16 attempts at a time, no
 * more (before, each attempt freed its slot at the headers and drained the
 * body for the rest of the timeout: 159 connections from one process).
 */

const FAST = { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_MS: '20', WEBHOOK_RETRY_BASE_MS: '50' }

/** A receiver on loopback that answers each delivery with `answer`, counting its connections open at once. */
async function rawReceiver (t: { teardown: (fn: () => unknown) => void }, answer: (response: ServerResponse) => void) {
  const stats = { requests: 0, open: 0, mostOpen: 0 }
  const server = createServer((request, response) => {
    stats.requests++
    request.resume()
    answer(response)
  })
  server.on('connection', socket => {
    stats.open++
    stats.mostOpen = Math.max(stats.mostOpen, stats.open)
    socket.on('close', () => { stats.open-- })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(() => { server.closeAllConnections(); server.close() })
  const address = server.address()
  return { url: `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}/hook`, stats }
}

/** How many of the webhook's deliveries are done with this status (delivered or dead). */
async function deliveries (app: FastifyInstance, game: TestGame, webhookId: string, status: 'delivered' | 'dead'): Promise<number> {
  const done = dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/webhooks/${webhookId}/deliveries?status=done&limit=100`)).items as Array<{ status: string }>
  return done.filter(delivery => delivery.status === status).length
}

t.test('a receiver that answers 200 and then streams its body slowly holds its slots, no more', { timeout: 120_000 }, async t => {
  const { app } = await buildTestApp(t, { ...FAST, WEBHOOK_TIMEOUT_MS: '1000' })
  const trickles = new Set<NodeJS.Timeout>()
  t.teardown(() => { for (const timer of trickles) clearInterval(timer) })
  // 200 at once, then a byte every 100 ms, never ending: the attempt's timeout ends each connection.
  const receiver = await rawReceiver(t, response => {
    response.writeHead(200, { 'content-type': 'text/plain' })
    const timer = setInterval(() => { response.write('.') }, 100)
    trickles.add(timer)
    response.on('close', () => { clearInterval(timer); trickles.delete(timer) })
  })
  const game = await createGame(app)
  const { webhook_id: webhookId } = dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/webhooks`, { url: receiver.url, events: ['score.best'] }))
  const count = 2 * PER_WEBHOOK_IN_FLIGHT + 8
  for (let i = 1; i <= count; i++) dataOf(await submit(app, game, { player: `p${i}`, score: i }))
  await waitFor(async () => await deliveries(app, game, webhookId, 'delivered') === count, { what: `${count} deliveries delivered`, timeoutMs: 90_000 })
  t.pass(`all ${count} delivered: the status is the answer, the body cut off by the timeout`)
  t.equal(receiver.stats.requests, count, 'each once')
  t.ok(receiver.stats.mostOpen <= PER_WEBHOOK_IN_FLIGHT, `at most ${PER_WEBHOOK_IN_FLIGHT} connections at once (${receiver.stats.mostOpen})`)
  t.ok(receiver.stats.mostOpen >= 2, `attempts did run side by side (${receiver.stats.mostOpen})`)
})

t.test(`a receiver that answers with a large body: the service reads ${MAX_ANSWER_BYTES} bytes of it and closes the connection`, { timeout: 60_000 }, async t => {
  const { app } = await buildTestApp(t, { ...FAST, WEBHOOK_TIMEOUT_MS: '10000' })
  const written: number[] = []
  const closedEarly: boolean[] = []
  const receiver = await rawReceiver(t, response => {
    response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(64 * 1024 * 1024) })
    let sent = 0
    const chunk = Buffer.alloc(64 * 1024, 'x')
    const pump = (): void => {
      while (sent < 64 * 1024 * 1024 && !response.destroyed) {
        sent += chunk.length
        if (!response.write(chunk)) {
          response.once('drain', pump)
          return
        }
      }
      if (!response.destroyed) response.end()
    }
    response.on('close', () => { written.push(sent); closedEarly.push(!response.writableFinished) })
    pump()
  })
  const game = await createGame(app)
  const { webhook_id: webhookId } = dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/webhooks`, { url: receiver.url, events: ['score.best'] }))
  dataOf(await submit(app, game, { player: 'big', score: 1 }))
  await waitFor(async () => await deliveries(app, game, webhookId, 'delivered') === 1 && written.length === 1, { what: 'the delivery, and the receiver\'s connection closed' })
  t.same(closedEarly, [true], 'the service closed the connection before the 64 MB body was written')
  t.ok((written[0] as number) < 64 * 1024 * 1024, `the receiver wrote ${written[0] as number} bytes, kernel buffers included, not 64 MB`)
})

t.test('a receiver that answers with a short body keeps its connection for the next delivery', { timeout: 60_000 }, async t => {
  const { app } = await buildTestApp(t, { ...FAST, WEBHOOK_TIMEOUT_MS: '10000' })
  const receiver = await rawReceiver(t, response => { response.end('thanks') })
  const game = await createGame(app)
  const { webhook_id: webhookId } = dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/webhooks`, { url: receiver.url, events: ['score.best'] }))
  // One after the other: each delivery waits for the one before.
  for (let i = 1; i <= 5; i++) {
    dataOf(await submit(app, game, { player: `k${i}`, score: i }))
    await waitFor(async () => await deliveries(app, game, webhookId, 'delivered') === i, { what: `delivery ${i}` })
  }
  t.equal(receiver.stats.requests, 5)
  t.equal(receiver.stats.mostOpen, 1, 'one connection, kept alive and reused')
})
