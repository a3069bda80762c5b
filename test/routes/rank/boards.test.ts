import t from 'tap'
import type { LightMyRequestResponse } from 'fastify'
import { ADMIN_TOKEN, admin, buildTestApp, createGame, dataOf, expectError, get, keysMatching, me, submit, top, type TestGame } from '../../helpers/app.js'
import { runCli } from '../../../src/cli.js'

/*
 * A game's boards beyond v1 (docs/interface.md#seasons-and-periods): the
 * order of a board, calendar periods in the game's zone with their archives,
 * and seasons of the all-time board. Time is the test's: the app takes an
 * injected clock for periods (and its board scripts take it instead of the
 * Redis clock), so nothing waits for midnight.
 */

let clock = Date.UTC(2026, 2, 7, 17) // 2026-03-07 12:00 in New York (EST)
const { app, redis } = await buildTestApp(t, {}, { clock: () => clock })

async function settings (game: TestGame, body: Record<string, unknown>): Promise<LightMyRequestResponse> {
  return await admin(app, 'PATCH', `/admin/games/${game.gameId}`, body)
}

async function read (game: TestGame, action: string, query: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return await get(app, '/api/rank', { action, api_key: game.apiKey, game_id: game.gameId, ...query })
}

const names = (data: { items: Array<{ player_name: string }> }): string[] => data.items.map(item => item.player_name)
const scores = (data: { items: Array<{ score: number }> }): number[] => data.items.map(item => item.score)

t.test('a game without the new settings answers exactly as v1 did', async t => {
  const game = await createGame(app)
  const submitted = dataOf(await submit(app, game, { player: 'alice', score: 10 }))
  t.same(Object.keys(submitted).sort(), ['best_score', 'improved', 'rank', 'score'], 'submit: no periods field')
  t.same(Object.keys(dataOf(await top(app, game))).sort(), ['game_id', 'items', 'total'])
  t.same(Object.keys(dataOf(await me(app, game, 'alice'))).sort(), ['best_score', 'player_name', 'rank'])
  t.same(dataOf(await top(app, game, { period: 'all' })), dataOf(await top(app, game)), 'period=all is the v1 board')
})

t.test('order asc: lower is better, ties to whoever got there first', async t => {
  const game = await createGame(app)
  t.equal(dataOf(await settings(game, { order: 'asc' })).order, 'asc')
  dataOf(await submit(app, game, { player: 'slow', score: 95_000 }))
  const first = dataOf(await submit(app, game, { player: 'fast', score: 61_250 }))
  t.same(first, { score: 61_250, improved: true, best_score: 61_250, rank: 1 })
  clock += 1
  dataOf(await submit(app, game, { player: 'tied', score: 61_250 }))
  const worse = dataOf(await submit(app, game, { player: 'fast', score: 70_000 }))
  t.same(worse, { score: 70_000, improved: false, best_score: 61_250, rank: 1 }, 'a higher time does not improve')
  const better = dataOf(await submit(app, game, { player: 'slow', score: -5 }))
  t.same(better, { score: -5, improved: true, best_score: -5, rank: 1 }, 'negative scores are lowest of all')
  const board = dataOf(await top(app, game))
  t.same(names(board), ['slow', 'fast', 'tied'])
  t.same(scores(board), [-5, 61_250, 61_250])
  t.same(dataOf(await me(app, game, 'tied')), { player_name: 'tied', best_score: 61_250, rank: 3 })
  const around = dataOf(await read(game, 'around', { player_name: 'fast', before: '1', after: '1' }))
  t.same(scores(around), [-5, 61_250, 61_250], 'around reads scores back in asc order too')
})

t.test('order cannot change once the game has entries', async t => {
  const game = await createGame(app)
  dataOf(await settings(game, { order: 'asc' }))
  dataOf(await settings(game, { order: 'desc' }))
  dataOf(await submit(app, game, { player: 'alice', score: 5 }))
  const refused = await settings(game, { order: 'asc', name: 'Renamed' })
  expectError(t, refused, 'invalid_param', 'order is refused')
  t.match(refused.json().message, /"order" cannot change/)
  const unchanged = dataOf(await settings(game, {}))
  t.equal(unchanged.order, 'desc')
  t.not(unchanged.name, 'Renamed', 'a refused change sets nothing')
  t.equal(dataOf(await settings(game, { order: 'desc', name: 'Same order' })).name, 'Same order', 'the same order is no change')
  dataOf(await admin(app, 'DELETE', `/admin/games/${game.gameId}/players/alice`))
  t.equal(dataOf(await settings(game, { order: 'asc' })).order, 'asc', 'with its last entry deleted, the game may change order again')
})

