import t from 'tap'
import { RankingError, createRankingClient, hmacSha256Hex, signatureBase } from '../../sdk/index.js'
import { computeSignature } from '../../src/rules/signature.js'
import { admin, createGame, dataOf } from '../helpers/app.js'
import { listeningApp } from '../helpers/listening.js'
import { waitFor } from '../helpers/wait.js'

async function rankingError (promise: Promise<unknown>): Promise<RankingError> {
  try {
    await promise
  } catch (error) {
    if (error instanceof RankingError) return error
    throw error
  }
  throw new Error('expected a RankingError')
}

t.test('the WebCrypto signature equals the server\'s', async t => {
  const fields = { api_key: 'rk_1', game_id: 'g', player_name: 'Zoë 🎮', score: '007', ts: '1700000000' }
  t.equal(signatureBase(fields), 'rk_1|g|Zoë 🎮|007|1700000000')
  t.equal(await hmacSha256Hex('secret', signatureBase(fields)), computeSignature('secret', fields))
})

t.test('submit, top and me against the real service', { timeout: 30_000 }, async t => {
  const { app, baseUrl } = await listeningApp(t)
  const game = await createGame(app)
  const client = createRankingClient({ baseUrl: `${baseUrl}/`, apiKey: game.apiKey, apiSecret: game.apiSecret })

  t.same(await client.submit({ gameId: game.gameId, playerName: 'Zoë 🎮', score: 1200, meta: { level: 3 } }), { score: 1200, improved: true, best_score: 1200, rank: 1 })
  t.same(await client.submit({ gameId: game.gameId, playerName: 'bob', score: 900n }), { score: 900, improved: true, best_score: 900, rank: 2 })
  t.same(await client.submit({ gameId: game.gameId, playerName: 'bob', score: '800', meta: '{"raw":true}' }), { score: 800, improved: false, best_score: 900, rank: 2 })

  const board = await client.top({ gameId: game.gameId, limit: 1, offset: 1 })
  t.equal(board.game_id, game.gameId)
  t.equal(board.total, 2)
  t.match(board.items, [{ rank: 2, player_name: 'bob', score: 900, created_at: /Z$/ }])
  t.equal(board.items.length, 1)
  t.same(await client.me({ gameId: game.gameId, playerName: 'Zoë 🎮' }), { player_name: 'Zoë 🎮', best_score: 1200, rank: 1 })
  t.same(await client.me({ gameId: game.gameId, playerName: 'nobody' }), { player_name: 'nobody', best_score: null, rank: null })
})

t.test('runs: startRun signed like a submit, and a submit that carries its run', { timeout: 30_000 }, async t => {
  const { app, baseUrl } = await listeningApp(t)
  const game = await createGame(app)
  await admin(app, 'PATCH', `/admin/games/${game.gameId}`, { runs: 'required' })
  const client = createRankingClient({ baseUrl, apiKey: game.apiKey, apiSecret: game.apiSecret })
  await t.rejects(client.submit({ gameId: game.gameId, playerName: 'ann', score: 10 }), { code: 'run_required' })
  const run = await client.startRun({ gameId: game.gameId, playerName: 'ann' })
  t.match(run, { run_id: /^[A-Za-z0-9_-]{22}$/, started_at: /Z$/, expires_at: /Z$/ })
  t.match(await client.submit({ gameId: game.gameId, playerName: 'ann', score: 10, runId: run.run_id }), { score: 10, improved: true })
  await t.rejects(client.submit({ gameId: game.gameId, playerName: 'ann', score: 20, runId: run.run_id }), { code: 'invalid_run' }, 'a run takes one score')
  const keyOnly = createRankingClient({ baseUrl, apiKey: game.apiKey })
  await t.rejects(keyOnly.startRun({ gameId: game.gameId, playerName: 'ann' }), { code: 'missing_param' }, 'without the secret, the service asks for the signature where the game takes no submit-run')
})

