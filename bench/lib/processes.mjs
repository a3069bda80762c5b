// The processes the harness starts (redis-server, the service, the floor):
// each leads its own process group and logs to a file in the run's temporary
// folder. Importing this module creates that folder and makes sure that,
// however the harness ends, every group it started is killed and the folder
// removed.
import { spawn } from 'node:child_process'
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import os from 'node:os'
import { join } from 'node:path'
import { root } from '../../scripts/runtime.mjs'

/** The processes started and still running (their pids are their process groups). */
export const children = new Set()
const tempDirs = []
let cleanedUp = false

function killGroup (child, signal) {
  try {
    process.kill(-child.pid, signal) // the child leads its own process group (detached)
  } catch {}
}

export function exited (child) {
  return child.exitCode !== null || child.signalCode !== null
}

/** Starts a process in its own process group, output to a log file. */
export function startProcess (name, command, args, { env = process.env, logPath }) {
  const fd = openSync(logPath, 'a')
  const child = spawn(command, args, { cwd: root, env, stdio: ['ignore', fd, fd], detached: true })
  closeSync(fd)
  child.benchName = name
  child.logPath = logPath
  children.add(child)
  child.once('exit', () => { children.delete(child) })
  return child
}

/** SIGTERM to the process group, SIGKILL after timeoutMs. */
export async function stopProcess (child, timeoutMs = 10_000) {
  if (child === undefined || exited(child)) return
  const gone = new Promise(resolve => child.once('exit', resolve))
  killGroup(child, 'SIGTERM')
  const timer = setTimeout(() => killGroup(child, 'SIGKILL'), timeoutMs)
  await gone
  clearTimeout(timer)
  killGroup(child, 'SIGKILL') // cluster workers left behind, if any
}

export function cleanupSync () {
  if (cleanedUp) return
  cleanedUp = true
  for (const child of children) killGroup(child, 'SIGKILL')
  // BENCH_KEEP=1 keeps the run's folder (logs, profiles) for a look afterwards.
  if (process.env.BENCH_KEEP === '1') console.error(`bench: kept ${tempDirs.join(', ')}`)
  else for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true })
}

process.on('exit', cleanupSync)
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.once(signal, () => {
    console.error(`\nbench: ${signal}, stopping everything it started.`)
    cleanupSync()
    process.exit(130)
  })
}

/** The run's temporary folder: logs, Redis's dir, the service's DATA_DIR. */
export const tmp = mkdtempSync(join(os.tmpdir(), 'ranking-bench-'))
tempDirs.push(tmp)

export function logTail (child, lines = 20) {
  try {
    return readFileSync(child.logPath, 'utf8').trimEnd().split('\n').slice(-lines).join('\n')
  } catch {
    return '(no log)'
  }
}

/** A free TCP port on 127.0.0.1, never Redis's default 6379. */
export async function freePort () {
  for (;;) {
    const port = await new Promise((resolve, reject) => {
      const server = createServer()
      server.once('error', reject)
      server.listen(0, '127.0.0.1', () => {
        const address = server.address()
        server.close(() => resolve(address.port))
      })
    })
    if (port !== 6379) return port
  }
}
