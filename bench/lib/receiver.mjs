// A webhook receiver for the bench: answers every delivery 204 at once and
// records when it arrived beside when its event happened (the body's
// timestamp, from the outbox entry's id: the Redis clock of this box).
import { createServer } from 'node:http'

export async function startReceiver () {
  const deliveries = []
  const server = createServer((request, response) => {
    let body = ''
    request.setEncoding('utf8').on('data', chunk => { body += chunk })
    request.on('end', () => {
      const arrived = Date.now()
      try {
        const { timestamp, type } = JSON.parse(body)
        deliveries.push({ arrived, happened: Date.parse(timestamp), type, id: request.headers['webhook-id'] })
      } catch {}
      response.writeHead(204).end()
    })
  })
  server.keepAliveTimeout = 60_000
  await new Promise(resolve => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${server.address().port}/`,
    deliveries,
    close: () => new Promise(resolve => { server.closeAllConnections(); server.close(resolve) })
  }
}

/** Waits until no delivery has arrived for `quietMs` (at most `maxMs`); resolves with when the last one arrived. */
export async function drained (receiver, quietMs = 2000, maxMs = 180_000) {
  const started = Date.now()
  let count = -1
  let since = Date.now()
  while (Date.now() - started < maxMs) {
    if (receiver.deliveries.length !== count) {
      count = receiver.deliveries.length
      since = Date.now()
    } else if (Date.now() - since >= quietMs) break
    await new Promise(resolve => setTimeout(resolve, 100))
  }
  return receiver.deliveries.at(-1)?.arrived
}

/** p50 and p99 (ms) of arrival minus event time over these deliveries. */
export function latency (deliveries) {
  const sorted = deliveries.map(delivery => delivery.arrived - delivery.happened).sort((a, b) => a - b)
  const at = share => sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? NaN
  return { count: sorted.length, p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? NaN }
}
