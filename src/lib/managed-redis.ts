import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync } from 'node:fs'
import { connect } from 'node:net'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { createHash } from 'node:crypto'
import { projectPath } from './paths.js'

export interface ManagedRedis {
  /** e.g. unix:///path/to/data/redis.sock */
  url: string
  socketPath: string
  stop: () => Promise<void>
}

export class RedisNotInstalledError extends Error {
  constructor () {
    super('redis-server is not installed; install it with: sudo apt-get install -y redis-server (or set REDIS_URL to a Redis you run)')
    this.name = 'RedisNotInstalledError'
  }
}

/** A Unix socket path must stay under ~107 bytes; deep checkouts fall back to the temp folder. */
function socketPathFor (dataDir: string): string {
  const inside = join(dataDir, 'redis.sock')
  if (Buffer.byteLength(inside) <= 100) return inside
  return join(tmpdir(), `ranking-redis-${createHash('sha256').update(dataDir).digest('hex').slice(0, 16)}.sock`)
}

/** The URL of the managed redis-server of dataDir when one is running, else undefined. */
export async function runningManagedRedis (dataDir: string): Promise<string | undefined> {
  const socketPath = socketPathFor(dataDir)
  return existsSync(socketPath) && await answers(socketPath) ? `unix://${socketPath}` : undefined
}

async function answers (socketPath: string): Promise<boolean> {
  return await new Promise(resolve => {
    const socket = connect(socketPath)
    socket.once('connect', () => { socket.end(); resolve(true) })
    socket.once('error', () => { resolve(false) })
  })
}

async function waitForSocket (socketPath: string, child: ChildProcess, output: () => string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`redis-server exited during start-up: ${output().trim().split('\n').slice(-3).join(' | ')}`)
    }
    if (existsSync(socketPath) && await answers(socketPath)) return
    await new Promise(resolve => setTimeout(resolve, 25))
  }
  child.kill('SIGKILL')
  throw new Error(`redis-server did not start within ${timeoutMs} ms`)
}

/**
 * Starts a redis-server owned by this process: the project's redis.conf,
 * data (append-only file) under dataDir, listening only on a Unix socket so
 * nothing clashes with another Redis on the machine. It runs in its own
 * process group, so a Ctrl+C reaches the service first, which drains its
 * requests and then stops Redis.
 */
export async function startManagedRedis (dataDir: string, options: { binary?: string, timeoutMs?: number } = {}): Promise<ManagedRedis> {
  mkdirSync(dataDir, { recursive: true })
  const socketPath = socketPathFor(dataDir)
  if (existsSync(socketPath) && await answers(socketPath)) {
    throw new Error(`a redis-server already answers on ${socketPath} (another service running on this data folder?); stop it with: redis-cli -s ${socketPath} shutdown`)
  }
  const binary = options.binary ?? 'redis-server'
  let output = ''
  const child = spawn(binary, [
    // The project's redis.conf: durability and memory settings.
    projectPath('redis.conf'),
    '--dir', dataDir,
    '--port', '0',
    '--unixsocket', socketPath,
    '--unixsocketperm', '700',
    '--daemonize', 'no',
    '--pidfile', ''
  ], { stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  const spawned = await new Promise<Error | undefined>(resolve => {
    child.once('spawn', () => { resolve(undefined) })
    child.once('error', resolve)
  })
  if (spawned !== undefined) {
    if ((spawned as NodeJS.ErrnoException).code === 'ENOENT') throw new RedisNotInstalledError()
    throw spawned
  }
  const collect = (chunk: Buffer): void => { output = (output + chunk.toString('utf8')).slice(-4000) }
  child.stdout?.on('data', collect)
  child.stderr?.on('data', collect)
  await waitForSocket(socketPath, child, () => output, options.timeoutMs ?? 10_000)
  const exited = new Promise<void>(resolve => {
    if (child.exitCode !== null) resolve()
    else child.once('exit', () => { resolve() })
  })

  return {
    url: `unix://${socketPath}`,
    socketPath,
    async stop () {
      if (child.exitCode !== null || child.signalCode !== null) return
      // SIGTERM makes Redis flush the append-only file and exit cleanly.
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
      await exited
      clearTimeout(timer)
    }
  }
}
