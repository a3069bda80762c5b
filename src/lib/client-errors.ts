import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyInstance } from 'fastify'

/**
 * A request Node cannot parse as HTTP (or that times out, or whose headers
 * are too large) never reaches a route: it is answered here, in the envelope
 * like everything else, and the connection is closed. Its raw bytes, which
 * carry the client's headers, are never logged. Only the first error of a
 * connection is handled: the socket stops being read, so a client sending
 * more garbage adds nothing.
 */
const failedSockets = new WeakSet<Socket>()

/** The clientErrorHandler of a server whose answers carry `headerLines` (the security headers, as raw header lines). */
export function clientErrors (headerLines: string) {
  return function clientErrorHandler (this: FastifyInstance, error: Error & { code?: string }, socket: Socket): void {
    if (error.code === 'ECONNRESET' || socket.destroyed || failedSockets.has(socket)) return
    failedSockets.add(socket)
    socket.pause()
    this.log.debug({ err: { code: error.code, message: error.message } }, 'client error')
    answerAfterEarlierRequests(socket, error, headerLines)
  }
}

/**
 * Requests received whole before the bad bytes (pipelined on the same
 * connection) are still being answered, one after the other (Node keeps the
 * one being written as the socket's _httpMessage and hands the socket to the
 * next as it finishes): let each answer go out, then answer the error and
 * close. A request that timed out is the one in flight itself, received only
 * in part: it gets the error answer at once.
 */
function answerAfterEarlierRequests (socket: Socket, error: Error & { code?: string }, headerLines: string): void {
  const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage
  // Node detaches an answer from the socket just before its 'close', so one still attached has not closed yet.
  if (inFlight !== null && inFlight !== undefined && (inFlight.headersSent || inFlight.req.complete)) {
    inFlight.once('close', () => { answerAfterEarlierRequests(socket, error, headerLines) })
    return
  }
  const [code, message] = error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
    ? ['invalid_body', 'The request did not arrive in time.'] as const
    : error.code === 'HPE_HEADER_OVERFLOW'
      ? ['payload_too_large', 'The request headers are too large.'] as const
      : ['invalid_body', 'The request cannot be parsed as HTTP.'] as const
  const body = JSON.stringify({ ok: false, error: code, message })
  if (socket.writable) {
    socket.write(`HTTP/1.1 200 OK\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${headerLines}Connection: close\r\n\r\n${body}`)
  }
  socket.destroySoon()
}

/**
 * An `Expect` other than `100-continue` is answered by Node before any
 * route, 417 Expectation Failed (RFC 9110: the status a client acts on),
 * bare unless someone listens: here in the envelope, with the headers every
 * other answer carries, and the connection closed (the body, if one comes,
 * is never read). The header's value is not repeated back.
 */
export function expectationFailed (headers: Record<string, string>) {
  const body = JSON.stringify({ ok: false, error: 'invalid_param', message: 'The Expect header asks for something this service does not do (it understands only 100-continue); send the request without it.' })
  return function answer (this: void, _request: IncomingMessage, response: ServerResponse): void {
    response.writeHead(417, { ...headers, 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), connection: 'close' })
    response.end(body)
  }
}
