import cluster from 'node:cluster'
import Fastify from 'fastify'
import { AggregatorRegistry, Counter, Gauge, Histogram, collectDefaultMetrics, register } from 'prom-client'

/**
 * The service's Prometheus metrics (docs/guide.md, metrics), with prom-client
 * on its default registry. Counting is always on: an increment is a few
 * property reads (labelled children are made once and kept, see `child`).
 * With WORKERS > 1 each worker counts its own, and the primary adds them up
 * on every scrape (prom-client's AggregatorRegistry, over the cluster IPC).
 */

const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]

export const metrics = {
  requests: new Counter({
    name: 'ranking_requests_total',
    help: 'Answered requests, by route, /api/rank action and outcome (ok, or the error code of the envelope).',
    labelNames: ['route', 'action', 'outcome'] as const
  }),
  requestDuration: new Histogram({
    name: 'ranking_request_duration_seconds',
    help: 'Time from a request\'s arrival to its answer, by route and /api/rank action.',
    labelNames: ['route', 'action'] as const,
    buckets: LATENCY_BUCKETS
  }),
  redisDuration: new Histogram({
    name: 'ranking_redis_script_duration_seconds',
    help: 'Time of one Lua script call to Redis, as the service sees it (round trip included), by script.',
    labelNames: ['script'] as const,
    buckets: LATENCY_BUCKETS
  }),
  redisErrors: new Counter({
    name: 'ranking_redis_errors_total',
    help: 'Lua script calls that failed (Redis away, timeout, refused), by script.',
    labelNames: ['script'] as const
  }),
  cacheLookups: new Counter({
    name: 'ranking_record_cache_lookups_total',
    help: 'Lookups of game, key, user and session records in the in-process cache, by kind and result (hit, miss).',
    labelNames: ['kind', 'result'] as const
  }),
  submits: new Counter({
    name: 'ranking_submits_total',
    help: 'Stored submits, by mode (api_key, session) and result: improved (a new best), unchanged (at or below the best), replay (a signed request seen before), held (held for review).',
    labelNames: ['mode', 'result'] as const
  }),
  webhookAttempts: new Counter({
    name: 'ranking_webhook_attempts_total',
    help: 'Webhook delivery attempts made by this process, by outcome: delivered, retry (failed, tried again later), dead (failed past the retry window).',
    labelNames: ['outcome'] as const
  }),
  webhookLatency: new Histogram({
    name: 'ranking_webhook_delivery_latency_seconds',
    help: 'From an event to its successful delivery (retries included), for deliveries this process made.',
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 3600, 86400]
  }),
  webhookBacklogFull: new Counter({
    name: 'ranking_webhook_backlog_full_total',
    help: 'Deliveries this process made dead at once because their webhook already had its most pending deliveries (its receiver is down or slower than the events); they can be delivered again.'
  }),
  eventsDropped: new Counter({
    name: 'ranking_events_dropped_total',
    help: 'Events a game\'s outbox could not take (it was full of events no process had read), as reported by this process\'s dispatcher: each is reported once, by one process, and logged.'
  }),
  liveStreams: new Gauge({
    name: 'ranking_live_streams',
    help: 'Live board streams (Server-Sent Events) open on this process.'
  }),
  rateLimited: new Counter({
    name: 'ranking_rate_limited_total',
    help: 'Requests answered rate_limited, by the limit that refused them.',
    labelNames: ['limit'] as const
  })
}

type Labelled<T> = { labels: (...values: string[]) => T }

/**
 * A metric's child for these label values, made once: prom-client hashes the
 * label values on every labels() call, which the hot path need not pay. The
 * values come from the service's own finite sets (routes, actions, error
 * codes, script names), never from request text.
 */
export function child<T> (metric: Labelled<T>, ...values: string[]): T {
  let children = childCache.get(metric)
  if (children === undefined) {
    children = new Map<string, unknown>()
    childCache.set(metric, children)
  }
  const name = values.join('\u0000')
  let found = children.get(name) as T | undefined
  if (found === undefined) {
    found = metric.labels(...values)
    children.set(name, found)
  }
  return found
}
const childCache = new WeakMap<object, Map<string, unknown>>()

let aggregator: AggregatorRegistry<typeof register.contentType> | undefined
let enabled = false

/**
 * Once per process, when metrics are served: the process metrics (CPU,
 * memory, event loop, GC), and in a worker the listener that hands its
 * metrics to the primary (prom-client adds it with an AggregatorRegistry).
 */
export function enableMetrics (): void {
  if (enabled) return
  enabled = true
  collectDefaultMetrics()
  if (cluster.isWorker) aggregator = new AggregatorRegistry()
}

/**
 * The exposition text: this process's metrics, or in the primary of a
 * cluster the sum over its workers. A worker asked for them (GET /metrics
 * with METRICS_TOKEN) asks the primary, so every scrape sees every worker.
 */
export async function metricsText (): Promise<string> {
  if (cluster.isWorker) return await askPrimary()
  if (Object.keys(cluster.workers ?? {}).length === 0) return await register.metrics()
  aggregator ??= new AggregatorRegistry()
  return await aggregator.clusterMetrics()
}

/** The content type of the exposition text. */
export const METRICS_CONTENT_TYPE = register.contentType

const METRICS_REQUEST = 'ranking:metrics-request'
const METRICS_ANSWER = 'ranking:metrics-answer'
let nextRequest = 0

async function askPrimary (): Promise<string> {
  const id = ++nextRequest
  return await new Promise((resolve, reject) => {
    const timer = setTimeout(() => { done(); reject(new Error('the primary did not answer with the metrics within 5 s')) }, 5000)
    const listener = (message: { type?: string, id?: number, text?: string, error?: string }): void => {
      if (message?.type !== METRICS_ANSWER || message.id !== id) return
      done()
      if (message.error !== undefined) reject(new Error(message.error))
      else resolve(message.text ?? '')
    }
    function done (): void {
      clearTimeout(timer)
      process.off('message', listener)
    }
    process.on('message', listener)
    process.send?.({ type: METRICS_REQUEST, id })
  })
}

let answering = false

/** In the primary: answers the workers that are asked for the metrics on the service's port. */
export function answerWorkersForMetrics (): void {
  if (answering) return
  answering = true
  aggregator ??= new AggregatorRegistry()
  cluster.on('message', (worker, message: { type?: string, id?: number }) => {
    if (message?.type !== METRICS_REQUEST) return
    metricsText().then(
      (text) => { worker.send({ type: METRICS_ANSWER, id: message.id, text }) },
      (error: Error) => { worker.send({ type: METRICS_ANSWER, id: message.id, error: error.message }) }
    )
  })
}

/**
 * METRICS_PORT: the metrics on a port of their own, without a token (bind it
 * where only the scraper reaches). Served by the process that sees every
 * worker: the only one, or the primary. Returns what closes it.
 */
export async function serveMetrics (host: string, port: number): Promise<{ port: number, close: () => Promise<void> }> {
  enableMetrics()
  if (cluster.isPrimary) answerWorkersForMetrics()
  const server = Fastify({ logger: false })
  server.get('/metrics', async (_request, reply) => {
    try {
      return await reply.type(METRICS_CONTENT_TYPE).send(await metricsText())
    } catch (error) {
      // A worker that did not answer in time (prom-client waits 5 s): say so, in the scraper's terms.
      return await reply.code(503).type('text/plain; charset=utf-8').send(`metrics unavailable: ${(error as Error).message}\n`)
    }
  })
  await server.listen({ host, port })
  const address = server.server.address()
  return { port: typeof address === 'object' && address !== null ? address.port : port, close: async () => { await server.close() } }
}