t.test('period settings: checked, stored in their canonical form, by the API and the CLI', async t => {
  const game = await createGame(app)
  const set = dataOf(await settings(game, { periods: 'weekly,daily', timezone: 'america/new_york', keep_periods: 3 }))
  t.same([set.periods, set.timezone, set.keep_periods], [['daily', 'weekly'], 'America/New_York', 3])
  t.same(dataOf(await settings(game, { periods: ['monthly'] })).periods, ['monthly'], 'a JSON list')
  t.same(dataOf(await settings(game, { periods: '' })).periods, [], 'none')
  const form = await app.inject({ method: 'PATCH', url: `/admin/games/${game.gameId}`, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/x-www-form-urlencoded' }, payload: 'periods=daily&keep_periods=0&order=asc' })
  t.match(dataOf(form), { periods: ['daily'], keep_periods: 0, order: 'asc' }, 'form fields are text')
  for (const [body, name] of [
    [{ timezone: 'Mars/Olympus' }, 'timezone'], [{ timezone: '' }, 'timezone'], [{ timezone: 'x'.repeat(65) }, 'timezone'],
    [{ periods: 'hourly' }, 'periods'], [{ periods: ['daily', 'daily'] }, 'periods'], [{ periods: 'daily,' }, 'periods'], [{ periods: 5 }, 'periods'],
    [{ keep_periods: -1 }, 'keep_periods'], [{ keep_periods: 1001 }, 'keep_periods'], [{ keep_periods: 1.5 }, 'keep_periods'],
    [{ order: 'up' }, 'order'], [{ season: 2 }, 'season']
  ] as Array<[Record<string, unknown>, string]>) {
    const refused = await settings(game, body)
    expectError(t, refused, 'invalid_param', JSON.stringify(body))
    t.match(refused.json().message, name, `${JSON.stringify(body)}: the message names ${name}`)
  }
  const created = dataOf(await admin(app, 'POST', '/admin/games', { game_id: `${game.gameId}_new`, periods: ['daily', 'monthly'], timezone: 'Asia/Tokyo', order: 'asc' }))
  t.match(created, { periods: ['daily', 'monthly'], timezone: 'Asia/Tokyo', order: 'asc', keep_periods: 12, season: 1 })
  t.same(dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}_new`, {})), created, 'read back as it was made')

  const out: string[] = []
  const err: string[] = []
  const io = { out: (line: string) => out.push(line), err: (line: string) => err.push(line), env: { REDIS_URL: redis.url }, readLine: async () => '' }
  t.equal(await runCli(['games', 'update', game.gameId, '--periods', 'daily,weekly', '--timezone', 'Europe/Paris', '--keep_periods', '24'], io), 0, err.join('\n'))
  t.match(JSON.parse(out.join('\n')), { periods: ['daily', 'weekly'], timezone: 'Europe/Paris', keep_periods: 24 })
  t.equal(await runCli(['games', 'update', game.gameId, '--timezone', 'Nowhere/At_All'], io), 1)
  t.match(err.at(-1), /^error invalid_param: Parameter "timezone"/)
})

t.test('daily, weekly and monthly boards reset at local midnight, across a 23-hour day', async t => {
  const game = await createGame(app)
  dataOf(await settings(game, { periods: 'daily,weekly,monthly', timezone: 'America/New_York' }))
  clock = Date.UTC(2026, 2, 7, 17) // Saturday 2026-03-07 12:00 EST
  const first = dataOf(await submit(app, game, { player: 'alice', score: 100 }))
  t.same(first.periods, {
    daily: { best_score: 100, rank: 1, improved: true },
    weekly: { best_score: 100, rank: 1, improved: true },
    monthly: { best_score: 100, rank: 1, improved: true }
  })
  const daily = dataOf(await top(app, game, { period: 'daily' }))
  t.match(daily, { period: 'daily', period_id: '2026-03-07', starts_at: '2026-03-07T05:00:00.000Z', resets_at: '2026-03-08T05:00:00.000Z', total: 1 })
  t.match(dataOf(await top(app, game, { period: 'weekly' })), { period_id: '2026-W10', starts_at: '2026-03-02T05:00:00.000Z', resets_at: '2026-03-09T04:00:00.000Z' })
  t.match(dataOf(await top(app, game, { period: 'monthly' })), { period_id: '2026-03', starts_at: '2026-03-01T05:00:00.000Z', resets_at: '2026-04-01T04:00:00.000Z' })

  clock = Date.UTC(2026, 2, 8, 5) - 1 // one millisecond before the reset
  const late = dataOf(await submit(app, game, { player: 'bob', score: 50 }))
  t.same(late.periods.daily, { best_score: 50, rank: 2, improved: true }, 'still Saturday')
  clock = Date.UTC(2026, 2, 8, 5) // the reset: Sunday, the day of 23 hours
  const sunday = dataOf(await submit(app, game, { player: 'bob', score: 40 }))
  t.same(sunday.periods.daily, { best_score: 40, rank: 1, improved: true }, 'a new day: a worse score leads it')
  t.same(sunday.periods.weekly, { best_score: 50, rank: 2, improved: false }, 'the same ISO week')
  t.same([sunday.improved, sunday.best_score, sunday.rank], [false, 50, 2], 'the all-time board keeps its best')
  const today = dataOf(await top(app, game, { period: 'daily' }))
  t.match(today, { period_id: '2026-03-08', starts_at: '2026-03-08T05:00:00.000Z', resets_at: '2026-03-09T04:00:00.000Z' }, '23 hours long')
  t.same(names(today), ['bob'])
  t.equal(today.items[0].created_at, '2026-03-08T05:00:00.000Z', 'created_at is the instant of the submit')

  const archive = dataOf(await top(app, game, { period_id: '2026-03-07' }))
  t.match(archive, { period: 'daily', period_id: '2026-03-07', total: 2 })
  t.same(names(archive), ['alice', 'bob'])
  t.equal(archive.items[1].created_at, '2026-03-08T04:59:59.999Z')
  t.same(dataOf(await me(app, game, 'bob')), { player_name: 'bob', best_score: 50, rank: 2 }, 'me without a period is v1')
  t.match(dataOf(await read(game, 'me', { player_name: 'bob', period: 'daily' })), { best_score: 40, rank: 1, period_id: '2026-03-08' })
  t.match(dataOf(await read(game, 'me', { player_name: 'alice', period: 'daily' })), { best_score: null, rank: null, period: 'daily' }, 'no entry today')

  clock = Date.UTC(2026, 2, 9, 4) // Monday 00:00 EDT: a new week
  t.match(dataOf(await submit(app, game, { player: 'carol', score: 1 })).periods, { weekly: { rank: 1 }, monthly: { rank: 3 } })
  t.equal(dataOf(await top(app, game, { period: 'weekly' })).period_id, '2026-W11')
})

t.test('a day of 25 hours, and a zone fourteen hours ahead of UTC', async t => {
  const autumn = await createGame(app)
  dataOf(await settings(autumn, { periods: 'daily', timezone: 'America/New_York' }))
  clock = Date.UTC(2026, 10, 1, 12) // Sunday 2026-11-01, clocks go back at 02:00 EDT
  dataOf(await submit(app, autumn, { player: 'early', score: 1 }))
  const long = dataOf(await top(app, autumn, { period: 'daily' }))
  t.match(long, { period_id: '2026-11-01', starts_at: '2026-11-01T04:00:00.000Z', resets_at: '2026-11-02T05:00:00.000Z' }, '25 hours long')
  clock = Date.UTC(2026, 10, 2, 5) - 1
  t.same(dataOf(await submit(app, autumn, { player: 'late', score: 2 })).periods.daily, { best_score: 2, rank: 1, improved: true }, 'the 25th hour is still Sunday')
  t.same(names(dataOf(await top(app, autumn, { period: 'daily' }))), ['late', 'early'])

  const kiritimati = await createGame(app)
  dataOf(await settings(kiritimati, { periods: 'daily,monthly', timezone: 'Pacific/Kiritimati' }))
  clock = Date.UTC(2025, 11, 31, 10) - 1 // 2025-12-31 23:59:59.999 local
  dataOf(await submit(app, kiritimati, { player: 'old_year', score: 5 }))
  clock = Date.UTC(2025, 11, 31, 10) // 2026-01-01 00:00 local, still 2025-12-31 in UTC
  dataOf(await submit(app, kiritimati, { player: 'new_year', score: 1 }))
  t.match(dataOf(await top(app, kiritimati, { period: 'daily' })), { period_id: '2026-01-01', starts_at: '2025-12-31T10:00:00.000Z', items: [{ player_name: 'new_year' }] })
  t.match(dataOf(await top(app, kiritimati, { period: 'monthly' })), { period_id: '2026-01', total: 1 }, 'a new month, a day before UTC has one')
  t.match(dataOf(await top(app, kiritimati, { period_id: '2025-12' })), { total: 1, items: [{ player_name: 'old_year' }] })
})

t.test('archives: kept ones are read by period_id; others are invalid_param naming the parameter', async t => {
  const game = await createGame(app)
  dataOf(await settings(game, { periods: 'daily', keep_periods: 2 }))
  for (const day of [1, 2, 3, 4]) {
    clock = Date.UTC(2026, 0, day, 12)
    dataOf(await submit(app, game, { player: `day${day}`, score: day }))
  }
  t.same(names(dataOf(await top(app, game, { period_id: '2026-01-02' }))), ['day2'], 'two days back is kept')
  t.same(names(dataOf(await top(app, game, { period_id: '2026-01-04', period: 'daily' }))), ['day4'], 'today by its id')
  const periods = dataOf(await read(game, 'periods'))
  t.same(periods, {
    game_id: game.gameId,
    timezone: 'UTC',
    keep_periods: 2,
    items: [
      { period: 'daily', period_id: '2026-01-04', starts_at: '2026-01-04T00:00:00.000Z', resets_at: '2026-01-05T00:00:00.000Z', current: true },
      { period: 'daily', period_id: '2026-01-03', starts_at: '2026-01-03T00:00:00.000Z', resets_at: '2026-01-04T00:00:00.000Z', current: false },
      { period: 'daily', period_id: '2026-01-02', starts_at: '2026-01-02T00:00:00.000Z', resets_at: '2026-01-03T00:00:00.000Z', current: false }
    ]
  })
  for (const [query, pattern] of [
    [{ period_id: '2026-01-01' }, /period_id.*no longer kept/],
    [{ period_id: '2026-01-05' }, /period_id.*not begun/],
    [{ period_id: '2026-02-30' }, /period_id.*not a daily period/],
    [{ period_id: '2026-1-4' }, /period_id/],
    [{ period_id: 'today' }, /period_id/],
    [{ period_id: '2026-W01' }, /no weekly board/],
    [{ period: 'weekly' }, /"period".*no weekly board \(its periods: daily\)/],
    [{ period: 'hourly' }, /"period" must be one of/],
    [{ period: 'monthly', period_id: '2026-01-04' }, /names a daily period, not a monthly one/],
    [{ season_id: '1', period: 'daily' }, /season_id/],
    [{ season_id: '0' }, /season_id/],
    [{ season_id: '2' }, /season_id.*seasons are 1 to 1/]
  ] as Array<[Record<string, string>, RegExp]>) {
    const refused = await top(app, game, query)
    expectError(t, refused, 'invalid_param', JSON.stringify(query))
    t.match(refused.json().message, pattern, JSON.stringify(query))
  }
  const other = await createGame(app)
  t.match((await top(app, other, { period: 'daily' })).json(), { ok: false, error: 'invalid_param', message: /its periods: none/ }, 'a game without periods')
})

t.test('period boards expire by their keys, when keep_periods newer ones have begun', async t => {
  const game = await createGame(app)
  dataOf(await settings(game, { periods: 'daily,monthly', keep_periods: 1 }))
  clock = Date.UTC(2026, 0, 31, 18)
  dataOf(await submit(app, game, { player: 'alice', score: 3 }))
  const ttlOf = async (pattern: string): Promise<number[]> => await Promise.all((await keysMatching(app.redis, pattern)).map(async key => await app.redis.pttl(key)))
  const day = await ttlOf(`rank:{game:${game.gameId}}:daily:2026-01-31:*`)
  t.equal(day.length, 2, 'a board and an entries bucket')
  // Kept until the day after next begins: 2026-02-02 00:00, 30 hours after the submit.
  for (const ttl of day) t.ok(Math.abs(ttl - 30 * 3_600_000) < 60_000, `daily TTL ${ttl} ms is about 30 h`)
  for (const ttl of await ttlOf(`rank:{game:${game.gameId}}:monthly:2026-01:*`)) t.ok(Math.abs(ttl - (28 * 24 + 6) * 3_600_000) < 60_000, `monthly TTL ${ttl} ms: until March begins`)
  for (const ttl of await ttlOf(`rank:{game:${game.gameId}}:board`)) t.equal(ttl, -1, 'the all-time board never expires')

  // keep_periods changes during the day: the board never outlives a bucket it lists (expiries as absolute times).
  const expiryOf = async (key: string): Promise<number> => Number(await app.redis.call('PEXPIRETIME', key))
  const boardKey = `rank:{game:${game.gameId}}:daily:2026-01-31:board`
  const bucketExpiries = async (): Promise<number[]> => await Promise.all((await keysMatching(app.redis, `rank:{game:${game.gameId}}:daily:2026-01-31:entries:*`)).map(expiryOf))
  dataOf(await settings(game, { keep_periods: 5 }))
  dataOf(await submit(app, game, { player: 'bob', score: 2 }))
  t.ok(Math.max(...await bucketExpiries()) - await expiryOf(boardKey) > 3 * 86_400_000, 'a bucket written with keep_periods 5 lives days longer')
  t.ok(await expiryOf(boardKey) <= Math.min(...await bucketExpiries()), 'the board keeps the earlier expiry')
  dataOf(await settings(game, { keep_periods: 0 }))
  dataOf(await submit(app, game, { player: 'carol', score: 1 }))
  const earliest = Math.min(...await bucketExpiries())
  t.ok(earliest - Date.now() < 7 * 3_600_000, `keep_periods 0: until midnight (${earliest - Date.now()} ms from now)`)
  t.ok(await expiryOf(boardKey) <= earliest, 'and the board goes no later than its earliest bucket')
})

t.test('hidden and deleted players leave every board: periods, archives, seasons', async t => {
  const game = await createGame(app)
  dataOf(await settings(game, { periods: 'daily' }))
  clock = Date.UTC(2026, 5, 1, 12)
  for (const [player, score] of [['alice', 30], ['bob', 20]] as const) dataOf(await submit(app, game, { player, score }))
  clock = Date.UTC(2026, 5, 2, 12)
  for (const [player, score] of [['alice', 10], ['bob', 15]] as const) dataOf(await submit(app, game, { player, score }))
  dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/seasons`))
  clock = Date.UTC(2026, 5, 2, 13)
  dataOf(await submit(app, game, { player: 'alice', score: 12 }))

  const everywhere = async (): Promise<string[][]> => [
    names(dataOf(await top(app, game))), names(dataOf(await top(app, game, { season_id: '1' }))),
    names(dataOf(await top(app, game, { period: 'daily' }))), names(dataOf(await top(app, game, { period_id: '2026-06-01' })))
  ]
  t.same(await everywhere(), [['alice'], ['alice', 'bob'], ['bob', 'alice'], ['alice', 'bob']])
  dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}/players/alice`, { hidden: true }))
  t.same(await everywhere(), [[], ['bob'], ['bob'], ['bob']], 'hidden on every board')
  const hidden = dataOf(await submit(app, game, { player: 'alice', score: 99 }))
  t.same([hidden.rank, hidden.periods.daily.rank], [null, null], 'a hidden player submits unranked')
  dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}/players/alice`, { hidden: false }))
  t.same(await everywhere(), [['alice'], ['alice', 'bob'], ['alice', 'bob'], ['alice', 'bob']], 'shown again, with the best stored while hidden')
  t.ok(await app.redis.pttl(`rank:{game:${game.gameId}}:daily:2026-06-02:board`) > 0, 'a board made by showing keeps an expiry')

  dataOf(await admin(app, 'POST', '/admin/users', { username: 'bob', hidden: true }))
  t.same(await everywhere(), [['alice'], ['alice'], ['alice'], ['alice']], 'a hidden user leaves every board of every game')
  dataOf(await admin(app, 'PATCH', '/admin/users/bob', { hidden: false }))
  t.same(await everywhere(), [['alice'], ['alice', 'bob'], ['alice', 'bob'], ['alice', 'bob']])

  dataOf(await admin(app, 'DELETE', `/admin/games/${game.gameId}/players/bob`))
  t.same(await everywhere(), [['alice'], ['alice'], ['alice'], ['alice']], 'deleted from every board, archives too')
  expectError(t, await admin(app, 'DELETE', `/admin/games/${game.gameId}/players/bob`), 'not_found', 'nothing left to delete')
})