t.test('a browser game without a server: startRun, reportRun and submitRun with the public key alone', { timeout: 30_000 }, async t => {
  const { app, baseUrl } = await listeningApp(t)
  const game = await createGame(app)
  dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}`, { runs: 'required', submit_run: 'on', max_score_rate: 100 }))
  const browser = createRankingClient({ baseUrl, apiKey: game.apiKey })
  const run = await browser.startRun({ gameId: game.gameId, playerName: 'ann' })
  await new Promise(resolve => setTimeout(resolve, 1100))
  const reported = await browser.reportRun({ gameId: game.gameId, playerName: 'ann', runId: run.run_id, seconds: 30 })
  t.match(reported, { run_id: run.run_id, credited_seconds: reported.run_verified_seconds })
  t.ok(reported.run_verified_seconds >= 1, `verified play: ${reported.run_verified_seconds} s`)
  t.same(await browser.submitRun({ gameId: game.gameId, playerName: 'ann', runId: run.run_id, score: 100, meta: { level: 1 } }), { score: 100, improved: true, best_score: 100, rank: 1 })
  const used = await rankingError(browser.submitRun({ gameId: game.gameId, playerName: 'ann', runId: run.run_id, score: 50 }))
  t.equal(used.code, 'invalid_run', 'a run takes one score')
})

t.test('named boards: submit and read with board, and submitBoards signs several boards\' scores once', { timeout: 30_000 }, async t => {
  const { app, baseUrl } = await listeningApp(t)
  const game = await createGame(app)
  dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/boards`, { board_id: 'lap', order: 'asc', periods: ['daily'] }))
  dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/boards`, { board_id: 'coins', operator: 'sum', score_max: 100 }))
  const client = createRankingClient({ baseUrl, apiKey: game.apiKey, apiSecret: game.apiSecret })
  t.match(await client.submit({ gameId: game.gameId, playerName: 'ann', score: 61_000, board: 'lap' }), { board: 'lap', best_score: 61_000, rank: 1 })
  const many = await client.submitBoards({ gameId: game.gameId, playerName: 'ann', scores: [{ board: 'default', score: 5 }, { board: 'lap', score: 60_000 }, { board: 'coins', score: 500 }] })
  t.match(many.boards, [
    { board: 'default', best_score: 5, rank: 1 },
    { board: 'lap', improved: true, best_score: 60_000, periods: { daily: { best_score: 60_000 } } },
    { board: 'coins', error: 'score_out_of_range' }
  ], 'each board answered; the board that refused says why')
  t.match(await client.top({ gameId: game.gameId, board: 'lap' }), { board: 'lap', total: 1, items: [{ player_name: 'ann', score: 60_000 }] })
  t.match(await client.me({ gameId: game.gameId, playerName: 'ann', board: 'lap', period: 'daily' }), { board: 'lap', period: 'daily', best_score: 60_000 })
  t.match(await client.periods({ gameId: game.gameId, board: 'lap' }), { board: 'lap', items: [{ period: 'daily', current: true }] })
  t.match(await client.seasons({ gameId: game.gameId, board: 'coins' }), { board: 'coins', season_id: 1 })
  await t.rejects(client.top({ gameId: game.gameId, board: 'nope' }), { code: 'invalid_param' })
})

t.test('achievements: a player\'s list (signed: their hidden unlocks shown), unlock signed per achievement, unlocks on the live board', { timeout: 30_000 }, async t => {
  const { app, baseUrl } = await listeningApp(t, { LIVE_HEARTBEAT_MS: '200' })
  const game = await createGame(app)
  dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/achievements`, { achievement_id: 'boss', name: 'The boss', points: 20 }))
  dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/achievements`, { achievement_id: 'secret', name: 'Secret room', hidden: true }))
  dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/achievements`, { achievement_id: 'hundred', rule: { board: 'default', at_least: 100 } }))
  const client = createRankingClient({ baseUrl, apiKey: game.apiKey, apiSecret: game.apiSecret })
  const frames: Array<{ items: Array<{ player_name: string, achievement_id: string | null }> }> = []
  let tops = 0
  const board = client.live({ gameId: game.gameId }, { onTop: () => { tops++ }, onAchievement: unlocks => { frames.push(unlocks) } })
  t.teardown(board.close)
  // Every unlock after the first frame reaches the board.
  await waitFor(() => tops > 0, { what: 'the live board\'s first top' })

  t.match(await client.unlock({ gameId: game.gameId, playerName: 'ann', achievementId: 'boss' }), { achievement_id: 'boss', player_name: 'ann', unlocked: true, unlocked_at: /Z$/ })
  t.match(await client.unlock({ gameId: game.gameId, playerName: 'ann', achievementId: 'boss' }), { unlocked: false }, 'once')
  t.match(await client.unlock({ gameId: game.gameId, playerName: 'ann', achievementId: 'secret' }), { unlocked: true })
  t.match(await client.submit({ gameId: game.gameId, playerName: 'ann', score: 150 }), { unlocked: ['hundred'] }, 'a threshold reached, in the submit\'s answer')
  await t.rejects(client.unlock({ gameId: game.gameId, playerName: 'ann', achievementId: 'nope' }), { code: 'invalid_param' })

  const signed = await client.achievements({ gameId: game.gameId, playerName: 'ann' })
  t.match(signed, { player_name: 'ann', unlocked: 3, points: 20 })
  t.same(signed.items.map(item => item.achievement_id), ['boss', 'hundred', 'secret'], 'signed by the game\'s server: the player\'s hidden unlock shows')
  const unsigned = await createRankingClient({ baseUrl, apiKey: game.apiKey }).achievements({ gameId: game.gameId, playerName: 'ann' })
  t.same(unsigned.items.map(item => item.achievement_id), ['boss', 'hundred', null], 'with the public key alone: masked')
  t.match((await client.achievements({ gameId: game.gameId })).items[0], { achievement_id: 'boss', unlocked_at: null, rarity: 100 })

  await waitFor(() => frames.flatMap(frame => frame.items).length === 3, { what: () => `3 unlocks on the live board (${JSON.stringify(frames)})` })
  t.same(frames.flatMap(frame => frame.items).map(item => `${item.player_name}:${String(item.achievement_id)}`), ['ann:boss', 'ann:null', 'ann:hundred'], 'onAchievement: each unlock once, the hidden one masked')
})

