import t from 'tap'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { Cluster, Redis } from 'ioredis'
import { admin, buildTestApp, buildTestApps, createGame, dataOf, errorOf, get, me, ON_CLUSTER, post, submit, submitFields, top, type TestGame } from '../helpers/app.js'
import { runCli } from '../../src/cli.js'
import { waitFor } from '../helpers/wait.js'

/*
 * The hot path (docs/architecture.md, one round trip): an API-key request
 * that passes its checks costs Redis one script call, which also counts its
 * rate limits; a request refused by a check in the process still counts.
 */

const INSTANCES = 3

/** The answer's error code, or 'ok'. */
function outcome (answer: LightMyRequestResponse): string {
  const body = answer.json()
  return body.ok === true ? 'ok' : body.error
}

async function topFrom (app: FastifyInstance, game: TestGame, address: string): Promise<LightMyRequestResponse> {
  return await app.inject({ method: 'GET', url: `/api/rank?action=top&api_key=${game.apiKey}&game_id=${game.gameId}`, remoteAddress: address })
}

t.test('failed checks count against the limit, and answer rate_limited once over it', { timeout: 40_000 }, async t => {
  const { apps } = await buildTestApps(t, INSTANCES, { RATE_LIMIT_MAX: '8' })
  const game = await createGame(apps[0] as FastifyInstance)
  dataOf(await admin(apps[0] as FastifyInstance, 'PATCH', `/admin/games/${game.gameId}`, { periods: ['daily'] }))
  const app = (i: number): FastifyInstance => apps[i % INSTANCES] as FastifyInstance
  // Eight requests, each refused by a different check, spread over the instances.
  const refused: Array<[string, () => Promise<LightMyRequestResponse>]> = [
    ['invalid_signature', async () => await submit(app(0), game, { player: 'p', score: 1, sign: 'f'.repeat(64) })],
    ['expired_ts', async () => await submit(app(1), game, { player: 'p', score: 1, ts: Math.floor(Date.now() / 1000) - 3600 })],
    ['invalid_score', async () => await submit(app(2), game, { player: 'p', score: '1.5' })],
    ['invalid_param', async () => await top(app(0), game, { limit: '0' })],
    ['invalid_player_name', async () => await me(app(1), game, '\u0000')],
    ['invalid_game', async () => await get(app(2), '/api/rank', { action: 'top', api_key: game.apiKey, game_id: 'no-such-game' })],
    // A board the game does not keep, and an archive long gone: refused before any script, counted all the same.
    ['invalid_param', async () => await top(app(0), game, { period: 'weekly' })],
    ['invalid_param', async () => await get(app(1), '/api/rank', { action: 'around', api_key: game.apiKey, game_id: game.gameId, player_name: 'p', period_id: '2001-01-01' })]
  ]
  for (const [i, [code, send]] of refused.entries()) {
    const answer = await send()
    t.equal(errorOf(answer), code, `request ${i + 1}: ${code}`)
    t.equal(answer.headers['x-ratelimit-remaining'], String(7 - i), `request ${i + 1} was counted`)
  }
  for (const [i, [code, send]] of refused.entries()) {
    const answer = await send()
    t.equal(errorOf(answer), 'rate_limited', `over the limit, a request that would be ${code} is rate_limited (instance ${(i % INSTANCES) + 1})`)
    t.match(answer.headers['retry-after'], /^\d+$/, 'with Retry-After')
  }
  t.equal(errorOf(await top(app(0), game)), 'rate_limited', 'and so is a valid request')
  t.equal(errorOf(await submit(app(1), game, { player: 'p', score: 5 })), 'rate_limited', 'a valid submit too')
  t.same(dataOf(await me(apps[0] as FastifyInstance, { ...game, apiKey: dataOf(await admin(apps[0] as FastifyInstance, 'POST', '/admin/keys', { game_id: game.gameId })).api_key }, 'p')).best_score, null,
    'the limited submit stored nothing')
})

t.test('the 31st request in a window is limited whichever instance answers it', { timeout: 30_000 }, async t => {
  const { apps } = await buildTestApps(t, INSTANCES, { RATE_LIMIT_MAX: '30' })
  const game = await createGame(apps[0] as FastifyInstance)
  // 30 requests, a third of them refused by a check, over three instances at once.
  const answers = await Promise.all(Array.from({ length: 30 }, async (_, i) => {
    const app = apps[i % INSTANCES] as FastifyInstance
    if (i % 3 === 0) return await submit(app, game, { player: `p${i}`, score: i, sign: '0'.repeat(64) })
    return i % 3 === 1 ? await submit(app, game, { player: `p${i}`, score: i }) : await top(app, game)
  }))
  t.equal(answers.filter(answer => outcome(answer) === 'rate_limited').length, 0, 'none of the first 30 is limited')
  t.same(answers.map(answer => Number(answer.headers['x-ratelimit-remaining'])).sort((a, b) => a - b), Array.from({ length: 30 }, (_, i) => i),
    'each was counted once: remaining 29 down to 0, once each')
  for (const [i, app] of apps.entries()) {
    const answer = await top(app, game)
    t.equal(errorOf(answer), 'rate_limited', `instance ${i + 1} limits the 31st`)
    t.equal(answer.headers['x-ratelimit-limit'], '30')
  }
})

