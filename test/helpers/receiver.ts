import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Webhook } from 'standardwebhooks'

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
  /** Resolves once `count` requests were answered 2xx; rejects after `timeoutMs`. */
  waitForAccepted: (count: number, timeoutMs?: number) => Promise<Received[]>
  close: () => Promise<void>
}

export async function startReceiver (behaviour: ReceiverBehaviour = {}, path = '/hook'): Promise<Receiver> {
  const received: Received[] = []
  const hanging = new Set<ServerResponse>()
  const waiters: Array<() => void> = []
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
        for (const wake of waiters.splice(0)) wake()
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
    async waitForAccepted (count, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs
      while (accepted().length < count) {
        const left = deadline - Date.now()
        if (left <= 0) throw new Error(`the receiver got ${accepted().length} deliveries, not ${count}, within ${timeoutMs} ms`)
        await new Promise<void>(resolve => {
          const timer = setTimeout(resolve, Math.min(left, 200))
          waiters.push(() => { clearTimeout(timer); resolve() })
        })
      }
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
