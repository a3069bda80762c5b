import t from 'tap'
import type { FastifyInstance } from 'fastify'
import type { AddressInfo } from 'node:net'
import { admin, buildTestApp, buildTestApps, createGame, dataOf, formBody, post, submit, type TestGame } from '../helpers/app.js'
import { computeSignature } from '../../src/rules/signature.js'
import { openStream, type EventStream } from '../helpers/sse.js'
import { waitFor } from '../helpers/wait.js'

/*
 * Live boards (docs/interface.md#live-boards): `action=live` and the play
 * page's /play/:game_id/live stream a board's top as Server-Sent Events,
 * read here over real HTTP from listening instances.
 */

const HEARTBEAT = { LIVE_HEARTBEAT_MS: '200' }

async function listening (app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' })
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
}

const { app } = await buildTestApp(t, HEARTBEAT)
const base = await listening(app)

function liveUrl (origin: string, game: TestGame, query: Record<string, string> = {}): string {
  return `${origin}/api/rank?${formBody({ action: 'live', api_key: game.apiKey, game_id: game.gameId, ...query })}`
}

async function live (t: { teardown: (fn: () => unknown) => void }, url: string): Promise<EventStream> {
  const stream = await openStream(url)
  t.teardown(stream.close)
  return stream
}

const names = (frame: { data: string }): string[] => (JSON.parse(frame.data) as { items: Array<{ player_name: string }> }).items.map(item => item.player_name)

t.test('action=live: the top at once, then a frame whenever it changes', async t => {
  const game = await createGame(app)
  dataOf(await submit(app, game, { player: 'ana', score: 10 }))
  const stream = await live(t, liveUrl(base, game, { limit: '3' }))
  t.equal(stream.status, 200)
  t.match(stream.headers.get('content-type'), /^text\/event-stream/)
  t.equal(stream.headers.get('cache-control'), 'no-cache')
  t.equal(stream.headers.get('access-control-allow-origin'), '*', 'other sites\' dashboards may read it')
  const first = await stream.frame(0)
  t.same(first, { event: 'top', data: JSON.stringify({ game_id: game.gameId, total: 1, items: [JSON.parse(first.data).items[0]] }), id: '1', retry: 2000 })
  t.same(JSON.parse(first.data).items, [{ rank: 1, player_name: 'ana', score: 10, created_at: JSON.parse(first.data).items[0].created_at }], 'the same items as top')

  dataOf(await submit(app, game, { player: 'bo', score: 20 }))
  t.same(names(await stream.frame(1)), ['bo', 'ana'], 'a new first place')
  t.equal(stream.frames[1]!.id, '2')
  await waitFor(() => stream.comments.includes('heartbeat'), { what: 'a heartbeat (every 200 ms)' })
  t.pass('heartbeats keep it open')
  t.equal(stream.frames.length, 2, 'no frame while nothing changes')
})

t.test('a burst of submits is coalesced into a few frames, the last one current', async t => {
  const game = await createGame(app)
  const stream = await live(t, liveUrl(base, game))
  await stream.frame(0)
  for (let i = 1; i <= 40; i++) dataOf(await submit(app, game, { player: `p${i}`, score: i }))
  // The last frame comes within a coalescing window (250 ms) of the last submit; waited for, not timed.
  await waitFor(() => JSON.parse(stream.frames.at(-1)!.data).total === 40, { what: () => `a frame with all 40 (the last has ${String(JSON.parse(stream.frames.at(-1)!.data).total)})` })
  const last = JSON.parse(stream.frames.at(-1)!.data)
  t.equal(last.total, 40)
  t.equal(last.items[0].player_name, 'p40')
  t.ok(stream.frames.length - 1 < 40, `${stream.frames.length - 1} frames for 40 submits`)
})

