// A local Redis Cluster for the scaling rows: 3 masters with 1 replica each,
// redis-servers with the project's redis.conf (persistence off, as the single
// server of the run), made with `redis-cli --cluster create`.
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { promisify } from 'node:util'
import { Redis } from 'ioredis'
import { root } from '../../scripts/runtime.mjs'
import { exited, freePort, logTail, startProcess, tmp } from './processes.mjs'

const run = promisify(execFile)

async function ping (port, child) {
  const deadline = Date.now() + 10_000
  while (Date.now() < deadline) {
    if (exited(child)) throw new Error(`a cluster node exited at start:\n${logTail(child)}`)
    const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null })
    client.on('error', () => {})
    try {
      await client.connect()
      if (await client.ping() === 'PONG') return
    } catch {
    } finally {
      client.disconnect()
    }
    await sleep(25)
  }
  throw new Error(`cluster node ${port} did not answer within 10 s`)
}

export async function startCluster () {
  const ports = []
  while (ports.length < 6) {
    const port = await freePort()
    if (!ports.includes(port) && port + 10000 <= 65535) ports.push(port)
  }
  const children = []
  for (const port of ports) {
    const child = startProcess(`redis-cluster-${port}`, 'redis-server', [
      join(root, 'redis.conf'), '--port', String(port), '--bind', '127.0.0.1', '--dir', tmp,
      '--save', '', '--appendonly', 'no', '--daemonize', 'no',
      '--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`, '--cluster-node-timeout', '5000',
      '--cluster-require-full-coverage', 'no', '--repl-diskless-sync-delay', '0'
    ], { logPath: join(tmp, `redis-cluster-${port}.log`) })
    children.push(child)
    await ping(port, child)
  }
  await run('redis-cli', ['--cluster', 'create', ...ports.map(port => `127.0.0.1:${port}`), '--cluster-replicas', '1', '--cluster-yes'])
  // every node agrees, and every replica has synced
  const deadline = Date.now() + 30_000
  for (const port of ports) {
    const client = new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: 0 })
    try {
      for (;;) {
        const info = await client.call('CLUSTER', 'INFO')
        const replication = await client.info('replication')
        if (info.includes('cluster_state:ok') && (!/^role:slave/m.test(replication) || /^master_link_status:up/m.test(replication))) break
        if (Date.now() > deadline) throw new Error('the bench cluster did not settle within 30 s')
        await sleep(100)
      }
    } finally {
      client.disconnect()
    }
  }
  return {
    ports,
    children,
    url: `redis://127.0.0.1:${ports[0]}`,
    /** A plain client of the master that owns a key's slot (for seeding a game's keys). */
    async masterClientFor (key) {
      const client = new Redis({ port: ports[0], host: '127.0.0.1' })
      try {
        const slot = await client.call('CLUSTER', 'KEYSLOT', key)
        const owner = (await client.call('CLUSTER', 'SLOTS')).find(([from, to]) => slot >= from && slot <= to)
        return new Redis({ port: owner[2][1], host: '127.0.0.1' })
      } finally {
        client.disconnect()
      }
    }
  }
}