t.test('errors are typed RankingErrors with the service\'s code', { timeout: 30_000 }, async t => {
  // Counted: the bad signature and the unknown game (missing_param is answered before the limit).
  const { app, baseUrl } = await listeningApp(t, { RATE_LIMIT_MAX: '2' })
  const game = await createGame(app)
  const wrongSecret = createRankingClient({ baseUrl, apiKey: game.apiKey, apiSecret: 'f'.repeat(64) })
  t.match(await rankingError(wrongSecret.submit({ gameId: game.gameId, playerName: 'p', score: 1 })), { code: 'invalid_signature', message: 'The signature does not match.' })

  const readOnly = createRankingClient({ baseUrl, apiKey: game.apiKey })
  t.match(await rankingError(readOnly.submit({ gameId: game.gameId, playerName: 'p', score: 1 })), { code: 'missing_param' }, 'submit without a secret fails before any request')
  t.match(await rankingError(readOnly.top({ gameId: 'no_such_game' })), { code: 'invalid_game' })
  t.match(await rankingError(readOnly.me({ gameId: game.gameId, playerName: '' })), { code: 'missing_param' })
  const limited = await rankingError(readOnly.top({ gameId: game.gameId }))
  t.equal(limited.code, 'rate_limited')
  t.ok(limited.retryAfter !== undefined && limited.retryAfter >= 1 && limited.retryAfter <= 60, `retryAfter ${String(limited.retryAfter)}`)

  const nowhere = createRankingClient({ baseUrl: 'http://127.0.0.1:1', apiKey: game.apiKey })
  t.match(await rankingError(nowhere.top({ gameId: game.gameId })), { code: 'network_error' })
  const notJson = createRankingClient({ baseUrl: `${baseUrl}/static/play.css?`, apiKey: game.apiKey, fetch: async () => new Response('<html>', { status: 502 }) })
  t.match(await rankingError(notJson.top({ gameId: game.gameId })), { code: 'network_error', message: /HTTP 502/ })
})

