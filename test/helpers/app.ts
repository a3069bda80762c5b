import { randomBytes } from 'node:crypto'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { Cluster } from 'ioredis'
import type tap from 'tap'
import { buildApp } from '../../src/app.js'
import type { ServerExtras } from '../../src/server-options.js'
import { loadConfig, type Config } from '../../src/config.js'
import { computeSignature } from '../../src/rules/signature.js'
import { startTestCluster, type TestCluster } from './cluster.js'
import { startTestRedis, type TestRedis } from './redis.js'

export const ADMIN_TOKEN = 'test-admin-token-0123456789-abcdefghij'

export interface Teardown { teardown: (fn: () => unknown) => void }

export interface TestContext {
  app: FastifyInstance
  redis: TestRedis
  config: Config
}

/**
 * TEST_REDIS=cluster runs the tests that get their Redis here against a real
 * local Redis Cluster instead (3 masters, 1 replica each). A test file keeps
 * a few clusters: an app gets one no other live app uses, emptied first, so
 * every app starts from nothing as it does on its own redis-server.
 */
export const ON_CLUSTER = process.env.TEST_REDIS === 'cluster'
/** For tests that stop their Redis: a cluster's nodes keep running (its failover has a test of its own). */
export const STOPS_ITS_REDIS = { skip: ON_CLUSTER ? 'TEST_REDIS=cluster keeps its nodes running' : false }
const idleClusters: TestCluster[] = []

// A cluster test file has, rarely, passed every subtest and then not exited
// until tap's timeout (SIGALRM): something still held the event loop. What
// it was goes to stderr, so the next such run names it.
if (ON_CLUSTER) {
  process.on('SIGALRM', () => {
    const handles = (process as unknown as { _getActiveHandles: () => unknown[] })._getActiveHandles()
    const described = handles.map(handle => {
      const socket = handle as { constructor: { name: string }, remotePort?: number, localPort?: number }
      if (socket.remotePort !== undefined) return `${socket.constructor.name} ${socket.localPort ?? '?'}->${socket.remotePort}`
      return socket.constructor.name
    })
    process.stderr.write(`still open at the timeout: ${process.getActiveResourcesInfo().join(', ')}\n  ${described.join('\n  ')}\n`)
  })
}

async function freshRedis (t: Teardown): Promise<TestRedis> {
  if (!ON_CLUSTER) {
    const redis = await startTestRedis()
    t.teardown(async () => { await redis.stop() })
    return redis
  }
  let cluster = idleClusters.pop()
  if (cluster === undefined) {
    // Kept for the file's next apps; its nodes are killed when the test process exits.
    cluster = await startTestCluster()
    cluster.unref()
  }
  await cluster.flush()
  const mine = cluster
  t.teardown(() => { idleClusters.push(mine) })
  const unsupported = async (): Promise<void> => { throw new Error('this test stops its Redis, which TEST_REDIS=cluster does not') }
  return { url: cluster.url, port: cluster.ports[0] as number, kill: unsupported, start: unsupported, stop: async () => {} }
}

/** A fresh redis-server (or an emptied cluster, TEST_REDIS=cluster) and the app built on it, without listening. */
export async function buildTestApp (t: Teardown, env: Record<string, string> = {}, extras: ServerExtras = {}): Promise<TestContext> {
  const redis = await freshRedis(t)
  const config = loadConfig({ NODE_ENV: 'test', ADMIN_TOKEN, REDIS_URL: redis.url, RATE_LIMIT_MAX: '1000000', ...env })
  const app = await buildApp(config, extras)
  t.teardown(async () => { await app.close() })
  return { app, redis, config }
}

/** Several instances of the service on one fresh Redis (or one emptied cluster), like processes behind a load balancer. */
export async function buildTestApps (t: Teardown, count: number, env: Record<string, string> = {}): Promise<TestContext & { apps: FastifyInstance[] }> {
  const redis = await freshRedis(t)
  const config = loadConfig({ NODE_ENV: 'test', ADMIN_TOKEN, REDIS_URL: redis.url, RATE_LIMIT_MAX: '1000000', ...env })
  const apps: FastifyInstance[] = []
  for (let i = 0; i < count; i++) {
    const app = await buildApp(config)
    t.teardown(async () => { await app.close() })
    apps.push(app)
  }
  return { app: apps[0] as FastifyInstance, apps, redis, config }
}

export type Fields = Record<string, string>

export function formBody (fields: Fields | Array<[string, string]>): string {
  return new URLSearchParams(Array.isArray(fields) ? fields : Object.entries(fields)).toString()
}

