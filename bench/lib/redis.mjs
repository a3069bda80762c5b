// The run's own redis-server, and what requests cost it: INFO stats and
// commandstats around a scenario, and a MONITOR probe that tells top-level
// commands from the ones run inside scripts.
import { connect } from 'node:net'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { Redis } from 'ioredis'
import { root } from '../../scripts/runtime.mjs'
import { exited, freePort, logTail, startProcess, tmp } from './processes.mjs'

export async function startRedis () {
  const port = await freePort()
  // persistence off (no RDB snapshots, no AOF), so seeding is not slowed by disk writes
  const child = startProcess('redis-server', 'redis-server', [
    join(root, 'redis.conf'), '--port', String(port), '--bind', '127.0.0.1', '--dir', tmp,
    '--save', '', '--appendonly', 'no', '--daemonize', 'no'
  ], { logPath: join(tmp, 'redis.log') })
  const deadline = Date.now() + 10_000
  while (Date.now() < deadline) {
    if (exited(child)) throw new Error(`redis-server exited at start:\n${logTail(child)}`)
    const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null })
    client.on('error', () => {})
    try {
      await client.connect()
      if (await client.ping() === 'PONG') {
        client.disconnect()
        return { child, port }
      }
    } catch {}
    client.disconnect()
    await sleep(25)
  }
  throw new Error('redis-server did not answer within 10 s')
}

/** A client of the run's redis-server that reports its errors. */
export function redisClient (port) {
  const client = new Redis({ port, host: '127.0.0.1' })
  client.on('error', (error) => { console.error(`bench: Redis client: ${error.message}`) })
  return client
}

export function parseInfo (text) {
  const fields = {}
  const commands = {}
  for (const line of text.split('\r\n')) {
    const colon = line.indexOf(':')
    if (line.startsWith('#') || colon === -1) continue
    const name = line.slice(0, colon)
    const value = line.slice(colon + 1)
    if (name.startsWith('cmdstat_')) commands[name.slice(8)] = Number(/calls=(\d+)/.exec(value)[1])
    else fields[name] = value
  }
  return { fields, commands }
}

/** One INFO command (one command, one read event), subtracted in diffStats; its CPU (a few µs) is not. */
export async function redisStats (redis) {
  return parseInfo(await redis.info('stats', 'commandstats', 'cpu'))
}

/** The CPU time redis-server has used, in µs (INFO cpu: used_cpu_sys + used_cpu_user, from getrusage). */
const cpuUsOf = (fields) => (Number(fields.used_cpu_sys) + Number(fields.used_cpu_user)) * 1e6

export function diffStats (before, after) {
  const commands = {}
  for (const [name, calls] of Object.entries(after.commands)) {
    if (name === 'info') continue
    const delta = calls - (before.commands[name] ?? 0)
    if (delta > 0) commands[name] = delta
  }
  return {
    commands,
    // minus the INFO of `before`, counted in `after`
    total: Number(after.fields.total_commands_processed) - Number(before.fields.total_commands_processed) - 1,
    // minus the read event of the INFO of `after`, counted in `after`
    reads: Number(after.fields.total_reads_processed) - Number(before.fields.total_reads_processed) - 1,
    // everything the Redis process spent: commands, scripts, network, the event loop
    cpuUs: cpuUsOf(after.fields) - cpuUsOf(before.fields)
  }
}

/**
 * Commands seen by MONITOR while `probe` runs: top-level and inside scripts
 * ("[0 lua]"), by name. A plain socket: ioredis's monitor mode can lose track
 * of its replies under a heavy stream.
 */
export async function monitorProbe (port, probe) {
  const topLevel = {}
  const inScripts = {}
  const socket = connect(port, '127.0.0.1')
  socket.setEncoding('utf8')
  let buffered = ''
  let started
  const ready = new Promise((resolve, reject) => { started = resolve; socket.once('error', reject) })
  socket.on('data', (chunk) => {
    buffered += chunk
    const lines = buffered.split('\r\n')
    buffered = lines.pop()
    for (const line of lines) {
      if (line === '+OK') { started(); continue }
      const match = /^\+[\d.]+ \[\d+ ([^\]]+)\] "([^"]+)"/.exec(line)
      if (match === null) continue
      const into = match[1] === 'lua' ? inScripts : topLevel
      const name = match[2].toLowerCase()
      into[name] = (into[name] ?? 0) + 1
    }
  })
  socket.write('MONITOR\r\n')
  await ready
  let responses
  try {
    responses = await probe()
    await sleep(150)
  } finally {
    socket.destroy()
  }
  return { topLevel, inScripts, responses }
}
