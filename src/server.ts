import cluster, { type Worker } from 'node:cluster'
import { randomBytes } from 'node:crypto'
import closeWithGrace from 'close-with-grace'
import Fastify, { type FastifyInstance } from 'fastify'
import app from './app.js'
import { serverOptions } from './server-options.js'
import { CLOSE_GRACE_MS, loadConfig, type Config } from './config.js'
import { ConfigError } from './config/values.js'
import { drainOnClose } from './lib/drain.js'
import { DEMO_LOGIN, PHASER_GAME_ID, curlExample, seedDemo, type DemoCredentials } from './operations/demo.js'
import { startManagedRedis, type ManagedRedis } from './lib/managed-redis.js'
import { isEntryPoint } from './lib/paths.js'
import { unlessReaderGone } from './lib/log-output.js'
import { answerWorkersForMetrics, serveMetrics } from './lib/metrics.js'

export interface Service {
  app: FastifyInstance
  config: Config
  managedRedis: ManagedRedis | undefined
  /** Finishes in-flight requests, closes Redis, then stops a managed redis-server. */
  close: () => Promise<void>
}

/**
 * `npm start` in development makes up an admin token when none is set and
 * prints it (docs/interface.md#configuration); anywhere else an unset ADMIN_TOKEN
 * leaves the admin routes off (not_found).
 */
function generatesAdminToken (config: Config): boolean {
  return config.operatorTokens.length === 0 && config.nodeEnv === 'development' && process.env.RANKING_GENERATE_ADMIN_TOKEN === '1'
}

/** Starts Redis if the service owns it, builds the app and listens. */
export async function startService (baseConfig: Config, options: { welcome?: boolean } = {}): Promise<Service> {
  const managedRedis = baseConfig.redisUrl === undefined ? await startManagedRedis(baseConfig.dataDir) : undefined
  const generatedToken = generatesAdminToken(baseConfig)
  const adminToken = generatedToken ? randomBytes(18).toString('base64url') : baseConfig.adminToken
  const config: Config = {
    ...baseConfig,
    redisUrl: managedRedis?.url ?? baseConfig.redisUrl,
    adminToken,
    operatorTokens: generatedToken && adminToken !== undefined ? [{ name: 'admin', role: 'admin', token: adminToken }] : baseConfig.operatorTokens
  }
  const fastify = Fastify(serverOptions(config))
  const { drain } = drainOnClose(fastify, config.shutdownTimeoutMs)
  let metricsServer: { close: () => Promise<void> } | undefined
  const service: Service = {
    app: fastify,
    config,
    managedRedis,
    async close () {
      await metricsServer?.close()
      await drain()
      await fastify.close()
      await managedRedis?.stop()
    }
  }
  try {
    await fastify.register(app, { config })
    await fastify.listen({ port: config.port, host: config.host })
    // With workers, the primary serves METRICS_PORT.
    if (config.metricsPort !== undefined && cluster.isPrimary) metricsServer = await serveMetrics(config.host, config.metricsPort)
    // One process seeds and greets (the first worker when there are several).
    if (options.welcome !== false) {
      const demo = config.demo ? await seedDemo(fastify) : undefined
      if (config.nodeEnv === 'development') printWelcome(service, demo, generatedToken || process.env.RANKING_TOKEN_GENERATED === '1')
      else if (demo !== undefined) fastify.log.warn(`DEMO=true: the demo game "${demo.gameId}" and the login ${DEMO_LOGIN.username} / ${DEMO_LOGIN.password} exist; anyone can log in with it`)
    }
  } catch (error) {
    await metricsServer?.close()
    await fastify.close().catch(() => {})
    await managedRedis?.stop()
    throw error
  }
  return service
}

/** The variables the README's shell examples read, as one line to paste. */
export function readmeExports (baseUrl: string, adminToken: string): string {
  return `export RANKING_URL=${baseUrl} ADMIN_TOKEN=${adminToken}`
}