t.test('missing_param is answered before counting, with the headers of the address', { timeout: 30_000 }, async t => {
  const { app } = await buildTestApp(t, { RATE_LIMIT_MAX: '2' })
  const game = await createGame(app)
  for (let i = 0; i < 3; i++) t.equal(errorOf(await get(app, '/api/rank', { action: 'top', game_id: game.gameId })), 'missing_param', `missing api_key ${i + 1}`)
  const answer = await top(app, game)
  t.equal(dataOf(answer).total, 0, 'the key is not limited by them')
  t.equal(answer.headers['x-ratelimit-remaining'], '1')
})

t.test('an operator sets the limit of one key, through the API and the CLI', { timeout: 30_000 }, async t => {
  const { apps, config, redis } = await buildTestApps(t, 2, { RATE_LIMIT_MAX: '3', RATE_LIMIT_KEY_MULTIPLE: '2' })
  const [first, second] = apps as [FastifyInstance, FastifyInstance]
  const game = await createGame(first)

  const created = dataOf(await admin(first, 'POST', '/admin/keys', { game_id: game.gameId, rate_limit: 5 }))
  t.equal(created.rate_limit, 5, 'a key made with its own limit says so')
  const server: TestGame = { gameId: game.gameId, apiKey: created.api_key, apiSecret: created.api_secret }
  for (let i = 1; i <= 5; i++) {
    const answer = await submit(i % 2 === 0 ? first : second, server, { player: `player${i}`, score: i })
    t.equal(dataOf(answer).improved, true, `signed submit ${i} of 5 from one address`)
    t.equal(answer.headers['x-ratelimit-limit'], '5')
  }
  t.equal(errorOf(await submit(first, server, { player: 'player6', score: 6 })), 'rate_limited', 'the 6th is limited')
  t.equal(dataOf(await topFrom(first, server, '10.0.0.1')).total, 5, 'the default key limit of other keys is untouched: another address reads')

  // Raised on one instance, in force on every instance at once.
  t.same(dataOf(await admin(second, 'PATCH', `/admin/keys/${server.apiKey}`, { rate_limit: 1000 })), { api_key: server.apiKey, game_id: game.gameId, revoked: false, created_at: created.created_at, rate_limit: 1000 },
    'PATCH answers the key without its secret')
  await Promise.all(apps.map(async app => { await app.syncRecordCache() }))
  const raised = await submit(first, server, { player: 'player6', score: 6 })
  t.equal(dataOf(raised).improved, true, 'raised: the 6th goes through')
  t.equal(raised.headers['x-ratelimit-limit'], '1000')
  t.equal(raised.headers['x-ratelimit-remaining'], '993', 'the window goes on counting: 5 accepted, 1 limited, this one')

  // The key total follows the key's limit: rate_limit × RATE_LIMIT_KEY_MULTIPLE.
  dataOf(await admin(first, 'PATCH', `/admin/keys/${server.apiKey}`, { rate_limit: 1 }))
  await Promise.all(apps.map(async app => { await app.syncRecordCache() }))
  const fresh = dataOf(await admin(first, 'POST', '/admin/keys', { game_id: game.gameId, rate_limit: 1 }))
  const small: TestGame = { gameId: game.gameId, apiKey: fresh.api_key, apiSecret: fresh.api_secret }
  const signedFrom = async (address: string): Promise<LightMyRequestResponse> => await first.inject({
    method: 'POST', url: '/api/rank?action=submit', payload: new URLSearchParams(submitFields(small, { player: `a${address}`, score: 1 })).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' }, remoteAddress: address
  })
  t.equal(dataOf(await signedFrom('10.1.0.1')).improved, true, 'limit 1: first address')
  t.equal(dataOf(await signedFrom('10.1.0.2')).improved, true, 'second address')
  const over = await signedFrom('10.1.0.3')
  t.equal(errorOf(over), 'rate_limited', 'third address: the key total of 1 × 2 is used')
  t.equal(over.headers['x-ratelimit-limit'], '2')

  // Bad values are invalid_param, in JSON and as text; the record is unchanged.
  for (const value of [0, -1, 1.5, '12', 1_000_000_001, true]) {
    t.equal(errorOf(await admin(first, 'PATCH', `/admin/keys/${server.apiKey}`, { rate_limit: value })), 'invalid_param', `rate_limit ${JSON.stringify(value)}`)
  }
  t.equal(errorOf(await post(first, `/admin/keys/${server.apiKey}`, { rate_limit: 'lots' }, 'form', { authorization: `Bearer ${config.adminToken ?? ''}` })), 'method_not_allowed', 'only PATCH changes a key')
  const asText = await first.inject({ method: 'PATCH', url: `/admin/keys/${server.apiKey}`, payload: 'rate_limit=lots', headers: { authorization: `Bearer ${config.adminToken ?? ''}`, 'content-type': 'application/x-www-form-urlencoded' } })
  t.equal(errorOf(asText), 'invalid_param', 'a form value that is not a number')
  t.equal(errorOf(await admin(first, 'PATCH', '/admin/keys/rk_nosuchkey', { rate_limit: 5 })), 'not_found', 'an unknown key')
  t.equal(errorOf(await admin(first, 'PATCH', `/admin/keys/${server.apiKey}`, { revoked: true })), 'invalid_param', 'revoking has its own route')

  // The CLI, on the same Redis: set, then back to the default.
  const run = async (...argv: string[]): Promise<{ code: number, out: string, err: string }> => {
    let out = ''
    let err = ''
    const code = await runCli(argv, { out: line => { out += line }, err: line => { err += line }, env: { REDIS_URL: redis.url }, readLine: async () => '' })
    return { code, out, err }
  }
  const viaCli = await run('keys', 'create', game.gameId, '--rate_limit', '40')
  t.equal(viaCli.code, 0, viaCli.err)
  t.equal(JSON.parse(viaCli.out).rate_limit, 40, 'keys create --rate_limit')
  const reset = await run('keys', 'update', server.apiKey, '--rate_limit', 'default')
  t.equal(reset.code, 0, reset.err)
  t.notOk('rate_limit' in JSON.parse(reset.out), 'keys update --rate_limit default: back to RATE_LIMIT_MAX, so the record has no limit of its own')
  t.notOk('rate_limit' in dataOf(await admin(first, 'POST', '/admin/keys', { game_id: game.gameId })), 'a key made without one shows none (the v1 answer)')
  t.equal(dataOf(await admin(first, 'PATCH', `/admin/keys/${server.apiKey}`, { rate_limit: null })).rate_limit, undefined, 'null in JSON is the default too')
  const bad = await run('keys', 'update', server.apiKey, '--rate_limit', 'many')
  t.equal(bad.code, 1)
  t.match(bad.err, /invalid_param/, 'a bad value is refused by the CLI too')
  await Promise.all(apps.map(async app => { await app.syncRecordCache() }))
  t.equal((await topFrom(second, server, '10.2.0.1')).headers['x-ratelimit-limit'], '3', 'the default applies again')

  // A field written by hand that is not a limit (before any instance cached the key) means the global limit, never none.
  const handMade = dataOf(await admin(first, 'POST', '/admin/keys', { game_id: game.gameId }))
  for (const [i, garbage] of ['lots', '0', '-5', '1e3', ''].entries()) {
    await first.redis.hset(`rank:key:{${String(handMade.api_key)}}`, 'rate_limit', garbage)
    await Promise.all(apps.map(async app => { await app.syncRecordCache() }))
    const answer = await topFrom(second, { ...game, apiKey: handMade.api_key }, `10.3.0.${i + 1}`)
    t.equal(answer.json().ok, true)
    t.equal(answer.headers['x-ratelimit-limit'], '3', `rate_limit "${garbage}" in Redis: the global limit`)
    await first.inject({ method: 'PATCH', url: `/admin/keys/${String(handMade.api_key)}`, payload: {}, headers: { authorization: `Bearer ${config.adminToken ?? ''}` } })
  }
})

