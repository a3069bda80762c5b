import t from 'tap'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { ADMIN_TOKEN, admin, buildTestApp, createGame, dataOf, expectError, keysMatching, post, submit } from '../../helpers/app.js'
import { request as httpRequest } from 'node:http'
import { Readable } from 'node:stream'
import { listeningApp } from '../../helpers/listening.js'
import { keys } from '../../../src/store/keys.js'
import { waitFor } from '../../helpers/wait.js'

/*
 * The operator API (docs/interface.md#operator-api): named
 * tokens with roles, the audit log, and the listings with cursors.
 */

const OPS_TOKEN = 'ops-token-0123456789-abcdefghijklmnop'
const VIEWER_TOKEN = 'viewer-token-0123456789-abcdefghijkl'

const { app } = await buildTestApp(t, { ADMIN_TOKENS: `ops:admin:${OPS_TOKEN}, look:viewer:${VIEWER_TOKEN}`, WEBHOOK_ALLOW_PRIVATE: 'true' })

async function as (token: string, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, body?: unknown): Promise<LightMyRequestResponse> {
  return await app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(body === undefined ? {} : { payload: body as Record<string, unknown> }) })
}

/** Every page of a listing, following next_cursor, and how many pages it took. */
async function allPages (url: string, limit: number, token = ADMIN_TOKEN): Promise<{ items: any[], pages: number, each: any[][] }> {
  const items: any[] = []
  const each: any[][] = []
  let cursor: string | null = null
  let pages = 0
  do {
    const separator = url.includes('?') ? '&' : '?'
    const page = dataOf(await as(token, 'GET', `${url}${separator}limit=${limit}${cursor === null ? '' : `&cursor=${cursor}`}`))
    items.push(...page.items)
    each.push(page.items)
    cursor = page.next_cursor
    pages++
    if (pages > 10_000) throw new Error('the listing does not end')
  } while (cursor !== null)
  return { items, pages, each }
}

