import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { admin, buildTestApp, createGame, dataOf, errorOf, me, multipartBody, post, submit, submitFields, top, type TestGame } from '../../helpers/app.js'

/*
 * Ranking semantics with exact values (docs/interface.md#ranking-rule): best only,
 * ties by who reached the score first, unique ranks, paging, created_at,
 * player names kept exactly, meta kept private, and atomic submits.
 */

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/
const SUBMIT = '/api/rank?action=submit'

interface Item { rank: number, player_name: string, score: number, created_at: string }

async function board (app: FastifyInstance, game: TestGame, query: Record<string, string> = {}): Promise<{ game_id: string, total: number, items: Item[] }> {
  return dataOf(await top(app, game, query))
}

/** rank, name and score of each item, without the time. */
function rows (items: Item[]): Array<[number, string, number]> {
  return items.map(item => [item.rank, item.player_name, item.score])
}

const { app } = await buildTestApp(t)

t.test('best only: lower and equal scores change nothing', async t => {
  const game = await createGame(app)
  t.same(dataOf(await submit(app, game, { player: 'alice', score: 100 })), { score: 100, improved: true, best_score: 100, rank: 1 })
  const before = (await board(app, game)).items[0]
  t.match(before, { rank: 1, player_name: 'alice', score: 100, created_at: ISO_MS })
  // Part of the scenario: the later submits get a later time (created_at has ms), so a change would show.
  await sleep(15)
  t.same(dataOf(await submit(app, game, { player: 'alice', score: 99 })), { score: 99, improved: false, best_score: 100, rank: 1 })
  t.same(dataOf(await submit(app, game, { player: 'alice', score: 100 })), { score: 100, improved: false, best_score: 100, rank: 1 })
  t.same(dataOf(await submit(app, game, { player: 'alice', score: -5 })), { score: -5, improved: false, best_score: 100, rank: 1 })
  const after = await board(app, game)
  t.equal(after.total, 1)
  t.same(after.items, [before], 'entry and created_at unchanged')
  t.same(dataOf(await submit(app, game, { player: 'alice', score: 101 })), { score: 101, improved: true, best_score: 101, rank: 1 })
  const improved = (await board(app, game)).items[0]
  t.equal(improved?.score, 101)
  t.ok(Date.parse(improved?.created_at ?? '') > Date.parse(before?.created_at ?? ''), 'created_at moves when the best improves')
})

t.test('ties: whoever reached the score first is ahead', async t => {
  const game = await createGame(app)
  t.same(dataOf(await submit(app, game, { player: 'bob', score: 50 })), { score: 50, improved: true, best_score: 50, rank: 1 })
  // The sleeps are part of the scenario: each submit reaches its score at a later ms than the one before.
  await sleep(5)
  // alice sorts before bob by name, but reached 50 later.
  t.same(dataOf(await submit(app, game, { player: 'alice', score: 50 })), { score: 50, improved: true, best_score: 50, rank: 2 })
  await sleep(5)
  t.same(dataOf(await submit(app, game, { player: 'aaron', score: 50 })), { score: 50, improved: true, best_score: 50, rank: 3 })
  t.same(rows((await board(app, game)).items), [[1, 'bob', 50], [2, 'alice', 50], [3, 'aaron', 50]])
  // An equal resubmit does not refresh bob's time; he stays first.
  t.same(dataOf(await submit(app, game, { player: 'bob', score: 50 })), { score: 50, improved: false, best_score: 50, rank: 1 })
  t.same(dataOf(await me(app, game, 'alice')), { player_name: 'alice', best_score: 50, rank: 2 })
  // alice reaches 60 first, then bob: alice is ahead now.
  await sleep(5)
  t.same(dataOf(await submit(app, game, { player: 'alice', score: 60 })), { score: 60, improved: true, best_score: 60, rank: 1 })
  await sleep(5)
  t.same(dataOf(await submit(app, game, { player: 'bob', score: 60 })), { score: 60, improved: true, best_score: 60, rank: 2 })
  t.same(rows((await board(app, game)).items), [[1, 'alice', 60], [2, 'bob', 60], [3, 'aaron', 50]])
  const items = (await board(app, game)).items
  t.ok(Date.parse(items[0]?.created_at ?? '') <= Date.parse(items[1]?.created_at ?? ''), 'the earlier time is ahead')
  t.same(dataOf(await me(app, game, 'aaron')), { player_name: 'aaron', best_score: 50, rank: 3 })
})

