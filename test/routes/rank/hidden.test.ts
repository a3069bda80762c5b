import t from 'tap'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { ADMIN_TOKEN, admin, buildTestApp, createGame, dataOf, formBody, me, submit, top, type TestGame, expectError } from '../../helpers/app.js'

/*
 * Hidden players (docs/interface.md#hidden-players and the board-entry routes of
 * section 5): a hidden player keeps the stored best score but is not on the
 * board: not listed by top, not counted in total / total_players, pushes
 * nobody down, and sees rank null. Un-hiding puts them back in their place.
 */

const JSON_TYPE = 'application/json; charset=utf-8'
const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/

async function sleep (ms: number): Promise<void> {
  await new Promise(resolve => setTimeout(resolve, ms))
}

/** The board as [rank, player_name, score] rows, and its total. */
async function board (app: FastifyInstance, game: TestGame): Promise<{ total: number, rows: Array<[number, string, number]> }> {
  const data = dataOf(await top(app, game, { limit: '100' }))
  return { total: data.total, rows: data.items.map((item: any) => [item.rank, item.player_name, item.score]) }
}

async function createUser (app: FastifyInstance, username: string, hidden = false): Promise<any> {
  return dataOf(await admin(app, 'POST', '/admin/users', { username, hidden }))
}

async function setUserHidden (app: FastifyInstance, username: string, hidden: boolean): Promise<any> {
  return dataOf(await admin(app, 'PATCH', `/admin/users/${username}`, { hidden }))
}

async function sessionOf (app: FastifyInstance, username: string): Promise<string> {
  const made = dataOf(await admin(app, 'POST', '/admin/sessions', { username }))
  return `sid=${String(made.session_id)}`
}

async function submitSelf (app: FastifyInstance, cookie: string, gameId: string, score: string): Promise<LightMyRequestResponse> {
  return await app.inject({ method: 'POST', url: '/api/rank?action=submit-self', payload: formBody({ game_id: gameId, score }), headers: { 'content-type': 'application/x-www-form-urlencoded', cookie } })
}

async function meSelf (app: FastifyInstance, cookie: string, gameId: string): Promise<LightMyRequestResponse> {
  return await app.inject({ method: 'GET', url: `/api/rank?action=me-self&game_id=${gameId}`, headers: { cookie } })
}

function playerUrl (gameId: string, player: string): string {
  return `/admin/games/${encodeURIComponent(gameId)}/players/${encodeURIComponent(player)}`
}

/** Submits one after another with a few ms between (part of the scenario), so achievement times differ. */
async function submitAll (app: FastifyInstance, game: TestGame, entries: Array<[string, number, string?]>): Promise<void> {
  for (const [player, score, meta] of entries) {
    dataOf(await submit(app, game, { player, score, ...(meta === undefined ? {} : { meta }) }))
    await sleep(3)
  }
}

let counter = 0
function prefix (): string {
  return `h${++counter}_`
}

const { app } = await buildTestApp(t)

