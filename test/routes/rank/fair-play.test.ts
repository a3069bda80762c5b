import t from 'tap'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { ADMIN_TOKEN, admin, buildTestApp, buildTestApps, createGame, dataOf, expectError, formBody, get, me, submit, top, type TestGame } from '../../helpers/app.js'

/*
 * Fair play (docs/interface.md#fair-play): score bounds refuse a score,
 * review rules hold one for an operator, who approves it (on the boards as
 * of when it was submitted) or rejects it. The clock is injected, so every
 * submission has a known time.
 */

let clock = Date.UTC(2026, 10, 24, 12)
const { app } = await buildTestApp(t, {}, { clock: () => clock })

async function fairGame (settings: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<TestGame> {
  const game = await createGame(app)
  dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}`, { ...settings, ...extra }))
  return game
}

async function send (game: TestGame, player: string, score: number | string, options: { ts?: number, meta?: string } = {}): Promise<LightMyRequestResponse> {
  clock += 1000
  return await submit(app, game, { player, score, ts: options.ts, meta: options.meta })
}

const names = (data: { items: Array<{ player_name: string }> }): string[] => data.items.map(item => item.player_name)

async function queue (game: TestGame, query: Record<string, string> = {}): Promise<any> {
  return dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/review?${formBody(query)}`))
}

async function decide (game: TestGame, heldId: string, decision: 'approve' | 'reject', body: Record<string, unknown> = {}): Promise<LightMyRequestResponse> {
  return await admin(app, 'POST', `/admin/games/${game.gameId}/review/${heldId}/${decision}`, body)
}