t.test('ranks are unique and items[i].rank == offset + i + 1', async t => {
  const game = await createGame(app)
  // Many equal scores: 12 players on 3 score levels.
  const expected: Array<[string, number]> = []
  for (let i = 0; i < 12; i++) {
    const score = [30, 20, 10][i % 3] ?? 0
    t.equal(dataOf(await submit(app, game, { player: `p${String(i).padStart(2, '0')}`, score })).best_score, score)
    expected.push([`p${String(i).padStart(2, '0')}`, score])
    // Part of the scenario: equal scores are ordered by time, so each submit gets a later ms.
    await sleep(2)
  }
  // Expected order: score descending, then submit order.
  const order = expected.map((entry, index) => ({ entry, index })).sort((a, b) => b.entry[1] - a.entry[1] || a.index - b.index).map(({ entry }) => entry)
  const all = await board(app, game, { limit: '100' })
  t.equal(all.total, 12)
  t.same(rows(all.items), order.map(([name, score], i) => [i + 1, name, score]))
  for (const [offset, limit] of [[0, 5], [5, 5], [10, 5], [3, 4], [11, 3]] as const) {
    const page = await board(app, game, { offset: String(offset), limit: String(limit) })
    t.equal(page.total, 12)
    t.same(rows(page.items), order.slice(offset, offset + limit).map(([name, score], i) => [offset + i + 1, name, score]), `offset ${offset} limit ${limit}`)
  }
  // me agrees with top for every player.
  for (const [i, [name, score]] of order.entries()) {
    t.same(dataOf(await me(app, game, name)), { player_name: name, best_score: score, rank: i + 1 })
  }
})

t.test('scores are JSON numbers: 007 is 7, -0 is 0, signature over the text as sent', async t => {
  const game = await createGame(app)
  t.same(dataOf(await submit(app, game, { player: 'zeros', score: '007' })), { score: 7, improved: true, best_score: 7, rank: 1 })
  t.same(dataOf(await submit(app, game, { player: 'negzero', score: '-0' })), { score: 0, improved: true, best_score: 0, rank: 2 })
  t.same(dataOf(await submit(app, game, { player: 'padded', score: '-0010' })), { score: -10, improved: true, best_score: -10, rank: 3 })
  const res = await submit(app, game, { player: 'negzero', score: '0' })
  t.same(dataOf(res), { score: 0, improved: false, best_score: 0, rank: 2 })
  t.match(res.body, /"score":0,/, 'no -0 in the JSON text')
  t.notMatch(res.body, /-0/)
  const topBody = (await top(app, game)).body
  t.notMatch(topBody, /"score":-0/)
  t.same(rows((await board(app, game)).items), [[1, 'zeros', 7], [2, 'negzero', 0], [3, 'padded', -10]])
  // A signature over the normalised text ("7") does not match "007" as sent.
  const fields = submitFields(game, { player: 'sig', score: '7' })
  t.equal(errorOf(await post(app, SUBMIT, { ...fields, score: '007' })), 'invalid_signature')
})

t.test('negative scores', async t => {
  const game = await createGame(app)
  t.same(dataOf(await submit(app, game, { player: 'a', score: -10 })), { score: -10, improved: true, best_score: -10, rank: 1 })
  t.same(dataOf(await submit(app, game, { player: 'b', score: -5 })), { score: -5, improved: true, best_score: -5, rank: 1 })
  t.same(dataOf(await submit(app, game, { player: 'c', score: -100 })), { score: -100, improved: true, best_score: -100, rank: 3 })
  t.same(dataOf(await submit(app, game, { player: 'a', score: -20 })), { score: -20, improved: false, best_score: -10, rank: 2 })
  t.same(dataOf(await submit(app, game, { player: 'a', score: -1 })), { score: -1, improved: true, best_score: -1, rank: 1 })
  t.same(dataOf(await submit(app, game, { player: 'd', score: 0 })), { score: 0, improved: true, best_score: 0, rank: 1 })
  t.same(rows((await board(app, game)).items), [[1, 'd', 0], [2, 'a', -1], [3, 'b', -5], [4, 'c', -100]])
})