t.test('seasons: closing one archives the board; a new one begins empty', async t => {
  const game = await createGame(app)
  clock = Date.UTC(2026, 6, 1)
  for (const [player, score] of [['alice', 30], ['bob', 20]] as const) dataOf(await submit(app, game, { player, score, meta: '{"run":1}' }))
  t.equal(dataOf(await read(game, 'seasons')).season_id, 1, 'the game record is cached now')
  const closed = dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/seasons`))
  t.match(dataOf(await read(game, 'seasons')), { season_id: 2, items: [{ season_id: 1, ended_at: closed.ended_at }, { season_id: 2 }] }, 'the close reaches the cached record at once')
  t.match(closed, { season_id: 1, started_at: /^20/, ended_at: /^20/ })
  t.same(dataOf(await top(app, game)), { game_id: game.gameId, total: 0, items: [] }, 'the v1 board is the new season, empty')
  t.same(dataOf(await me(app, game, 'alice')), { player_name: 'alice', best_score: null, rank: null })
  const archived = dataOf(await top(app, game, { season_id: '1' }))
  t.match(archived, { season_id: 1, started_at: closed.started_at, ended_at: closed.ended_at, total: 2 })
  t.same(names(archived), ['alice', 'bob'])
  t.match(dataOf(await read(game, 'me', { player_name: 'bob', season_id: '1' })), { best_score: 20, rank: 2, season_id: 1 })

  const second = dataOf(await submit(app, game, { player: 'bob', score: 5 }))
  t.same(second, { score: 5, improved: true, best_score: 5, rank: 1 }, 'a fresh best in the new season')
  const current = dataOf(await top(app, game, { season_id: '2' }))
  t.match(current, { season_id: 2, ended_at: null, total: 1 })
  const seasons = dataOf(await read(game, 'seasons'))
  t.match(seasons, { game_id: game.gameId, season_id: 2, items: [{ season_id: 1, ended_at: closed.ended_at }, { season_id: 2, started_at: closed.ended_at, ended_at: null }] })
  t.same(dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/seasons`)), seasons, 'operators see the same list')
  t.match(dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/players/bob`)), { best_score: 5, meta: null }, 'operators see the current season')
  expectError(t, await settings(game, { order: 'asc' }), 'invalid_param', 'order is fixed once a season has closed')
  t.match(dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/players/alice`)), { best_score: 30, season_id: 1, rank: 1 }, 'a player only in a closed season is found there')
  t.match(dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}/players/alice`, { hidden: true })), { hidden: true, rank: null, season_id: 1 }, 'and can be hidden')
  t.same(names(dataOf(await top(app, game, { season_id: '1' }))), ['bob'])
  dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}/players/alice`, { hidden: false }))
  expectError(t, await admin(app, 'POST', '/admin/games/nope/seasons'), 'not_found', 'no such game')

  const out: string[] = []
  const io = { out: (line: string) => out.push(line), err: () => {}, env: { REDIS_URL: redis.url }, readLine: async () => '' }
  t.equal(await runCli(['seasons', 'close', game.gameId], io), 0)
  t.match(JSON.parse(out.join('\n')), { season_id: 2 })
  t.equal(dataOf(await read(game, 'seasons')).season_id, 3)
})