t.test('a player whose clock is wrong: clockOffsetMs, or syncClock against the service', { timeout: 30_000 }, async t => {
  const { app, baseUrl } = await listeningApp(t)
  const game = await createGame(app)
  const tenMinutes = 10 * 60 * 1000
  // The player's clock is ten minutes fast (the service, in this process, keeps the true one).
  const fastClock = (): number => Date.now() + tenMinutes
  const credentials = { baseUrl, apiKey: game.apiKey, apiSecret: game.apiSecret, now: fastClock }

  const naive = createRankingClient(credentials)
  t.match(await rankingError(naive.submit({ gameId: game.gameId, playerName: 'p', score: 1 })), { code: 'expired_ts' })

  const corrected = createRankingClient({ ...credentials, clockOffsetMs: -tenMinutes })
  t.match(await corrected.submit({ gameId: game.gameId, playerName: 'p', score: 2 }), { improved: true })

  const synced = createRankingClient(credentials)
  const asked = Date.now()
  const offset = await synced.syncClock()
  const roundTrip = Date.now() - asked
  // The Date header has whole seconds (syncClock aims at the middle: half a second off at most, and Node
  // caches the header for up to a second), and the answer was written somewhere in the round trip: on a busy
  // machine that can take seconds. Either way far from the ten minutes a missing correction would show.
  t.ok(Math.abs(offset + tenMinutes) < 1000 + roundTrip, `measured offset ${offset} ms (round trip ${roundTrip} ms)`)
  t.equal(synced.clockOffsetMs, offset)
  t.match(await synced.submit({ gameId: game.gameId, playerName: 'p', score: 3 }), { improved: true, best_score: 3 })
})

t.test('around and players: a player among their neighbours, friends in board order', { timeout: 30_000 }, async t => {
  const { app, baseUrl } = await listeningApp(t)
  const game = await createGame(app)
  const client = createRankingClient({ baseUrl, apiKey: game.apiKey, apiSecret: game.apiSecret })
  // p01 best (1000) down to p10 (100), and a name that needs escaping in JSON and in a URL.
  for (let i = 1; i <= 10; i++) await client.submit({ gameId: game.gameId, playerName: `p${String(i).padStart(2, '0')}`, score: 1100 - 100 * i })
  await client.submit({ gameId: game.gameId, playerName: 'Zoë & "co" 🎮', score: 50 })
  const board = await client.top({ gameId: game.gameId, limit: 20 })
  t.equal(board.total, 11)

  const around = await client.around({ gameId: game.gameId, playerName: 'p04', before: 2, after: 1 })
  t.same(around, { game_id: game.gameId, total: 11, player: { player_name: 'p04', best_score: 700, rank: 4, top_percent: 36.36 }, items: board.items.slice(1, 5) })
  t.same(around.items.map(item => item.player_name), ['p02', 'p03', 'p04', 'p05'], 'two above, one below')
  const byDefault = await client.around({ gameId: game.gameId, playerName: 'p08' })
  t.same(byDefault.items.map(item => item.rank), [3, 4, 5, 6, 7, 8, 9, 10, 11], 'five on each side by default, cut at the bottom')
  t.same(await client.around({ gameId: game.gameId, playerName: 'nobody' }), {
    game_id: game.gameId, total: 11, player: { player_name: 'nobody', best_score: null, rank: null, top_percent: null }, items: []
  }, 'not on the board: nulls and no items')
  t.match(await rankingError(client.around({ gameId: game.gameId, playerName: 'p01', before: 51 })), { code: 'invalid_param', message: /"before"/ })

  const friends = await client.players({ gameId: game.gameId, playerNames: ['p07', 'Zoë & "co" 🎮', 'stranger', 'p02'] })
  t.same(friends, { game_id: game.gameId, total: 11, items: [board.items[1], board.items[6], board.items[10]] }, 'board order, global ranks, the unknown name left out')
  t.same(friends.items.map(item => [item.rank, item.player_name]), [[2, 'p02'], [7, 'p07'], [11, 'Zoë & "co" 🎮']])
  const hundred = [...Array.from({ length: 98 }, (_, i) => `stranger${i}`), 'p10', 'p01']
  t.same((await client.players({ gameId: game.gameId, playerNames: hundred })).items.map(item => item.player_name), ['p01', 'p10'], '100 names are allowed')
  const tooMany = await rankingError(client.players({ gameId: game.gameId, playerNames: [...hundred, 'p05'] }))
  t.match(tooMany, { name: 'RankingError', code: 'invalid_param', message: /"player_names".*at most 100/ }, '101 names are refused by the service')
})

