import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../src/app.js'
import { loadConfig } from '../../src/config.js'
import { keys } from '../../src/store/keys.js'
import { EVENTS_KEPT, OUTBOX_MAX } from '../../src/store/events.js'
import { BACKLOG_MAX, type NewDelivery } from '../../src/store/webhooks.js'
import { metrics } from '../../src/lib/metrics.js'
import { ADMIN_TOKEN, admin, buildTestApp, buildTestApps, createGame, dataOf, submit } from '../helpers/app.js'
import { startReceiver, verified, type Receiver } from '../helpers/receiver.js'
import { waitFor } from '../helpers/wait.js'

/*
 * Webhook delivery survives what happens to the service (docs/guide.md#webhooks):
 * a process that stops in the middle of an attempt, one that read events and
 * died before turning them into deliveries, several processes at once. Every
 * expected event arrives; an event arrives twice only under the same
 * webhook-id.
 */

const METRICS_TOKEN = 'metrics-token-0123456789'
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

// Waits for a lease of 7 s to end: about 12 s on an idle machine.
t.test('a process stopped in the middle of an attempt: another delivers it when the lease ends, with the same webhook-id', { timeout: 120_000 }, async t => {
  const receiver = await receiverFor(t, { hang: true })
  // A 3 s timeout: the stopping process gives up waiting (2 s) before the attempt ends, as a killed one would.
  const slow = { WEBHOOK_TIMEOUT_MS: '3000' }
  const { app: first, redis } = await buildTestApp(t, { ...FAST, ...slow })
  const game = await createGame(first)
  const { secret } = dataOf(await admin(first, 'POST', `/admin/games/${game.gameId}/webhooks`, { url: receiver.url, events: ['board.first'] }))
  dataOf(await submit(first, game, { player: 'before_the_stop', score: 1 }))
  await waitFor(() => receiver.received.length > 0, { what: 'the first attempt to reach the hanging receiver' })
  await first.close()
  receiver.behaviour.hang = false

  const second = await processOn(t, redis.url, slow)
  dataOf(await submit(second, game, { player: 'after_the_restart', score: 2 }))
  // The interrupted attempt is tried again once its lease (2 × 3 s + 1 s) has ended.
  await receiver.waitForAccepted(2, 60_000)
  t.same(firsts(receiver, secret), ['after_the_restart', 'before_the_stop'], 'both events arrive')
  const ids = receiver.received.map(request => request.headers['webhook-id'])
  t.equal(ids.filter(id => id === ids[0]).length, 2, 'the interrupted one was sent twice, under one webhook-id')
})

t.test('events read by a process that died before making deliveries are taken over', { timeout: 40_000 }, async t => {
  const receiver = await receiverFor(t)
  // This process writes events but delivers nothing.
  const { app: writer, redis } = await buildTestApp(t, { ...FAST, WEBHOOK_DISPATCH: 'false' })
  const game = await createGame(writer)
  const { secret } = dataOf(await admin(writer, 'POST', `/admin/games/${game.gameId}/webhooks`, { url: receiver.url, events: ['board.first'] }))
  for (const player of ['one', 'two', 'three']) dataOf(await submit(writer, game, { player, score: ['one', 'two', 'three'].indexOf(player) + 1 }))
  // A process reads them with the consumer group, then dies. (Their idle time counts from the read.)
  const started = Date.now()
  const read = await writer.redis.xreadgroup('GROUP', 'webhooks', 'dead-process', 'COUNT', 100, 'STREAMS', keys.events(game.gameId), '>') as Array<[string, unknown[]]>
  t.equal(read[0]![1].length, 8, 'eight events read (best and first for each, overtaken for the two that passed someone), never acknowledged')

  await processOn(t, redis.url, {})
  await receiver.waitForAccepted(3)
  t.same(firsts(receiver, secret), ['one', 'three', 'two'])
  t.ok(Date.now() - started >= 1000, 'taken over once idle (a second at least)')
  const pending = await writer.redis.xpending(keys.events(game.gameId), 'webhooks') as [number, ...unknown[]]
  t.equal(pending[0], 0, 'every entry acknowledged')
})

