import { execFile, type ChildProcess } from 'node:child_process'
import { createServer } from 'node:net'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { Redis } from 'ioredis'
import { START_AGAIN, freePort, spawnRedisServer, waitForPing } from './redis.js'
import { waitFor } from './wait.js'

const run = promisify(execFile)

/**
 * A real local Redis Cluster started by the test itself: Debian's
 * redis-server on free loopback ports, 3 masters with 1 replica each, made
 * with `redis-cli --cluster create`, no persistence, a node timeout of 1 s so
 * a failover happens within seconds, and each node's log in its folder.
 * A replica takes over however long it has been without its master
 * (cluster-replica-validity-factor 0): by default one whose data is older
 * than about 20 s (ten node timeouts and a replication ping period) never
 * would, and on a busy machine a test that holds a replica's link down
 * can take that long before it kills the master.
 */
export interface TestCluster {
  /** redis:// URL of the first master (any node would do). */
  url: string
  ports: number[]
  /** Where the nodes keep their cluster configuration. */
  dir: string
  /** The port of the master that owns a key's slot. */
  masterOf: (key: string) => Promise<number>
  /** Lets the test process exit while the nodes run (whoever calls it kills them on exit). */
  unref: () => void
  /** Empties every master (FLUSHALL), so the next test starts from nothing. */
  flush: () => Promise<void>
  /** The port of the replica of a master. */
  replicaOf: (masterPort: number) => Promise<number>
  /** Whether a node is a master now (a replica becomes one when it is promoted). */
  isMaster: (port: number) => Promise<boolean>
  /** A client of one node, for the test's own commands; the caller disconnects it. */
  node: (port: number) => Redis
  /** Starts a killed node again: it rejoins the cluster with its old identity (as a replica, if it was replaced). */
  start: (port: number) => Promise<void>
  /** SIGKILL one node, like a crash. */
  kill: (port: number) => Promise<void>
  stop: () => Promise<void>
}

const NODES = 6

/**
 * Starts a cluster on free ports. A port found free can be taken before its
 * node binds it, and each node also binds its cluster bus port (its port +
 * 10000, in the range the system hands out for outgoing connections): when
 * a node cannot start for that, the cluster starts again on other ports.
 */
export async function startTestCluster (): Promise<TestCluster> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startClusterOnce()
    } catch (error) {
      if (attempt === 3 || !START_AGAIN.test(String(error))) throw error
    }
  }
}

/** Whether nothing listens on a loopback port now. */
async function canListen (port: number): Promise<boolean> {
  return await new Promise(resolve => {
    const server = createServer()
    server.once('error', () => { resolve(false) })
    server.listen(port, '127.0.0.1', () => { server.close(() => { resolve(true) }) })
  })
}

async function startClusterOnce (): Promise<TestCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'ranking-test-cluster-'))
  const nodes = new Map<number, ChildProcess>()
  const ports: number[] = []
  for (let i = 0; i < NODES; i++) {
    let port = await freePort()
    while (ports.includes(port) || ports.includes(port - 10000) || ports.includes(port + 10000) || port + 10000 > 65535 || !await canListen(port + 10000)) port = await freePort()
    ports.push(port)
  }
  // A node that fails leaves the others serving their slots
  // (cluster-require-full-coverage no, as docs/guide.md advises).
  async function start (port: number): Promise<void> {
    const child = spawnRedisServer([
      '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir,
      '--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`, '--cluster-node-timeout', '1000',
      '--cluster-require-full-coverage', 'no', '--cluster-replica-validity-factor', '0', '--repl-diskless-sync-delay', '0',
      '--daemonize', 'no', '--logfile', join(dir, `redis-${port}.log`), '--maxmemory', '256mb', '--maxmemory-policy', 'noeviction'
    ])
    nodes.set(port, child)
    await waitForPing(port, child)
  }
  // However the test process ends, its nodes end with it.
  const killAll = (): void => {
    for (const child of nodes.values()) child.kill('SIGKILL')
    rmSync(dir, { recursive: true, force: true })
  }
  process.once('exit', killAll)
  try {
    for (const port of ports) await start(port)
    await run('redis-cli', ['--cluster', 'create', ...ports.map(port => `127.0.0.1:${port}`), '--cluster-replicas', '1', '--cluster-yes'])
    await waitForClusterOk(ports)
  } catch (error) {
    killAll()
    process.off('exit', killAll)
    throw error
  }

  async function kill (port: number): Promise<void> {
    const child = nodes.get(port)
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return
    await new Promise<void>(resolve => {
      child.once('exit', () => { resolve() })
      child.kill('SIGKILL')
    })
  }

  return {
    url: `redis://127.0.0.1:${ports[0] as number}`,
    ports,
    dir,
    async masterOf (key: string): Promise<number> {
      const client = new Redis({ port: ports[0], host: '127.0.0.1', maxRetriesPerRequest: 0 })
      try {
        const slot = await client.call('CLUSTER', 'KEYSLOT', key) as number
        const shards = await client.call('CLUSTER', 'SLOTS') as Array<[number, number, [string, number]]>
        const owner = shards.find(([from, to]) => slot >= from && slot <= to)
        if (owner === undefined) throw new Error(`no node owns slot ${slot}`)
        return owner[2][1]
      } finally {
        client.disconnect()
      }
    },
    async replicaOf (masterPort: number): Promise<number> {
      const client = nodeClient(masterPort)
      try {
        const port = /^slave0:.*port=(\d+)/m.exec(await client.info('replication'))?.[1]
        if (port === undefined) throw new Error(`the master on ${masterPort} has no replica`)
        return Number(port)
      } finally {
        client.disconnect()
      }
    },
    async isMaster (port: number): Promise<boolean> {
      const client = nodeClient(port)
      try {
        return /^role:master/m.test(await client.info('replication'))
      } catch {
        return false
      } finally {
        client.disconnect()
      }
    },
    node: nodeClient,
    unref () {
      for (const child of nodes.values()) child.unref()
    },
    async flush () {
      await Promise.all(ports.map(async port => {
        const client = new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: 0 })
        try {
          // Replicas refuse writes; FLUSHALL on the masters reaches them too.
          if (/role:master/.test(await client.info('replication'))) await client.flushall()
        } finally {
          client.disconnect()
        }
      }))
    },
    start,
    kill,
    async stop () {
      await Promise.all(ports.map(kill))
      rmSync(dir, { recursive: true, force: true })
      process.off('exit', killAll)
    }
  }
}

function nodeClient (port: number): Redis {
  return new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: 0, retryStrategy: () => null })
}

/**
 * Until every node says cluster_state:ok (the create command returns before
 * gossip settles) and every replica has synced. The bound is generous, as
 * waitFor's are: a busy machine settles a cluster several times slower.
 */
async function waitForClusterOk (ports: number[]): Promise<void> {
  for (const port of ports) {
    const client = new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: 0 })
    client.on('error', () => {})
    let info = ''
    try {
      await waitFor(async () => {
        info = await client.call('CLUSTER', 'INFO') as string
        // A replica that has not finished its first sync could not take over.
        const replication = await client.info('replication')
        return info.includes('cluster_state:ok') && (!/^role:slave/m.test(replication) || /^master_link_status:up/m.test(replication))
      }, { what: () => `the test cluster's node ${port} to reach cluster_state:ok, its replica synced (CLUSTER INFO: ${info.split('\r\n').slice(0, 3).join(', ')})`, timeoutMs: 60_000, intervalMs: 100 })
    } finally {
      client.disconnect()
    }
  }
}
