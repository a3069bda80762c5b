import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../src/http/app.js'
import { loadConfig } from '../src/ops/config.js'
import { keys } from '../src/store/keys.js'
import { ADMIN_TOKEN, admin, buildTestApp, buildTestApps, createGame, dataOf, submit } from './helpers/app.js'
import { startReceiver, verified, type Receiver } from './helpers/receiver.js'

/*
 * Webhook delivery survives what happens to the service (docs/guide.md#webhooks):
 * a process that stops in the middle of an attempt, one that read events and
 * died before turning them into deliveries, several processes at once. Every
 * expected event arrives; an event arrives twice only under the same
 * webhook-id.
 */

const FAST = { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_MS: '20', WEBHOOK_RETRY_BASE_MS: '50' }

async function receiverFor (t: { teardown: (fn: () => unknown) => void }, behaviour = {}): Promise<Receiver> {
  const receiver = await startReceiver(behaviour)
  t.teardown(receiver.close)
  return receiver
}

/** Another process of the service on the same Redis, with these settings. */
async function processOn (t: { teardown: (fn: () => unknown) => void }, redisUrl: string, env: Record<string, string>): Promise<FastifyInstance> {
  const app = await buildApp(loadConfig({ NODE_ENV: 'test', ADMIN_TOKEN, REDIS_URL: redisUrl, RATE_LIMIT_MAX: '1000000', ...FAST, ...env }))
  t.teardown(async () => { await app.close() })
  return app
}

/** The players of the board.first events a receiver took, verified, each event once. */
function firsts (receiver: Receiver, secret: string): string[] {
  const seen = new Map<string, string>()
  for (const delivery of receiver.accepted()) seen.set(String(delivery.headers['webhook-id']), verified(secret, delivery).data.player_name as string)
  return [...seen.values()].sort()
}

t.test('a process stopped in the middle of an attempt: another delivers it when the lease ends, with the same webhook-id', async t => {
  const receiver = await receiverFor(t, { hang: true })
  // A 3 s timeout: the stopping process gives up waiting (2 s) before the attempt ends, as a killed one would.
  const slow = { WEBHOOK_TIMEOUT_MS: '3000' }
  const { app: first, redis } = await buildTestApp(t, { ...FAST, ...slow })
  const game = await createGame(first)
  const { secret } = dataOf(await admin(first, 'POST', `/admin/games/${game.gameId}/webhooks`, { url: receiver.url, events: ['board.first'] }))
  dataOf(await submit(first, game, { player: 'before_the_stop', score: 1 }))
  while (receiver.received.length === 0) await new Promise(resolve => setTimeout(resolve, 20))
  await first.close()
  receiver.behaviour.hang = false

  const second = await processOn(t, redis.url, slow)
  dataOf(await submit(second, game, { player: 'after_the_restart', score: 2 }))
  await receiver.waitForAccepted(2, 30_000)
  t.same(firsts(receiver, secret), ['after_the_restart', 'before_the_stop'], 'both events arrive')
  const ids = receiver.received.map(request => request.headers['webhook-id'])
  t.equal(ids.filter(id => id === ids[0]).length, 2, 'the interrupted one was sent twice, under one webhook-id')
})

t.test('events read by a process that died before making deliveries are taken over', async t => {
  const receiver = await receiverFor(t)
  // This process writes events but delivers nothing.
  const { app: writer, redis } = await buildTestApp(t, { ...FAST, WEBHOOK_DISPATCH: 'false' })
  const game = await createGame(writer)
  const { secret } = dataOf(await admin(writer, 'POST', `/admin/games/${game.gameId}/webhooks`, { url: receiver.url, events: ['board.first'] }))
  for (const player of ['one', 'two', 'three']) dataOf(await submit(writer, game, { player, score: ['one', 'two', 'three'].indexOf(player) + 1 }))
  // A process reads them with the consumer group, then dies.
  const read = await writer.redis.xreadgroup('GROUP', 'webhooks', 'dead-process', 'COUNT', 100, 'STREAMS', keys.events(game.gameId), '>') as Array<[string, unknown[]]>
  t.equal(read[0]![1].length, 8, 'eight events read (best and first for each, overtaken for the two that passed someone), never acknowledged')

  const started = Date.now()
  await processOn(t, redis.url, {})
  await receiver.waitForAccepted(3, 30_000)
  t.same(firsts(receiver, secret), ['one', 'three', 'two'])
  t.ok(Date.now() - started >= 1000, 'taken over once idle (a second at least)')
  const pending = await writer.redis.xpending(keys.events(game.gameId), 'webhooks') as [number, ...unknown[]]
  t.equal(pending[0], 0, 'every entry acknowledged')
})

t.test('several processes deliver each event once', async t => {
  const receiver = await receiverFor(t)
  const { apps } = await buildTestApps(t, 3, FAST)
  const game = await createGame(apps[0]!)
  const { secret } = dataOf(await admin(apps[0]!, 'POST', `/admin/games/${game.gameId}/webhooks`, { url: receiver.url, events: ['score.best'] }))
  const players = Array.from({ length: 30 }, (_, i) => `p${String(i).padStart(2, '0')}`)
  await Promise.all(players.map(async (player, i) => { dataOf(await submit(apps[i % 3]!, game, { player, score: i })) }))
  await receiver.waitForAccepted(30)
  await new Promise(resolve => setTimeout(resolve, 300))
  t.equal(receiver.accepted().length, 30, 'thirty deliveries, no more')
  const seen = new Set(receiver.accepted().map(delivery => verified(secret, delivery).data.player_name as string))
  t.same([...seen].sort(), players)
})
