import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Redis } from 'ioredis'

/**
 * A redis-server started by the test run itself, on a free loopback port
 * (never 6379), with no persistence. Tests never touch a Redis they did not start.
 */
export interface TestRedis {
  url: string
  port: number
  /** Kills the server at once (SIGKILL), like a crash. */
  kill: () => Promise<void>
  /** Starts it again on the same port. */
  start: () => Promise<void>
  stop: () => Promise<void>
}

/**
 * Starts redis-server under a watchdog: a shell checks every second that this
 * test process is still alive and kills the server when it is not, so a test
 * file that tap kills on its timeout (SIGKILL: no exit handler runs) leaves
 * no server behind. The shell execs redis-server, so the child's pid is the
 * server's, and killing the child kills the server.
 */
export function spawnRedisServer (args: string[]): ChildProcess {
  const watchdog = `(while kill -0 ${process.pid} 2>/dev/null && kill -0 $$ 2>/dev/null; do sleep 1; done; kill -9 $$ 2>/dev/null) & exec redis-server "$@"`
  return spawn('sh', ['-c', watchdog, 'redis-server', ...args], { stdio: 'ignore' })
}

export async function freePort (): Promise<number> {
  for (;;) {
    const port = await new Promise<number>((resolve, reject) => {
      const server = createServer()
      server.once('error', reject)
      server.listen(0, '127.0.0.1', () => {
        const address = server.address()
        server.close(() => { resolve(typeof address === 'object' && address !== null ? address.port : 0) })
      })
    })
    if (port !== 6379 && port !== 0) return port
  }
}

/** What a failed start says: the caller tries again on another port. */
export const START_AGAIN = /test redis-server (exited|lost its port)/

/**
 * Until the server answers PING: a few ms on an idle machine; the bound is
 * for a very busy one. The server that answers must be the child (INFO's
 * process_id): on a busy machine another process's server may take the port
 * between freePort and the child's bind, and answer in its place.
 */
export async function waitForPing (port: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 30_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`test redis-server exited with ${child.exitCode}`)
    const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null })
    client.on('error', () => {})
    try {
      await client.connect()
      if (await client.ping() === 'PONG') {
        const pid = /process_id:(\d+)/.exec(await client.info('server'))?.[1]
        if (pid === String(child.pid)) return
        child.kill('SIGKILL')
        throw new Error(`test redis-server lost its port ${port} to another server (pid ${pid ?? '?'})`)
      }
    } catch (error) {
      if (START_AGAIN.test(String(error))) throw error
    } finally {
      client.disconnect()
    }
    await new Promise(resolve => setTimeout(resolve, 20))
  }
  throw new Error('test redis-server did not answer within 30 s')
}

/** A redis-server on a free port; on another one when the port is taken before the server binds it (tests run side by side). */
export async function startTestRedis (): Promise<TestRedis> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startTestRedisOn(await freePort())
    } catch (error) {
      if (attempt === 3 || !START_AGAIN.test(String(error))) throw error
    }
  }
}

async function startTestRedisOn (port: number): Promise<TestRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'ranking-test-redis-'))
  let child: ChildProcess | undefined

  async function start (): Promise<void> {
    // Memory settings as in the project's redis.conf; no persistence.
    child = spawnRedisServer(['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--daemonize', 'no', '--maxmemory', '1gb', '--maxmemory-policy', 'noeviction'])
    await waitForPing(port, child)
  }

  async function kill (): Promise<void> {
    const running = child
    if (running === undefined || running.exitCode !== null || running.signalCode !== null) return
    await new Promise<void>(resolve => {
      running.once('exit', () => { resolve() })
      running.kill('SIGKILL')
    })
  }

  try {
    await start()
  } catch (error) {
    await kill()
    rmSync(dir, { recursive: true, force: true })
    throw error
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    kill,
    start,
    async stop () {
      await kill()
      rmSync(dir, { recursive: true, force: true })
    }
  }
}
