import { spawn, type ChildProcess } from 'node:child_process'
import { connect } from 'node:net'
import { waitFor } from './wait.js'

export interface ServiceProcess {
  child: ChildProcess
  /** What the process has written to stderr so far. */
  stderr: () => string
  /** The exit code, once the process has exited and its stderr has been read ('close'). */
  exited: Promise<number | null>
}

/**
 * A script of the service (its entry point, src/server.ts, unless told
 * otherwise) in a child process, run with this test's own TypeScript loader
 * (process.execArgv), as `node` runs it in production. Killed at teardown if
 * it is still running.
 */
export function spawnService (t: { teardown: (fn: () => unknown) => void }, env: Record<string, string>, script = 'src/server.ts'): ServiceProcess {
  const child = spawn(process.execPath, [...process.execArgv, script], {
    env: { ...process.env, NODE_ENV: 'test', ...env },
    stdio: ['ignore', 'ignore', 'pipe']
  })
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  const exited = new Promise<number | null>(resolve => child.once('close', resolve))
  t.teardown(() => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL') })
  return { child, stderr: () => stderr, exited }
}

/**
 * How long a service with WORKERS=2 may take to answer: the primary, then
 * each worker, transpiles the whole service again (ts-node keeps no cache
 * between processes), the workers at once. A fresh clone's first test run on
 * a loaded machine took over 90 s (the default bound) where an idle one takes
 * a few; a hang guard, not a speed check.
 */
export const WORKERS_START_MS = 240_000

/**
 * Until GET /healthz on `url` answers ok. Starting compiles the service's
 * TypeScript (a few seconds on an idle machine, several times that on a busy
 * one, per process with WORKERS), hence the generous bound; a process that
 * exits first fails the wait at once, with what it wrote to stderr.
 */
export async function waitForHealth (service: ServiceProcess, url: string, timeoutMs = 90_000): Promise<void> {
  let exitedEarly = false
  await waitFor(async () => {
    if (service.child.exitCode !== null) {
      exitedEarly = true
      return true
    }
    return ((await (await fetch(`${url}/healthz`)).json()) as { ok?: boolean }).ok === true
  }, { what: () => `the service at ${url} to answer /healthz (its stderr: ${service.stderr().slice(-500) || 'nothing'})`, timeoutMs, intervalMs: 50 })
  if (exitedEarly) throw new Error(`the service exited with ${service.child.exitCode} before answering: ${service.stderr()}`)
}

/** Whether something answers on a Unix socket (a managed redis-server, while it runs). */
export async function answers (socketPath: string): Promise<boolean> {
  return await new Promise(resolve => {
    const socket = connect(socketPath)
    socket.once('connect', () => { socket.end(); resolve(true) })
    socket.once('error', () => { resolve(false) })
  })
}