t.test('top paging: limit default 20, above 100 is 100, offset past the end', async t => {
  const game = await createGame(app)
  const players = Array.from({ length: 120 }, (_, i) => i + 1)
  for (let i = 0; i < players.length; i += 30) {
    const batch = players.slice(i, i + 30)
    const results = await Promise.all(batch.map(async n => dataOf(await submit(app, game, { player: `player${n}`, score: n * 10 }))))
    t.same(results.map(r => r.best_score), batch.map(n => n * 10))
  }
  const expectedRows = (from: number, count: number): Array<[number, string, number]> =>
    Array.from({ length: count }, (_, i) => [from + i + 1, `player${120 - from - i}`, (120 - from - i) * 10])

  const first = await board(app, game)
  t.equal(first.game_id, game.gameId)
  t.equal(first.total, 120)
  t.equal(first.items.length, 20, 'limit defaults to 20')
  t.same(rows(first.items), expectedRows(0, 20))
  for (const item of first.items) t.match(item.created_at, ISO_MS)

  const capped = await board(app, game, { limit: '500' })
  t.equal(capped.total, 120)
  t.equal(capped.items.length, 100, 'limit 500 is treated as 100')
  t.same(rows(capped.items), expectedRows(0, 100))
  t.equal((await board(app, game, { limit: '101' })).items.length, 100)
  t.equal((await board(app, game, { limit: '100' })).items.length, 100)
  t.equal((await board(app, game, { limit: '99999999999999999999' })).items.length, 100)

  const tail = await board(app, game, { offset: '100', limit: '500' })
  t.equal(tail.total, 120)
  t.same(rows(tail.items), expectedRows(100, 20))
  t.same(rows((await board(app, game, { offset: '119' })).items), [[120, 'player1', 10]])

  for (const offset of ['120', '121', '1000', '9007199254740991']) {
    t.same(await board(app, game, { offset }), { game_id: game.gameId, total: 120, items: [] }, `offset ${offset} is past the end`)
  }
  t.same(rows((await board(app, game, { limit: '1', offset: '0' })).items), [[1, 'player120', 1200]])
})

t.test('top of an empty board and me for an unknown player', async t => {
  const game = await createGame(app)
  t.same(await board(app, game), { game_id: game.gameId, total: 0, items: [] })
  const res = await me(app, game, 'nobody')
  t.same(res.json(), { ok: true, data: { player_name: 'nobody', best_score: null, rank: null } })
  await submit(app, game, { player: 'somebody', score: 1 })
  t.same(dataOf(await me(app, game, 'nobody')), { player_name: 'nobody', best_score: null, rank: null })
  t.same(dataOf(await me(app, game, 'Somebody')), { player_name: 'Somebody', best_score: null, rank: null }, 'names are case-sensitive')
})

t.test('created_at is ISO 8601 UTC with ms and changes only when the best improves', async t => {
  const game = await createGame(app)
  const start = Date.now()
  await submit(app, game, { player: 'alice', score: 10 })
  const first = (await board(app, game)).items[0]?.created_at ?? ''
  t.match(first, ISO_MS)
  t.ok(Math.abs(Date.parse(first) - start) < 5000, 'created_at is the server time of the submit')
  t.equal(new Date(first).toISOString(), first, 'round-trips through Date as UTC')
  // Part of the scenario: the improvement comes at least 20 ms later, so its created_at differs.
  await sleep(20)
  await submit(app, game, { player: 'alice', score: 5 })
  await submit(app, game, { player: 'alice', score: 10 })
  t.equal((await board(app, game)).items[0]?.created_at, first, 'unchanged by lower and equal scores')
  await submit(app, game, { player: 'alice', score: 11 })
  const second = (await board(app, game)).items[0]?.created_at ?? ''
  t.match(second, ISO_MS)
  t.ok(Date.parse(second) - Date.parse(first) >= 15, `changed on improvement (${first} -> ${second})`)
})

t.test('player names round-trip exactly and are compared exactly', async t => {
  const game = await createGame(app)
  const names = ['Zoë', '名前テスト', '😀🎮👾', 'O\'Brien "the" <b>&amp;', 'a+b=c&d%20', 'Ä', 'A\u0308', 'alice', 'Alice', ' lead', 'trail ', 'x|y', 'no\u00a0break']
  for (const [i, name] of names.entries()) {
    const res = await submit(app, game, { player: name, score: 1000 - i })
    t.same(dataOf(res), { score: 1000 - i, improved: true, best_score: 1000 - i, rank: i + 1 }, JSON.stringify(name))
  }
  const all = await board(app, game, { limit: '100' })
  t.equal(all.total, names.length, 'NFC/NFD and case variants are separate entries')
  t.same(all.items.map(item => item.player_name), names)
  for (const [i, name] of names.entries()) {
    t.same(dataOf(await me(app, game, name)), { player_name: name, best_score: 1000 - i, rank: i + 1 }, `me ${JSON.stringify(name)}`)
  }
  // The same names through multipart land on the same entries.
  const res = await submit(app, game, { player: 'Zoë', score: 5000, encoding: 'multipart' })
  t.same(dataOf(res), { score: 5000, improved: true, best_score: 5000, rank: 1 })
  t.equal((await board(app, game)).total, names.length)
})