/** The commands the service sends Redis while `run` runs, from MONITOR (commands run inside scripts are left out). */
async function topLevelCommands (url: string, run: () => Promise<void>): Promise<string[]> {
  const nodes = ON_CLUSTER ? await masters(url) : [url]
  const seen: string[] = []
  const strayErrors: Error[] = []
  const marker = `end-of-run-${process.pid}-${Date.now()}`
  let markersSeen = 0
  const monitors = await Promise.all(nodes.map(async node => {
    // The monitoring connection made by hand (what client.monitor() does), so its errors are
    // heard from the start: a line Redis sends between MONITOR's OK and ioredis entering
    // monitoring mode (on a cluster, the service's slot refresher naming its connection)
    // reaches ioredis as a reply to no command. It comes before the run, so it is left out.
    const monitor = new Redis(node, { monitor: true })
    monitor.on('error', (error: Error) => { if (!error.message.startsWith('Command queue state error')) strayErrors.push(error) })
    await new Promise(resolve => monitor.once('monitoring', resolve))
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      if (/^ping$/i.test(args[0] ?? '') && args[1] === marker) markersSeen++
      // The activity counters' write, once a second per game for every request before (store/activity.ts), is no request's own.
      if (source !== 'lua' && !/^(monitor|info|ping|cluster|client|script|command)$/i.test(args[0] ?? '') && !(args[1] ?? '').includes(':activity:')) seen.push((args[0] ?? '').toLowerCase())
    })
    return monitor
  }))
  await run()
  // MONITOR answers in order: a PING through each node after the run comes after its commands,
  // so once each monitor has shown its PING, it has shown every command of the run.
  for (const node of nodes) {
    const ping = new Redis(node)
    await ping.ping(marker)
    ping.disconnect()
  }
  await waitFor(() => markersSeen >= nodes.length, { what: () => `each monitor to show the PING after the run (${markersSeen} of ${nodes.length})` })
  for (const monitor of monitors) monitor.disconnect()
  if (strayErrors.length > 0) throw strayErrors[0]
  return seen
}