t.test('the settings: set, cleared with null or "default", checked', async t => {
  const game = await createGame(app)
  const set = dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}`, { score_min: -5, score_max: 1000, review_above: 500, review_below: 0, review_factor: 2.5, notify_top: 3 }))
  t.match(set, { score_min: -5, score_max: 1000, review_above: 500, review_below: 0, review_factor: 2.5, notify_top: 3 })
  const cleared = dataOf(await app.inject({
    method: 'PATCH',
    url: `/admin/games/${game.gameId}`,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/x-www-form-urlencoded' },
    payload: formBody({ score_min: 'default', review_factor: 'default', score_max: '-3' })
  }))
  t.match(cleared, { score_min: null, score_max: -3, review_factor: null, review_above: 500 }, 'form fields: "default" clears, negative digits are integers')
  t.same(dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}`, { score_max: null })).score_max, null)
  const made = dataOf(await admin(app, 'POST', '/admin/games', { game_id: `${game.gameId}_new`, review_factor: 10, score_min: 0 }))
  t.match(made, { review_factor: 10, score_min: 0, score_max: null, notify_top: 10 }, 'set when the game is made')

  for (const [body, what] of [
    [{ score_min: 10, score_max: 9 }, 'score_min above score_max'],
    [{ review_factor: 1 }, 'a factor of 1'],
    [{ review_factor: 0.5 }, 'a factor below 1'],
    [{ review_factor: '3' }, 'a number as a JSON string'],
    [{ score_min: 1.5 }, 'a bound that is not an integer'],
    [{ score_max: 2 ** 53 }, 'a bound past the score range'],
    [{ notify_top: 0 }, 'notify_top 0'],
    [{ notify_top: 101 }, 'notify_top 101']
  ] as const) {
    expectError(t, await admin(app, 'PATCH', `/admin/games/${game.gameId}`, body), 'invalid_param', what)
  }
  dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}`, { score_min: 100 }))
  expectError(t, await admin(app, 'PATCH', `/admin/games/${game.gameId}`, { score_max: 50 }), 'invalid_param', 'score_max below the stored score_min')
})

t.test('score_min and score_max: a score outside is score_out_of_range and stores nothing', async t => {
  const game = await fairGame({ score_min: 0, score_max: 1000 })
  expectError(t, await send(game, 'low', -1), 'score_out_of_range', 'below score_min')
  expectError(t, await send(game, 'high', 1001), 'score_out_of_range', 'above score_max')
  t.match((await send(game, 'high', 1001)).json().message, /from 0 to 1000/, 'the message names the bounds')
  t.same(dataOf(await me(app, game, 'low')), { player_name: 'low', best_score: null, rank: null }, 'nothing stored')
  t.equal(dataOf(await send(game, 'edge', 1000)).best_score, 1000, 'the bounds themselves are accepted')
  t.equal(dataOf(await send(game, 'zero', 0)).best_score, 0)

  // The check order: the signature and the score's form come first.
  expectError(t, await submit(app, game, { player: 'x', score: 5000, sign: 'f'.repeat(64) }), 'invalid_signature', 'a bad signature before the range')
  expectError(t, await send(game, 'x', '1e3'), 'invalid_score', 'a malformed score before the range')
  expectError(t, await send(game, 'x', 2000, { meta: '{' }), 'score_out_of_range', 'the range before meta')
  const onlyMax = await fairGame({ score_max: 10 })
  t.equal(dataOf(await send(onlyMax, 'deep', -9_007_199_254_740_991)).best_score, -9_007_199_254_740_991, 'one bound: the other side is open')
})

t.test('review_above holds a score: on no board, the standing unchanged, held: true', async t => {
  const game = await fairGame({ review_above: 1000 })
  t.same(dataOf(await send(game, 'steady', 900)), { score: 900, improved: true, best_score: 900, rank: 1 })
  const ts = Math.floor(Date.now() / 1000)
  const held = await send(game, 'rocket', 5000, { ts, meta: '{"level":9}' })
  t.same(dataOf(held), { score: 5000, improved: false, best_score: null, rank: null, held: true }, 'a first score held: no standing yet')
  t.same(names(dataOf(await top(app, game))), ['steady'], 'not on the board')
  t.same(dataOf(await me(app, game, 'rocket')), { player_name: 'rocket', best_score: null, rank: null })

  // The same signed request again is recognised and answered the same way.
  t.same(dataOf(await send(game, 'rocket', 5000, { ts, meta: '{"level":9}' })), { score: 5000, improved: false, best_score: null, rank: null, held: true }, 'a replay of a held submit')

  const pending = await queue(game)
  t.equal(pending.total, 1, 'one held score, the replay not counted again')
  t.match(pending.items[0], { held_id: /^\d+$/, player_name: 'rocket', score: 5000, meta: '{"level":9}', rule: 'review_above', status: 'pending', season_id: 1, decided_at: null, note: null })

  // A player with a best holds their standing.
  t.same(dataOf(await send(game, 'steady', 2000)), { score: 2000, improved: false, best_score: 900, rank: 1, held: true })
  t.same(dataOf(await send(game, 'steady', 950)), { score: 950, improved: true, best_score: 950, rank: 1 }, 'a score under the rule goes on as usual')
})

t.test('review_below holds low scores (an asc game\'s impossible times)', async t => {
  const game = await fairGame({ order: 'asc', review_below: 10 })
  t.same(dataOf(await send(game, 'fast', 9)), { score: 9, improved: false, best_score: null, rank: null, held: true })
  t.equal(dataOf(await send(game, 'fair', 10)).rank, 1)
  t.equal((await queue(game)).items[0].rule, 'review_below')
})

t.test('review_factor: far beyond the player\'s previous best, or the first place', async t => {
  const game = await fairGame({ review_factor: 10 })
  dataOf(await send(game, 'leader', 400))
  dataOf(await send(game, 'small', 10))
  t.notOk(dataOf(await send(game, 'small', 100)).held, 'ten times the previous best is not more than ten times')
  t.ok(dataOf(await send(game, 'small', 1001)).held, 'more than ten times the previous best (100)')
  t.notOk(dataOf(await send(game, 'newcomer', 4000)).held, 'a first score up to ten times the first place')
  t.ok(dataOf(await send(game, 'other', 40_001)).held, 'a first score beyond ten times the first place (4000)')
  t.same((await queue(game)).items.map((held: { player_name: string, rule: string }) => [held.player_name, held.rule]), [['small', 'review_factor'], ['other', 'review_factor']])

  const asc = await fairGame({ order: 'asc', review_factor: 4 })
  dataOf(await send(asc, 'runner', 100))
  t.notOk(dataOf(await send(asc, 'quick', 25)).held, 'a quarter of the best time is not more than 4 times better')
  t.ok(dataOf(await send(asc, 'cheat', 6)).held, 'an asc game: a time more than 4 times better than the first place (25)')

  const empty = await fairGame({ review_factor: 2 })
  t.notOk(dataOf(await send(empty, 'first', 1_000_000)).held, 'nothing to compare with: not held')
  const negative = await fairGame({ review_factor: 2 })
  dataOf(await send(negative, 'below_zero', -50))
  t.notOk(dataOf(await send(negative, 'below_zero', 1000)).held, 'a reference at or below zero holds nothing')
})

t.test('only a score that would change a board is held', async t => {
  const game = await fairGame({ review_above: 100 })
  dataOf(await send(game, 'champ', 50))
  dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}`, { review_above: null }))
  dataOf(await send(game, 'champ', 500))
  dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}`, { review_above: 100 }))
  t.same(dataOf(await send(game, 'champ', 300)), { score: 300, improved: false, best_score: 500, rank: 1 }, 'below the stored best: nothing to review')
  t.ok(dataOf(await send(game, 'champ', 600)).held, 'above it: held')
})

t.test('one pending score per player: a better one supersedes it, a lesser one is dropped', async t => {
  const game = await fairGame({ review_above: 100 })
  t.ok(dataOf(await send(game, 'ace', 200)).held)
  t.ok(dataOf(await send(game, 'ace', 150)).held, 'answered held')
  t.same((await queue(game)).items.map((held: { score: number }) => held.score), [200], 'but the better held score stays')
  t.ok(dataOf(await send(game, 'ace', 300)).held)
  const pending = await queue(game)
  t.same(pending.items.map((held: { score: number }) => held.score), [300])
  const decided = await queue(game, { status: 'decided' })
  t.match(decided.items, [{ score: 200, status: 'superseded', decided_at: /Z$/ }], 'the superseded one is recorded')
})

t.test('approve: the score goes on as of when it was submitted, so ties stay fair', async t => {
  const game = await fairGame({ review_factor: 10 })
  dataOf(await send(game, 'base', 100))
  const submittedAt = new Date(clock + 1000).toISOString()
  t.ok(dataOf(await send(game, 'early', 5000)).held)
  dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}`, { review_factor: null }))
  t.equal(dataOf(await send(game, 'late', 5000)).rank, 1, 'the same score, later, not held')
  const heldId = (await queue(game)).items[0].held_id as string

  clock += 60_000
  const approved = dataOf(await decide(game, heldId, 'approve', { note: 'checked the replay' }))
  t.same(approved, {
    held: { held_id: heldId, player_name: 'early', score: 5000, meta: null, submitted_at: submittedAt, season_id: 1, board_id: null, rule: 'review_factor', parts: 1, status: 'approved', decided_at: new Date(approved.held.decided_at).toISOString(), note: 'checked the replay', run: null },
    improved: true,
    best_score: 5000,
    rank: 1
  })
  const board = dataOf(await top(app, game))
  t.same(names(board), ['early', 'late', 'base'], 'the earlier submission wins the tie')
  t.equal(board.items[0].created_at, submittedAt, 'with its submission time')
  t.equal((await queue(game)).total, 0, 'no longer pending')
  t.match((await queue(game, { status: 'decided' })).items[0], { held_id: heldId, status: 'approved' })

  expectError(t, await decide(game, heldId, 'approve'), 'not_found', 'approved twice')
  t.match((await decide(game, heldId, 'reject')).json().message, /approved/, 'the message says what became of it')
})

