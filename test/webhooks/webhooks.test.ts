import t from 'tap'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { Webhook } from 'standardwebhooks'
import { ADMIN_TOKEN, admin, buildTestApp, createGame, dataOf, expectError, formBody, submit, type TestGame } from '../helpers/app.js'
import { startReceiver, verified, type Receiver, type ReceiverBehaviour } from '../helpers/receiver.js'
import { waitFor } from '../helpers/wait.js'
import { PER_WEBHOOK_IN_FLIGHT } from '../../src/webhooks/dispatcher.js'

/*
 * Webhooks (docs/interface.md#webhooks): the operator API, what each
 * delivery looks like (Standard Webhooks, verified with the standardwebhooks
 * package), the events of each change, and delivery that retries. Every
 * receiver is a real HTTP server on loopback, so WEBHOOK_ALLOW_PRIVATE is
 * on here; the refusal of private addresses has a test of its own.
 */

const FAST = { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_MS: '20', WEBHOOK_RETRY_BASE_MS: '50', WEBHOOK_TIMEOUT_MS: '5000' }
let clock = Date.UTC(2026, 10, 24, 12)
const { app } = await buildTestApp(t, FAST, { clock: () => clock })

async function receiverFor (t: { teardown: (fn: () => unknown) => void }, behaviour: ReceiverBehaviour = {}): Promise<Receiver> {
  const receiver = await startReceiver(behaviour)
  t.teardown(receiver.close)
  return receiver
}

async function hook (app: FastifyInstance, game: TestGame, body: Record<string, unknown>): Promise<{ webhook_id: string, secret: string } & Record<string, unknown>> {
  return dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/webhooks`, body))
}

const send = async (game: TestGame, player: string, score: number): Promise<LightMyRequestResponse> => {
  clock += 1000
  return await submit(app, game, { player, score })
}

/** The payloads a receiver accepted, verified, of the given types. */
function payloads (receiver: Receiver, secret: string, ...types: string[]): Array<{ type: string, data: Record<string, any> }> {
  return receiver.accepted().map(delivery => verified(secret, delivery)).filter(payload => types.length === 0 || types.includes(payload.type))
}

t.test('a webhook: created with its secret shown once, listed without it, deleted', async t => {
  const game = await createGame(app)
  const made = await hook(app, game, { url: 'http://127.0.0.1:9/hook', events: ['score.best', 'board.first'], description: 'scores to the chat' })
  t.match(made, { webhook_id: /^wh_[0-9a-f]{24}$/, url: 'http://127.0.0.1:9/hook', events: ['score.best', 'board.first'], description: 'scores to the chat', created_at: /Z$/, secret: /^whsec_[A-Za-z0-9+/]{32}$/ })
  const listed = dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/webhooks`))
  const untried = { failing_since: null, last_attempt_at: null, last_status: null, last_error: null }
  t.same(listed.items, [{ webhook_id: made.webhook_id, url: made.url, events: made.events, description: made.description, created_at: made.created_at, health: untried }], 'the list never shows the secret; no attempt, no health yet')
  t.same(dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/webhooks/${made.webhook_id}`)), listed.items[0])
  const text = dataOf(await app.inject({
    method: 'POST',
    url: `/admin/games/${game.gameId}/webhooks`,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/x-www-form-urlencoded' },
    payload: formBody({ url: 'https://example.com/hooks?x=1', events: 'score.held,score.best' })
  }))
  t.same(text.events, ['score.best', 'score.held'], 'form fields: a comma list, in the documented order')
  t.same((await hook(app, game, { url: 'http://127.0.0.1:9/all' })).events, ['*'], 'every event by default')
  dataOf(await admin(app, 'DELETE', `/admin/games/${game.gameId}/webhooks/${made.webhook_id}`))
  expectError(t, await admin(app, 'GET', `/admin/games/${game.gameId}/webhooks/${made.webhook_id}`), 'not_found', 'deleted')
  expectError(t, await admin(app, 'DELETE', `/admin/games/${game.gameId}/webhooks/${made.webhook_id}`), 'not_found', 'deleted twice')
})

t.test('bad webhooks are invalid_param naming the field', async t => {
  const game = await createGame(app)
  for (const [body, what] of [
    [{}, 'no url'],
    [{ url: 'ftp://example.com/' }, 'not http'],
    [{ url: 'example.com/hook' }, 'not absolute'],
    [{ url: 'https://user:pass@example.com/' }, 'credentials'],
    [{ url: `https://example.com/${'a'.repeat(2000)}` }, 'too long'],
    [{ url: 'https://example.com/', events: ['score.best', 'nope'] }, 'an unknown event'],
    [{ url: 'https://example.com/', events: 'score.best,,board.first' }, 'an empty name in the list'],
    [{ url: 'https://example.com/', events: [] }, 'no events'],
    [{ url: 'https://example.com/', events: ['score.best', 'score.best'] }, 'an event twice'],
    [{ url: 'https://example.com/', description: 'x'.repeat(201) }, 'a long description'],
    [{ url: 'https://example.com/', secret: 'mine' }, 'a secret of ours']
  ] as const) {
    const answer = await admin(app, 'POST', `/admin/games/${game.gameId}/webhooks`, body)
    expectError(t, answer, (body as { url?: string }).url === undefined ? 'missing_param' : 'invalid_param', what)
  }
  expectError(t, await admin(app, 'POST', '/admin/games/no_such_game/webhooks', { url: 'https://example.com/' }), 'not_found', 'an unknown game')
  expectError(t, await admin(app, 'GET', `/admin/games/${game.gameId}/webhooks/wh_nope`), 'not_found', 'a malformed id')
})