t.test('submits with different keys of the same game land on one entry per player_name', async t => {
  const game = await createGame(app)
  const second = dataOf(await admin(app, 'POST', '/admin/keys', { game_id: game.gameId }))
  const other: TestGame = { gameId: game.gameId, apiKey: second.api_key, apiSecret: second.api_secret }
  t.same(dataOf(await submit(app, game, { player: 'alice', score: 10 })), { score: 10, improved: true, best_score: 10, rank: 1 })
  t.same(dataOf(await submit(app, other, { player: 'alice', score: 20 })), { score: 20, improved: true, best_score: 20, rank: 1 })
  t.same(dataOf(await submit(app, game, { player: 'alice', score: 15 })), { score: 15, improved: false, best_score: 20, rank: 1 })
  t.same(await board(app, other), { game_id: game.gameId, total: 1, items: [{ rank: 1, player_name: 'alice', score: 20, created_at: (await board(app, game)).items[0]?.created_at }] })
  // Boards of different games are separate.
  const elsewhere = await createGame(app)
  t.same(dataOf(await me(app, elsewhere, 'alice')), { player_name: 'alice', best_score: null, rank: null })
})

t.test('meta is stored with the best score and never returned by public endpoints', async t => {
  const game = await createGame(app)
  const meta = '{"level":7,"secret":"s3cr3t-meta"}'
  const res = await submit(app, game, { player: 'alice', score: 10, meta })
  t.same(Object.keys(dataOf(res)).sort(), ['best_score', 'improved', 'rank', 'score'])
  t.notMatch(res.body, /s3cr3t-meta/)
  const topRes = await top(app, game)
  t.same(Object.keys(dataOf(topRes)).sort(), ['game_id', 'items', 'total'])
  t.same(Object.keys(dataOf(topRes).items[0]).sort(), ['created_at', 'player_name', 'rank', 'score'])
  t.notMatch(topRes.body, /s3cr3t-meta|level/)
  const meRes = await me(app, game, 'alice')
  t.same(Object.keys(dataOf(meRes)).sort(), ['best_score', 'player_name', 'rank'])
  t.notMatch(meRes.body, /s3cr3t-meta|level/)

  // Stored as sent with the best, readable by operators (GET /admin/games/:game_id/players/:player_name).
  const stored = async (): Promise<unknown> => dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/players/alice`)).meta
  t.equal(await stored(), meta)
  // A non-improving submit keeps the stored meta.
  await submit(app, game, { player: 'alice', score: 5, meta: '{"other":1}' })
  t.equal(await stored(), meta)
  // An improving score replaces it...
  await submit(app, game, { player: 'alice', score: 11, meta: '[1, 2, 3]' })
  t.equal(await stored(), '[1, 2, 3]')
  // ...or clears it when sent without meta.
  await submit(app, game, { player: 'alice', score: 12 })
  t.equal(await stored(), null)
  t.match(dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/players/alice`)), { best_score: 12, rank: 1, hidden: false, created_at: ISO_MS })
})

t.test('concurrency: 50 parallel submits for one player keep the maximum, one entry', async t => {
  const game = await createGame(app)
  const scores = Array.from({ length: 50 }, (_, i) => (i * 37) % 50 + 1) // 1..50 shuffled
  t.equal(new Set(scores).size, 50)
  const results = await Promise.all(scores.map(async score => dataOf(await submit(app, game, { player: 'racer', score }))))
  for (const [i, result] of results.entries()) {
    t.equal(result.score, scores[i])
    t.ok(result.best_score >= result.score, 'best_score is never below the submitted score')
    t.equal(result.rank, 1)
    if (result.improved === true) t.equal(result.best_score, result.score, 'an improving submit reports its own score as best')
  }
  t.equal(results.find(r => r.score === 50)?.improved, true, 'the maximum improved the best')
  t.same(dataOf(await me(app, game, 'racer')), { player_name: 'racer', best_score: 50, rank: 1 })
  const final = await board(app, game)
  t.equal(final.total, 1)
  t.same(rows(final.items), [[1, 'racer', 50]])
})

t.test('concurrency: 60 parallel submits for 60 players give 60 unique ranks', async t => {
  const game = await createGame(app)
  const results = await Promise.all(Array.from({ length: 60 }, async (_, i) => dataOf(await submit(app, game, { player: `runner${i}`, score: i * 3 }))))
  for (const [i, result] of results.entries()) {
    t.match(result, { score: i * 3, improved: true, best_score: i * 3 })
  }
  const final = await board(app, game, { limit: '100' })
  t.equal(final.total, 60)
  t.same(final.items.map(item => item.rank), Array.from({ length: 60 }, (_, i) => i + 1))
  t.same(rows(final.items), Array.from({ length: 60 }, (_, i) => [i + 1, `runner${59 - i}`, (59 - i) * 3]))
  const ranks = await Promise.all(Array.from({ length: 60 }, async (_, i) => dataOf(await me(app, game, `runner${i}`)).rank))
  t.same(ranks, Array.from({ length: 60 }, (_, i) => 60 - i))
})