t.test('named tokens: an admin token writes, a viewer token reads and is forbidden to write', async t => {
  const gameId = `roles_${process.pid}`
  const made = dataOf(await as(OPS_TOKEN, 'POST', '/admin/games', { game_id: gameId }))
  t.equal(made.game_id, gameId, 'a named admin token creates')
  t.equal(dataOf(await as(VIEWER_TOKEN, 'GET', `/admin/games/${gameId}`)).game_id, gameId, 'a viewer reads')
  t.ok(dataOf(await as(VIEWER_TOKEN, 'GET', '/admin/games')).items.length >= 1, 'a viewer lists')

  expectError(t, await as(VIEWER_TOKEN, 'POST', '/admin/games', { game_id: `${gameId}_v` }), 'forbidden', 'a viewer cannot create')
  expectError(t, await as(VIEWER_TOKEN, 'PATCH', `/admin/games/${gameId}`, { approved: true }), 'forbidden', 'a viewer cannot change')
  expectError(t, await as(VIEWER_TOKEN, 'DELETE', `/admin/games/${gameId}/players/x`), 'forbidden', 'a viewer cannot delete')
  // forbidden comes before anything about the body or the record.
  expectError(t, await as(VIEWER_TOKEN, 'POST', '/admin/keys', { game_id: 'no such game', nonsense: 1 }), 'forbidden', 'before the body is checked')
  const message = (await as(VIEWER_TOKEN, 'POST', '/admin/games', { game_id: 'x' })).json().message as string
  t.match(message, /"look" is a viewer's/, 'the message names the token, never shows it')
  t.notOk(message.includes(VIEWER_TOKEN))
  expectError(t, await as(OPS_TOKEN, 'GET', `/admin/games/${gameId}_v`), 'not_found', 'what the viewer tried was not made')
  t.equal(dataOf(await as(OPS_TOKEN, 'GET', `/admin/games/${gameId}`)).approved, false, 'nor changed')

  // ADMIN_TOKEN still works, as a token named admin.
  t.equal(dataOf(await admin(app, 'PATCH', `/admin/games/${gameId}`, { approved: true })).approved, true)
  expectError(t, await as('wrong-token-0123456789-abcdefghijklm', 'GET', '/admin/games'), 'unauthorized', 'an unknown token')
  expectError(t, await as(`${VIEWER_TOKEN}x`, 'GET', '/admin/games'), 'unauthorized', 'a token with one character more')

  const audit = dataOf(await admin(app, 'GET', `/admin/games/${gameId}/audit`)).items
  t.same(audit.map((entry: any) => [entry.action, entry.actor, entry.via]), [['game.update', 'admin', 'http'], ['game.create', 'ops', 'http']], 'the audit log names each token; the viewer\'s refusals changed nothing')
})

t.test('the audit log records every write with the record before and after, secrets masked', async t => {
  const gameId = `audit_${process.pid}`
  const game = dataOf(await admin(app, 'POST', '/admin/games', { game_id: gameId, name: 'Before' }))
  await admin(app, 'PATCH', `/admin/games/${gameId}`, { name: 'After', max_entries: 5000 })
  const key = dataOf(await admin(app, 'POST', '/admin/keys', { game_id: gameId }))
  await admin(app, 'POST', `/admin/keys/${key.api_key as string}/revoke`, {})
  const username = `auditee_${process.pid}`
  await admin(app, 'POST', '/admin/users', { username, password: 'first-password' })
  await admin(app, 'PATCH', `/admin/users/${username}`, { password: 'second-password' })
  await admin(app, 'PATCH', `/admin/users/${username}`, { is_admin: true })
  const session = dataOf(await admin(app, 'POST', '/admin/sessions', { username }))
  await admin(app, 'DELETE', `/admin/sessions/${session.session_id as string}`)
  const webhook = dataOf(await admin(app, 'POST', `/admin/games/${gameId}/webhooks`, { url: 'http://127.0.0.1:9/hook' }))

  const gameLog = dataOf(await admin(app, 'GET', `/admin/games/${gameId}/audit`)).items
  t.same(gameLog.map((entry: any) => entry.action), ['webhook.create', 'key.revoke', 'key.create', 'game.update', 'game.create'], "the game's log: its records' changes, newest first")
  const [hook, revoke, create, update, made] = gameLog
  t.same(made.before, null)
  t.same(made.after, game, 'a creation keeps the record made')
  t.same(update.changed, ['max_entries', 'name'], 'an update says which fields changed')
  t.match(update.before, { name: 'Before', max_entries: 10_000_000 })
  t.match(update.after, { name: 'After', max_entries: 5000 })
  t.match(made, { actor: 'admin', via: 'http', game_id: gameId, target: gameId, at: /^\d{4}-\d\d-\d\dT/, request_id: /./ })
  t.equal(create.after.api_secret, '(masked)', "a key's secret is masked")
  t.same(revoke.changed, ['revoked'])
  t.equal(hook.after.secret, '(masked)', "a webhook's signing secret is masked")

  const global = dataOf(await admin(app, 'GET', '/admin/audit?limit=100&actor=admin')).items
  const userEntries = global.filter((entry: any) => entry.target === username || entry.action.startsWith('session.'))
  t.same(userEntries.map((entry: any) => entry.action), ['session.delete', 'session.create', 'user.update', 'user.update', 'user.create'], 'users and sessions are in the global log')
  const [deleted, madeSession, admined, repassed, userMade] = userEntries
  t.same(repassed.changed, ['password'], 'a new password is a change, though both are masked')
  t.same([repassed.before.password, repassed.after.password], ['(masked)', '(masked)'])
  t.same(admined.changed, ['is_admin'])
  t.equal(userMade.after.password, '(masked)')
  t.equal(madeSession.after.session_id, '(masked)', 'a session id is a secret')
  t.equal(deleted.before.session_id, '(masked)')
  t.equal(deleted.target, username, 'the deleted session is known by its user')

  // Nothing secret anywhere in the log.
  const text = JSON.stringify(dataOf(await admin(app, 'GET', '/admin/audit?limit=100')))
  for (const secret of [key.api_secret, webhook.secret, session.session_id, 'first-password', 'second-password', ADMIN_TOKEN, OPS_TOKEN, 'scrypt']) {
    t.notOk(text.includes(secret), `the log never holds ${String(secret).slice(0, 12)}…`)
  }

  // Filters: an action, a kind of record, an actor.
  t.same(dataOf(await admin(app, 'GET', '/admin/audit?action=key.revoke&limit=100')).items.map((entry: any) => entry.target), [key.api_key])
  t.ok(dataOf(await admin(app, 'GET', `/admin/games/${gameId}/audit?action=key.`)).items.every((entry: any) => entry.action.startsWith('key.')))
  t.same(dataOf(await admin(app, 'GET', `/admin/games/${gameId}/audit?actor=nobody`)).items, [])
  expectError(t, await admin(app, 'GET', '/admin/audit?action=game'), 'invalid_param', 'an action is kind.verb or kind.')
  expectError(t, await admin(app, 'GET', '/admin/games/nope_nope/audit'), 'not_found', 'the log of no game')
})

t.test('the audit log pages with cursors and forgets what is older than its retention', { timeout: 30_000 }, async t => {
  const { app: short } = await buildTestApp(t, { AUDIT_RETENTION_DAYS: '1' })
  const gameId = `pages_${process.pid}`
  await admin(short, 'POST', '/admin/games', { game_id: gameId })
  for (let i = 0; i < 9; i++) await admin(short, 'PATCH', `/admin/games/${gameId}`, { max_entries: 100 + i })
  const whole = dataOf(await admin(short, 'GET', `/admin/games/${gameId}/audit?limit=100`)).items
  t.equal(whole.length, 10)
  const paged: any[] = []
  let cursor: string | null = null
  do {
    const page = dataOf(await admin(short, 'GET', `/admin/games/${gameId}/audit?limit=3${cursor === null ? '' : `&cursor=${cursor}`}`))
    t.ok(page.items.length <= 3)
    paged.push(...page.items)
    cursor = page.next_cursor
  } while (cursor !== null)
  t.same(paged, whole, 'pages of 3 make the whole log, in order, once each')

  // An entry from two days ago goes when the next one is written.
  const redisOf = short.redis
  const later = `${gameId}_later`
  const old = `${Date.now() - 2 * 86_400_000}-0`
  await redisOf.xadd(keys.gameAudit(later), old, 'e', JSON.stringify({ action: 'game.update', actor: 'old' }))
  t.equal((await redisOf.xrange(keys.gameAudit(later), old, old)).length, 1)
  await admin(short, 'POST', '/admin/games', { game_id: later })
  t.equal((await redisOf.xrange(keys.gameAudit(later), old, old)).length, 0, 'trimmed past AUDIT_RETENTION_DAYS')
  t.same(dataOf(await admin(short, 'GET', `/admin/games/${later}/audit`)).items.map((entry: any) => entry.action), ['game.create'])

  for (const bad of ['nonsense', 'eyJrIjoiZ2FtZXMiLCJhZnRlciI6IiJ9', '%E0%A4%A', 'a'.repeat(3000)]) {
    expectError(t, await admin(short, 'GET', `/admin/audit?cursor=${bad}`), 'invalid_param', `a cursor that is not the audit's: ${bad.slice(0, 20)}`)
  }
  expectError(t, await admin(short, 'GET', '/admin/audit?cursor=a&cursor=b'), 'invalid_param', 'a cursor sent twice')
})

t.test('games: listed in id order with their figures, by prefix and approval, page by page', async t => {
  const prefix = `lg${process.pid}_`
  const ids = ['a', 'b', 'c', 'd', 'e'].map(letter => `${prefix}${letter}`)
  for (const [i, id] of ids.entries()) await admin(app, 'POST', '/admin/games', { game_id: id, approved: i % 2 === 0 })
  const { items, pages } = await allPages(`/admin/games?prefix=${prefix}`, 2)
  t.same(items.map(game => game.game_id), ids)
  t.equal(pages, 3, '2 + 2 + 1')
  t.same(dataOf(await admin(app, 'GET', `/admin/games?prefix=${prefix}&approved=true`)).items.map((game: any) => game.game_id), [ids[0], ids[2], ids[4]])
  t.same((await allPages(`/admin/games?prefix=${prefix}&approved=false`, 1)).items.map(game => game.game_id), [ids[1], ids[3]])

  // The figures: entries, players, ratings, play time.
  const game = await createGame(app, { gameId: `${prefix}f` })
  for (const player of ['p1', 'p2', 'p3']) await submit(app, game, { player, score: 10 })
  await admin(app, 'PATCH', `/admin/games/${game.gameId}/players/p3`, { hidden: true })
  // Two ratings, as a game rated before weights were kept has them: the games index, writing this game in the background, counts them again to the same figures.
  await app.redis.hset(keys.ratings(game.gameId), 'u1', 8, 'u2', 9)
  await app.redis.hset(keys.ratingStats(game.gameId), 'sum', 17, 'count', 2)
  await app.redis.hset(keys.playtime(game.gameId), 'total', 90)
  t.match(dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}`)), { game_id: game.gameId, entries: 3, players: 2, rating_avg: 8.5, rating_count: 2, playtime_seconds: 90 })
  const listed = dataOf(await admin(app, 'GET', `/admin/games?prefix=${game.gameId}`)).items
  t.match(listed, [{ game_id: game.gameId, entries: 3, players: 2, rating_avg: 8.5, rating_count: 2, playtime_seconds: 90, approved: true }])

  expectError(t, await admin(app, 'GET', '/admin/games?prefix=bad%20prefix'), 'invalid_param', 'a prefix a game id cannot have')
  expectError(t, await admin(app, 'GET', '/admin/games?approved=maybe'), 'invalid_param', 'approved is true or false')
  expectError(t, await admin(app, 'GET', '/admin/games?limit=0'), 'invalid_param', 'limit from 1')
  expectError(t, await admin(app, 'GET', '/admin/games?limit=101'), 'invalid_param', 'limit to 100')
  expectError(t, await admin(app, 'GET', '/admin/games?colour=red'), 'invalid_param', 'an unknown filter')
  const usersCursor = dataOf(await admin(app, 'GET', '/admin/users?limit=1')).next_cursor
  if (usersCursor !== null) expectError(t, await admin(app, 'GET', `/admin/games?cursor=${usersCursor as string}`), 'invalid_param', "the users listing's cursor is not the games'")
})

t.test('games and users made before the listings existed are listed too', { timeout: 30_000 }, async t => {
  const { app: fresh } = await buildTestApp(t)
  // As an older version stored them: in the sets only.
  await fresh.redis.sadd(keys.users(), 'old_user_a', 'old_user_b')
  await fresh.redis.hset(keys.user('old_user_a'), 'password', '', 'is_admin', '0', 'hidden', '0', 'created_at', '2026-01-01T00:00:00.000Z')
  await fresh.redis.hset(keys.user('old_user_b'), 'password', '', 'is_admin', '1', 'hidden', '0', 'created_at', '2026-01-01T00:00:00.000Z')
  await admin(fresh, 'POST', '/admin/users', { username: 'new_user' })
  t.same(dataOf(await admin(fresh, 'GET', '/admin/users')).items.map((user: any) => user.username), ['new_user', 'old_user_a', 'old_user_b'])
  t.same(dataOf(await admin(fresh, 'GET', '/admin/users?is_admin=true')).items.map((user: any) => user.username), ['old_user_b'])
})

t.test('keys: a game\'s keys, never their secrets, revoked or not', async t => {
  const game = await createGame(app)
  const more = [dataOf(await admin(app, 'POST', '/admin/keys', { game_id: game.gameId })), dataOf(await admin(app, 'POST', '/admin/keys', { game_id: game.gameId }))]
  await admin(app, 'POST', `/admin/keys/${more[0].api_key as string}/revoke`, {})
  const all = [game.apiKey, more[0].api_key, more[1].api_key].sort()
  const { items } = await allPages(`/admin/games/${game.gameId}/keys`, 2)
  t.same(items.map(key => key.api_key), all)
  for (const key of items) t.same(Object.keys(key).sort(), ['api_key', 'created_at', 'game_id', 'revoked'], 'no secret')
  t.same(dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/keys?revoked=true`)).items.map((key: any) => key.api_key), [more[0].api_key])
  t.equal(dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/keys?revoked=false`)).items.length, 2)
  t.same(Object.keys(dataOf(await admin(app, 'GET', `/admin/keys/${game.apiKey}`))).sort(), ['api_key', 'created_at', 'game_id', 'revoked'])
  expectError(t, await admin(app, 'GET', '/admin/keys/rk_none'), 'not_found', 'no such key')
  expectError(t, await admin(app, 'GET', '/admin/games/no_such_game/keys'), 'not_found', 'no such game')
})

t.test('users: by prefix, hidden, admin; a user; their sessions page by page', async t => {
  const prefix = `lu${process.pid}`
  for (const [name, flags] of [['a', {}], ['b', { hidden: true }], ['c', { is_admin: true }], ['d', {}]] as const) {
    await admin(app, 'POST', '/admin/users', { username: `${prefix}${name}`, ...flags })
  }
  const { items } = await allPages(`/admin/users?prefix=${prefix}`, 3)
  t.same(items.map(user => user.username), ['a', 'b', 'c', 'd'].map(name => `${prefix}${name}`))
  for (const user of items) t.same(Object.keys(user).sort(), ['created_at', 'guest', 'guest_until', 'hidden', 'is_admin', 'sign_in', 'username'], 'never the password hash')
  t.same(dataOf(await admin(app, 'GET', `/admin/users?prefix=${prefix}&hidden=true`)).items.map((user: any) => user.username), [`${prefix}b`])
  t.same(dataOf(await admin(app, 'GET', `/admin/users?prefix=${prefix}&is_admin=true&hidden=false`)).items.map((user: any) => user.username), [`${prefix}c`])
  t.equal(dataOf(await admin(app, 'GET', `/admin/users/${prefix}c`)).is_admin, true)
  expectError(t, await admin(app, 'GET', '/admin/users/nobody_at_all'), 'not_found', 'no such user')

  for (let i = 0; i < 5; i++) await admin(app, 'POST', '/admin/sessions', { username: `${prefix}a` })
  const sessions: any[] = []
  let cursor: string | null = null
  do {
    const page = dataOf(await admin(app, 'GET', `/admin/users/${prefix}a/sessions?limit=2${cursor === null ? '' : `&cursor=${cursor}`}`))
    sessions.push(...page.sessions)
    cursor = page.next_cursor
  } while (cursor !== null)
  t.equal(sessions.length, 5, 'every session, 2 at a time')
  t.same(sessions.map(one => one.expires_at), sessions.map(one => one.expires_at).sort(), 'soonest first')
})

t.test('a board: every entry in board order, hidden ones in place and marked, with meta; or by name prefix', async t => {
  const game = await createGame(app)
  const scores: Array<[string, number]> = []
  for (let i = 0; i < 23; i++) scores.push([`player_${String(i).padStart(2, '0')}`, (i * 7) % 11])
  scores.push(['Zed', 5], ['zoe', 99])
  for (const [player, score] of scores) await submit(app, game, { player, score, meta: JSON.stringify({ i: player }) })
  await admin(app, 'PATCH', `/admin/games/${game.gameId}/players/player_03`, { hidden: true })
  await admin(app, 'PATCH', `/admin/games/${game.gameId}/players/zoe`, { hidden: true })
  const hiddenUser = 'player_10'
  await admin(app, 'POST', '/admin/users', { username: hiddenUser, hidden: true })

  const expected = [...scores].sort((a, b) => b[1] - a[1]) // stable: equal scores keep submit order, which is time order
  const { items } = await allPages(`/admin/games/${game.gameId}/players`, 4)
  t.same(items.map(entry => entry.player_name), expected.map(([player]) => player), 'every entry once, in board order, hidden ones where their scores put them')
  let rank = 0
  for (const entry of items) {
    const hidden = ['player_03', 'zoe', hiddenUser].includes(entry.player_name)
    t.equal(entry.rank, hidden ? null : ++rank, `${entry.player_name as string}: rank ${hidden ? 'null (hidden)' : String(rank)}`)
    t.equal(entry.meta, JSON.stringify({ i: entry.player_name }))
  }
  t.match(items.find(entry => entry.player_name === 'zoe'), { hidden: true, hidden_user: false, best_score: 99, rank: null })
  t.match(items.find(entry => entry.player_name === hiddenUser), { hidden: false, hidden_user: true, rank: null })
  t.equal(dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/players?limit=1`)).total, scores.length - 3, 'total: the visible players')

  // By name prefix: ASCII letters either case; every match once, whatever the page size.
  const matching = await allPages(`/admin/games/${game.gameId}/players?prefix=PLAYER_1`, 3)
  for (const page of matching.each) {
    const names = page.map(entry => entry.player_name as string)
    t.same(names, [...names].sort(), 'a page comes in name order')
  }
  t.same(matching.items.map(entry => entry.player_name).sort(), scores.map(([player]) => player).filter(player => player.startsWith('player_1')).sort())
  for (const entry of matching.items) {
    const visibleRank = items.find(one => one.player_name === entry.player_name).rank
    t.equal(entry.rank, visibleRank, `${entry.player_name as string} has its board rank`)
  }
  t.same((await allPages(`/admin/games/${game.gameId}/players?prefix=z`, 1)).items.map(entry => entry.player_name).sort(), ['Zed', 'zoe'])
  t.same(dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/players?prefix=${encodeURIComponent('*')}`)).items, [], 'a glob character is a character')
  t.equal((await allPages(`/admin/games/${game.gameId}/players?prefix=nobody`, 50)).items.length, 0)
  // A board this small is walked whole in one page: its matches come at once, with the board's total, and no cursor.
  const small = dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/players?prefix=z`))
  t.same({ names: small.items.map((entry: any) => entry.player_name).sort(), total: small.total, next_cursor: small.next_cursor }, { names: ['Zed', 'zoe'], total: scores.length - 3, next_cursor: null }, 'a prefix page of a small board is whole, and has the total')

  // A cursor of one board is not another's.
  const first = dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/players?limit=2`))
  expectError(t, await admin(app, 'GET', `/admin/games/${game.gameId}/players?prefix=p&cursor=${first.next_cursor as string}`), 'invalid_param', "the board listing's cursor is not the search's")
  await admin(app, 'POST', `/admin/games/${game.gameId}/seasons`, {})
  const stale = await admin(app, 'GET', `/admin/games/${game.gameId}/players?limit=2&cursor=${first.next_cursor as string}`)
  expectError(t, stale, 'invalid_param', 'a cursor of a season that has closed since')
  t.match(stale.json().message, /season closed/)
  const archived = await allPages(`/admin/games/${game.gameId}/players?season_id=1`, 10)
  t.same(archived.items.map(entry => entry.player_name), expected.map(([player]) => player), 'the closed season, read by its id')
  t.same(dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/players`)).items, [], 'the new season is empty')
  expectError(t, await admin(app, 'GET', `/admin/games/${game.gameId}/players?period=daily`), 'invalid_param', 'a period the game does not keep')
})