t.test('loopback and private receivers are refused unless WEBHOOK_ALLOW_PRIVATE=true', { timeout: 30_000 }, async t => {
  const { app: strict } = await buildTestApp(t)
  const game = await createGame(strict)
  for (const url of ['http://127.0.0.1:8080/', 'http://localhost/', 'http://[::1]/', 'http://10.1.2.3/', 'http://192.168.0.10/', 'http://169.254.169.254/latest/meta-data', 'http://[::ffff:127.0.0.1]/', 'http://0.0.0.0/', 'http://[fd00::1]/',
    // IPv4 addresses inside IPv6 ones: IPv4-compatible (::/96, written either way), 6to4
    // (2002::/16: 127.0.0.1, and a public 8.8.8.8 too), Teredo (2001::/32) and NAT64 (64:ff9b::/96).
    'http://[::127.0.0.1]/', 'http://[::a9fe:a9fe]/', 'http://[::a00:1]/', 'http://[2002:7f00:1::]/', 'http://[2002:808:808::1]/',
    'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/', 'http://[64:ff9b::a9fe:a9fe]/']) {
    const answer = await admin(strict, 'POST', `/admin/games/${game.gameId}/webhooks`, { url })
    expectError(t, answer, 'invalid_param', url)
  }
  t.match((await admin(strict, 'POST', `/admin/games/${game.gameId}/webhooks`, { url: 'http://127.0.0.1/' })).json().message, /WEBHOOK_ALLOW_PRIVATE/, 'the message says how to allow it')
  t.ok(dataOf(await admin(strict, 'POST', `/admin/games/${game.gameId}/webhooks`, { url: 'http://93.184.215.14/hook' })).webhook_id, 'a public address is fine (nothing is sent until an event)')
})