t.test('a signed submit sent again after its season closed is expired_ts, saying so', async t => {
  const game = await createGame(app)
  const fields = { player: 'alice', score: 7, ts: Math.floor(Date.now() / 1000) }
  dataOf(await submit(app, game, fields))
  t.equal(dataOf(await submit(app, game, fields)).improved, false, 'a replay in the same season answers the standing')
  dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/seasons`))
  const again = await submit(app, game, fields)
  expectError(t, again, 'expired_ts', 'accepted in the closed season')
  t.match(again.json().message, /season that has closed/)
  t.equal(dataOf(await top(app, game)).total, 0, 'nothing stored in the new season')
  t.match(dataOf(await submit(app, game, { ...fields, ts: fields.ts + 1 })), { improved: true, rank: 1 }, 'a new signature plays in the new season')
})

t.test('settings written by hand are read as the record reads them, by the scripts too', async t => {
  const game = await createGame(app)
  dataOf(await submit(app, game, { player: 'alice', score: 1 }))
  await app.redis.hset(`rank:{game:${game.gameId}}:game`, 'order', 'ASC', 'season', '01')
  await app.syncRecordCache()
  dataOf(await settings(game, {}))
  t.match(dataOf(await submit(app, game, { player: 'bob', score: 2 })), { improved: true, rank: 1 }, 'ASC is desc and 01 is season 1, for the scripts as for the record')
  t.same(names(dataOf(await top(app, game))), ['bob', 'alice'])
  t.equal(dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/seasons`)).season_id, 1, 'and a season closes')
})