t.test('reject: recorded, the score stays off; hide: true hides the player everywhere', async t => {
  const game = await fairGame({ review_above: 100 })
  dataOf(await send(game, 'cheater', 50))
  t.ok(dataOf(await send(game, 'cheater', 9999)).held)
  t.ok(dataOf(await send(game, 'lucky', 9999)).held)
  const [first, second] = (await queue(game)).items as Array<{ held_id: string }>
  const rejected = dataOf(await decide(game, first!.held_id, 'reject', { note: 'impossible', hide: true }))
  t.match(rejected, { held_id: first!.held_id, player_name: 'cheater', status: 'rejected', note: 'impossible', decided_at: /Z$/ })
  t.same(names(dataOf(await top(app, game))), [], 'hidden: gone from the board')
  t.match(dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/players/cheater`)), { best_score: 50, hidden: true })
  t.match(dataOf(await decide(game, second!.held_id, 'reject')), { player_name: 'lucky', status: 'rejected', note: null })
  t.same(dataOf(await me(app, game, 'lucky')), { player_name: 'lucky', best_score: null, rank: null })
  t.same((await queue(game, { status: 'decided' })).items.map((held: { player_name: string }) => held.player_name), ['lucky', 'cheater'], 'decided: newest first')
  t.ok(dataOf(await send(game, 'lucky', 9998)).held, 'a new score can be held again after a rejection')
})

t.test('approving into the periods and the season of the submission', async t => {
  const game = await fairGame({ review_above: 100, periods: ['daily'] })
  const day = new Date(clock + 1000).toISOString().slice(0, 10)
  t.ok(dataOf(await send(game, 'night_owl', 500)).held)
  const heldId = (await queue(game)).items[0].held_id as string
  clock += 86_400_000
  dataOf(await decide(game, heldId, 'approve'))
  const yesterday = dataOf(await top(app, game, { period: 'daily', period_id: day }))
  t.same(names(yesterday), ['night_owl'], 'on the day it was submitted')
  t.same(names(dataOf(await top(app, game, { period: 'daily' }))), [], 'not on today\'s board')

  const seasonal = await fairGame({ review_above: 100 })
  t.ok(dataOf(await send(seasonal, 'old_timer', 700)).held)
  const seasonHeld = (await queue(seasonal)).items[0].held_id as string
  dataOf(await admin(app, 'POST', `/admin/games/${seasonal.gameId}/seasons`, {}))
  const approved = dataOf(await decide(seasonal, seasonHeld, 'approve'))
  t.match(approved, { held: { season_id: 1, status: 'approved' }, rank: 1 })
  t.same(names(dataOf(await top(app, seasonal, { season_id: '1' }))), ['old_timer'], 'in the season it was submitted in')
  t.same(names(dataOf(await top(app, seasonal))), [], 'not in the new one')
})

t.test('approval honours the caps: quota_exceeded keeps the score pending', async t => {
  const game = await fairGame({ review_above: 100, max_entries: 1 })
  t.ok(dataOf(await send(game, 'first_in', 500)).held)
  dataOf(await send(game, 'squatter', 5))
  const heldId = (await queue(game)).items[0].held_id as string
  expectError(t, await decide(game, heldId, 'approve'), 'quota_exceeded', 'the board is full')
  t.equal((await queue(game)).items[0].status, 'pending', 'still pending')
  dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}`, { max_entries: 2 }))
  t.equal(dataOf(await decide(game, heldId, 'approve')).rank, 1, 'approved once the cap is raised')
})

