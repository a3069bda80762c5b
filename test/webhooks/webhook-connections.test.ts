import { createServer, type Server } from 'node:http'
import { once } from 'node:events'
import t from 'tap'
import { attemptDelivery } from '../../src/webhooks/send.js'
import { waitFor } from '../helpers/wait.js'

/*
 * Kept connections to a receiver: one the receiver closes just as it is
 * reused is not the receiver failing (the delivery is sent again on a new
 * connection), and a receiver's `Keep-Alive: timeout=N` is heeded, so the
 * service lets the connection go before the receiver does.
 */

const OPTIONS = { timeoutMs: 10_000, allowPrivate: true }

async function listen (t: { teardown: (fn: () => unknown) => void }, server: Server): Promise<string> {
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(() => { server.closeAllConnections(); server.close() })
  const address = server.address()
  return `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}/hook`
}

t.test('a kept connection the receiver closes as it is reused: the delivery goes again on a new one', async t => {
  const served = new WeakSet<object>()
  const seen = { requests: 0, connections: 0, cut: 0 }
  // The receiver answers the first request on each connection and cuts any later one before answering.
  const server = createServer((request, response) => {
    seen.requests++
    request.resume()
    if (served.has(request.socket)) {
      seen.cut++
      request.socket.destroy()
      return
    }
    served.add(request.socket)
    response.end('ok')
  })
  server.keepAliveTimeout = 60_000
  server.on('connection', () => { seen.connections++ })
  const url = await listen(t, server)

  const first = await attemptDelivery(url, 'whsec_dGVzdA==', 'msg_1', '{}', OPTIONS)
  t.same([first.delivered, first.status], [true, 200], 'the first delivery, on a new connection')
  const second = await attemptDelivery(url, 'whsec_dGVzdA==', 'msg_2', '{}', OPTIONS)
  t.same([second.delivered, second.status, second.error], [true, 200, undefined], 'the second is delivered, not "socket hang up"')
  t.same(seen, { requests: 3, connections: 2, cut: 1 }, 'sent on the kept connection, cut, then sent once more on a new one')

  // A receiver that cuts every connection before answering is still a failure, told once, not retried forever.
  const rude = createServer(request => { request.socket.destroy() })
  let rudeRequests = 0
  rude.on('request', () => { rudeRequests++ })
  const rudeUrl = await listen(t, rude)
  const failed = await attemptDelivery(rudeUrl, 'whsec_dGVzdA==', 'msg_3', '{}', OPTIONS)
  t.equal(failed.delivered, false, 'a receiver that never answers is not delivered to')
  t.equal(failed.error, 'socket hang up', 'and the attempt says why')
  t.equal(rudeRequests, 1, 'a new connection cut is not sent again')
})

t.test('a receiver\'s Keep-Alive timeout is heeded: the service closes the idle connection first', async t => {
  const ended: number[] = []
  const server = createServer((request, response) => {
    request.resume()
    response.end('ok')
  })
  // Node's server says `Keep-Alive: timeout=3`, and closes an idle connection after 3 s.
  server.keepAliveTimeout = 3000
  server.on('connection', socket => {
    // 'end' is the other side closing; the server's own timeout destroys the socket without it.
    socket.on('end', () => { ended.push(Date.now()) })
  })
  const url = await listen(t, server)
  const answer = await attemptDelivery(url, 'whsec_dGVzdA==', 'msg_1', '{}', OPTIONS)
  t.equal(answer.delivered, true, 'delivered')
  await waitFor(() => ended.length === 1, { what: 'the service to close the idle connection', timeoutMs: 10_000 })
  t.equal(ended.length, 1, 'the service closed it, before the receiver\'s timeout')
})
