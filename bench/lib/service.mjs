// The servers under load: the compiled service in production mode (its rate
// limits raised out of the way, though the limiter still runs) and the floor
// (bench/floor.mjs), plus the service's admin API. (The minimal service is
// started by lib/minimal.mjs.)
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { SERVER_ENTRY } from './compiled.mjs'
import { exited, freePort, logTail, startProcess, tmp } from './processes.mjs'

const adminToken = randomBytes(24).toString('hex')
let started = 0

/** Polls `url` until isReady(its JSON) is true; fails when `child` exits or after 30 s. */
export async function waitForHttp (child, url, isReady, what) {
  const deadline = Date.now() + 30_000
  while (Date.now() < deadline) {
    if (exited(child)) throw new Error(`${what} exited at start (code ${child.exitCode ?? child.signalCode}):\n${logTail(child)}`)
    try {
      const response = await fetch(url)
      if (isReady(await response.json())) return
    } catch {}
    await sleep(50)
  }
  throw new Error(`${what} did not become ready within 30 s:\n${logTail(child)}`)
}

/** The service on a free port; `entry` another build's server (bench:ab --against), this checkout's by default. */
export async function startService (redisPort, workers, extraEnv = {}, nodeArgs = [], entry = SERVER_ENTRY) {
  const port = await freePort()
  const env = {
    ...process.env,
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    // metrics on, as an operator would run it: the hot path is measured with them
    METRICS_TOKEN: randomBytes(16).toString('hex'),
    REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    PORT: String(port),
    HOST: '127.0.0.1',
    ADMIN_TOKEN: adminToken,
    RATE_LIMIT_MAX: '1000000000',
    SESSION_RATE_LIMIT_MAX: '1000000000',
    WORKERS: String(workers),
    // The bench's webhook receiver is on this box.
    WEBHOOK_ALLOW_PRIVATE: 'true',
    DATA_DIR: join(tmp, 'service-data'),
    ...extraEnv
  }
  const logPath = join(tmp, `service-${++started}-workers-${workers}.log`)
  const child = startProcess('service', process.execPath, [...nodeArgs, entry], { env, logPath })
  await waitForHttp(child, `http://127.0.0.1:${port}/healthz`, body => body?.ok === true, 'the service')
  return { child, port, base: `http://127.0.0.1:${port}`, logPath }
}

export async function startFloor () {
  const port = await freePort()
  const child = startProcess('floor', process.execPath, ['bench/floor.mjs', String(port)], { logPath: join(tmp, 'floor.log') })
  await waitForHttp(child, `http://127.0.0.1:${port}/`, body => body?.ok === true, 'the floor server')
  return { child, port }
}

/** One admin API call; its `data`, or an error unless it answered "ok":true. */
export async function adminCall (base, method, path, body) {
  const response = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${adminToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body)
  })
  const answer = await response.json()
  if (answer.ok !== true) throw new Error(`${method} ${path} answered ${JSON.stringify(answer)}`)
  return answer.data
}

/** A raw admin API request (an export, an import): the fetch Response. */
export async function adminFetch (base, path, init = {}) {
  return await fetch(base + path, { ...init, headers: { authorization: `Bearer ${adminToken}`, ...(init.headers ?? {}) } })
}
