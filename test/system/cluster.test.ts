import { Cluster } from 'ioredis'
import t from 'tap'
import { buildApp } from '../../src/app.js'
import { loadConfig } from '../../src/config.js'
import { keys } from '../../src/store/keys.js'
import { closeRedis, connectRedis } from '../../src/store/redis-client.js'
import { ADMIN_TOKEN, admin, createGame, dataOf, me, post, submit, top } from '../helpers/app.js'
import { startTestCluster } from '../helpers/cluster.js'
import { waitFor } from '../helpers/wait.js'

/*
 * Redis Cluster as a backend (docs/guide.md, scaling out): REDIS_URL naming
 * one node of a real local cluster (3 masters, 1 replica each, started
 * here) makes the service use ioredis's cluster client, and the API-key
 * path works across slots owned by different masters.
 */

const cluster = await startTestCluster()
t.teardown(cluster.stop)

async function clusterApp (t: { teardown: (fn: () => unknown) => void }, redisUrl = cluster.url): Promise<Awaited<ReturnType<typeof buildApp>>> {
  const app = await buildApp(loadConfig({ NODE_ENV: 'test', ADMIN_TOKEN, REDIS_URL: redisUrl, RATE_LIMIT_MAX: '1000000', LOG_LEVEL: process.env.CLUSTER_LOG ?? 'silent' }))
  t.teardown(async () => { await app.close() })
  return app
}

t.test('REDIS_URL naming one node of a cluster uses the cluster client', async t => {
  const app = await clusterApp(t)
  t.ok(app.redis instanceof Cluster, 'a cluster client')
  t.same(dataOf(await app.inject({ method: 'GET', url: '/healthz' })), { redis: 'up' })
  const seeds = await clusterApp(t, cluster.ports.slice(3).map(port => `redis://127.0.0.1:${port}`).join(','))
  t.ok(seeds.redis instanceof Cluster, 'several seed nodes, comma-separated, too')
})

t.test('games on different masters: create, submit, top and me', async t => {
  const app = await clusterApp(t)
  const owners = new Set<number>()
  for (let i = 0; i < 6; i++) {
    const game = await createGame(app, { gameId: `cluster_${i}` })
    owners.add(await cluster.masterOf(`{game:${game.gameId}}`))
    t.same(dataOf(await submit(app, game, { player: 'alice', score: 10 + i })), { score: 10 + i, improved: true, best_score: 10 + i, rank: 1 })
    t.same(dataOf(await submit(app, game, { player: 'bob', score: 100 })), { score: 100, improved: true, best_score: 100, rank: 1 })
    t.match(dataOf(await top(app, game)), { total: 2, items: [{ rank: 1, player_name: 'bob' }, { rank: 2, player_name: 'alice' }] })
    t.same(dataOf(await me(app, game, 'alice')), { player_name: 'alice', best_score: 10 + i, rank: 2 })
  }
  t.ok(owners.size >= 2, `the games live on ${owners.size} different masters`)
  t.match(dataOf(await admin(app, 'GET', '/admin/games/cluster_0/players/alice')), { player_name: 'alice', best_score: 10 })
})

t.test('runs on a cluster: start, report, a submit-run and an export, each one script in the game\'s slot', async t => {
  const app = await clusterApp(t)
  const owners = new Set<number>()
  for (let i = 0; i < 3; i++) {
    const game = await createGame(app, { gameId: `cluster_runs_${i}` })
    owners.add(await cluster.masterOf(`{game:${game.gameId}}`))
    dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}`, { runs: 'required', submit_run: 'on', max_score_rate: 100 }))
    const fields = { api_key: game.apiKey, game_id: game.gameId, player_name: 'alice' }
    const run = dataOf(await post(app, '/api/rank?action=run-start', fields))
    await new Promise(resolve => setTimeout(resolve, 1100))
    const reported = dataOf(await post(app, '/api/rank?action=run-report', { ...fields, run_id: run.run_id, seconds: '30' }))
    t.ok(reported.run_verified_seconds >= 1, `${game.gameId}: ${String(reported.run_verified_seconds)} s of verified play`)
    t.same(dataOf(await post(app, '/api/rank?action=submit-run', { ...fields, run_id: run.run_id, score: String(10 + i) })), { score: 10 + i, improved: true, best_score: 10 + i, rank: 1 })
    const line = JSON.parse((await admin(app, 'GET', `/admin/games/${game.gameId}/export`)).body.trim())
    t.match(line, { player_name: 'alice', run_verified_seconds: reported.run_verified_seconds }, 'the entry keeps its run')
  }
  t.ok(owners.size >= 2, `the games live on ${owners.size} different masters`)
})

t.test('the record cache works on a cluster: one instance caches, another revokes, the first refuses at once', async t => {
  const first = await clusterApp(t)
  const second = await clusterApp(t)
  const game = await createGame(first, { gameId: 'cluster_cache' })
  t.match(dataOf(await top(first, game)), { total: 0 })
  // Proof that the first instance answers from its cache: the stored record can go, the answer stays.
  const stored = await first.redis.hgetall(keys.apiKey(game.apiKey))
  await first.redis.del(keys.apiKey(game.apiKey))
  t.match(dataOf(await top(first, game)), { total: 0 }, 'served from the cache')
  await first.redis.hset(keys.apiKey(game.apiKey), stored)
  // The revocation goes through the other instance; its invalidation reaches the first through any node.
  dataOf(await admin(second, 'POST', `/admin/keys/${game.apiKey}/revoke`))
  let answer = ''
  await waitFor(async () => {
    answer = String((await top(first, game)).json().error ?? '')
    return answer === 'key_revoked'
  }, { what: () => `the first instance to hear of the revocation (it answers ${answer || 'ok'})` })
  t.equal(answer, 'key_revoked', 'the first instance refuses the revoked key')
})

t.test('requests sent the moment the client is connected are served on every master', async t => {
  // Each master's connection is open before connectRedis returns; a command
  // sent to a master whose connection is still opening would be refused.
  for (let round = 0; round < 5; round++) {
    const redis = await connectRedis(cluster.url, 5000, client => { client.on('error', () => {}) })
    const results = await Promise.allSettled(Array.from({ length: 30 }, async (_, i) => await redis.set(`{game:burst_${i}}:k`, String(round))))
    await closeRedis(redis)
    t.same(results.filter(result => result.status === 'rejected').map(result => String((result as PromiseRejectedResult).reason)), [], `round ${round}: every command answered`)
  }
})
