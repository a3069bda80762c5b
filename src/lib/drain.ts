import { Server as NetServer, type Socket } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import type { ServerResponse } from 'node:http'
import type { FastifyInstance } from 'fastify'

/** A connection with nothing in flight and nothing received for this long is closed while draining. */
export const IDLE_GRACE_MS = 1000

interface ConnectionState {
  /** Requests received on it and not yet answered. */
  inFlight: number
  /** The answers being written on it (a live stream's among them). */
  responses: Set<ServerResponse>
  /** When it last finished an answer or received bytes. */
  lastActivity: number
  bytesRead: number
}

/**
 * A rolling restart that loses nothing. When the service closes (SIGTERM):
 *
 * 1. it stops accepting connections, but keeps the ones it has (Node's
 *    http.Server#close would also drop idle keep-alive sockets at once, and
 *    a request already on its way over one of them would meet a reset);
 * 2. every answer from then on says `Connection: close`, so each keep-alive
 *    client finishes what it sent and opens its next connection elsewhere;
 * 3. a connection with nothing in flight and nothing received for
 *    IDLE_GRACE_MS is closed (a client that sends nothing cannot hold the
 *    shutdown; one that is sending is never cut);
 * 4. live streams (Server-Sent Events) end at once: their clients reconnect
 *    to another process;
 * 5. after `timeoutMs` whatever is left is closed and shutdown goes on.
 *
 * Fastify's own close (and Redis's) follow once the connections are gone:
 * the service's close awaits `drain()` first, outside Fastify's close,
 * whose hooks avvio cuts at its plugin timeout (10 s) with
 * AVV_ERR_READY_TIMEOUT however long SHUTDOWN_TIMEOUT_MS allows.
 */
export function drainOnClose (fastify: FastifyInstance, timeoutMs: number): { drain: () => Promise<void> } {
  const connections = new Map<Socket, ConnectionState>()
  let draining = false

  fastify.server.on('connection', (socket: Socket) => {
    connections.set(socket, { inFlight: 0, responses: new Set(), lastActivity: Date.now(), bytesRead: 0 })
    socket.once('close', () => { connections.delete(socket) })
  })
  fastify.server.on('request', (request, response) => {
    const state = connections.get(request.socket)
    if (state === undefined) return
    state.inFlight++
    state.responses.add(response)
    response.once('close', () => {
      state.inFlight--
      state.responses.delete(response)
      state.lastActivity = Date.now()
    })
  })
  // onSend, not onRequest: requests already in flight when draining starts are told too.
  fastify.addHook('onSend', (request, reply, payload, done) => {
    if (draining) reply.header('connection', 'close')
    done(null, payload)
  })

  async function drain (): Promise<void> {
    if (draining) return
    draining = true
    // Stop accepting: net.Server's close leaves open connections alone.
    NetServer.prototype.close.call(fastify.server)
    // A live stream never ends by itself: it ends now, and its client reconnects to another process.
    for (const state of connections.values()) {
      for (const response of state.responses) if (String(response.getHeader('content-type') ?? '').startsWith('text/event-stream')) response.end()
    }
    const deadline = Date.now() + timeoutMs
    while (connections.size > 0 && Date.now() < deadline) {
      const now = Date.now()
      for (const [socket, state] of connections) {
        if (socket.bytesRead !== state.bytesRead) {
          state.bytesRead = socket.bytesRead
          state.lastActivity = now
        } else if (state.inFlight === 0 && now - state.lastActivity >= IDLE_GRACE_MS) {
          socket.destroy()
        }
      }
      await sleep(50)
    }
    const left = connections.size
    for (const socket of connections.keys()) socket.destroy()
    if (left > 0) fastify.log.warn({ connections: left }, `connections still open after SHUTDOWN_TIMEOUT_MS (${timeoutMs} ms) were closed`)
  }
  return { drain }
}