async function masters (url: string): Promise<string[]> {
  const cluster = new Cluster([url.split(',')[0] as string])
  await new Promise(resolve => cluster.once('ready', resolve))
  const nodes = cluster.nodes('master').map(node => `redis://${node.options.host ?? '127.0.0.1'}:${node.options.port ?? 6379}`)
  cluster.disconnect()
  return nodes
}

t.test('an API-key request costs Redis one script call, accepted or refused', { timeout: 30_000 }, async t => {
  // What a request costs: the webhook dispatcher's own rounds (every 250 ms, beside the requests) are left out.
  const { app, redis } = await buildTestApp(t, { RATE_LIMIT_MAX: '1000', WEBHOOK_DISPATCH: 'false' })
  const game = await createGame(app)
  // A game with all three periods: its submit still writes every board in the one call.
  const periodic = await createGame(app)
  dataOf(await admin(app, 'PATCH', `/admin/games/${periodic.gameId}`, { periods: ['daily', 'weekly', 'monthly'] }))
  // The keys and the games are cached by the first request.
  dataOf(await top(app, game))
  dataOf(await top(app, periodic))
  const read = async (which: typeof game, query: Record<string, string>): Promise<LightMyRequestResponse> => await get(app, '/api/rank', { api_key: which.apiKey, game_id: which.gameId, ...query })

  const cases: Array<[string, () => Promise<LightMyRequestResponse>, string | null]> = [
    ['submit', async () => await submit(app, game, { player: 'one', score: Date.now() }), null],
    ['submit, not better', async () => await submit(app, game, { player: 'one', score: 5 }), null],
    ['top', async () => await top(app, game), null],
    ['me', async () => await me(app, game, 'one'), null],
    ['submit with a bad signature', async () => await submit(app, game, { player: 'one', score: 10, sign: 'a'.repeat(64) }), 'invalid_signature'],
    ['top with a bad limit', async () => await top(app, game, { limit: 'x' }), 'invalid_param'],
    ['submit with three periods', async () => await submit(app, periodic, { player: 'one', score: Date.now() }), null],
    ['top of a period', async () => await top(app, periodic, { period: 'weekly' }), null],
    ['around', async () => await read(periodic, { action: 'around', player_name: 'one', period: 'daily' }), null],
    ['players', async () => await read(periodic, { action: 'players', player_names: '["one","two"]' }), null],
    ['periods', async () => await read(periodic, { action: 'periods' }), null],
    ['around with a bad side', async () => await read(periodic, { action: 'around', player_name: 'one', before: '99' }), 'invalid_param']
  ]
  // Each kind once first: a connection's first use of a script loads it (EVAL), later calls are EVALSHA.
  for (const [, send] of cases) await send()
  await app.gamesIndex.flush()
  for (const [what, send, code] of cases) {
    // The fewest of three tries: the games index's own rounds (every 2 s, beside the requests) may fall in one; a request's own commands are in every one.
    let answers: LightMyRequestResponse[] = []
    let commands: string[] = []
    for (let tries = 0; tries < 3 && commands.length !== 1; tries++) {
      answers = []
      const seen = await topLevelCommands(redis.url, async () => { answers.push(await send()) })
      if (tries === 0 || seen.length < commands.length) commands = seen
    }
    const answer = answers[0] as LightMyRequestResponse
    if (code === null) t.equal(dataOf(answer) !== undefined, true, `${what}: answered`)
    else t.equal(errorOf(answer), code, `${what}: answered ${code}`)
    t.same(commands, ['evalsha'], `${what}: one EVALSHA`)
  }
})