t.test('a submit tells score.best, board.first and board.overtaken, signed as Standard Webhooks says', { timeout: 30_000 }, async t => {
  const receiver = await receiverFor(t)
  const game = await createGame(app)
  dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}`, { notify_top: 3 }))
  dataOf(await send(game, 'before_hooks', 1))
  const { secret } = await hook(app, game, { url: receiver.url })
  dataOf(await send(game, 'ana', 100))
  dataOf(await send(game, 'bo', 90))
  dataOf(await send(game, 'cy', 80))
  dataOf(await send(game, 'dee', 70))
  dataOf(await send(game, 'dee', 95))
  // ana: best, first, overtaken (before_hooks); bo and cy: best, overtaken (before_hooks); dee at 4th: best only; dee to 2nd: best, overtaken.
  await receiver.waitForAccepted(10)
  const all = payloads(receiver, secret)
  t.same(all.map(payload => payload.type).sort(), ['board.first', ...Array(4).fill('board.overtaken'), ...Array(5).fill('score.best')])
  const firsts = payloads(receiver, secret, 'board.first')
  t.same(firsts.map(payload => payload.data), [{ game_id: game.gameId, board: { period: 'all', season_id: 1 }, player_name: 'ana', score: 100, previous: { player_name: 'before_hooks', score: 1 } }])
  const bests = payloads(receiver, secret, 'score.best').map(payload => payload.data)
  t.same(bests.at(-1), { game_id: game.gameId, board: { period: 'all', season_id: 1 }, player_name: 'dee', score: 95, previous_best: 70, rank: 2 })
  t.same(bests[0]!.previous_best, null, 'a first score has no previous best')
  const passed = payloads(receiver, secret, 'board.overtaken').map(payload => payload.data).find(data => data.player_name === 'dee')
  t.same(passed, { game_id: game.gameId, board: { period: 'all', season_id: 1 }, player_name: 'dee', score: 95, rank: 2, overtaken: [{ rank: 3, player_name: 'bo', score: 90 }, { rank: 4, player_name: 'cy', score: 80 }] }, 'the players passed who were in the top 3, with their new ranks')
  const fourth = payloads(receiver, secret, 'board.overtaken').map(payload => payload.data).filter(data => data.player_name === 'cy')
  t.same(fourth.map(data => data.overtaken), [[{ rank: 4, player_name: 'before_hooks', score: 1 }]], 'passing a player who falls to 4th still counts: they were 3rd')

  const delivery = receiver.accepted()[0]!
  t.match(delivery.headers, { 'content-type': 'application/json', 'webhook-id': new RegExp(`^evt_${game.gameId}_\\d+-\\d+$`), 'webhook-timestamp': /^\d{10}$/, 'webhook-signature': /^v1,[A-Za-z0-9+/]+=*$/ })
  // Read against when the receiver got it, not against now (a busy machine can take seconds to get here); the
  // bound is a minute, far from a timestamp taken from the service's clock, which this file sets to a fixed date.
  const lag = Number(delivery.headers['webhook-timestamp']) - delivery.at / 1000
  t.ok(Math.abs(lag) < 60, `the timestamp is the time of sending (${lag.toFixed(1)} s from its arrival)`)
  t.throws(() => new Webhook(secret).verify(`${delivery.body} `, { 'webhook-id': String(delivery.headers['webhook-id']), 'webhook-timestamp': String(delivery.headers['webhook-timestamp']), 'webhook-signature': String(delivery.headers['webhook-signature']) }), 'a changed body fails verification: the check can fail')
  t.same(new Set(receiver.accepted().map(one => one.headers['webhook-id'])).size, receiver.accepted().length, 'each event has its own webhook-id')
})

t.test('a webhook gets the events it subscribed to only', { timeout: 30_000 }, async t => {
  const everything = await receiverFor(t)
  const firsts = await receiverFor(t)
  const game = await createGame(app)
  const all = await hook(app, game, { url: everything.url })
  const only = await hook(app, game, { url: firsts.url, events: ['board.first'] })
  dataOf(await send(game, 'one', 10))
  dataOf(await send(game, 'two', 20))
  await everything.waitForAccepted(5)
  await firsts.waitForAccepted(2)
  t.same(payloads(firsts, only.secret).map(payload => [payload.type, payload.data.player_name]), [['board.first', 'one'], ['board.first', 'two']])
  t.equal(payloads(everything, all.secret, 'score.best').length, 2)
})

t.test('every kind of change tells its event', { timeout: 30_000 }, async t => {
  const receiver = await receiverFor(t)
  const game = await createGame(app)
  dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}`, { review_above: 1000, periods: ['daily'] }))
  const { secret } = await hook(app, game, { url: receiver.url, events: ['score.held', 'score.approved', 'score.rejected', 'player.hidden', 'player.shown', 'rating.changed', 'season.closed', 'period.closed'] })
  const day = new Date(clock).toISOString().slice(0, 10)
  dataOf(await send(game, 'steady', 500))
  t.ok(dataOf(await send(game, 'rocket', 5000)).held)
  t.ok(dataOf(await send(game, 'bolt', 6000)).held)
  const [rocket, bolt] = dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/review`)).items as Array<{ held_id: string }>
  dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/review/${rocket!.held_id}/approve`, { note: 'seen it' }))
  dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/review/${bolt!.held_id}/reject`, {}))
  dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}/players/steady`, { hidden: true }))
  dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}/players/steady`, { hidden: true }))
  dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}/players/steady`, { hidden: false }))
  dataOf(await admin(app, 'POST', '/admin/users', { username: 'rater' }))
  const session = dataOf(await admin(app, 'POST', '/admin/sessions', { username: 'rater' }))
  const rate = await app.inject({ method: 'POST', url: `/api/rate?game_id=${game.gameId}`, payload: formBody({ stars: '8' }), headers: { cookie: `sid=${String(session.session_id)}`, 'content-type': 'application/x-www-form-urlencoded' } })
  dataOf(rate)
  dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/seasons`, {}))
  clock += 86_400_000
  // Two held, approved, rejected, hidden, shown, a rating, the season and the day.
  await receiver.waitForAccepted(9)
  const byType = new Map(payloads(receiver, secret).map(payload => [payload.type, payload.data]))
  t.same(payloads(receiver, secret, 'score.held').map(payload => payload.data), [
    { game_id: game.gameId, held_id: rocket!.held_id, player_name: 'rocket', score: 5000, rule: 'review_above' },
    { game_id: game.gameId, held_id: bolt!.held_id, player_name: 'bolt', score: 6000, rule: 'review_above' }
  ])
  t.same(byType.get('score.approved'), { game_id: game.gameId, held_id: rocket!.held_id, player_name: 'rocket', score: 5000, note: 'seen it' })
  t.same(byType.get('score.rejected'), { game_id: game.gameId, held_id: bolt!.held_id, player_name: 'bolt', score: 6000, note: null })
  t.same(byType.get('player.hidden'), { game_id: game.gameId, player_name: 'steady', hidden_on_game: true, hidden_user: false })
  t.same(byType.get('player.shown'), { game_id: game.gameId, player_name: 'steady', hidden_on_game: false, hidden_user: false })
  t.same(byType.get('rating.changed'), { game_id: game.gameId, average: 8, count: 1 })
  t.match(byType.get('season.closed'), { game_id: game.gameId, season_id: 1, started_at: /Z$/, ended_at: /Z$/, top: [{ rank: 1, player_name: 'rocket', score: 5000 }, { rank: 2, player_name: 'steady', score: 500 }] })
  t.same(byType.get('period.closed'), {
    game_id: game.gameId,
    period: 'daily',
    period_id: day,
    started_at: `${day}T00:00:00.000Z`,
    ended_at: new Date(Date.parse(`${day}T00:00:00.000Z`) + 86_400_000).toISOString(),
    top: [{ rank: 1, player_name: 'rocket', score: 5000 }, { rank: 2, player_name: 'steady', score: 500 }]
  }, 'period.closed once the day has ended, with its board')
  t.equal(payloads(receiver, secret, 'player.hidden').length, 1, 'hiding a hidden player again changes nothing, and tells nothing')
  // Told once: one event, for the day that ended, not also for the day before, which ended before the game
  // kept daily boards (periods_since). At least once is the promise: a redelivery carries the same webhook-id.
  const closings = receiver.accepted().filter(delivery => verified(secret, delivery).type === 'period.closed')
  t.same([...new Set(closings.map(delivery => delivery.headers['webhook-id']))].length, 1, 'told once (one webhook-id)')
  t.same([...new Set(closings.map(delivery => verified(secret, delivery).data.period_id))], [day], 'for that day only')

  const events = dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/events?limit=100`))
  t.ok(events.items.length >= 9, 'the outbox holds them too, for operators')
  t.match(events.items.at(-1), { event_id: /^\d+-\d+$/, type: 'score.best', timestamp: /Z$/, data: { game_id: game.gameId, player_name: 'steady' } }, 'oldest last')
})