t.test('periods and seasons: top, me, around and players by board; submit\'s periods; the periods and seasons lists', { timeout: 30_000 }, async t => {
  // The service's clock for periods is the test's (the signature's ts stays on the real one).
  let clock = Date.UTC(2026, 10, 23, 12) // Monday 2026-11-23 12:00 UTC, ISO week 48
  const { app, baseUrl } = await listeningApp(t, {}, { clock: () => clock })
  const plain = await createGame(app)
  const game = await createGame(app)
  t.match(dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}`, { periods: ['daily', 'weekly'], keep_periods: 1 })), { periods: ['daily', 'weekly'], timezone: 'UTC', keep_periods: 1 })
  const client = createRankingClient({ baseUrl, apiKey: game.apiKey, apiSecret: game.apiSecret })
  const plainClient = createRankingClient({ baseUrl, apiKey: plain.apiKey, apiSecret: plain.apiSecret })

  const once = await plainClient.submit({ gameId: plain.gameId, playerName: 'alice', score: 10 })
  t.same(once, { score: 10, improved: true, best_score: 10, rank: 1 })
  t.notOk('periods' in once, 'no periods for a game that keeps none')

  t.same(await client.submit({ gameId: game.gameId, playerName: 'alice', score: 100 }), {
    score: 100, improved: true, best_score: 100, rank: 1, periods: { daily: { best_score: 100, rank: 1, improved: true }, weekly: { best_score: 100, rank: 1, improved: true } }
  }, 'each period the game keeps, and only those')
  clock = Date.UTC(2026, 10, 24, 12) // Tuesday: a new day, the same week
  const tuesday = await client.submit({ gameId: game.gameId, playerName: 'bob', score: 50 })
  t.same(tuesday, { score: 50, improved: true, best_score: 50, rank: 2, periods: { daily: { best_score: 50, rank: 1, improved: true }, weekly: { best_score: 50, rank: 2, improved: true } } })
  t.same((await client.submit({ gameId: game.gameId, playerName: 'bob', score: 40 })).periods, { daily: { best_score: 50, rank: 1, improved: false }, weekly: { best_score: 50, rank: 2, improved: false } })

  const bobToday = { rank: 1, player_name: 'bob', score: 50, created_at: '2026-11-24T12:00:00.000Z' }
  const today = { period: 'daily', period_id: '2026-11-24', starts_at: '2026-11-24T00:00:00.000Z', resets_at: '2026-11-25T00:00:00.000Z' }
  t.same(await client.top({ gameId: game.gameId, period: 'daily' }), { game_id: game.gameId, total: 1, items: [bobToday], ...today })
  const yesterday = await client.top({ gameId: game.gameId, periodId: '2026-11-23' })
  t.same(yesterday, {
    game_id: game.gameId,
    total: 1,
    items: [{ rank: 1, player_name: 'alice', score: 100, created_at: '2026-11-23T12:00:00.000Z' }],
    period: 'daily',
    period_id: '2026-11-23',
    starts_at: '2026-11-23T00:00:00.000Z',
    resets_at: '2026-11-24T00:00:00.000Z'
  }, 'a kept past period by its id')
  const week = await client.top({ gameId: game.gameId, period: 'weekly', limit: 1, offset: 1 })
  t.same(week, { game_id: game.gameId, total: 2, items: [{ ...bobToday, rank: 2 }], period: 'weekly', period_id: '2026-W48', starts_at: '2026-11-23T00:00:00.000Z', resets_at: '2026-11-30T00:00:00.000Z' }, 'limit and offset with a period')
  t.same(await client.top({ gameId: game.gameId, period: 'all' }), await client.top({ gameId: game.gameId }), 'period all is the all-time board, without board fields')

  t.same(await client.me({ gameId: game.gameId, playerName: 'alice', period: 'daily' }), { player_name: 'alice', best_score: null, rank: null, ...today }, 'no entry today')
  t.same(await client.me({ gameId: game.gameId, playerName: 'alice', periodId: '2026-W48' }), {
    player_name: 'alice', best_score: 100, rank: 1, period: 'weekly', period_id: '2026-W48', starts_at: '2026-11-23T00:00:00.000Z', resets_at: '2026-11-30T00:00:00.000Z'
  })
  t.same(await client.around({ gameId: game.gameId, playerName: 'bob', period: 'daily' }), {
    game_id: game.gameId, total: 1, player: { player_name: 'bob', best_score: 50, rank: 1, top_percent: 100 }, items: [bobToday], ...today
  })
  t.same(await client.players({ gameId: game.gameId, playerNames: ['bob', 'alice'], periodId: '2026-11-23' }), yesterday, 'players on a past day: bob has no entry there')

  t.match(await rankingError(client.top({ gameId: game.gameId, period: 'monthly' })), { code: 'invalid_param', message: /no monthly board/ })
  t.match(await rankingError(client.me({ gameId: game.gameId, playerName: 'alice', periodId: '2026-11-22' })), { code: 'invalid_param', message: /period_id.*no longer kept/ })

  t.same(await client.periods({ gameId: game.gameId }), {
    game_id: game.gameId,
    timezone: 'UTC',
    keep_periods: 1,
    items: [
      { period: 'daily', period_id: '2026-11-24', starts_at: '2026-11-24T00:00:00.000Z', resets_at: '2026-11-25T00:00:00.000Z', current: true },
      { period: 'daily', period_id: '2026-11-23', starts_at: '2026-11-23T00:00:00.000Z', resets_at: '2026-11-24T00:00:00.000Z', current: false },
      { period: 'weekly', period_id: '2026-W48', starts_at: '2026-11-23T00:00:00.000Z', resets_at: '2026-11-30T00:00:00.000Z', current: true }
      // Not 2026-W47, though keep_periods is 1: it ended before the game began keeping weeks (Monday noon), so it holds nothing.
    ]
  }, 'the kept periods, none from before the game kept their kind')
  t.same(await plainClient.periods({ gameId: plain.gameId }), { game_id: plain.gameId, timezone: 'UTC', keep_periods: 12, items: [] }, 'a game without periods')

  // Seasons of the all-time board: close the first one.
  const first = await client.seasons({ gameId: game.gameId })
  t.match(first, { game_id: game.gameId, season_id: 1, items: [{ season_id: 1, started_at: /^\d{4}-\d\d-\d\dT.*Z$/, ended_at: null }] })
  t.equal(first.items.length, 1)
  const closed = dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/seasons`))
  t.same(closed, { season_id: 1, started_at: first.items[0]!.started_at, ended_at: closed.ended_at })
  t.match(closed.ended_at, /Z$/)

  clock = Date.UTC(2026, 10, 24, 13)
  t.same(await client.submit({ gameId: game.gameId, playerName: 'carol', score: 5 }), {
    score: 5, improved: true, best_score: 5, rank: 1, periods: { daily: { best_score: 5, rank: 2, improved: true }, weekly: { best_score: 5, rank: 3, improved: true } }
  }, 'a new season of the all-time board; the period boards go on')
  t.same(await client.seasons({ gameId: game.gameId }), { game_id: game.gameId, season_id: 2, items: [closed, { season_id: 2, started_at: closed.ended_at, ended_at: null }] })
  const season1 = { season_id: 1, started_at: closed.started_at, ended_at: closed.ended_at }
  const archived = await client.top({ gameId: game.gameId, seasonId: 1 })
  t.same({ ...archived, items: archived.items.map(item => [item.rank, item.player_name, item.score]) }, {
    game_id: game.gameId, total: 2, items: [[1, 'alice', 100], [2, 'bob', 50]], ...season1
  }, 'the closed season, with its dates')
  t.same(await client.top({ gameId: game.gameId, seasonId: 2 }), {
    game_id: game.gameId, total: 1, items: [{ rank: 1, player_name: 'carol', score: 5, created_at: '2026-11-24T13:00:00.000Z' }], season_id: 2, started_at: closed.ended_at, ended_at: null
  }, 'the current season by its id: ended_at null')
  t.same(await client.top({ gameId: game.gameId }), { game_id: game.gameId, total: 1, items: [{ rank: 1, player_name: 'carol', score: 5, created_at: '2026-11-24T13:00:00.000Z' }] }, 'without seasonId: the current season, no season fields')
  t.same(await client.me({ gameId: game.gameId, playerName: 'bob', seasonId: 1 }), { player_name: 'bob', best_score: 50, rank: 2, ...season1 })
  t.same(await client.me({ gameId: game.gameId, playerName: 'bob' }), { player_name: 'bob', best_score: null, rank: null }, 'bob has no entry this season')
  t.match(await client.around({ gameId: game.gameId, playerName: 'bob', seasonId: 1, before: 1, after: 0 }), { player: { rank: 2, top_percent: 100 }, items: [{ player_name: 'alice' }, { player_name: 'bob' }], ...season1 })
  t.match(await rankingError(client.top({ gameId: game.gameId, seasonId: 3 })), { code: 'invalid_param', message: /season_id.*1 to 2/ })
})