t.test('session submits are held the same way', async t => {
  const game = await fairGame({ review_above: 100 })
  dataOf(await admin(app, 'POST', '/admin/users', { username: 'iframe_player' }))
  const session = dataOf(await admin(app, 'POST', '/admin/sessions', { username: 'iframe_player' }))
  const cookie = `${String(session.cookie_name)}=${String(session.session_id)}`
  const submitSelf = async (score: string): Promise<LightMyRequestResponse> => await app.inject({
    method: 'POST', url: '/api/rank?action=submit-self', payload: formBody({ game_id: game.gameId, score }), headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }
  })
  t.match(dataOf(await submitSelf('1000')), { score: 1000, improved: false, best_score: null, rank: null, total_players: 0, held: true })
  t.equal((await queue(game)).items[0].player_name, 'iframe_player')
  dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}`, { score_max: 999 }))
  expectError(t, await submitSelf('1000'), 'score_out_of_range', 'bounds apply to session submits')
})

t.test('the review routes refuse bad input clearly', async t => {
  const game = await fairGame({ review_above: 100 })
  for (const id of ['0', 'abc', '99999', '1'.repeat(40), '%2e%2e']) {
    expectError(t, await decide(game, id, 'approve'), 'not_found', `held id ${id}`)
  }
  expectError(t, await admin(app, 'GET', `/admin/games/${game.gameId}/review?status=all`), 'invalid_param', 'an unknown status')
  expectError(t, await admin(app, 'GET', `/admin/games/${game.gameId}/review?limit=101`), 'invalid_param', 'limit over 100')
  expectError(t, await admin(app, 'GET', `/admin/games/${game.gameId}/review?limit=1&limit=2`), 'invalid_param', 'limit twice')
  expectError(t, await admin(app, 'GET', `/admin/games/${game.gameId}/review?__proto__=1`), 'invalid_param', '__proto__')
  expectError(t, await admin(app, 'GET', '/admin/games/no_such_game/review'), 'not_found', 'an unknown game')
  t.ok(dataOf(await send(game, 'p', 500)).held)
  const heldId = (await queue(game)).items[0].held_id as string
  expectError(t, await decide(game, heldId, 'reject', { hide: 'yes' }), 'invalid_param', 'hide must be a boolean')
  expectError(t, await decide(game, heldId, 'reject', { note: 'x'.repeat(501) }), 'invalid_param', 'a note over 500 characters')
  expectError(t, await decide(game, heldId, 'approve', { approve: true }), 'invalid_param', 'an unknown field')
  t.equal((await queue(game)).items[0].status, 'pending', 'nothing decided by a bad request')
  t.same((await queue(game, { limit: '1', offset: '1' })).items, [], 'paging past the end')
  t.equal((await get(app, `/admin/games/${game.gameId}/review`)).json().error, 'unauthorized', 'the admin token is required')
})

t.test('held scores are in Redis: another instance (or a restart) sees and decides them', { timeout: 40_000 }, async t => {
  const { apps } = await buildTestApps(t, 2)
  const [one, two] = apps as [FastifyInstance, FastifyInstance]
  const game = await createGame(one)
  dataOf(await admin(one, 'PATCH', `/admin/games/${game.gameId}`, { review_above: 10 }))
  t.ok(dataOf(await submit(one, game, { player: 'travelling', score: 50 })).held)
  const listed = dataOf(await admin(two, 'GET', `/admin/games/${game.gameId}/review`))
  t.equal(listed.items[0].player_name, 'travelling')
  t.equal(dataOf(await admin(two, 'POST', `/admin/games/${game.gameId}/review/${listed.items[0].held_id as string}/approve`, {})).rank, 1)
  t.same(names(dataOf(await top(one, game))), ['travelling'])
})