t.test('no webhook, no outbox: events are written only while a game has webhooks', async t => {
  const game = await createGame(app)
  dataOf(await send(game, 'quiet', 1))
  t.same(dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/events`)).items, [])
  const made = await hook(app, game, { url: 'http://127.0.0.1:9/never' })
  dataOf(await send(game, 'loud', 2))
  t.same(dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/events`)).items.map((event: { type: string }) => event.type), ['board.overtaken', 'board.first', 'score.best'])
  dataOf(await admin(app, 'DELETE', `/admin/games/${game.gameId}/webhooks/${made.webhook_id}`))
  dataOf(await send(game, 'quiet_again', 3))
  t.equal(dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/events`)).items.length, 3, 'the last webhook gone, nothing more is written')
})

t.test('a receiver that fails is retried with the same webhook-id until it takes the delivery', { timeout: 30_000 }, async t => {
  const receiver = await receiverFor(t, { failFirst: 4 })
  const game = await createGame(app)
  const made = await hook(app, game, { url: receiver.url, events: ['board.first'] })
  dataOf(await send(game, 'persistent', 1))
  const [delivered] = await receiver.waitForAccepted(1)
  t.equal(receiver.received.length, 5, 'four failures, then the delivery')
  t.same(new Set(receiver.received.map(request => request.headers['webhook-id'])).size, 1, 'every attempt carries the same webhook-id')
  t.equal(verified(made.secret, delivered!).data.player_name, 'persistent', 'each attempt is signed afresh, and verifies')
  const gaps = receiver.received.slice(1).map((request, i) => request.at - receiver.received[i]!.at)
  // Waits of 50, 100, 200, 400 ms, each times 0.5 to 1.5, counted from when the failed attempt ended: each gap is
  // at least its lower end, 25, 50, 100, 200 ms, and a busy machine only makes a gap longer. Without the doubling
  // the 4th wait would be 25 to 75 ms. (Upper ends are not checked: a stall of this process lengthens any gap.)
  t.ok(gaps.every((gap, i) => gap >= 25 * 2 ** i), `the waits grow: each at least 25, 50, 100, 200 ms (${gaps.join(', ')} ms)`)
  await waitFor(async () => dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/webhooks/${made.webhook_id}/deliveries`)).total === 1, { what: 'the delivery in the log' })
  const log = dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/webhooks/${made.webhook_id}/deliveries`))
  t.match(log.items[0], { webhook_id: made.webhook_id, message_id: String(delivered!.headers['webhook-id']), type: 'board.first', status: 'delivered', attempts: 5, last_status: 200, last_error: null, next_attempt_at: null, finished_at: /Z$/, payload: { type: 'board.first', data: { player_name: 'persistent' } } })
})

t.test("a webhook's health: failing since its first failed attempt after a delivered one, with the last answer, until one is delivered", { timeout: 30_000 }, async t => {
  const receiver = await receiverFor(t, { failFirst: 1000 })
  const game = await createGame(app)
  const made = await hook(app, game, { url: receiver.url, events: ['board.first'] })
  const health = async (): Promise<any> => dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/webhooks/${made.webhook_id}`)).health
  dataOf(await send(game, 'early', 1))
  await waitFor(() => receiver.received.length >= 3, { what: 'three failed attempts' })
  await waitFor(async () => (await health()).last_attempt_at !== null && Date.parse((await health()).last_attempt_at) >= receiver.received[2]!.at, { what: 'the third attempt recorded' })
  const failing = await health()
  t.match(failing, { failing_since: /Z$/, last_status: 500, last_error: 'the receiver answered HTTP 500' })
  t.ok(Date.parse(failing.failing_since) >= receiver.received[0]!.at && Date.parse(failing.failing_since) < receiver.received[1]!.at, 'failing since the first attempt ended, not the last')
  t.same(dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/webhooks`)).items[0].health, failing, 'the list says the same')
  receiver.behaviour.failFirst = 0
  await receiver.waitForAccepted(1)
  await waitFor(async () => (await health()).last_status === 200, { what: 'the delivered attempt recorded' })
  t.match(await health(), { failing_since: null, last_status: 200, last_error: null }, 'working again')

  const closed = await startReceiver()
  await closed.close()
  const refused = await hook(app, game, { url: closed.url, events: ['board.first'] })
  dataOf(await send(game, 'later', 2))
  const refusedHealth = async (): Promise<any> => dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/webhooks/${refused.webhook_id}`)).health
  await waitFor(async () => (await refusedHealth()).failing_since !== null, { what: 'the refused attempt recorded' })
  t.match(await refusedHealth(), { last_status: null, last_error: /ECONNREFUSED/ }, 'no answer: the error says why')
})

