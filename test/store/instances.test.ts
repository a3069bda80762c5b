import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../src/app.js'
import { admin, buildTestApps, commandCalls, createGame, dataOf, errorOf, formBody, me, submit, top } from '../helpers/app.js'

/*
 * Many instances, one truth (docs/guide.md, scaling out): service processes
 * sharing one Redis (or one cluster, under TEST_REDIS=cluster) answer like
 * one. Every test spreads its requests over three instances.
 */

const INSTANCES = 3

function spread<T> (apps: FastifyInstance[], count: number, request: (app: FastifyInstance, i: number) => Promise<T>): Promise<T[]> {
  return Promise.all(Array.from({ length: count }, async (_, i) => await request(apps[i % apps.length] as FastifyInstance, i)))
}

t.test('the limit per (key, address) is counted once for all instances', { timeout: 40_000 }, async t => {
  const { apps } = await buildTestApps(t, INSTANCES, { RATE_LIMIT_MAX: '30' })
  const game = await createGame(apps[0] as FastifyInstance)
  const answers = await spread(apps, 45, async app => (await top(app, game)).json())
  t.equal(answers.filter(answer => answer.ok === true).length, 30, '30 answered, spread over three instances')
  t.same([...new Set(answers.filter(answer => answer.ok !== true).map(answer => answer.error))], ['rate_limited'], 'the other 15 are rate_limited')
  for (const [i, app] of apps.entries()) t.equal(errorOf(await top(app, game)), 'rate_limited', `instance ${i + 1} refuses the 46th`)
})

t.test('a revoked key and an unapproved game are refused by every instance', { timeout: 30_000 }, async t => {
  const { apps } = await buildTestApps(t, INSTANCES)
  const [first, second] = apps as [FastifyInstance, FastifyInstance]
  const game = await createGame(first)
  const other = await createGame(first)
  // Every instance has the key and the game in its cache.
  for (const app of apps) dataOf(await top(app, game))
  for (const app of apps) dataOf(await top(app, other))

  dataOf(await admin(second, 'POST', `/admin/keys/${game.apiKey}/revoke`))
  dataOf(await admin(second, 'PATCH', `/admin/games/${other.gameId}`, { approved: false }))
  // Once the invalidations have reached each instance (syncRecordCache waits for exactly that), no instance serves them.
  await Promise.all(apps.map(async app => { await app.syncRecordCache() }))
  for (const [i, app] of apps.entries()) {
    t.equal(errorOf(await top(app, game)), 'key_revoked', `instance ${i + 1}: the key is revoked`)
    t.equal(errorOf(await submit(app, other, { player: 'p', score: 1 })), 'invalid_game', `instance ${i + 1}: the game is unapproved`)
  }
})

t.test('play time stays exact when one user\'s reports land on different instances', { timeout: 30_000 }, async t => {
  const { apps } = await buildTestApps(t, INSTANCES)
  const first = apps[0] as FastifyInstance
  const game = await createGame(first)
  dataOf(await admin(first, 'POST', '/admin/users', { username: 'traveller' }))
  const cookie = `sid=${String(dataOf(await admin(first, 'POST', '/admin/sessions', { username: 'traveller' })).session_id)}`

  // Twelve reports of 30 s at once, as from tabs behind a load balancer: the
  // first is credited 30 s, the next the 5 s the rule lets play run ahead of
  // the clock, the rest nothing (plus whatever real time passes meanwhile).
  const started = Date.now()
  const answers = await spread(apps, 12, async app => dataOf(await app.inject({
    method: 'POST',
    url: '/api/playtime',
    payload: formBody({ game_id: game.gameId, seconds: '30' }),
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie }
  })))
  const elapsed = Math.ceil((Date.now() - started) / 1000)
  const credited = answers.reduce((sum, answer) => sum + Number(answer.credited_seconds), 0)
  t.ok(credited >= 35 && credited <= 35 + elapsed, `credited ${credited} s in total (elapsed ${elapsed} s)`)
  t.equal(answers.filter(answer => answer.credited_seconds === 30).length, 1, 'one report got the whole claim')
  t.equal(Math.max(...answers.map(answer => Number(answer.user_playtime_seconds))), credited, 'the user total is the sum of what was credited')
  t.equal(Number(await first.redis.hget(`rank:{game:${game.gameId}}:playtime`, 'u:traveller')), credited, 'and so is what is stored')
})