function printWelcome ({ app: fastify, config, managedRedis }: Service, demo: DemoCredentials | undefined, generatedToken: boolean): void {
  const address = fastify.server.address()
  const port = typeof address === 'object' && address !== null ? address.port : config.port
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host
  const baseUrl = `http://${host.includes(':') ? `[${host}]` : host}:${port}`
  const lines = [
    '',
    `Ranking service (development) at ${baseUrl}`,
    `  Redis:        ${managedRedis === undefined ? 'REDIS_URL' : `managed redis-server, data in ${config.dataDir}`}`,
    `  Admin token:  ${config.adminToken === undefined ? '(none: set ADMIN_TOKEN to enable /admin)' : config.adminToken}${generatedToken ? '   (generated for this run; set ADMIN_TOKEN to choose one)' : ''}`,
    `  API docs:     ${baseUrl}/docs`,
    `  Console:      ${baseUrl}/console/   (sign in with an operator token)`
  ]
  const examples = config.adminToken === undefined ? [] : ['For the README examples, paste this line into another terminal:', '', readmeExports(baseUrl, config.adminToken), '']
  if (demo === undefined) {
    lines.push('  Demo data:    off (DEMO=true creates the demo game, a demo login and a key)', '', ...examples)
    console.log(lines.join('\n'))
    return
  }
  lines.push(
    `  Play page:    ${baseUrl}/play/${demo.gameId}   (log in as ${DEMO_LOGIN.username} / ${DEMO_LOGIN.password})`,
    `  Demo game:    ${demo.gameId}; made with Phaser: ${baseUrl}/play/${PHASER_GAME_ID}`,
    `  Embed:        ${baseUrl}/embed/?game=${demo.gameId}&api_key=${demo.apiKey}   (its board on any page)`,
    `  API key:      ${demo.apiKey}`,
    `  API secret:   ${demo.apiSecret ?? `(shown once, when the key was made; a new key: npm run cli -- keys create ${demo.gameId})`}`,
    ''
  )
  if (demo.apiSecret !== undefined) {
    lines.push('A signed submission, ready to paste:', '', curlExample(baseUrl, { ...demo, apiSecret: demo.apiSecret }), '')
  }
  lines.push(`Top list: curl -s '${baseUrl}/api/rank?action=top&api_key=${demo.apiKey}&game_id=${demo.gameId}'`, '', ...examples)
  console.log(lines.join('\n'))
}

/** How long a shutdown may take before the process exits anyway: the drain, then closing Redis. */
function shutdownGraceMs (config: Config): number {
  return config.shutdownTimeoutMs + CLOSE_GRACE_MS
}

/** Workers that die before listening, in a row, after which the primary gives up. */
const START_FAILURES_ALLOWED = 3

/**
 * WORKERS > 1: this primary process owns the managed redis-server (if any)
 * and the generated admin token, and forks the workers, which share the
 * port. A worker that dies while serving is replaced at once; one that dies
 * before it listens is retried after a second, and after
 * START_FAILURES_ALLOWED such failures in a row the primary stops. Shutdown
 * belongs to the primary: on SIGTERM/SIGINT it asks every worker to drain
 * (a worker's own close-with-grace does that), then stops Redis.
 */
