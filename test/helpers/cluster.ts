import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { Redis } from 'ioredis'
import { freePort, waitForPing } from './redis.js'

const run = promisify(execFile)

/**
 * A real local Redis Cluster started by the test itself: Debian's
 * redis-server on free loopback ports, 3 masters with 1 replica each, made
 * with `redis-cli --cluster create`, no persistence, a node timeout of 1 s so
 * a failover happens within seconds.
 */
export interface TestCluster {
  /** redis:// URL of the first master (any node would do). */
  url: string
  ports: number[]
  /** The port of the master that owns a key's slot. */
  masterOf: (key: string) => Promise<number>
  /** SIGKILL one node, like a crash. */
  kill: (port: number) => Promise<void>
  stop: () => Promise<void>
}

const NODES = 6

export async function startTestCluster (): Promise<TestCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'ranking-test-cluster-'))
  const nodes = new Map<number, ChildProcess>()
  const ports: number[] = []
  for (let i = 0; i < NODES; i++) {
    let port = await freePort()
    while (ports.includes(port) || ports.includes(port - 10000) || port + 10000 > 65535) port = await freePort()
    ports.push(port)
  }
  try {
    for (const port of ports) {
      const child = spawn('redis-server', [
        '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir,
        '--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`, '--cluster-node-timeout', '1000',
        '--daemonize', 'no', '--maxmemory', '256mb', '--maxmemory-policy', 'noeviction'
      ], { stdio: 'ignore' })
      nodes.set(port, child)
      await waitForPing(port, child)
    }
    await run('redis-cli', ['--cluster', 'create', ...ports.map(port => `127.0.0.1:${port}`), '--cluster-replicas', '1', '--cluster-yes'])
    await waitForClusterOk(ports)
  } catch (error) {
    for (const child of nodes.values()) child.kill('SIGKILL')
    rmSync(dir, { recursive: true, force: true })
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
    kill,
    async stop () {
      await Promise.all(ports.map(kill))
      rmSync(dir, { recursive: true, force: true })
    }
  }
}

/** Until every node says cluster_state:ok (the create command returns before gossip settles). */
async function waitForClusterOk (ports: number[]): Promise<void> {
  const deadline = Date.now() + 20_000
  for (const port of ports) {
    const client = new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: 0 })
    try {
      for (;;) {
        const info = await client.call('CLUSTER', 'INFO') as string
        if (info.includes('cluster_state:ok')) break
        if (Date.now() > deadline) throw new Error(`the test cluster did not reach cluster_state:ok: ${info}`)
        await new Promise(resolve => setTimeout(resolve, 100))
      }
    } finally {
      client.disconnect()
    }
  }
}