t.test('a board page goes on from its last entry when entries above it change', async t => {
  const game = await createGame(app)
  for (let i = 0; i < 10; i++) await submit(app, game, { player: `p${i}`, score: 100 - i })
  const first = dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/players?limit=4`))
  t.same(first.items.map((entry: any) => entry.player_name), ['p0', 'p1', 'p2', 'p3'])
  // Two new players above the page's end push it down; the next page still begins after p3.
  await submit(app, game, { player: 'new_top', score: 1000 })
  await submit(app, game, { player: 'new_second', score: 999 })
  const next = dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/players?limit=4&cursor=${first.next_cursor as string}`))
  t.same(next.items.map((entry: any) => [entry.player_name, entry.rank]), [['p4', 7], ['p5', 8], ['p6', 9], ['p7', 10]])
})

t.test('viewer tokens and listings over form posts: a listing is a GET', async t => {
  expectError(t, await post(app, '/admin/games?limit=2', {}, 'form', { authorization: `Bearer ${VIEWER_TOKEN}` }), 'forbidden', 'a POST is a write, whatever the path')
})

/** Every place a text appears in Redis: the keys whose name or content holds it. */
async function whereIs (redisOf: FastifyInstance['redis'], text: string): Promise<string[]> {
  const found: string[] = []
  for (const key of await keysMatching(redisOf, '*')) {
    const type = await redisOf.type(key)
    let content: unknown
    if (type === 'string') content = await redisOf.get(key)
    else if (type === 'hash') content = await redisOf.hgetall(key)
    else if (type === 'set') content = await redisOf.smembers(key)
    else if (type === 'zset') content = await redisOf.zrange(key, 0, -1)
    else if (type === 'stream') content = await redisOf.xrange(key, '-', '+')
    if (key.includes(text) || JSON.stringify(content).includes(text)) found.push(key)
  }
  return found.sort()
}