async function runPrimary (config: Config): Promise<void> {
  // Signals are handled from the first moment, as in a single process (main).
  const redisStarting = config.redisUrl === undefined ? startManagedRedis(config.dataDir) : Promise.resolve(undefined)
  let stopping = false
  const started: { metricsServer?: { close: () => Promise<void> } } = {}
  closeWithGrace({ delay: shutdownGraceMs(config) }, async ({ signal }) => {
    stopping = true
    // A start-up that failed has stopped what it started (main says so and exits).
    if (!await redisStarting.then(() => true, () => false)) return
    await started.metricsServer?.close()
    await stopAll()
    endBySignal(signal)
  })
  const managedRedis = await redisStarting
  const generatedToken = generatesAdminToken(config)
  const env = {
    REDIS_URL: managedRedis?.url ?? config.redisUrl ?? '',
    ADMIN_TOKEN: generatedToken ? randomBytes(18).toString('base64url') : config.adminToken ?? '',
    RANKING_TOKEN_GENERATED: generatedToken ? '1' : '0',
    // Decided here, where the managed Redis is known: workers see REDIS_URL set.
    DEMO: config.demo ? 'true' : 'false'
  }
  let startFailures = 0
  async function stopAll (): Promise<void> {
    stopping = true
    const workers = Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker !== undefined)
    await Promise.all(workers.map(async worker => {
      if (worker.isDead()) return
      const exited = new Promise(resolve => worker.once('exit', resolve))
      worker.process.kill('SIGTERM')
      await exited
    }))
    await managedRedis?.stop()
  }
  const fork = (index: number): Worker => {
    const worker = cluster.fork({ ...env, RANKING_WORKER_INDEX: String(index) })
    let listening = false
    worker.on('listening', () => {
      listening = true
      startFailures = 0
    })
    worker.on('exit', (code, signal) => {
      if (stopping) return
      // Every death is logged; one before listening is retried after a pause.
      console.error(`worker ${index} exited (${signal ?? code}); starting another${listening ? '' : ' in 1 s'}`)
      if (listening) {
        fork(index)
        return
      }
      startFailures++
      if (startFailures >= START_FAILURES_ALLOWED) {
        console.error(`Start-up failed: workers exited ${startFailures} times before listening; stopping`)
        stopAll().then(() => process.exit(1), () => process.exit(1))
        return
      }
      setTimeout(() => { if (!stopping) fork(index) }, 1000)
    })
    return worker
  }
  // The workers' metrics, added up: on METRICS_PORT, and for a worker asked on the service's port.
  started.metricsServer = config.metricsPort === undefined
    ? undefined
    : await serveMetrics(config.host, config.metricsPort).catch(async (error: unknown) => {
      await managedRedis?.stop()
      throw error
    })
  if (config.metricsToken !== undefined) answerWorkersForMetrics()
  if (stopping) return
  for (let index = 1; index <= config.workers; index++) fork(index)
}

/**
 * After a clean shutdown on SIGHUP (the terminal was closed), the process
 * ends by the signal itself, as a Unix process does, instead of exiting:
 * Node's exit restores the terminal's settings, which fails on a terminal
 * that is gone (node 20 then loops on SIGSEGV at full CPU), and pino's last
 * flush retries its write for ever. A signal's death runs neither.
 */
function endBySignal (signal: string | undefined): void {
  if (signal !== 'SIGHUP') return
  process.removeAllListeners('SIGHUP')
  process.kill(process.pid, 'SIGHUP')
}

export async function main (): Promise<void> {
  // A terminal that has gone (closed: SIGHUP) fails every write: what is printed then goes nowhere.
  for (const stream of [process.stdout, process.stderr]) stream.on('error', unlessReaderGone)
  let config: Config
  try {
    config = loadConfig()
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    console.error(error.message)
    process.exit(1)
  }
  if (config.workers > 1 && cluster.isPrimary) {
    try {
      await runPrimary(config)
    } catch (error) {
      console.error(`Start-up failed: ${(error as Error).message}`)
      process.exit(1)
    }
    return
  }
  // Signals are handled from the first moment: one that comes while the
  // service starts waits for the start to end, then stops what it started
  // (a managed redis-server included), as it would later.
  // In a cluster only the first worker prints the development welcome.
  const starting = startService(config, { welcome: cluster.isPrimary || process.env.RANKING_WORKER_INDEX === '1' })
  closeWithGrace({ delay: shutdownGraceMs(config) }, async ({ signal, err }) => {
    const service = await starting.catch(() => undefined)
    if (service === undefined) return // start-up failed: it stopped what it had started, and says so below
    if (err !== undefined) service.app.log.error({ err }, 'shutting down after an error')
    else service.app.log.info({ signal }, 'shutting down')
    await service.close()
    endBySignal(signal)
  })
  try {
    await starting
  } catch (error) {
    console.error(`Start-up failed: ${(error as Error).message}`)
    process.exit(1)
  }
}

if (isEntryPoint(import.meta.url)) await main()