t.test('a submit racing a season close lands in the old season or the new one, never lost', async t => {
  const game = await createGame(app)
  const players = Array.from({ length: 60 }, (_, i) => `racer${i}`)
  const submits = players.map(async (player, i) => dataOf(await submit(app, game, { player, score: i + 1 })))
  await new Promise(resolve => setImmediate(resolve))
  const closing = admin(app, 'POST', `/admin/games/${game.gameId}/seasons`)
  await Promise.all(submits)
  dataOf(await closing)
  const old = names(dataOf(await top(app, game, { season_id: '1', limit: '100' })))
  const fresh = names(dataOf(await top(app, game, { limit: '100' })))
  t.equal(old.length + fresh.length, players.length, `${old.length} in the old season, ${fresh.length} in the new`)
  t.same([...old, ...fresh].sort(), [...players].sort(), 'each exactly once')
})

t.test('the Redis clock decides the period when no clock is injected', { timeout: 30_000 }, async t => {
  const real = await buildTestApp(t)
  const game = await createGame(real.app)
  dataOf(await real.app.inject({ method: 'PATCH', url: `/admin/games/${game.gameId}`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, payload: { periods: ['daily'] } }))
  const submitted = dataOf(await submit(real.app, game, { player: 'now', score: 1 }))
  t.same(submitted.periods, { daily: { best_score: 1, rank: 1, improved: true } })
  const board = dataOf(await top(real.app, game, { period: 'daily' }))
  t.equal(board.period_id, new Date().toISOString().slice(0, 10))
  t.ok(Date.parse(board.items[0].created_at) >= Date.parse(board.starts_at) && Date.parse(board.items[0].created_at) < Date.parse(board.resets_at), 'created_at within the period')
})