t.test('past the retry window a delivery is dead, visible, and can be delivered again with its webhook-id', { timeout: 90_000 }, async t => {
  // A window of 3 s: time for retries even when a busy machine stalls this process for a second or two
  // (with 1 s, a first attempt that took a second to fail would be dead at once, never retried).
  const { app: shortWindow } = await buildTestApp(t, { ...FAST, WEBHOOK_RETRY_FOR_S: '3' })
  const receiver = await receiverFor(t, { failFirst: 1000, failStatus: 503 })
  const game = await createGame(shortWindow)
  const made = await hook(shortWindow, game, { url: receiver.url, events: ['board.first'] })
  dataOf(await submit(shortWindow, game, { player: 'unlucky', score: 1 }))
  const log = async (status = 'done'): Promise<any> => dataOf(await admin(shortWindow, 'GET', `/admin/games/${game.gameId}/webhooks/${made.webhook_id}/deliveries?status=${status}`))
  await waitFor(async () => (await log()).total === 1, { what: 'the delivery dead, past its window' })
  const [dead] = (await log()).items
  t.match(dead, { status: 'dead', last_status: 503, last_error: 'the receiver answered HTTP 503' })
  t.ok(dead.attempts >= 2, `retried before giving up (${String(dead.attempts)} attempts)`)
  t.equal((await log('pending')).total, 0)
  receiver.behaviour.failFirst = 0
  const before = receiver.received.length
  const again = dataOf(await admin(shortWindow, 'POST', `/admin/games/${game.gameId}/webhooks/${made.webhook_id}/deliveries/${String(dead.delivery_id)}/redeliver`, {}))
  t.match(again, { delivery_id: dead.delivery_id, status: 'pending' })
  await receiver.waitForAccepted(1)
  t.equal(receiver.received[before]!.headers['webhook-id'], dead.message_id, 'redelivered with the same webhook-id')
  await waitFor(async () => (await log()).items[0]?.status === 'delivered', { what: 'the redelivery recorded as delivered' })
  expectError(t, await admin(shortWindow, 'POST', `/admin/games/${game.gameId}/webhooks/${made.webhook_id}/deliveries/999999/redeliver`, {}), 'not_found', 'an unknown delivery')
  expectError(t, await admin(shortWindow, 'POST', `/admin/games/${game.gameId}/webhooks/${made.webhook_id}/deliveries/abc/redeliver`, {}), 'not_found', 'a malformed delivery id')
})