async function withSession (username: string): Promise<string> {
  const session = dataOf(await admin(app, 'POST', '/admin/sessions', { username }))
  return `${session.cookie_name as string}=${session.session_id as string}`
}

t.test('erasure: a user is removed from every board of every game, with ratings, play time, held scores and sessions', async t => {
  const person = `erin${process.pid}`
  const other = `olly${process.pid}`
  const one = await createGame(app)
  const two = await createGame(app)
  await admin(app, 'PATCH', `/admin/games/${one.gameId}`, { periods: 'daily,weekly' })
  await admin(app, 'PATCH', `/admin/games/${two.gameId}`, { review_above: 1000 })
  await admin(app, 'POST', '/admin/users', { username: person, password: 'erin-password' })
  await admin(app, 'POST', '/admin/users', { username: other })

  // In game one: a closed season and the current one, with meta, periods, hidden on the game.
  await submit(app, one, { player: person, score: 50, meta: '{"erin":"season one"}' })
  await submit(app, one, { player: other, score: 40 })
  await admin(app, 'POST', `/admin/games/${one.gameId}/seasons`, {})
  await submit(app, one, { player: person, score: 60, meta: '{"erin":"season two"}' })
  await submit(app, one, { player: other, score: 45 })
  await admin(app, 'PATCH', `/admin/games/${one.gameId}/players/${person}`, { hidden: true })
  // In game two: an entry, a held score decided and one pending.
  await submit(app, two, { player: person, score: 10 })
  await submit(app, two, { player: person, score: 5000 })
  const [held] = dataOf(await admin(app, 'GET', `/admin/games/${two.gameId}/review`)).items
  await admin(app, 'POST', `/admin/games/${two.gameId}/review/${held.held_id as string}/reject`, {})
  await submit(app, two, { player: person, score: 6000 })
  // Ratings and play time, as the logged-in user, beside another user's.
  const erinCookie = await withSession(person)
  const ollyCookie = await withSession(other)
  const sessionPost = async (cookie: string, url: string, fields: Record<string, string>): Promise<unknown> => dataOf(await post(app, url, fields, 'form', { cookie }))
  await sessionPost(erinCookie, `/api/rate?game_id=${one.gameId}`, { stars: '2' })
  await sessionPost(ollyCookie, `/api/rate?game_id=${one.gameId}`, { stars: '8' })
  await sessionPost(erinCookie, '/api/playtime', { game_id: one.gameId, seconds: '30' })
  await sessionPost(ollyCookie, '/api/playtime', { game_id: one.gameId, seconds: '20' })
  t.match(dataOf(await admin(app, 'GET', `/admin/games/${one.gameId}`)), { rating_avg: 5, rating_count: 2, playtime_seconds: 50 })

  expectError(t, await admin(app, 'DELETE', `/admin/users/${person}`), 'missing_param', 'erase=true is required')
  expectError(t, await admin(app, 'DELETE', `/admin/users/${person}?erase=false`), 'invalid_param', 'erase must be true')
  expectError(t, await as(VIEWER_TOKEN, 'DELETE', `/admin/users/${person}?erase=true`), 'forbidden', 'a viewer cannot erase')
  expectError(t, await admin(app, 'DELETE', '/admin/users/bad%20name?erase=true'), 'invalid_param', 'not a username')

  const erased = dataOf(await admin(app, 'DELETE', `/admin/users/${person}?erase=true`))
  // Game one: season 1, season 2, the daily and weekly boards of both submits; game two: one entry.
  t.same(erased, { user: 1, sessions: 1, games: 2, entries: 5, metas: 2, held: 2, ratings: 1, playtime_seconds: 30, achievements: 0 })

  t.match(dataOf(await admin(app, 'GET', `/admin/games/${one.gameId}`)), { rating_avg: 8, rating_count: 1, playtime_seconds: 20 }, "the game's sums follow")
  expectError(t, await admin(app, 'GET', `/admin/users/${person}`), 'not_found', 'the user is gone')
  t.same(dataOf(await admin(app, 'GET', `/admin/users?prefix=${person}`)).items, [], 'and from the listing')
  expectError(t, await post(app, '/api/playtime', { game_id: one.gameId, seconds: '30' }, 'form', { cookie: erinCookie }), 'not_logged_in', 'their session is over')
  t.same((await allPages(`/admin/games/${one.gameId}/players?season_id=1`, 10)).items.map(entry => entry.player_name), [other])
  t.same((await allPages(`/admin/games/${one.gameId}/players`, 10)).items.map(entry => entry.player_name), [other])
  t.same((await allPages(`/admin/games/${one.gameId}/players?period=daily`, 10)).items.map(entry => entry.player_name), [other])
  t.same(dataOf(await admin(app, 'GET', `/admin/games/${two.gameId}/review?status=decided`)).items, [])
  t.same(dataOf(await admin(app, 'GET', `/admin/games/${two.gameId}/review`)).items, [])

  // Nothing of theirs is left in Redis but the marker that refuses old signed submits and the operators' own audit entries of earlier changes.
  const left = await whereIs(app.redis, person)
  t.same(left.filter(key => !key.endsWith(':audit')), [`rank:{game:${one.gameId}}:deleted:${person}`, `rank:{game:${two.gameId}}:deleted:${person}`])
  const [entry] = dataOf(await admin(app, 'GET', '/admin/audit?action=user.erase')).items
  t.match(entry, { action: 'user.erase', target: null, before: null, after: erased })
  t.notOk(JSON.stringify(entry).includes(person), 'the erasure\'s audit entry does not keep the name')

  t.same(dataOf(await admin(app, 'DELETE', `/admin/users/${person}?erase=true`)), { user: 0, sessions: 0, games: 0, entries: 0, metas: 0, held: 0, ratings: 0, playtime_seconds: 0, achievements: 0 }, 'a second call erases nothing more')
  t.match(dataOf(await admin(app, 'GET', `/admin/games/${one.gameId}`)), { rating_avg: 8, rating_count: 1, playtime_seconds: 20 }, 'and corrects nothing twice')
})