// Reconnects after the 2 s the service asks for: about 6 s on an idle machine.
t.test('live: a board that updates itself, reconnects after the service ends the stream, and stops on a lasting failure', { timeout: 70_000 }, async t => {
  const { app, baseUrl } = await listeningApp(t, { LIVE_HEARTBEAT_MS: '200' })
  const game = await createGame(app)
  const client = createRankingClient({ baseUrl, apiKey: game.apiKey, apiSecret: game.apiSecret })
  const tops: Array<{ total: number, names: string[] }> = []
  const errors: string[] = []
  const board = client.live({ gameId: game.gameId, limit: 5 }, {
    onTop: top => { tops.push({ total: top.total, names: top.items.map(item => item.player_name) }) },
    onError: error => { errors.push(error.code) }
  })
  t.teardown(board.close)
  const nextTop = async (count: number): Promise<void> => {
    await waitFor(() => tops.length >= count, { what: () => `top number ${count} from the live board (${tops.length} so far; errors: ${errors.join(', ') || 'none'})` })
  }
  await nextTop(1)
  t.same(tops[0], { total: 0, names: [] }, 'the top at once')
  await client.submit({ gameId: game.gameId, playerName: 'live_one', score: 7 })
  await nextTop(2)
  t.same(tops[1], { total: 1, names: ['live_one'] }, 'and again when it changes')

  // The service ends every stream when it begins to close; the board connects again (here, to the same process, still listening).
  t.equal(app.live.size, 1)
  await app.live.close()
  await client.submit({ gameId: game.gameId, playerName: 'live_two', score: 9 })
  await nextTop(3)
  t.same(tops.at(-1), { total: 2, names: ['live_two', 'live_one'] }, 'reconnected by itself, with the current top')
  board.close()
  await board.closed

  const wrong = createRankingClient({ baseUrl, apiKey: 'rk_unknown' }).live({ gameId: game.gameId }, { onTop: () => {}, onError: error => { errors.push(error.code) } })
  await wrong.closed
  t.equal(errors.at(-1), 'invalid_key', 'a lasting failure ends the board')
})