t.test('a user hidden with PATCH /admin/users keeps the best score but leaves the board', async t => {
  const game = await createGame(app)
  const p = prefix()
  const [a, b, c, d] = [`${p}a`, `${p}b`, `${p}c`, `${p}d`]
  await submitAll(app, game, [[a, 500], [b, 400], [c, 300], [d, 200]])
  await createUser(app, a)
  await createUser(app, b)
  const bCookie = await sessionOf(app, b)
  const aCookie = await sessionOf(app, a)
  t.same(await board(app, game), { total: 4, rows: [[1, a, 500], [2, b, 400], [3, c, 300], [4, d, 200]] })

  t.same(await setUserHidden(app, b, true), { username: b, is_admin: false, hidden: true, created_at: (await createdAt(app, b)), guest: false, guest_until: null, sign_in: [] })
  t.same(await board(app, game), { total: 3, rows: [[1, a, 500], [2, c, 300], [3, d, 200]] }, 'not listed, not counted, pushes nobody down')
  t.same(dataOf(await me(app, game, b)), { player_name: b, best_score: 400, rank: null }, 'me: best kept, rank null')
  t.same(dataOf(await me(app, game, c)), { player_name: c, best_score: 300, rank: 2 })
  t.same(dataOf(await me(app, game, d)), { player_name: d, best_score: 200, rank: 3 })
  t.same(dataOf(await meSelf(app, bCookie, game.gameId)),
    { player_name: b, best_score: 400, rank: null, total_players: 3, is_dev_record: false, is_admin_record: false }, 'me-self of the hidden user')
  t.same(dataOf(await meSelf(app, aCookie, game.gameId)),
    { player_name: a, best_score: 500, rank: 1, total_players: 3, is_dev_record: false, is_admin_record: false }, 'me-self of a visible user does not count the hidden one')
  t.same(dataOf(await admin(app, 'GET', playerUrl(game.gameId, b))),
    { player_name: b, best_score: 400, created_at: (await entryOf(app, game, b)).created_at, meta: null, hidden: false, rank: null, season_id: 1 }, 'entry: own flag false, rank null through the user')

  // Improving while hidden stores the best, rank stays null.
  t.same(dataOf(await submit(app, game, { player: b, score: 450 })), { score: 450, improved: true, best_score: 450, rank: null }, 'API-key submit while hidden')
  t.same(dataOf(await submit(app, game, { player: b, score: 10 })), { score: 10, improved: false, best_score: 450, rank: null }, 'lower API-key submit while hidden')
  t.same(dataOf(await submitSelf(app, bCookie, game.gameId, '460')),
    { score: 460, improved: true, best_score: 460, rank: null, total_players: 3, is_dev_record: false, is_admin_record: false }, 'submit-self while hidden')
  t.same(dataOf(await submitSelf(app, bCookie, game.gameId, '1')),
    { score: 1, improved: false, best_score: 460, rank: null, total_players: 3, is_dev_record: false, is_admin_record: false }, 'lower submit-self while hidden')
  t.same(await board(app, game), { total: 3, rows: [[1, a, 500], [2, c, 300], [3, d, 200]] }, 'still off the board')
  t.same(dataOf(await submitSelf(app, aCookie, game.gameId, '510')),
    { score: 510, improved: true, best_score: 510, rank: 1, total_players: 3, is_dev_record: false, is_admin_record: false }, 'a visible user submits: total_players excludes the hidden one')

  // Un-hiding puts b back with the best stored while hidden.
  t.equal((await setUserHidden(app, b, false)).hidden, false)
  t.same(await board(app, game), { total: 4, rows: [[1, a, 510], [2, b, 460], [3, c, 300], [4, d, 200]] }, 'back in place')
  t.same(dataOf(await me(app, game, b)), { player_name: b, best_score: 460, rank: 2 })
  t.same(dataOf(await meSelf(app, bCookie, game.gameId)),
    { player_name: b, best_score: 460, rank: 2, total_players: 4, is_dev_record: false, is_admin_record: false })
})

async function createdAt (app: FastifyInstance, username: string): Promise<string> {
  const value = await app.redis.hget(`rank:user:{${username}}`, 'created_at')
  return value ?? 'missing'
}

async function entryOf (app: FastifyInstance, game: TestGame, player: string): Promise<any> {
  return dataOf(await admin(app, 'GET', playerUrl(game.gameId, player)))
}

t.test('a hidden player who first submits while hidden is not counted', async t => {
  const game = await createGame(app)
  const p = prefix()
  await submitAll(app, game, [[`${p}x`, 10], [`${p}y`, 5]])
  await createUser(app, `${p}ghost`, true)
  const ghost = await sessionOf(app, `${p}ghost`)
  t.same(dataOf(await submitSelf(app, ghost, game.gameId, '100')),
    { score: 100, improved: true, best_score: 100, rank: null, total_players: 2, is_dev_record: false, is_admin_record: false })
  t.same(dataOf(await submit(app, game, { player: `${p}ghost`, score: 200 })), { score: 200, improved: true, best_score: 200, rank: null })
  t.same(await board(app, game), { total: 2, rows: [[1, `${p}x`, 10], [2, `${p}y`, 5]] })
  await setUserHidden(app, `${p}ghost`, false)
  t.same(await board(app, game), { total: 3, rows: [[1, `${p}ghost`, 200], [2, `${p}x`, 10], [3, `${p}y`, 5]] })
})