t.test('concurrent submits for one player through different instances keep the maximum', { timeout: 30_000 }, async t => {
  const { apps } = await buildTestApps(t, INSTANCES)
  const game = await createGame(apps[0] as FastifyInstance)
  const scores = Array.from({ length: 60 }, (_, i) => (i * 7919) % 1000 + 1)
  const best = Math.max(...scores)
  const answers = await spread(apps, scores.length, async (app, i) => dataOf(await submit(app, game, { player: 'racer', score: scores[i] as number })))
  t.ok(answers.every(answer => answer.best_score <= best && answer.best_score >= answer.score), 'every answer shows a best at least its own score')
  t.equal(answers[scores.indexOf(best)].improved, true, 'the highest score improved the entry')
  for (const [i, app] of apps.entries()) t.same(dataOf(await me(app, game, 'racer')), { player_name: 'racer', best_score: best, rank: 1 }, `instance ${i + 1} shows the maximum`)
  t.match(dataOf(await top(apps[1] as FastifyInstance, game)), { total: 1, items: [{ rank: 1, player_name: 'racer', score: best }] }, 'one entry on the board')
})

t.test('activity counts reach the other instances within a second, and a closing instance writes its own', { timeout: 30_000 }, async t => {
  const { apps, config } = await buildTestApps(t, 2)
  const [counting, reading] = apps as [FastifyInstance, FastifyInstance]
  const game = await createGame(counting)
  const day = async (): Promise<any> => dataOf(await admin(reading, 'GET', `/admin/games/${game.gameId}/stats?days=1&minutes=2`)).days[0]
  dataOf(await submit(counting, game, { player: 'ann', score: 1 }))
  dataOf(await submit(counting, game, { player: 'bob', score: 2 }))
  // Summed in the instance that answered, written within a second (store/activity.ts FLUSH_MS): polled, not timed.
  let seen = await day()
  for (let i = 0; i < 100 && seen.submissions < 2; i++) {
    await new Promise(resolve => setTimeout(resolve, 50))
    seen = await day()
  }
  t.equal(seen.submissions, 2, 'the other instance reads both submissions')
  t.equal(seen.active_players, 2)

  // Counted, then closed at once: its shutdown writes what it had not yet.
  const closing = await buildApp(config)
  dataOf(await submit(closing, game, { player: 'cid', score: 3 }))
  await closing.close()
  t.same(await day(), { ...seen, submissions: 3, active_players: 3 }, 'read right after the other instance closed')
})

t.test('a top page kept by one instance is served again only while no instance wrote a board of its game', { timeout: 40_000 }, async t => {
  const { apps } = await buildTestApps(t, 2)
  const [reader, writer] = apps as [FastifyInstance, FastifyInstance]
  const game = await createGame(reader)
  const other = await createGame(reader)
  const names = async (): Promise<string[]> => dataOf(await top(reader, game)).items.map((item: any) => `${String(item.player_name)}:${String(item.score)}`)
  // ZRANGE calls that reached Redis (every master's INFO commandstats): a page served from the process adds none.
  const ranges = async (): Promise<number> => await commandCalls(reader.redis, 'zrange')

  dataOf(await submit(writer, game, { player: 'ann', score: 10 }))
  t.same(await names(), ['ann:10'])
  const before = await ranges()
  t.same(await names(), ['ann:10'], 'the same page again')
  t.equal(await ranges(), before, 'from the process: the board was not read')
  dataOf(await submit(writer, other, { player: 'zed', score: 1 }))
  t.same(await names(), ['ann:10'])
  t.equal(await ranges(), before, 'another game\'s write changes nothing here')

  // Each write below is answered by the other instance; the next read reflects it at once.
  dataOf(await submit(writer, game, { player: 'bob', score: 20 }))
  t.same(await names(), ['bob:20', 'ann:10'], 'a new best')
  dataOf(await submit(writer, game, { player: 'bob', score: 5 }))
  t.same(await names(), ['bob:20', 'ann:10'], 'a score that changes nothing')
  dataOf(await admin(writer, 'PATCH', `/admin/games/${game.gameId}/players/bob`, { hidden: true }))
  t.same(await names(), ['ann:10'], 'a hidden player')
  dataOf(await admin(writer, 'PATCH', `/admin/games/${game.gameId}/players/bob`, { hidden: false }))
  t.same(await names(), ['bob:20', 'ann:10'], 'shown again')
  dataOf(await admin(writer, 'DELETE', `/admin/games/${game.gameId}/players/ann`))
  t.same(await names(), ['bob:20'], 'a deleted entry')
  dataOf(await admin(writer, 'POST', `/admin/games/${game.gameId}/seasons`, {}))
  t.same(await names(), [], 'a new season')
})
