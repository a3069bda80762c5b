import t from 'tap'
import { keys } from '../../../src/store/keys.js'
import { metrics } from '../../../src/lib/metrics.js'
import { admin, buildTestApp, createGame, dataOf, errorOf, submit, type SubmitOptions } from '../../helpers/app.js'

/*
 * A submit to a plain game (no periods, review rules, runs or webhooks) takes
 * the plain variant of lua/submit.lua, and anything else the full one
 * (store/board-writes.ts). The choice is made from the game's record cached
 * in the process, which does not show webhooks and may be behind another
 * instance's change: the plain script reads the fields that decide (review
 * rules, webhooks, runs) itself and hands such a game to the full one, so
 * they are honoured from the next submit, and the request's rate limits are
 * still counted once. (Periods follow the cached record, as before.)
 */

const { app } = await buildTestApp(t)
const redis = app.redis

/** How many calls of each submit script this process has made (the script timer's count). */
async function scriptCalls (): Promise<{ plain: number, full: number }> {
  const { values } = await metrics.redisDuration.get()
  const count = (script: string): number => values.find(value => value.metricName === 'ranking_redis_script_duration_seconds_count' && value.labels.script === script)?.value ?? 0
  return { plain: count('rankSubmitPlain'), full: count('rankSubmit') }
}

/** The scripts one submit called, and its answer. */
async function submitted (game: Awaited<ReturnType<typeof createGame>>, player: string, score: number, options: Partial<SubmitOptions> = {}): Promise<{ calls: { plain: number, full: number }, data: any, error: string | undefined, remaining: number }> {
  const before = await scriptCalls()
  const response = await submit(app, game, { player, score, ...options })
  const after = await scriptCalls()
  const ok = response.json().ok === true
  return { calls: { plain: after.plain - before.plain, full: after.full - before.full }, data: ok ? dataOf(response) : undefined, error: ok ? undefined : errorOf(response), remaining: Number(response.headers['x-ratelimit-remaining']) }
}

/**
 * A new game whose creation this process has heard back from the channel, so
 * that the first submit's read of it is cached: an echo arriving during that
 * read (later on a cluster) would leave it uncached, and a change written
 * behind the cache's back would then be read at once instead.
 */
async function newGame (): Promise<Awaited<ReturnType<typeof createGame>>> {
  const game = await createGame(app)
  await app.syncRecordCache()
  return game
}

t.test('a plain game takes the plain script; periods take the full one', async t => {
  const game = await newGame()
  const first = await submitted(game, 'alice', 100)
  t.same(first.calls, { plain: 1, full: 0 }, 'plain')
  t.same(first.data, { score: 100, improved: true, best_score: 100, rank: 1 })
  t.same((await submitted(game, 'alice', 50)).data, { score: 50, improved: false, best_score: 100, rank: 1 }, 'not better: the best kept')

  dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}`, { periods: ['daily'] }))
  const daily = await submitted(game, 'alice', 200)
  t.same(daily.calls, { plain: 0, full: 1 }, 'a game with periods: full')
  t.equal(daily.data.best_score, 200)
  t.equal(daily.data.periods.daily.best_score, 200, 'on the period board too')
})

t.test('a review rule the cached record does not show yet holds the score all the same, and the limits count once', async t => {
  const game = await newGame()
  const first = await submitted(game, 'alice', 100)
  t.same(first.calls, { plain: 1, full: 0 })
  // Written behind the cache's back, as another instance's change not yet heard of would be.
  await redis.hset(keys.game(game.gameId), 'review_above', '500')

  const held = await submitted(game, 'bob', 900)
  t.same(held.calls, { plain: 1, full: 1 }, 'the plain script handed it to the full one')
  t.same(held.data, { score: 900, improved: false, best_score: null, rank: null, held: true }, 'held by the rule')
  t.equal(held.remaining, first.remaining - 1, 'the request counted once against its rate limit')
  t.equal(await redis.zcard(keys.board(game.gameId)), 1, 'bob is not on the board')

  const next = await submitted(game, 'carol', 950)
  t.same(next.calls, { plain: 0, full: 1 }, 'the game goes straight to the full script for a while')
  t.equal(next.data.held, true)

  // A change of the game's record, heard of through the cache, lets the plain script be tried again.
  await redis.hdel(keys.game(game.gameId), 'review_above')
  dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}`, { name: 'Renamed' }))
  const again = await submitted(game, 'dave', 950)
  t.same(again.calls, { plain: 1, full: 0 }, 'plain again')
  t.same(again.data, { score: 950, improved: true, best_score: 950, rank: 1 })
})

t.test('webhooks, which the cached record never shows, get their events from the first submit', async t => {
  const game = await newGame()
  t.same((await submitted(game, 'alice', 100)).calls, { plain: 1, full: 0 })
  // The count of webhooks in the record is what the scripts go by (webhook-create.lua keeps it).
  await redis.hset(keys.game(game.gameId), 'webhooks', '1')
  const withEvents = await submitted(game, 'bob', 300)
  t.same(withEvents.calls, { plain: 1, full: 1 })
  t.same(withEvents.data, { score: 300, improved: true, best_score: 300, rank: 1 })
  const events = (await redis.xrange(keys.events(game.gameId), '-', '+')).map(([, fields]) => fields.join(' '))
  t.ok(events.some(event => event.includes('score.best') && event.includes('bob')), 'the new best is in the outbox')
})

t.test('a game with runs, or a submit with a run, takes the full script', async t => {
  const game = await newGame()
  const withRun = await submitted(game, 'alice', 100, { extra: { run_id: 'A'.repeat(22) } })
  t.same(withRun.calls, { plain: 0, full: 1 }, 'a submit with a run, to a game without runs')
  t.equal(withRun.error, 'invalid_run', 'which the full script refuses')

  dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}`, { runs: 'optional' }))
  t.same((await submitted(game, 'alice', 100)).calls, { plain: 0, full: 1 }, 'a game with runs, as its cached record says')
})

t.test('runs required behind the cache: the plain script hands the submit over and it is refused', async t => {
  const game = await newGame()
  t.same((await submitted(game, 'alice', 100)).calls, { plain: 1, full: 0 })
  await redis.hset(keys.game(game.gameId), 'runs', 'required')
  const refused = await submitted(game, 'bob', 200)
  t.same(refused.calls, { plain: 1, full: 1 })
  t.equal(refused.error, 'run_required')
  t.equal(await redis.zcard(keys.board(game.gameId)), 1, 'nothing stored')
})

t.test('a review_factor of 1 or less is no rule, for the plain script as for the full one', async t => {
  const game = await newGame()
  await redis.hset(keys.game(game.gameId), 'review_factor', '1')
  const kept = await submitted(game, 'alice', 100)
  t.same(kept.calls, { plain: 1, full: 0 }, 'not handed over')
  t.same(kept.data, { score: 100, improved: true, best_score: 100, rank: 1 })
  await redis.hset(keys.game(game.gameId), 'review_factor', '2')
  const handed = await submitted(game, 'bob', 1000)
  t.same(handed.calls, { plain: 1, full: 1 }, 'a factor above 1 is a rule')
  t.equal(handed.data.held, true, 'ten times the first place is held')
})