t.test('hiding a player, a closed season, a period board: the frames follow', async t => {
  const game = await createGame(app)
  dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}`, { periods: ['daily'] }))
  dataOf(await submit(app, game, { player: 'cheat', score: 99 }))
  dataOf(await submit(app, game, { player: 'fair', score: 50 }))
  const all = await live(t, liveUrl(base, game))
  const daily = await live(t, liveUrl(base, game, { period: 'daily' }))
  t.same(names(await all.frame(0)), ['cheat', 'fair'])
  t.match(JSON.parse((await daily.frame(0)).data), { period: 'daily', period_id: /^\d{4}-\d{2}-\d{2}$/, resets_at: /Z$/ }, 'a period board says which')
  dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}/players/cheat`, { hidden: true }))
  t.same(names(await all.frame(1)), ['fair'], 'hidden: off the live board')
  t.same(names(await daily.frame(1)), ['fair'], 'and off the period board')
  dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/seasons`, {}))
  t.same(JSON.parse((await all.frame(2)).data), { game_id: game.gameId, total: 0, items: [] }, 'a new season starts empty')
})

t.test('a named board\'s stream: its top in its own order, following its submits, a hide, and its deletion ends it', async t => {
  const game = await createGame(app)
  dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/boards`, { board_id: 'lap', order: 'asc' }))
  dataOf(await submit(app, game, { player: 'ana', score: 61_000, board: 'lap' }))
  const stream = await live(t, liveUrl(base, game, { board: 'lap' }))
  const first = JSON.parse((await stream.frame(0)).data)
  t.match(first, { total: 1, board: 'lap' }, 'the frame names the board')
  dataOf(await submit(app, game, { player: 'bo', score: 59_000, board: 'lap' }))
  t.same(names(await stream.frame(1)), ['bo', 'ana'], 'lower is better on this board')
  dataOf(await submit(app, game, { player: 'cy', score: 5 }))
  dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}/players/bo`, { hidden: true, board: 'lap' }))
  await waitFor(() => stream.frames.length > 2 && names(stream.frames[stream.frames.length - 1]!).join() === 'ana', { what: 'a frame without bo' })
  t.pass('the hide reached the named board\'s stream')
  dataOf(await admin(app, 'DELETE', `/admin/games/${game.gameId}/boards/lap`))
  await waitFor(() => stream.frames.some(frame => frame.event === 'error'), { what: 'an error frame' })
  t.match(JSON.parse(stream.frames.find(frame => frame.event === 'error')!.data), { ok: false, error: 'invalid_param', message: /no board "lap"/ }, 'a deleted board\'s stream says why it ends')
  await stream.ended
})

t.test('achievement unlocks: a frame of their own on every stream of the game, hidden ones masked, a hidden player\'s not sent, a burst capped', async t => {
  const game = await createGame(app)
  dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/boards`, { board_id: 'coins', operator: 'sum' }))
  dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/achievements`, { achievement_id: 'rich', name: 'Rich', points: 5, rule: { board: 'coins', at_least: 100 } }))
  dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/achievements`, { achievement_id: 'vault', name: 'The vault', hidden: true, rule: { board: 'coins', at_least: 200 } }))
  const onDefault = await live(t, liveUrl(base, game))
  const onCoins = await live(t, liveUrl(base, game, { board: 'coins' }))
  await onDefault.frame(0)
  await onCoins.frame(0)
  const unlocks = (stream: EventStream): any[] => stream.frames.filter(frame => frame.event === 'achievement.unlocked').map(frame => JSON.parse(frame.data))

  dataOf(await submit(app, game, { player: 'ann', score: 250, board: 'coins' }))
  await waitFor(() => unlocks(onDefault).length > 0 && unlocks(onCoins).length > 0, { what: 'an unlock frame on both streams' })
  const [frame] = unlocks(onDefault)
  t.match(frame, { game_id: game.gameId, more: 0 })
  t.same(frame.items.map((item: any) => ({ ...item, unlocked_at: typeof item.unlocked_at })), [
    { player_name: 'ann', achievement_id: 'rich', name: 'Rich', description: '', points: 5, hidden: false, icon_url: null, unlocked_at: 'string' },
    { player_name: 'ann', achievement_id: null, name: null, description: null, points: null, hidden: true, icon_url: null, unlocked_at: 'string' }
  ], 'both unlocks of the submit in one frame, the hidden achievement masked')
  t.same(unlocks(onCoins), unlocks(onDefault), 'the same frame whichever board the stream shows')
  t.equal(onDefault.frames.find(one => one.event === 'achievement.unlocked')!.id, undefined, 'not counted with the tops')

  dataOf(await submit(app, game, { player: 'cheat', score: 50, board: 'coins' }))
  dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}/players/cheat`, { hidden: true, board: 'coins' }))
  t.match(dataOf(await submit(app, game, { player: 'cheat', score: 500, board: 'coins' })), { unlocked: ['rich', 'vault'] }, 'a hidden player unlocks')
  dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/achievements`, { achievement_id: 'gift' }))
  const fields = { api_key: game.apiKey, game_id: game.gameId, player_name: 'cheat', ts: String(Math.floor(Date.now() / 1000)) }
  const given = await post(app, '/api/rank?action=unlock', { ...fields, achievement_id: 'gift', sign: computeSignature(game.apiSecret, { ...fields, score: 'unlock:gift' }) })
  t.match(dataOf(given), { unlocked: true }, 'and is given one by the game')
  dataOf(await submit(app, game, { player: 'bo', score: 120, board: 'coins' }))
  await waitFor(() => unlocks(onDefault).length === 2, { what: 'the second unlock frame' })
  t.same(unlocks(onDefault)[1].items.map((item: any) => `${item.player_name as string}:${item.achievement_id as string}`), ['bo:rich'], 'a hidden player\'s unlocks (by threshold or by the game) are not sent')

  for (let i = 0; i < 25; i++) dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/achievements`, { achievement_id: `tier-${String(i).padStart(2, '0')}`, rule: { board: 'default', at_least: i } }))
  dataOf(await submit(app, game, { player: 'cy', score: 30 }))
  await waitFor(() => unlocks(onDefault).length === 3, { what: 'the burst\'s frame' })
  const burst = unlocks(onDefault)[2]
  t.equal(burst.items.length, 20, 'at most 20 unlocks in a frame')
  t.equal(burst.more, 5, 'the others counted')
})

t.test('a stream on one instance sees a submit handled by another', { timeout: 40_000 }, async t => {
  const { apps } = await buildTestApps(t, 2, HEARTBEAT)
  const [one, two] = apps as [FastifyInstance, FastifyInstance]
  const twoBase = await listening(two)
  const game = await createGame(one)
  const stream = await live(t, liveUrl(twoBase, game))
  t.same(names(await stream.frame(0)), [])
  dataOf(await submit(one, game, { player: 'elsewhere', score: 1 }))
  t.same(names(await stream.frame(1)), ['elsewhere'], 'through pub/sub on the game\'s slot')
})

t.test('streams per key are bounded, across instances, and a closed one frees its place', { timeout: 60_000 }, async t => {
  const { apps } = await buildTestApps(t, 2, { ...HEARTBEAT, LIVE_STREAMS_PER_KEY: '2' })
  const [one, two] = apps as [FastifyInstance, FastifyInstance]
  const origins = [await listening(one), await listening(two)]
  const game = await createGame(one)
  const first = await live(t, liveUrl(origins[0]!, game))
  await live(t, liveUrl(origins[1]!, game))
  const third = await openStream(liveUrl(origins[0]!, game))
  t.match(third.headers.get('content-type'), /^application\/json/)
  t.match(JSON.parse(third.body!), { ok: false, error: 'rate_limited', message: /At most 2 live streams/ })
  first.close()
  await first.ended
  // The service frees the place once it sees the connection close: until then, opening is refused.
  let reopened: EventStream | undefined
  await waitFor(async () => {
    const attempt = await openStream(liveUrl(origins[1]!, game))
    if (attempt.body === undefined) reopened = attempt
    return reopened !== undefined
  }, { what: 'a place free again once a stream has closed', intervalMs: 50 })
  t.equal(reopened?.status, 200, 'a place is free once a stream has closed')
  reopened?.close()
})

t.test('opening counts once against the rate limit; frames do not', { timeout: 30_000 }, async t => {
  const { app: strict } = await buildTestApp(t, { ...HEARTBEAT, RATE_LIMIT_MAX: '2' })
  const origin = await listening(strict)
  const game = await createGame(strict)
  const stream = await live(t, liveUrl(origin, game))
  await stream.frame(0)
  await live(t, liveUrl(origin, game))
  const refused = await openStream(liveUrl(origin, game))
  t.match(JSON.parse(refused.body!), { ok: false, error: 'rate_limited' })
  t.ok(refused.headers.get('retry-after'), 'with Retry-After')
  // The game server signs with a key of its own; the open streams keep getting frames.
  const server = dataOf(await admin(strict, 'POST', '/admin/keys', { game_id: game.gameId, rate_limit: 1000 }))
  const serverKey = { gameId: game.gameId, apiKey: server.api_key, apiSecret: server.api_secret }
  for (let i = 1; i <= 3; i++) {
    dataOf(await submit(strict, serverKey, { player: `s${i}`, score: i }))
    await stream.frame(i)
  }
  t.same(names(stream.frames.at(-1)!), ['s3', 's2', 's1'], 'frames keep coming to a stream opened within the limit')
})

t.test('bad requests get the envelope, not a stream', async t => {
  const game = await createGame(app)
  for (const [query, code] of [
    [{ api_key: 'rk_nope' }, 'invalid_key'],
    [{ period: 'daily' }, 'invalid_param'],
    [{ limit: '0' }, 'invalid_param'],
    [{ game_id: 'other_game' }, 'invalid_game']
  ] as const) {
    const answer = await openStream(liveUrl(base, game, query))
    t.match(answer.headers.get('content-type'), /^application\/json/, `${code}: JSON`)
    t.equal(JSON.parse(answer.body!).error, code)
  }
  const head = await fetch(liveUrl(base, game), { method: 'HEAD' })
  t.match(head.headers.get('content-type'), /^application\/json/, 'HEAD answers what the stream would start with, without one')
  const post = await fetch(liveUrl(base, game), { method: 'POST' })
  t.equal((await post.json()).error, 'method_not_allowed')
})

t.test('the play page streams its board without a key', async t => {
  const game = await createGame(app)
  dataOf(await submit(app, game, { player: 'on_the_page', score: 3 }))
  const stream = await live(t, `${base}/play/${game.gameId}/live`)
  t.same(names(await stream.frame(0)), ['on_the_page'])
  dataOf(await submit(app, game, { player: 'next', score: 4 }))
  t.same(names(await stream.frame(1)), ['next', 'on_the_page'])
  const unknown = await openStream(`${base}/play/no_such_game/live`)
  t.equal(JSON.parse(unknown.body!).error, 'invalid_game')
})

t.test('closing the service ends its streams at once', { timeout: 30_000 }, async t => {
  const { app: closing } = await buildTestApp(t, HEARTBEAT)
  const origin = await listening(closing)
  const game = await createGame(closing)
  const stream = await openStream(liveUrl(origin, game))
  await stream.frame(0)
  const started = Date.now()
  await closing.close()
  await stream.ended
  // Tens of ms when the service ends its streams; were they left open, close() would wait for them without end
  // (a stream never ends by itself). 10 s is far from both.
  t.ok(Date.now() - started < 10_000, `closed in ${Date.now() - started} ms`)
})
