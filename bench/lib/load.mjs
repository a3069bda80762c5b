// Driving a server with autocannon, and the request feeds the scenarios build.
import autocannon from 'autocannon'
import { randInt } from './random.mjs'

export const FORM = { 'content-type': 'application/x-www-form-urlencoded' }

/**
 * One autocannon run. Every response is checked: 2xx and "ok":true (or the
 * request's okText: Game Jolt's API says success otherwise), or it
 * counts as failed. Latencies are kept at full resolution (autocannon's own
 * histogram has whole milliseconds).
 */
export async function load (port, { okText = '"ok":true', ...request }, { duration, amount, connections }) {
  const check = { failures: 0, examples: [], improved: 0, responses: 0 }
  const latencies = []
  const instance = autocannon({
    url: `http://127.0.0.1:${port}`,
    connections,
    pipelining: 1,
    timeout: 10,
    ...(amount === undefined ? { duration } : { amount }),
    requests: [{
      ...request,
      onResponse (status, body) {
        check.responses++
        if (status < 200 || status > 299 || !body.includes(okText)) {
          check.failures++
          if (check.examples.length < 3) check.examples.push(`HTTP ${status} ${body.slice(0, 300)}`)
        } else if (body.includes('"improved":true')) {
          check.improved++
        }
      }
    }]
  })
  instance.on('response', (_client, _status, _bytes, responseTime) => { latencies.push(responseTime) })
  const result = await instance
  const failed = check.failures + result.errors + result.mismatches
  if (result.errors > 0 && check.examples.length < 3) check.examples.push(`${result.errors} connection errors, ${result.timeouts} of them timeouts`)
  return { result, latencies, check, failed }
}

export function percentile (sorted, p) {
  if (sorted.length === 0) return NaN
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p / 100 * sorted.length) - 1))]
}

/** A feed of requests rotating through a pool; `sent` counts what was used. */
export function rotating (pool, apply) {
  const feed = { sent: 0, poolSize: pool.length }
  feed.setupRequest = (req) => {
    apply(req, pool[feed.sent % pool.length])
    feed.sent++
    return req
  }
  return feed
}

/** One request rotating over every session (Cookie header values) in a shuffled order. */
export function sessionFeed (sessions, method, path, body) {
  const pool = sessions.map(cookie => cookie)
  for (let k = pool.length - 1; k > 0; k--) {
    const j = randInt(k + 1)
    ;[pool[k], pool[j]] = [pool[j], pool[k]]
  }
  const feed = rotating(pool, (req, cookie) => { req.headers.cookie = cookie })
  return {
    request: { method, path, ...(body === undefined ? {} : { headers: FORM, body }), setupRequest: feed.setupRequest },
    feed
  }
}