t.test('un-hiding restores the place by score and then by time', async t => {
  const game = await createGame(app)
  const p = prefix()
  const [early, middle, late, low] = [`${p}early`, `${p}middle`, `${p}late`, `${p}low`]
  await submitAll(app, game, [[early, 300], [middle, 300], [late, 300], [low, 100]])
  const before = dataOf(await top(app, game))
  t.same(before.items.map((item: any) => item.player_name), [early, middle, late, low], 'ties: whoever reached the score first is ahead')
  const earlyCreated = before.items[0].created_at
  t.match(earlyCreated, ISO_MS)

  await createUser(app, early)
  await setUserHidden(app, early, true)
  t.same(await board(app, game), { total: 3, rows: [[1, middle, 300], [2, late, 300], [3, low, 100]] })
  await createUser(app, middle)
  await setUserHidden(app, middle, true)
  t.same(await board(app, game), { total: 2, rows: [[1, late, 300], [2, low, 100]] })
  // A new player with the same score arrives while both are hidden (the sleep is part of the
  // scenario: later than every earlier submit, by the ms of created_at).
  await sleep(3)
  await submitAll(app, game, [[`${p}newcomer`, 300]])
  t.same(await board(app, game), { total: 3, rows: [[1, late, 300], [2, `${p}newcomer`, 300], [3, low, 100]] })

  await setUserHidden(app, middle, false)
  t.same(await board(app, game), { total: 4, rows: [[1, middle, 300], [2, late, 300], [3, `${p}newcomer`, 300], [4, low, 100]] })
  await setUserHidden(app, early, false)
  const after = dataOf(await top(app, game))
  t.same(after.items.map((item: any) => [item.rank, item.player_name, item.score]),
    [[1, early, 300], [2, middle, 300], [3, late, 300], [4, `${p}newcomer`, 300], [5, low, 100]], 'both back where their time puts them')
  t.equal(after.items[0].created_at, earlyCreated, 'created_at kept through hide and un-hide')
  t.same(dataOf(await me(app, game, early)), { player_name: early, best_score: 300, rank: 1 })
})

t.test('hiding and showing keeps the order for zero, negative and extreme scores', async t => {
  const game = await createGame(app)
  const p = prefix()
  const rows: Array<[string, number]> = [[`${p}max`, 9007199254740991], [`${p}three`, 3], [`${p}zero`, 0], [`${p}neg`, -5], [`${p}min`, -9007199254740991]]
  await submitAll(app, game, rows)
  const full = { total: 5, rows: rows.map(([name, score], i) => [i + 1, name, score]) }
  t.same(await board(app, game), full)
  for (const [name] of rows) {
    dataOf(await admin(app, 'PATCH', playerUrl(game.gameId, name), { hidden: true }))
    const rest = rows.filter(([other]) => other !== name)
    t.same(await board(app, game), { total: 4, rows: rest.map(([other, score], i) => [i + 1, other, score]) }, `${name} hidden`)
    t.same(dataOf(await me(app, game, name)).rank, null)
    const shown = dataOf(await admin(app, 'PATCH', playerUrl(game.gameId, name), { hidden: false }))
    t.equal(shown.rank, rows.findIndex(([other]) => other === name) + 1, `${name} back in place`)
    t.same(await board(app, game), full, `${name} shown`)
  }
})

t.test('a user created with hidden=true after having API-key scores leaves every board', async t => {
  const g1 = await createGame(app)
  const g2 = await createGame(app)
  const p = prefix()
  const star = `${p}star`
  await submitAll(app, g1, [[star, 999], [`${p}o1`, 50], [`${p}o2`, 40]])
  await submitAll(app, g2, [[`${p}o3`, 70], [star, 60]])
  t.same(await board(app, g1), { total: 3, rows: [[1, star, 999], [2, `${p}o1`, 50], [3, `${p}o2`, 40]] })

  const created = await createUser(app, star, true)
  t.same({ username: created.username, is_admin: created.is_admin, hidden: created.hidden }, { username: star, is_admin: false, hidden: true })
  t.same(await board(app, g1), { total: 2, rows: [[1, `${p}o1`, 50], [2, `${p}o2`, 40]] }, 'game 1')
  t.same(await board(app, g2), { total: 1, rows: [[1, `${p}o3`, 70]] }, 'game 2')
  t.same(dataOf(await me(app, g1, star)), { player_name: star, best_score: 999, rank: null })
  t.same(dataOf(await me(app, g2, star)), { player_name: star, best_score: 60, rank: null })
  t.same(dataOf(await me(app, g1, `${p}o1`)), { player_name: `${p}o1`, best_score: 50, rank: 1 })
  const session = await sessionOf(app, star)
  t.same(dataOf(await meSelf(app, session, g1.gameId)),
    { player_name: star, best_score: 999, rank: null, total_players: 2, is_dev_record: false, is_admin_record: false })

  await setUserHidden(app, star, false)
  t.same(await board(app, g1), { total: 3, rows: [[1, star, 999], [2, `${p}o1`, 50], [3, `${p}o2`, 40]] })
  t.same(await board(app, g2), { total: 2, rows: [[1, `${p}o3`, 70], [2, star, 60]] })
})

