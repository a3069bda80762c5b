import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Webhook } from 'standardwebhooks'
import { waitFor } from './wait.js'

/*
 * A real HTTP receiver for webhooks, on a free port of loopback: it records
 * every request, and can fail, hang or answer slowly, as receivers do.
 */

export interface Received {
  headers: IncomingHttpHeaders
  body: string
  /** The status this receiver answered (0: it never answered). */
  status: number
  at: number
}

export interface ReceiverBehaviour {
  /** Answer the first `failFirst` requests with `failStatus` (default 500). */
  failFirst?: number
  failStatus?: number
  /** Never answer (until closed). */
  hang?: boolean
  /** Answer 200 after this long. */
  delayMs?: number
}

export interface Receiver {
  url: string
  received: Received[]
  /** What was answered 2xx, in order of arrival. */
  accepted: () => Received[]
  behaviour: ReceiverBehaviour
  /**
   * Resolves once `count` requests were answered 2xx; rejects, saying what
   * arrived, after `timeoutMs` (waitFor's generous 30 s unless told: a bound
   * that only stops a wait that would never end).
   */
  waitForAccepted: (count: number, timeoutMs?: number) => Promise<Received[]>
  close: () => Promise<void>
}

export async function startReceiver (behaviour: ReceiverBehaviour = {}, path = '/hook'): Promise<Receiver> {
  const received: Received[] = []
  const hanging = new Set<ServerResponse>()
  const accepted = (): Received[] => received.filter(request => request.status >= 200 && request.status < 300)
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const entry: Received = { headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), status: 0, at: Date.now() }
      received.push(entry)
      const answer = (status: number): void => {
        entry.status = status
        response.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok' : 'no')
      }
      if (receiver.behaviour.hang === true) {
        hanging.add(response)
        return
      }
      if (received.length <= (receiver.behaviour.failFirst ?? 0)) {
        answer(receiver.behaviour.failStatus ?? 500)
        return
      }
      if (receiver.behaviour.delayMs !== undefined) setTimeout(() => { answer(200) }, receiver.behaviour.delayMs)
      else answer(200)
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const receiver: Receiver = {
    url: `http://127.0.0.1:${port}${path}`,
    received,
    accepted,
    behaviour,
    async waitForAccepted (count, timeoutMs) {
      await waitFor(() => accepted().length >= count, {
        what: () => `${count} deliveries taken by the receiver (it took ${accepted().length}, of ${received.length} requests)`,
        ...(timeoutMs === undefined ? {} : { timeoutMs })
      })
      return accepted()
    },
    async close () {
      for (const response of hanging) response.destroy()
      server.closeAllConnections()
      await new Promise<void>(resolve => server.close(() => { resolve() }))
    }
  }
  return receiver
}

/** The payload of a delivery, verified with the standardwebhooks package (throws when the signature does not hold). */
export function verified (secret: string, delivery: Received): { type: string, timestamp: string, data: Record<string, any> } {
  const headers: Record<string, string> = {}
  for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) headers[name] = String(delivery.headers[name])
  return new Webhook(secret).verify(delivery.body, headers) as { type: string, timestamp: string, data: Record<string, any> }
}