t.test('a receiver that hangs or answers slowly delays nobody else', { timeout: 60_000 }, async t => {
  // Slots for one webhook's attempts and two more: a hanging receiver that took every slot it could would starve the others.
  const { app } = await buildTestApp(t, { ...FAST, WEBHOOK_TIMEOUT_MS: '60000', WEBHOOK_CONCURRENCY: String(PER_WEBHOOK_IN_FLIGHT + 2) })
  const hanging = await receiverFor(t, { hang: true })
  const slow = await receiverFor(t, { delayMs: 300 })
  const quick = await receiverFor(t)
  const game = await createGame(app)
  const count = PER_WEBHOOK_IN_FLIGHT + 4
  await hook(app, game, { url: hanging.url, events: ['score.best'] })
  for (let i = 1; i <= count; i++) dataOf(await submit(app, game, { player: `p${i}`, score: i }))
  await waitFor(() => hanging.received.length >= PER_WEBHOOK_IN_FLIGHT, { what: `${PER_WEBHOOK_IN_FLIGHT} attempts held by the hanging receiver` })
  // The hanging receiver holds its slots for a minute; then the others get events.
  for (const receiver of [slow, quick]) await hook(app, game, { url: receiver.url, events: ['score.best'] })
  for (let i = 1; i <= count; i++) dataOf(await submit(app, game, { player: `q${i}`, score: i }))
  await quick.waitForAccepted(count)
  await slow.waitForAccepted(count)
  t.pass(`the quick and the slow receiver had all ${count} in the two slots left`)
  t.equal(hanging.received.length, PER_WEBHOOK_IN_FLIGHT, `the hanging receiver holds its own slots, ${PER_WEBHOOK_IN_FLIGHT}, no more, with ${2 * count} deliveries due`)
})