t.test('form-encoded and multipart submits give the same results', async t => {
  const sequence: Array<[string, string, string?]> = [['alice', '10'], ['bob', '20', '{"a":1}'], ['alice', '5'], ['alice', '30'], ['😀 é', '007'], ['bob', '-0']]
  const outcomes: Record<'form' | 'multipart', unknown[]> = { form: [], multipart: [] }
  const boards: Record<'form' | 'multipart', unknown> = { form: null, multipart: null }
  for (const encoding of ['form', 'multipart'] as const) {
    const game = await createGame(app)
    for (const [player, score, meta] of sequence) {
      outcomes[encoding].push(dataOf(await submit(app, game, { player, score, encoding, ...(meta === undefined ? {} : { meta }) })))
    }
    const b = await board(app, game)
    boards[encoding] = { total: b.total, rows: rows(b.items) }
  }
  t.same(outcomes.form, [
    { score: 10, improved: true, best_score: 10, rank: 1 },
    { score: 20, improved: true, best_score: 20, rank: 1 },
    { score: 5, improved: false, best_score: 10, rank: 2 },
    { score: 30, improved: true, best_score: 30, rank: 1 },
    { score: 7, improved: true, best_score: 7, rank: 3 },
    { score: 0, improved: false, best_score: 20, rank: 2 }
  ])
  t.same(outcomes.multipart, outcomes.form)
  t.same(boards.form, { total: 3, rows: [[1, 'alice', 30], [2, 'bob', 20], [3, '😀 é', 7]] })
  t.same(boards.multipart, boards.form)
})

t.test('prototype-like field names never crash a submit', async t => {
  const game = await createGame(app)
  for (const [i, name] of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'prototype'].entries()) {
    for (const encoding of ['form', 'multipart'] as const) {
      const player = `${encoding}-${i}`
      const score = 10 + i * 2 + (encoding === 'multipart' ? 1 : 0) // each new score is the best so far
      const fields: Array<[string, string]> = [...Object.entries(submitFields(game, { player, score })), [name, '{"polluted":true}']]
      const res = await post(app, SUBMIT, fields, encoding)
      t.equal(res.statusCode, 200, `${encoding} ${name} (status)`)
      t.equal(res.headers['content-type'], 'application/json; charset=utf-8')
      const body = res.json()
      if (body.ok === true) {
        // Ignored as an unknown field: the submit counted.
        t.same(body.data, { score, improved: true, best_score: score, rank: 1 }, `${encoding} ${name} ignored`)
        t.same(dataOf(await me(app, game, player)), { player_name: player, best_score: score, rank: 1 })
      } else {
        // Refused as a body that is not plain form fields: nothing stored.
        t.equal(body.error, 'invalid_body', `${encoding} ${name} refused`)
        t.same(dataOf(await me(app, game, player)), { player_name: player, best_score: null, rank: null })
      }
    }
  }
  t.equal(({} as Record<string, unknown>).polluted, undefined, 'Object.prototype not polluted')
  // The service still answers normally afterwards.
  t.same(dataOf(await submit(app, game, { player: 'after', score: 1000 })), { score: 1000, improved: true, best_score: 1000, rank: 1 })
})

t.test('form-encoded and multipart: extra fields in a small body are treated alike', async t => {
  const game = await createGame(app)
  const extra: Array<[string, string]> = Array.from({ length: 60 }, (_, i) => [`x${i}`, '1'])
  const formRes = await post(app, SUBMIT, [...Object.entries(submitFields(game, { player: 'form', score: 2 })), ...extra], 'form')
  t.same(dataOf(formRes), { score: 2, improved: true, best_score: 2, rank: 1 })
  const mpFields: Array<[string, string]> = [...Object.entries(submitFields(game, { player: 'multi', score: 1 })), ...extra]
  const body = multipartBody(mpFields)
  t.ok(Buffer.byteLength(body.payload) < 16384, `the multipart body is ${Buffer.byteLength(body.payload)} bytes, under BODY_LIMIT`)
  const mpRes = await app.inject({ method: 'POST', url: SUBMIT, payload: body.payload, headers: body.headers })
  t.equal(mpRes.statusCode, 200)
  t.same(mpRes.json(), { ok: true, data: { score: 1, improved: true, best_score: 1, rank: 2 } })
})