t.test('a dispatcher that stalled past the claim\'s idle time and the one that took its events over make each delivery once', { timeout: 30_000 }, async t => {
  // This process writes events but delivers nothing: the two dispatchers are played by hand, on its store.
  const { app } = await buildTestApp(t, { ...FAST, WEBHOOK_DISPATCH: 'false' })
  const game = await createGame(app)
  dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/webhooks`, { url: 'http://127.0.0.1:9/hook', events: ['board.first'] }))
  const [webhook] = await app.webhooks.list(game.gameId)
  dataOf(await submit(app, game, { player: 'once', score: 1 }))
  // The slow one reads the events; the other claims them once they are idle (here at once), and both make their deliveries.
  const { entries } = await app.webhooks.readOutbox(game.gameId, 'slow', 100)
  const [, taken] = await app.redis.xautoclaim(keys.events(game.gameId), 'webhooks', 'other', 0, '0-0', 'COUNT', 100) as [string, Array<[string, string[]]>]
  t.same(taken.map(([id]) => id), entries.map(([id]) => id), 'the same entries, held by both')
  const deliveriesOf = (read: Array<[string, string[]]>): NewDelivery[] => read.map(([id]) => ({ entryId: id, webhookId: webhook!.webhook_id, messageId: `msg_${id}`, type: 'board.first', body: '{}' }))
  const ids = (read: Array<[string, string[]]>): string[] => read.map(([id]) => id)
  const other = await app.webhooks.enqueue(game.gameId, Date.now(), ids(taken), deliveriesOf(taken))
  const slow = await app.webhooks.enqueue(game.gameId, Date.now(), ids(entries), deliveriesOf(entries))
  t.equal(other.made.length, entries.length, 'the first to finish makes the deliveries')
  t.same(slow.made, [], 'the stalled one, finishing after, makes none')
  t.equal(await app.redis.hlen(keys.deliveries(game.gameId)), entries.length, 'one delivery per event')
  // A test event comes from no entry: always made.
  const test = await app.webhooks.enqueue(game.gameId, Date.now(), [], [{ webhookId: webhook!.webhook_id, messageId: 'test_1', type: 'webhook.test', body: '{}' }])
  t.equal(test.made.length, 1, 'a test event is made')
})

t.test('several processes deliver each event once', { timeout: 30_000 }, async t => {
  const receiver = await receiverFor(t)
  const { apps } = await buildTestApps(t, 3, FAST)
  const game = await createGame(apps[0]!)
  const { secret, webhook_id: webhookId } = dataOf(await admin(apps[0]!, 'POST', `/admin/games/${game.gameId}/webhooks`, { url: receiver.url, events: ['score.best'] }))
  const players = Array.from({ length: 30 }, (_, i) => `p${String(i).padStart(2, '0')}`)
  await Promise.all(players.map(async (player, i) => { dataOf(await submit(apps[i % 3]!, game, { player, score: i })) }))
  await receiver.waitForAccepted(30)
  // Every delivery recorded as delivered: nothing is left for any process to attempt.
  const deliveries = async (status: string): Promise<number> => dataOf(await admin(apps[0]!, 'GET', `/admin/games/${game.gameId}/webhooks/${webhookId as string}/deliveries?status=${status}&limit=1`)).total
  await waitFor(async () => await deliveries('done') === 30 && await deliveries('pending') === 0, { what: 'the 30 deliveries recorded as done' })
  // Part of the scenario: a quiet moment in which a second attempt of any of them would arrive.
  await new Promise(resolve => setTimeout(resolve, 300))
  t.equal(receiver.accepted().length, 30, 'thirty deliveries, no more')
  const seen = new Set(receiver.accepted().map(delivery => verified(secret, delivery).data.player_name as string))
  t.same([...seen].sort(), players)
})

/** Writes `count` score.best entries straight into the game's outbox, as the submit script would. */
async function writeEvents (redis: FastifyInstance['redis'], gameId: string, count: number, from = 0): Promise<void> {
  const pipeline = redis.pipeline()
  for (let i = from; i < from + count; i++) {
    pipeline.xadd(keys.events(gameId), '*', 'type', 'score.best', 'data', JSON.stringify({ board: 'all', player_name: `p${i}`, score: String(i), previous_best: null, rank: 1 }))
  }
  await pipeline.exec()
}

/** Waits until the consumer group has read and acknowledged every entry of the outbox (tens of thousands: a few seconds). */
async function outboxRead (redis: FastifyInstance['redis'], gameId: string): Promise<void> {
  let info: Record<string, unknown> = {}
  // The client's command timeout (a second) may pass while another app of this process drains a long outbox:
  // the call throws, and waitFor asks again.
  await waitFor(async () => {
    const [group] = await redis.xinfo('GROUPS', keys.events(gameId)) as unknown[][]
    if (group === undefined) return false
    info = Object.fromEntries(Array.from({ length: group.length / 2 }, (_, i) => [group[2 * i], group[2 * i + 1]]))
    return info.lag === 0 && info.pending === 0
  }, { what: () => `the outbox of ${gameId} read and acknowledged whole (lag ${String(info.lag)}, pending ${String(info.pending)})`, intervalMs: 50 })
}

t.test('a backlog longer than the outbox keeps is read whole: no unread event is trimmed', { timeout: 40_000 }, async t => {
  const receiver = await receiverFor(t)
  const { app: writer, redis } = await buildTestApp(t, { ...FAST, WEBHOOK_DISPATCH: 'false' })
  const game = await createGame(writer)
  dataOf(await admin(writer, 'POST', `/admin/games/${game.gameId}/webhooks`, { url: receiver.url, events: ['score.best'] }))
  await writeEvents(writer.redis, game.gameId, EVENTS_KEPT + 2_000)
  // And one more, by the submit script: writing an event trims nothing.
  dataOf(await submit(writer, game, { player: 'last', score: 1 }))
  const written = EVENTS_KEPT + 2_002
  t.equal(await writer.redis.xlen(keys.events(game.gameId)), written, `${written} events wait in the outbox (the submit's score.best and board.first last), none read`)

  await processOn(t, redis.url, {})
  await outboxRead(writer.redis, game.gameId)
  t.equal(Number(await writer.redis.get(keys.deliverySequence(game.gameId))), EVENTS_KEPT + 2_001, 'every event the webhook takes became a delivery (all but board.first)')
  const kept = await writer.redis.xlen(keys.events(game.gameId))
  t.ok(kept >= EVENTS_KEPT && kept <= EVENTS_KEPT + 200, `once read, the outbox is trimmed to about ${EVENTS_KEPT} (${kept})`)
  const [newest] = await writer.redis.xrevrange(keys.events(game.gameId), '+', '-', 'COUNT', 1)
  t.match(newest![1], ['type', 'board.first', 'data', /"player_name":"last"/], 'the newest are the ones kept')
})

t.test('a full outbox takes no more events: they are counted, reported once by a dispatcher, and the outbox goes on once read', { timeout: 90_000 }, async t => {
  const receiver = await receiverFor(t)
  const { app: writer, redis } = await buildTestApp(t, { ...FAST, WEBHOOK_DISPATCH: 'false' })
  const game = await createGame(writer)
  const { secret } = dataOf(await admin(writer, 'POST', `/admin/games/${game.gameId}/webhooks`, { url: receiver.url, events: ['board.first'] }))
  // No process dispatches while the game's events go on, until its outbox is full.
  for (let from = 0; from < OUTBOX_MAX; from += 10_000) await writeEvents(writer.redis, game.gameId, 10_000, from)
  dataOf(await submit(writer, game, { player: 'never_told', score: 1 }))
  t.equal(await writer.redis.xlen(keys.events(game.gameId)), OUTBOX_MAX, 'the outbox took none of its events (score.best, board.first)')
  const listing = dataOf(await admin(writer, 'GET', `/admin/games/${game.gameId}/events?limit=1`))
  t.match(listing, { dropped: 2, items: [{ type: 'score.best', data: { player_name: `p${OUTBOX_MAX - 1}` } }] }, 'the events listing counts them')

  const lines: string[] = []
  const dispatcher = await buildApp(loadConfig({ NODE_ENV: 'test', ADMIN_TOKEN, REDIS_URL: redis.url, METRICS_TOKEN, LOG_LEVEL: 'warn', ...FAST }), { logStream: { write: line => { lines.push(line) } } })
  t.teardown(async () => { await dispatcher.close() })
  await outboxRead(writer.redis, game.gameId)
  const errors = lines.map(line => JSON.parse(line) as Record<string, unknown>).filter(line => line.level === 50)
  t.equal(errors.length, 1, 'one error, once')
  t.match(errors[0], { game_id: game.gameId, events_dropped: 2, msg: `2 events of game ${game.gameId} were never written, so no webhook gets them: its outbox held ${OUTBOX_MAX} events no process had read (does any run with WEBHOOK_DISPATCH on?)` }, 'it says how many, of which game, and what to check')
  const metrics = await dispatcher.inject({ url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
  t.match(metrics.body, /^ranking_events_dropped_total 2$/m, 'counted in ranking_events_dropped_total (the only drops of this test file)')
  const kept = await writer.redis.xlen(keys.events(game.gameId))
  t.ok(kept >= EVENTS_KEPT && kept <= EVENTS_KEPT + 200, `once read, the outbox is trimmed to about ${EVENTS_KEPT} (${kept})`)

  dataOf(await submit(writer, game, { player: 'told', score: 2 }))
  await receiver.waitForAccepted(1)
  // Part of the scenario: a quiet moment in which a dropped event, had it been written after all, would arrive too.
  await new Promise(resolve => setTimeout(resolve, 300))
  t.same(receiver.accepted().map(delivery => verified(secret, delivery).data.player_name), ['told'], 'the next event is written and delivered; the dropped one never is')
  t.match(dataOf(await admin(writer, 'GET', `/admin/games/${game.gameId}/events?limit=1`)), { dropped: 2 }, 'the count stays in the listing')
  t.equal(lines.map(line => JSON.parse(line) as Record<string, unknown>).filter(line => line.level === 50).length, 1, 'and is not reported again')
})

t.test(`a webhook with ${BACKLOG_MAX} deliveries pending gets new ones dead at once: listed, counted, logged once`, { timeout: 50_000 }, async t => {
  const receiver = await receiverFor(t, { hang: true })
  const { app: writer, redis } = await buildTestApp(t, { ...FAST, WEBHOOK_DISPATCH: 'false' })
  const game = await createGame(writer)
  const webhook = dataOf(await admin(writer, 'POST', `/admin/games/${game.gameId}/webhooks`, { url: receiver.url, events: ['score.best'] }))
  await writeEvents(writer.redis, game.gameId, BACKLOG_MAX + 5)
  const before = (await metrics.webhookBacklogFull.get()).values[0]?.value ?? 0

  const lines: string[] = []
  // Its receiver hangs for a minute: nothing it is sent ends while the outbox is read.
  const dispatcher = await buildApp(loadConfig({ NODE_ENV: 'test', ADMIN_TOKEN, REDIS_URL: redis.url, LOG_LEVEL: 'warn', ...FAST, WEBHOOK_TIMEOUT_MS: '60000' }), { logStream: { write: line => { lines.push(line) } } })
  t.teardown(async () => { await dispatcher.close() })
  await outboxRead(writer.redis, game.gameId)
  const deliveries = `/admin/games/${game.gameId}/webhooks/${webhook.webhook_id}/deliveries`
  t.match(dataOf(await admin(writer, 'GET', `${deliveries}?status=pending&limit=1`)), { total: BACKLOG_MAX }, `${BACKLOG_MAX} pending`)
  const dead = dataOf(await admin(writer, 'GET', `${deliveries}?status=done`))
  t.equal(dead.total, 5, 'the 5 past them are finished at once')
  t.match(dead.items, Array.from({ length: 5 }, () => ({ status: 'dead', attempts: 0, last_error: `backlog full: ${BACKLOG_MAX} deliveries were already pending` })), 'dead, never tried, saying why')
  t.equal(((await metrics.webhookBacklogFull.get()).values[0]?.value ?? 0) - before, 5, 'counted in ranking_webhook_backlog_full_total')
  const warnings = lines.map(line => JSON.parse(line) as Record<string, unknown>).filter(line => line.level === 40 && line.game_id === game.gameId)
  t.match(warnings, [{ dead: 5, msg: new RegExp(`a webhook of game ${game.gameId} has ${BACKLOG_MAX} deliveries pending: new ones are dead at once`) }], 'one warning')
})