t.test('a receiver that never answers fails the attempt at the timeout', { timeout: 30_000 }, async t => {
  const { app } = await buildTestApp(t, { ...FAST, WEBHOOK_TIMEOUT_MS: '500' })
  const hanging = await receiverFor(t, { hang: true })
  const game = await createGame(app)
  const made = await hook(app, game, { url: hanging.url, events: ['score.best'] })
  dataOf(await submit(app, game, { player: 'p1', score: 1 }))
  const pending = `/admin/games/${game.gameId}/webhooks/${made.webhook_id}/deliveries?status=pending`
  await waitFor(async () => dataOf(await admin(app, 'GET', pending)).items[0]?.last_error != null, { what: 'the attempt recorded as failed' })
  t.match(dataOf(await admin(app, 'GET', pending)).items[0], { status: 'pending', last_error: 'no answer within 500 ms', last_status: null }, 'failed, to be tried again')
})

t.test('a test event goes to that webhook only', { timeout: 30_000 }, async t => {
  const receiver = await receiverFor(t)
  const other = await receiverFor(t)
  const game = await createGame(app)
  const made = await hook(app, game, { url: receiver.url })
  await hook(app, game, { url: other.url })
  const queued = dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/webhooks/${made.webhook_id}/test`, {}))
  t.match(queued, { status: 'pending', type: 'webhook.test', message_id: /^test_[0-9a-f]{24}$/, payload: { type: 'webhook.test', data: { game_id: game.gameId, webhook_id: made.webhook_id } } })
  const [delivery] = await receiver.waitForAccepted(1)
  t.same(verified(made.secret, delivery!).data, { game_id: game.gameId, webhook_id: made.webhook_id })
  // Part of the scenario: a quiet moment in which a test event sent to the other webhook would arrive too.
  await new Promise(resolve => setTimeout(resolve, 200))
  t.equal(other.received.length, 0, 'the other webhook got nothing')
  expectError(t, await admin(app, 'POST', `/admin/games/${game.gameId}/webhooks/${made.webhook_id}/test`, { now: true }), 'invalid_param', 'the route takes no body')
})