t.test('erasure: an API-key player name, from every game; any name through the query', async t => {
  const one = await createGame(app)
  const two = await createGame(app)
  for (const game of [one, two]) {
    await submit(app, game, { player: 'pat', score: 3, meta: '{"a":1}' })
    await submit(app, game, { player: '..', score: 2 })
    await submit(app, game, { player: 'kim', score: 1 })
  }
  t.same(dataOf(await admin(app, 'DELETE', '/admin/players/pat')), { games: 2, entries: 2, metas: 2, held: 0, achievements: 0 })
  t.same(dataOf(await admin(app, 'DELETE', `/admin/players?player_name=${encodeURIComponent('..')}`)), { games: 2, entries: 2, metas: 0, held: 0, achievements: 0 })
  for (const game of [one, two]) t.same(dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/players`)).items.map((entry: any) => entry.player_name), ['kim'])
  t.same(dataOf(await admin(app, 'DELETE', '/admin/players/pat')), { games: 0, entries: 0, metas: 0, held: 0, achievements: 0 }, 'idempotent')
  expectError(t, await admin(app, 'DELETE', '/admin/players?player_name=a&player_name=b'), 'invalid_param', 'a name sent twice')
  expectError(t, await admin(app, 'DELETE', `/admin/players/${'x'.repeat(31)}`), 'invalid_param', 'a name no submit takes')
  // A signed submit made before the erasure cannot bring the entry back.
  const before = Math.floor(Date.now() / 1000) - 5
  await admin(app, 'DELETE', '/admin/players/kim')
  expectError(t, await submit(app, one, { player: 'kim', score: 9, ts: before }), 'expired_ts', 'an old signed submit is refused')
})

/** Lines of an NDJSON export, parsed. */
function ndjson (body: string): any[] {
  return body.split('\n').filter(line => line !== '').map(line => JSON.parse(line))
}

async function importInto (target: FastifyInstance, gameId: string, body: string | Buffer | Readable, headers: Record<string, string> = {}, token = ADMIN_TOKEN): Promise<LightMyRequestResponse> {
  return await target.inject({ method: 'POST', url: `/admin/games/${gameId}/import`, payload: body, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-ndjson', ...headers } })
}

t.test('export: a whole board as NDJSON or CSV, in board order, hidden entries marked', async t => {
  const game = await createGame(app)
  for (let i = 0; i < 30; i++) await submit(app, game, { player: `p${String(i).padStart(2, '0')}`, score: i % 7, meta: i === 3 ? '{"note":"a, \\"quoted\\" one"}' : undefined })
  await submit(app, game, { player: '=HYPERLINK("x")', score: 100 })
  await admin(app, 'PATCH', `/admin/games/${game.gameId}/players/p05`, { hidden: true })
  const listed = (await allPages(`/admin/games/${game.gameId}/players`, 100)).items

  const response = await as(VIEWER_TOKEN, 'GET', `/admin/games/${game.gameId}/export`)
  t.equal(response.statusCode, 200)
  t.equal(response.headers['content-type'], 'application/x-ndjson; charset=utf-8')
  t.equal(response.headers['content-disposition'], `attachment; filename="${game.gameId}-season-1.ndjson"`)
  t.match(response.headers['cache-control'], /no-store/)
  const lines = ndjson(response.body)
  t.same(lines.map(line => line.player_name), listed.map(entry => entry.player_name), 'every entry, in the listing\'s order')
  t.same(lines[0], { rank: 1, player_name: '=HYPERLINK("x")', score: 100, achieved_at: listed[0].created_at, hidden: false, hidden_user: false, meta: null, run_verified_seconds: null })
  t.match(lines.find(line => line.player_name === 'p05'), { rank: null, hidden: true })
  t.equal(lines.find(line => line.player_name === 'p03').meta, '{"note":"a, \\"quoted\\" one"}')

  const csv = await admin(app, 'GET', `/admin/games/${game.gameId}/export?format=csv`)
  t.equal(csv.headers['content-type'], 'text/csv; charset=utf-8')
  const rows = csv.body.split('\r\n')
  t.equal(rows[0], 'rank,player_name,score,achieved_at,hidden,hidden_user,meta,run_verified_seconds')
  t.equal(rows[1], `1,"'=HYPERLINK(""x"")",100,${listed[0].created_at as string},false,false,,`, 'a formula is defused, quotes doubled')
  t.ok(rows.some(row => row.includes('"{""note"":""a, \\""quoted\\"" one""}"')), 'meta with commas and quotes is one quoted cell')
  t.equal(rows.length, listed.length + 2, 'a header, a row per entry, and the final line break')

  expectError(t, await admin(app, 'GET', `/admin/games/${game.gameId}/export?format=xml`), 'invalid_param', 'an unknown format')
  expectError(t, await admin(app, 'GET', '/admin/games/nothing_here/export'), 'not_found', 'no such game')
  expectError(t, await admin(app, 'GET', `/admin/games/${game.gameId}/export?season_id=9`), 'invalid_param', 'a season the game does not have')
})

t.test('import: another system\'s board, best-only with its times kept, idempotent, every refused line said', async t => {
  const source = await createGame(app)
  for (let i = 0; i < 40; i++) await submit(app, source, { player: `s${i}`, score: i % 5, meta: i % 10 === 0 ? JSON.stringify({ i }) : undefined })
  const exported = (await admin(app, 'GET', `/admin/games/${source.gameId}/export`)).body

  const target = await createGame(app)
  const first = dataOf(await importInto(app, target.gameId, exported))
  t.same(first, { game_id: target.gameId, season_id: 1, lines: 40, imported: 40, improved: 0, unchanged: 0, refused: 0, errors: [] })
  t.same(ndjson((await admin(app, 'GET', `/admin/games/${target.gameId}/export`)).body), ndjson(exported), 'the board moved whole: order, ties, times and meta')
  t.same(dataOf(await importInto(app, target.gameId, exported)), { ...first, imported: 0, unchanged: 40 }, 'the same file again changes nothing')

  // Best-only: a worse score stays out; an equal one achieved earlier takes the earlier time.
  const [top] = ndjson(exported)
  const earlier = new Date(Date.parse(top.achieved_at) - 60_000).toISOString()
  const again = dataOf(await importInto(app, target.gameId, [
    JSON.stringify({ player_name: top.player_name, score: top.score - 1, achieved_at: '2020-01-01T00:00:00Z' }),
    JSON.stringify({ player_name: top.player_name, score: top.score, achieved_at: earlier })
  ].join('\n')))
  t.match(again, { lines: 2, unchanged: 1, improved: 1 })
  t.match(dataOf(await admin(app, 'GET', `/admin/games/${target.gameId}/players/${top.player_name as string}`)), { best_score: top.score, created_at: earlier })

  const audit = dataOf(await admin(app, 'GET', `/admin/games/${target.gameId}/audit?action=board.import`)).items
  t.equal(audit.length, 3)
  t.match(audit[2], { target: 'season 1', after: { lines: 40, imported: 40 } })
})

t.test('import: a line that is not UTF-8, or a time whose day does not exist, is refused, never stored changed', async t => {
  const game = await createGame(app)
  const line = (text: string): Buffer => Buffer.from(`${text}\n`)
  const body = Buffer.concat([
    // Latin-1 é and two different invalid bytes: decoded leniently, both would be "ab\uFFFD".
    Buffer.concat([Buffer.from('{"player_name":"caf'), Buffer.from([0xe9]), Buffer.from('","score":1}\n')]),
    Buffer.concat([Buffer.from('{"player_name":"ab'), Buffer.from([0xff]), Buffer.from('","score":2}\n')]),
    Buffer.concat([Buffer.from('{"player_name":"ab'), Buffer.from([0xfe]), Buffer.from('","score":3}\n')]),
    // A character cut short at the end of the line, and an overlong encoding of "/".
    Buffer.concat([Buffer.from('{"player_name":"x","score":4,"meta":"'), Buffer.from([0xe2, 0x82]), Buffer.from('"}\n')]),
    Buffer.concat([Buffer.from('{"player_name":"x'), Buffer.from([0xc0, 0xaf]), Buffer.from('","score":5}\n')]),
    line(JSON.stringify({ player_name: 'feb31', score: 6, achieved_at: '2020-02-31T00:00:00Z' })),
    line(JSON.stringify({ player_name: 'feb29', score: 7, achieved_at: '2021-02-29T12:00:00Z' })),
    line(JSON.stringify({ player_name: 'apr31', score: 8, achieved_at: '2020-04-31T00:00:00.000Z' })),
    line(JSON.stringify({ player_name: 'hour24', score: 9, achieved_at: '2020-01-01T24:00:00Z' })),
    line(JSON.stringify({ player_name: 'month13', score: 10, achieved_at: '2020-13-01T00:00:00Z' })),
    line(JSON.stringify({ player_name: 'offset', score: 11, achieved_at: '2020-01-01T00:00:00+24:00' })),
    line(JSON.stringify({ player_name: 'leap', score: 12, achieved_at: '2020-02-29T23:59:59.999+01:00' })),
    line(JSON.stringify({ player_name: 'Zoë ☃', score: 13 }))
  ])
  const report = dataOf(await importInto(app, game.gameId, body))
  t.same(report.errors.map((error: any) => [error.line, error.error]), [
    [1, 'invalid_body'], [2, 'invalid_body'], [3, 'invalid_body'], [4, 'invalid_body'], [5, 'invalid_body'],
    [6, 'invalid_param'], [7, 'invalid_param'], [8, 'invalid_param'], [9, 'invalid_param'], [10, 'invalid_param'], [11, 'invalid_param']
  ])
  t.match(report.errors[0].message, /^Line 1 is not UTF-8 text\.$/)
  t.match(report.errors[5].message, /^Line 6: "achieved_at" must be an ISO 8601 time/)
  t.match(report, { lines: 13, imported: 2, refused: 11 })
  const entries = (await allPages(`/admin/games/${game.gameId}/players`, 10)).items
  t.same(entries.map(entry => entry.player_name), ['Zoë ☃', 'leap'], 'only the good lines, their names as sent')
  t.equal(dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/players/leap`)).created_at, '2020-02-29T22:59:59.999Z', 'a leap day is a day')

  // A character split across the chunks of the body is read whole.
  const name = Buffer.from('{"player_name":"Zoë","score":20}\n')
  const cut = name.indexOf(0xc3) + 1
  const streamed = dataOf(await importInto(app, game.gameId, Readable.from([name.subarray(0, cut), name.subarray(cut)])))
  t.match(streamed, { lines: 1, imported: 1, refused: 0 })
  t.equal(dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/players/${encodeURIComponent('Zoë')}`)).best_score, 20)
})

t.test('import: each bad line is refused with its number and why, the good ones around it stored', async t => {
  const game = await createGame(app)
  await admin(app, 'PATCH', `/admin/games/${game.gameId}`, { score_max: 1000 })
  const lines = [
    JSON.stringify({ player_name: 'good1', score: 5 }),
    'not json',
    '[1,2]',
    '',
    JSON.stringify({ player_name: 'x', score: 1, colour: 'red' }),
    '{"__proto__": {"polluted": true}, "player_name": "proto", "score": 1}',
    JSON.stringify({ player_name: 'x', score: 1.5 }),
    JSON.stringify({ player_name: 'x', score: '12abc' }),
    JSON.stringify({ player_name: '', score: 1 }),
    JSON.stringify({ score: 1 }),
    JSON.stringify({ player_name: 'x', score: 1, meta: 'not json' }),
    JSON.stringify({ player_name: 'x', score: 1, meta: JSON.stringify({ big: 'y'.repeat(3000) }) }),
    JSON.stringify({ player_name: 'x', score: 1, achieved_at: new Date(Date.now() + 86_400_000).toISOString() }),
    JSON.stringify({ player_name: 'x', score: 1, achieved_at: 'yesterday' }),
    JSON.stringify({ player_name: 'x', score: 5000 }),
    'z'.repeat(20_000),
    JSON.stringify({ player_name: 'good2', score: '7', achieved_at: 1_700_000_000_000, meta: { kept: true } }),
    '   '
  ].join('\r\n')
  const report = dataOf(await importInto(app, game.gameId, lines))
  t.match(report, { lines: 16, imported: 2, refused: 14 })
  t.same(report.errors.map((error: any) => [error.line, error.error]), [
    [2, 'invalid_body'], [3, 'invalid_body'], [5, 'invalid_param'], [6, 'invalid_param'], [7, 'invalid_score'], [8, 'invalid_score'],
    [9, 'invalid_player_name'], [10, 'missing_param'], [11, 'invalid_meta'], [12, 'invalid_meta'], [13, 'invalid_param'], [14, 'invalid_param'],
    [15, 'score_out_of_range'], [16, 'invalid_body']
  ])
  for (const error of report.errors) t.match(error.message, new RegExp(`^Line ${error.line as number}`), 'each message names its line')
  t.equal(({} as any).polluted, undefined, 'nothing polluted')
  t.same((await allPages(`/admin/games/${game.gameId}/players`, 10)).items.map(entry => [entry.player_name, entry.best_score, entry.meta]), [['good2', 7, '{"kept":true}'], ['good1', 5, null]])
  t.equal(dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/players/good2`)).created_at, new Date(1_700_000_000_000).toISOString())

  await admin(app, 'PATCH', `/admin/games/${game.gameId}`, { max_entries: 3 })
  const full = dataOf(await importInto(app, game.gameId, ['a', 'b', 'c'].map(player => JSON.stringify({ player_name: player, score: 1 })).join('\n')))
  t.match(full, { imported: 1, refused: 2, errors: [{ line: 2, error: 'quota_exceeded' }, { line: 3, error: 'quota_exceeded' }] }, "the game's cap holds")

  expectError(t, await importInto(app, game.gameId, '{}', { 'content-type': 'application/json' }), 'invalid_body', 'JSON is not NDJSON')
  expectError(t, await importInto(app, game.gameId, '{}', { 'content-type': 'text/plain' }), 'invalid_body', 'nor is text')
  expectError(t, await importInto(app, game.gameId, '{}', {}, VIEWER_TOKEN), 'forbidden', "a viewer's import")
  expectError(t, await importInto(app, 'no_such_game_here', '{}'), 'not_found', 'no such game')
})