/** multipart/form-data written out by hand, so tests control every byte. */
export function multipartBody (fields: Fields | Array<[string, string]>): { payload: string, headers: Record<string, string> } {
  const boundary = `----test${randomBytes(8).toString('hex')}`
  const entries = Array.isArray(fields) ? fields : Object.entries(fields)
  const payload = entries.map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`).join('') + `--${boundary}--\r\n`
  return { payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } }
}

export async function post (app: FastifyInstance, url: string, fields: Fields | Array<[string, string]>, encoding: 'form' | 'multipart' = 'form', headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  if (encoding === 'multipart') {
    const body = multipartBody(fields)
    return await app.inject({ method: 'POST', url, payload: body.payload, headers: { ...body.headers, ...headers } })
  }
  return await app.inject({ method: 'POST', url, payload: formBody(fields), headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers } })
}

export async function get (app: FastifyInstance, url: string, query: Fields = {}): Promise<LightMyRequestResponse> {
  const search = formBody(query)
  return await app.inject({ method: 'GET', url: search === '' ? url : `${url}${url.includes('?') ? '&' : '?'}${search}` })
}

export async function admin (app: FastifyInstance, method: 'POST' | 'PATCH' | 'PUT' | 'GET' | 'DELETE', url: string, body?: unknown): Promise<LightMyRequestResponse> {
  return await app.inject({ method, url, headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, ...(body === undefined ? {} : { payload: body as Record<string, unknown> }) })
}

let gameCounter = 0

export interface TestGame {
  gameId: string
  apiKey: string
  apiSecret: string
}

/** A new game (approved unless said otherwise) with one API key. */
export async function createGame (app: FastifyInstance, options: { approved?: boolean, gameId?: string, developer?: string } = {}): Promise<TestGame> {
  const gameId = options.gameId ?? `game_${process.pid}_${++gameCounter}`
  const created = await admin(app, 'POST', '/admin/games', { game_id: gameId, approved: options.approved ?? true, ...(options.developer === undefined ? {} : { developer: options.developer }) })
  if (created.json().ok !== true) throw new Error(`createGame failed: ${created.body}`)
  const key = await admin(app, 'POST', '/admin/keys', { game_id: gameId })
  const data = key.json().data
  return { gameId, apiKey: data.api_key, apiSecret: data.api_secret }
}

export interface SubmitOptions {
  player: string
  score: string | number
  ts?: string | number
  meta?: string
  sign?: string
  /** A named board: sent, and signed as the sixth value. */
  board?: string
  encoding?: 'form' | 'multipart'
  extra?: Fields
}

/** The fields of a correctly signed submit (unless `sign` is given). */
export function submitFields (game: TestGame, options: SubmitOptions): Fields {
  const ts = String(options.ts ?? Math.floor(Date.now() / 1000))
  const score = String(options.score)
  const fields: Fields = {
    api_key: game.apiKey,
    game_id: game.gameId,
    player_name: options.player,
    score,
    ts,
    sign: options.sign ?? computeSignature(game.apiSecret, { api_key: game.apiKey, game_id: game.gameId, player_name: options.player, score, ts, board: options.board })
  }
  if (options.board !== undefined) fields.board = options.board
  if (options.meta !== undefined) fields.meta = options.meta
  return { ...fields, ...options.extra }
}

export async function submit (app: FastifyInstance, game: TestGame, options: SubmitOptions): Promise<LightMyRequestResponse> {
  return await post(app, '/api/rank?action=submit', submitFields(game, options), options.encoding ?? 'form')
}

export async function top (app: FastifyInstance, game: TestGame, query: Fields = {}): Promise<LightMyRequestResponse> {
  return await get(app, '/api/rank', { action: 'top', api_key: game.apiKey, game_id: game.gameId, ...query })
}

export async function me (app: FastifyInstance, game: TestGame, player: string): Promise<LightMyRequestResponse> {
  return await get(app, '/api/rank', { action: 'me', api_key: game.apiKey, game_id: game.gameId, player_name: player })
}

/** The error code of an envelope, after checking it is one. */
export function errorOf (response: LightMyRequestResponse): string {
  const body = response.json()
  if (response.statusCode !== 200 || body.ok !== false) throw new Error(`expected an error envelope, got ${response.statusCode} ${response.body}`)
  return body.error
}

/** A failure envelope with this code: HTTP 200, JSON, and the code. */
export function expectError (t: Pick<typeof tap, 'equal'>, response: LightMyRequestResponse, code: string, what: string): void {
  t.equal(response.statusCode, 200, `${what} (status 200)`)
  t.equal(response.headers['content-type'], 'application/json; charset=utf-8', `${what} (content-type)`)
  let error: unknown
  try { error = errorOf(response) } catch { error = response.body }
  t.equal(error, code, what)
}

export function dataOf (response: LightMyRequestResponse): any {
  const body = response.json()
  if (response.statusCode !== 200 || body.ok !== true) throw new Error(`expected a success envelope, got ${response.statusCode} ${response.body}`)
  return body.data
}

/** Every key matching a pattern, on one server or on every master of a cluster (KEYS reaches one node only). */
export async function keysMatching (redis: FastifyInstance['redis'], pattern: string): Promise<string[]> {
  if (!(redis instanceof Cluster)) return await redis.keys(pattern)
  return (await Promise.all(redis.nodes('master').map(async node => await node.keys(pattern)))).flat()
}

/** How many times Redis ran a command (INFO commandstats, its calls there and inside scripts), on one server or summed over every master of a cluster. */
export async function commandCalls (redis: FastifyInstance['redis'], command: string): Promise<number> {
  const nodes = redis instanceof Cluster ? redis.nodes('master') : [redis]
  const infos = await Promise.all(nodes.map(async node => await node.info('commandstats')))
  return infos.reduce((sum, info) => sum + Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(info)?.[1] ?? 0), 0)
}