t.test('hiding an entry on one board with PATCH /admin/games/:g/players/:p', async t => {
  const gA = await createGame(app)
  const gB = await createGame(app)
  const p = prefix()
  const [top1, player, last] = [`${p}top`, `${p}player`, `${p}last`]
  const meta = '{ "lvl": 3, "name": "\u00e9t\u00e9" }'
  await submitAll(app, gA, [[top1, 900], [player, 500, meta], [last, 100]])
  await submitAll(app, gB, [[player, 20], [last, 10]])
  const created = (await entryOf(app, gA, player)).created_at
  t.match(created, ISO_MS)
  t.equal(created, dataOf(await top(app, gA)).items[1].created_at, 'created_at is the one top shows')

  const res = await admin(app, 'PATCH', playerUrl(gA.gameId, player), { hidden: true })
  t.equal(res.headers['content-type'], JSON_TYPE)
  t.same(res.json(), { ok: true, data: { player_name: player, best_score: 500, created_at: created, meta, hidden: true, rank: null, season_id: 1 } })
  t.same(await board(app, gA), { total: 2, rows: [[1, top1, 900], [2, last, 100]] }, 'off board A')
  t.same(dataOf(await me(app, gA, player)), { player_name: player, best_score: 500, rank: null })
  t.same(dataOf(await me(app, gA, last)), { player_name: last, best_score: 100, rank: 2 })
  t.same(await board(app, gB), { total: 2, rows: [[1, player, 20], [2, last, 10]] }, 'still on board B')
  t.same(dataOf(await me(app, gB, player)), { player_name: player, best_score: 20, rank: 1 })
  t.same(await entryOf(app, gA, player), { player_name: player, best_score: 500, created_at: created, meta, hidden: true, rank: null, season_id: 1 }, 'GET while hidden')
  t.same(await entryOf(app, gB, player), { player_name: player, best_score: 20, created_at: (await entryOf(app, gB, player)).created_at, meta: null, hidden: false, rank: 1, season_id: 1 }, 'GET on board B: meta null')

  // A user of that name on board A: submit-self sees the board's flag too.
  await createUser(app, player)
  const session = await sessionOf(app, player)
  t.same(dataOf(await submitSelf(app, session, gA.gameId, '950')),
    { score: 950, improved: true, best_score: 950, rank: null, total_players: 2, is_dev_record: false, is_admin_record: false }, 'improving while board-hidden')
  t.same(dataOf(await submit(app, gA, { player, score: 960, meta: '[1]' })), { score: 960, improved: true, best_score: 960, rank: null })
  t.same(dataOf(await submitSelf(app, session, gB.gameId, '30')),
    { score: 30, improved: true, best_score: 30, rank: 1, total_players: 2, is_dev_record: false, is_admin_record: false }, 'board B unaffected')
  const hiddenEntry = await entryOf(app, gA, player)
  t.same({ ...hiddenEntry, created_at: 'x' }, { player_name: player, best_score: 960, created_at: 'x', meta: '[1]', hidden: true, rank: null, season_id: 1 })
  t.ok(Date.parse(hiddenEntry.created_at) > Date.parse(created), 'created_at moved with the new best')

  const shown = dataOf(await admin(app, 'PATCH', playerUrl(gA.gameId, player), { hidden: false }))
  t.same(shown, { player_name: player, best_score: 960, created_at: hiddenEntry.created_at, meta: '[1]', hidden: false, rank: 1, season_id: 1 })
  t.same(await board(app, gA), { total: 3, rows: [[1, player, 960], [2, top1, 900], [3, last, 100]] })

  // Hiding twice and showing twice are harmless.
  t.equal(dataOf(await admin(app, 'PATCH', playerUrl(gA.gameId, last), { hidden: true })).hidden, true)
  t.equal(dataOf(await admin(app, 'PATCH', playerUrl(gA.gameId, last), { hidden: true })).rank, null)
  t.same(await board(app, gA), { total: 2, rows: [[1, player, 960], [2, top1, 900]] })
  t.equal(dataOf(await admin(app, 'PATCH', playerUrl(gA.gameId, last), { hidden: false })).rank, 3)
  t.equal(dataOf(await admin(app, 'PATCH', playerUrl(gA.gameId, last), { hidden: false })).rank, 3)
  t.same(await board(app, gA), { total: 3, rows: [[1, player, 960], [2, top1, 900], [3, last, 100]] })

  // Form bodies: booleans as true/false/1/0.
  const form = await app.inject({ method: 'PATCH', url: playerUrl(gA.gameId, last), payload: formBody({ hidden: '1' }), headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/x-www-form-urlencoded' } })
  t.same(dataOf(form), { player_name: last, best_score: 100, created_at: (await entryOf(app, gA, last)).created_at, meta: null, hidden: true, rank: null, season_id: 1 })
  const formShow = await app.inject({ method: 'PATCH', url: playerUrl(gA.gameId, last), payload: formBody({ hidden: 'false' }), headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/x-www-form-urlencoded' } })
  t.equal(dataOf(formShow).rank, 3)
})

t.test('the board flag and the user flag combine: either one hides', async t => {
  const game = await createGame(app)
  const p = prefix()
  const [u, other] = [`${p}u`, `${p}other`]
  await submitAll(app, game, [[u, 50], [other, 40]])
  await createUser(app, u)

  dataOf(await admin(app, 'PATCH', playerUrl(game.gameId, u), { hidden: true }))
  await setUserHidden(app, u, true)
  await setUserHidden(app, u, false)
  t.same({ ...(await entryOf(app, game, u)), created_at: 'x' }, { player_name: u, best_score: 50, created_at: 'x', meta: null, hidden: true, rank: null, season_id: 1 }, 'un-hiding the user keeps the board flag')
  t.same(await board(app, game), { total: 1, rows: [[1, other, 40]] })

  await setUserHidden(app, u, true)
  t.same({ ...dataOf(await admin(app, 'PATCH', playerUrl(game.gameId, u), { hidden: false })), created_at: 'x' },
    { player_name: u, best_score: 50, created_at: 'x', meta: null, hidden: false, rank: null, season_id: 1 }, 'showing on the board keeps the user flag')
  t.same(await board(app, game), { total: 1, rows: [[1, other, 40]] })

  await setUserHidden(app, u, false)
  t.same({ ...(await entryOf(app, game, u)), created_at: 'x' }, { player_name: u, best_score: 50, created_at: 'x', meta: null, hidden: false, rank: 1, season_id: 1 })
  t.same(await board(app, game), { total: 2, rows: [[1, u, 50], [2, other, 40]] })
})

t.test('DELETE /admin/games/:g/players/:p removes the entry', async t => {
  const game = await createGame(app)
  const other = await createGame(app)
  const p = prefix()
  const [gone, stays] = [`${p}gone`, `${p}stays`]
  await submitAll(app, game, [[gone, 70, '{"a":1}'], [stays, 60]])
  await submitAll(app, other, [[gone, 5]])
  dataOf(await admin(app, 'PATCH', playerUrl(game.gameId, gone), { hidden: true }))

  const res = await admin(app, 'DELETE', playerUrl(game.gameId, gone))
  t.equal(res.headers['content-type'], JSON_TYPE)
  t.same(res.json(), { ok: true, data: {} })
  t.same(dataOf(await me(app, game, gone)), { player_name: gone, best_score: null, rank: null })
  expectError(t, await admin(app, 'GET', playerUrl(game.gameId, gone)), 'not_found', 'GET after DELETE')
  expectError(t, await admin(app, 'DELETE', playerUrl(game.gameId, gone)), 'not_found', 'DELETE again')
  expectError(t, await admin(app, 'PATCH', playerUrl(game.gameId, gone), { hidden: false }), 'not_found', 'PATCH after DELETE')
  t.same(await board(app, game), { total: 1, rows: [[1, stays, 60]] })
  t.same(dataOf(await me(app, other, gone)), { player_name: gone, best_score: 5, rank: 1 }, 'the other board keeps its entry')

  // A later submit (signed after the deletion's second) starts a fresh, visible entry (the board flag went with the entry).
  t.same(dataOf(await submit(app, game, { player: gone, score: 10, ts: Math.floor(Date.now() / 1000) + 1 })), { score: 10, improved: true, best_score: 10, rank: 2 })
  t.same({ ...(await entryOf(app, game, gone)), created_at: 'x' }, { player_name: gone, best_score: 10, created_at: 'x', meta: null, hidden: false, rank: 2, season_id: 1 })

  // Deleting a visible entry moves the others up.
  dataOf(await admin(app, 'DELETE', playerUrl(game.gameId, stays)))
  t.same(await board(app, game), { total: 1, rows: [[1, gone, 10]] })
})

t.test('board-entry routes: errors', async t => {
  const game = await createGame(app)
  const p = prefix()
  await submitAll(app, game, [[`${p}x`, 1]])
  const known = playerUrl(game.gameId, `${p}x`)
  const unknownGame = playerUrl('no_such_game', `${p}x`)
  const unknownPlayer = playerUrl(game.gameId, `${p}nobody`)

  for (const [what, url] of [['unknown game', unknownGame], ['malformed game id', playerUrl('bad id!', `${p}x`)], ['unknown player', unknownPlayer]] as Array<[string, string]>) {
    expectError(t, await admin(app, 'GET', url), 'not_found', `GET: ${what}`)
    expectError(t, await admin(app, 'PATCH', url, { hidden: true }), 'not_found', `PATCH: ${what}`)
    expectError(t, await admin(app, 'DELETE', url), 'not_found', `DELETE: ${what}`)
  }
  expectError(t, await admin(app, 'PATCH', known, { hidden: 'maybe' }), 'invalid_param', 'hidden=maybe (JSON)')
  expectError(t, await admin(app, 'PATCH', known, { hidden: 5 }), 'invalid_param', 'hidden=5 (JSON)')
  const formMaybe = await app.inject({ method: 'PATCH', url: known, payload: formBody({ hidden: 'maybe' }), headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/x-www-form-urlencoded' } })
  expectError(t, formMaybe, 'invalid_param', 'hidden=maybe (form)')
  expectError(t, await admin(app, 'PATCH', known, {}), 'missing_param', 'no hidden')
  expectError(t, await admin(app, 'PATCH', known, { hidden: '' }), 'missing_param', 'empty hidden')
  // Admin order: missing_param and invalid_param before not_found.
  expectError(t, await admin(app, 'PATCH', unknownGame, {}), 'missing_param', 'missing_param before not_found')
  expectError(t, await admin(app, 'PATCH', unknownPlayer, { hidden: 'maybe' }), 'invalid_param', 'invalid_param before not_found')
  // unauthorized first.
  const noToken = await app.inject({ method: 'GET', url: known })
  expectError(t, noToken, 'unauthorized', 'GET without the token')
  expectError(t, await app.inject({ method: 'DELETE', url: known, headers: { authorization: 'Bearer wrong' } }), 'unauthorized', 'DELETE with a wrong token')
  // Nothing changed.
  t.same({ ...(await entryOf(app, game, `${p}x`)), created_at: 'x' }, { player_name: `${p}x`, best_score: 1, created_at: 'x', meta: null, hidden: false, rank: 1, season_id: 1 })
})

t.test('a game that never hid anyone says so in its record; the first hide, or a hidden user at its creation, turns that off', async t => {
  const { keys } = await import('../../../src/store/keys.js')
  const hides = async (game: TestGame): Promise<string | null> => await app.redis.hget(keys.game(game.gameId), 'hides')
  const game = await createGame(app)
  t.equal(await hides(game), '0', 'a new game, while no user is hidden')
  const p = prefix()
  await submitAll(app, game, [[`${p}a`, 10], [`${p}b`, 20]])
  dataOf(await admin(app, 'PATCH', playerUrl(game.gameId, `${p}b`), { hidden: true }))
  t.equal(await hides(game), '1', 'after the first hide')
  dataOf(await submit(app, game, { player: `${p}b`, score: 30 }))
  t.same((await board(app, game)).rows.map(row => row[1]), [`${p}a`], 'a hidden player\'s new best stays off the board')

  // As a game made before the flag was kept: its hidden sets are read on every stored best.
  const old = await createGame(app)
  dataOf(await submit(app, old, { player: `${p}x`, score: 5 }))
  dataOf(await admin(app, 'PATCH', playerUrl(old.gameId, `${p}x`), { hidden: true }))
  await app.redis.hdel(keys.game(old.gameId), 'hides')
  dataOf(await submit(app, old, { player: `${p}x`, score: 6 }))
  t.equal((await board(app, old)).total, 0, 'a new best, still hidden')

  await createUser(app, `${p}user`, true)
  const later = await createGame(app)
  t.equal(await hides(later), '1', 'a game made while a user is hidden')
})