t.test('import: the byte limit holds whatever the headers say; what was stored before it is said', { timeout: 30_000 }, async t => {
  const { app: small, baseUrl } = await listeningApp(t, { IMPORT_MAX_BYTES: String(1_048_576) })
  const game = await createGame(small)
  const line = (i: number): string => `${JSON.stringify({ player_name: `q${i}`, score: i, meta: JSON.stringify({ pad: 'x'.repeat(200) }) })}\n`
  // Declared too large: refused before anything is read.
  const declared = await small.inject({ method: 'POST', url: `/admin/games/${game.gameId}/import`, payload: line(1), headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/x-ndjson', 'content-length': String(2_000_000) } })
  expectError(t, declared, 'payload_too_large', 'a declared length past the limit')
  t.equal(dataOf(await admin(small, 'GET', `/admin/games/${game.gameId}`)).entries, 0, 'nothing applied')

  // Chunked, with no length, over a real connection: stopped once past the limit, what was stored said.
  const answer = await new Promise<{ status: number, body: string }>((resolve, reject) => {
    const request = httpRequest(`${baseUrl}/admin/games/${game.gameId}/import`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/x-ndjson' } }, response => {
      let body = ''
      response.setEncoding('utf8')
      response.on('data', (text: string) => { body += text })
      response.on('end', () => { resolve({ status: response.statusCode ?? 0, body }) })
    })
    request.on('error', reject)
    let sent = 0
    const more = (): void => {
      // At most 3 MB: far past the limit, and bounded.
      while (sent < 12_000) {
        const chunk = Array.from({ length: 50 }, (_, i) => line(sent + i)).join('')
        sent += 50
        if (!request.write(chunk)) { request.once('drain', more); return }
      }
      request.end()
    }
    more()
  })
  t.equal(answer.status, 200)
  const refusal = JSON.parse(answer.body)
  t.equal(refusal.error, 'payload_too_large', 'a chunked body past the limit')
  const applied = Number(/\((\d+) new/.exec(refusal.message as string)?.[1])
  t.ok(applied > 1000 && applied < 5000, `the message says what was stored (${applied})`)
  t.equal(dataOf(await admin(small, 'GET', `/admin/games/${game.gameId}`)).entries, applied, 'exactly what the message says')
})

t.test('an NDJSON body anywhere but an import is not a body of fields', async t => {
  const answer = await app.inject({ method: 'POST', url: '/admin/games', payload: '{"game_id":"x"}\n', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/x-ndjson' } })
  expectError(t, answer, 'invalid_body', 'NDJSON to create a game')
})

t.test('a user made again after an erasure cannot be reached through a session of the erased one', async t => {
  const name = `again${process.pid}`
  await admin(app, 'POST', '/admin/users', { username: name })
  const cookie = await withSession(name)
  // A session from before sessions were indexed: a bare record, epoch 0, that erasure cannot find.
  const legacy = 'legacy-session-id-0123456789abcdefghijkl'
  await app.redis.set(keys.session(legacy), `0:${name}`, 'EX', 600)
  await admin(app, 'DELETE', `/admin/users/${name}?erase=true`)
  await admin(app, 'POST', '/admin/users', { username: name })
  const game = await createGame(app)
  for (const old of [cookie, `sid=${legacy}`]) {
    expectError(t, await post(app, '/api/playtime', { game_id: game.gameId, seconds: '30' }, 'form', { cookie: old }), 'not_logged_in', 'an old session is over for the new user')
  }
  t.same(dataOf(await post(app, '/api/playtime', { game_id: game.gameId, seconds: '30' }, 'form', { cookie: await withSession(name) })).credited_seconds, 30, "the new user's own session works")
})

t.test('hand-made cursors past what a listing makes are invalid_param, never a Redis error', async t => {
  const game = await createGame(app)
  const cursor = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url')
  expectError(t, await admin(app, 'GET', `/admin/games/${game.gameId}/players?cursor=${cursor({ k: 'board', b: '', v: 1e21, a: '', s: '0', m: '' })}`), 'invalid_param', 'a rank past any board')
  expectError(t, await admin(app, 'GET', `/admin/audit?cursor=${cursor({ k: 'audit', id: '99999999999999999999-0' })}`), 'invalid_param', 'a stream id past 64 bits')
  t.same(dataOf(await admin(app, 'GET', `/admin/audit?cursor=${cursor({ k: 'audit', id: '0-0' })}`)), { items: [], next_cursor: null }, 'nothing before the first id')
  t.same(dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/players?cursor=${cursor({ k: 'board', b: '', v: 1000, a: 'nobody', s: '-5', m: 'x' })}`)).items, [], 'a place past the end: an empty page')
})

t.test('sessions expiring at the same instant are each listed once, page by page', async t => {
  const name = `ties${process.pid}`
  await admin(app, 'POST', '/admin/users', { username: name })
  const expiry = Date.now() + 3_600_000
  for (let i = 0; i < 5; i++) await app.redis.zadd(keys.userSessions(name), expiry, `tie-session-${i}-0123456789abcdef`)
  await app.redis.zadd(keys.userSessions(name), expiry + 1, 'later-session-0123456789abcdefgh')
  const seen: string[] = []
  let cursor: string | null = null
  let pages = 0
  do {
    const page = dataOf(await admin(app, 'GET', `/admin/users/${name}/sessions?limit=2${cursor === null ? '' : `&cursor=${cursor}`}`))
    seen.push(...page.sessions.map((session: any) => session.expires_at))
    cursor = page.next_cursor
    pages++
  } while (cursor !== null && pages < 10)
  t.same(seen, [...Array(5).fill(new Date(expiry).toISOString()), new Date(expiry + 1).toISOString()])
})

t.test('an import that breaks off is recorded with what it stored', { timeout: 30_000 }, async t => {
  const { app: own, baseUrl } = await listeningApp(t)
  const game = await createGame(own)
  const lines = Array.from({ length: 700 }, (_, i) => `${JSON.stringify({ player_name: `cut${i}`, score: i })}\n`).join('')
  const request = httpRequest(`${baseUrl}/admin/games/${game.gameId}/import`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/x-ndjson' } })
  request.on('error', () => {})
  request.write(lines)
  // The rest never comes: once the service has stored its first batch of 500, the client goes away mid-body.
  // (Going away after a fixed time instead, a busy service may not have read the lines yet, and stores none.)
  await waitFor(async () => dataOf(await admin(own, 'GET', `/admin/games/${game.gameId}`)).entries >= 500, { what: 'the first batch of the import to be stored' })
  request.destroy()
  let entry: any
  await waitFor(async () => {
    entry = dataOf(await admin(own, 'GET', `/admin/games/${game.gameId}/audit?action=board.import`)).items[0]
    return entry !== undefined
  }, { what: 'the broken-off import to be recorded in the audit log' })
  t.match(entry?.after, { complete: false, imported: 500 }, 'the flushed batch is recorded as a partial import')
  t.equal(dataOf(await admin(own, 'GET', `/admin/games/${game.gameId}`)).entries, 500, 'and it is what the board holds')
})