t.test('a replayed signed submit answers every board without storing', async t => {
  const game = await createGame(app)
  dataOf(await settings(game, { periods: 'daily' }))
  clock = Date.UTC(2026, 7, 1, 12)
  const fields = { player: 'alice', score: 7, ts: Math.floor(Date.now() / 1000) }
  dataOf(await submit(app, game, fields))
  clock = Date.UTC(2026, 7, 2, 12)
  const replay = dataOf(await submit(app, game, fields))
  t.same(replay, { score: 7, improved: false, best_score: 7, rank: 1, periods: { daily: { best_score: null, rank: null, improved: false } } }, 'nothing stored on the new day')
  t.equal(dataOf(await top(app, game, { period: 'daily' })).total, 0)
})

t.test('every new key of a game is in its slot', async t => {
  const game = await createGame(app)
  dataOf(await settings(game, { periods: 'daily,weekly,monthly' }))
  dataOf(await submit(app, game, { player: 'alice', score: 1 }))
  dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/seasons`))
  dataOf(await submit(app, game, { player: 'alice', score: 2 }))
  const all = await keysMatching(app.redis, `rank:*${game.gameId}*`)
  t.ok(all.length >= 10)
  // The hash tag, the first {...} of a key, is what picks its slot.
  for (const key of all) t.equal(/\{([^}]*)\}/.exec(key)?.[1], `game:${game.gameId}`, key)
})
