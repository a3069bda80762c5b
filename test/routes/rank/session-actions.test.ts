import t from 'tap'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { admin, buildTestApp, createGame, dataOf, formBody, me, multipartBody, submit, top, expectError } from '../../helpers/app.js'

/*
 * Session mode on /api/rank: submit-self and me-self (docs/interface.md#session-mode). The player is the logged-in user, on the same
 * board as API-key submits.
 */

const JSON_TYPE = 'application/json; charset=utf-8'

type Headers = Record<string, string>

async function createUser (app: FastifyInstance, username: string, options: { is_admin?: boolean, hidden?: boolean } = {}): Promise<void> {
  dataOf(await admin(app, 'POST', '/admin/users', { username, is_admin: options.is_admin ?? false, hidden: options.hidden ?? false }))
}

/** A session made through the admin API, as a Cookie header value. */
async function sessionOf (app: FastifyInstance, username: string): Promise<string> {
  const made = dataOf(await admin(app, 'POST', '/admin/sessions', { username }))
  return `${String(made.cookie_name)}=${String(made.session_id)}`
}

async function userWithSession (app: FastifyInstance, username: string, options: { is_admin?: boolean, hidden?: boolean } = {}): Promise<string> {
  await createUser(app, username, options)
  return await sessionOf(app, username)
}

async function submitSelf (app: FastifyInstance, cookie: string | undefined, fields: Record<string, string> | Array<[string, string]>, headers: Headers = {}, encoding: 'form' | 'multipart' = 'form'): Promise<LightMyRequestResponse> {
  const all: Headers = { ...(cookie === undefined ? {} : { cookie }), ...headers }
  if (encoding === 'multipart') {
    const body = multipartBody(fields)
    return await app.inject({ method: 'POST', url: '/api/rank?action=submit-self', payload: body.payload, headers: { ...body.headers, ...all } })
  }
  return await app.inject({ method: 'POST', url: '/api/rank?action=submit-self', payload: formBody(fields), headers: { 'content-type': 'application/x-www-form-urlencoded', ...all } })
}

async function meSelf (app: FastifyInstance, cookie: string | undefined, query: Record<string, string>, headers: Headers = {}): Promise<LightMyRequestResponse> {
  const search = formBody({ action: 'me-self', ...query })
  return await app.inject({ method: 'GET', url: `/api/rank?${search}`, headers: { ...(cookie === undefined ? {} : { cookie }), ...headers } })
}

let counter = 0
function newName (prefix: string): string {
  return `${prefix}${++counter}`
}

const { app } = await buildTestApp(t)

t.test('submit-self answers every field with its exact value', async t => {
  const dev = newName('dev_')
  const game = await createGame(app, { developer: dev })
  const alice = await userWithSession(app, newName('alice_'))
  const devCookie = await userWithSession(app, dev)
  const rootName = newName('root_')
  const root = await userWithSession(app, rootName, { is_admin: true })

  const first = await submitSelf(app, alice, { game_id: game.gameId, score: '100' })
  t.equal(first.headers['content-type'], JSON_TYPE)
  t.same(first.json(), { ok: true, data: { score: 100, improved: true, best_score: 100, rank: 1, total_players: 1, is_dev_record: false, is_admin_record: false } })
  t.same(dataOf(await submitSelf(app, alice, { game_id: game.gameId, score: '50' })),
    { score: 50, improved: false, best_score: 100, rank: 1, total_players: 1, is_dev_record: false, is_admin_record: false }, 'a lower score is ignored')
  t.same(dataOf(await submitSelf(app, alice, { game_id: game.gameId, score: '100' })),
    { score: 100, improved: false, best_score: 100, rank: 1, total_players: 1, is_dev_record: false, is_admin_record: false }, 'an equal score is not an improvement')

  t.same(dataOf(await submitSelf(app, devCookie, { game_id: game.gameId, score: '200' })),
    { score: 200, improved: true, best_score: 200, rank: 1, total_players: 2, is_dev_record: true, is_admin_record: false }, 'the developer')
  t.same(dataOf(await submitSelf(app, root, { game_id: game.gameId, score: '150' })),
    { score: 150, improved: true, best_score: 150, rank: 2, total_players: 3, is_dev_record: false, is_admin_record: true }, 'an admin')
  t.same(dataOf(await submitSelf(app, alice, { game_id: game.gameId, score: '175' })),
    { score: 175, improved: true, best_score: 175, rank: 2, total_players: 3, is_dev_record: false, is_admin_record: false }, 'alice improves past root')
  t.same(dataOf(await meSelf(app, root, { game_id: game.gameId })),
    { player_name: rootName, best_score: 150, rank: 3, total_players: 3, is_dev_record: false, is_admin_record: true }, 'root pushed down')

  // Multipart works the same; meta is optional and not echoed.
  t.same(dataOf(await submitSelf(app, alice, { game_id: game.gameId, score: '300', meta: '{"level":2}' }, {}, 'multipart')),
    { score: 300, improved: true, best_score: 300, rank: 1, total_players: 3, is_dev_record: false, is_admin_record: false }, 'multipart')
})

t.test('score is echoed as a JSON number: 007 is 7, -0 is 0, negatives and the extremes work', async t => {
  const game = await createGame(app)
  const a = await userWithSession(app, newName('num_'))
  t.same(dataOf(await submitSelf(app, a, { game_id: game.gameId, score: '-5' })),
    { score: -5, improved: true, best_score: -5, rank: 1, total_players: 1, is_dev_record: false, is_admin_record: false })
  const zero = await submitSelf(app, a, { game_id: game.gameId, score: '-0' })
  t.same(dataOf(zero), { score: 0, improved: true, best_score: 0, rank: 1, total_players: 1, is_dev_record: false, is_admin_record: false })
  t.match(zero.body, /"score":0,/, '-0 is written as 0')
  t.same(dataOf(await submitSelf(app, a, { game_id: game.gameId, score: '007' })),
    { score: 7, improved: true, best_score: 7, rank: 1, total_players: 1, is_dev_record: false, is_admin_record: false })
  t.same(dataOf(await submitSelf(app, a, { game_id: game.gameId, score: '9007199254740991' })),
    { score: 9007199254740991, improved: true, best_score: 9007199254740991, rank: 1, total_players: 1, is_dev_record: false, is_admin_record: false })
  const b = await userWithSession(app, newName('num_'))
  t.same(dataOf(await submitSelf(app, b, { game_id: game.gameId, score: '-9007199254740991' })),
    { score: -9007199254740991, improved: true, best_score: -9007199254740991, rank: 2, total_players: 2, is_dev_record: false, is_admin_record: false })
})

t.test('meta is stored with the best score, as sent', async t => {
  const game = await createGame(app)
  const name = newName('meta_')
  const cookie = await userWithSession(app, name)
  const meta = '{ "k": [1, 2], "s": "\u00e9" }'
  dataOf(await submitSelf(app, cookie, { game_id: game.gameId, score: '10', meta }))
  t.equal(dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/players/${name}`)).meta, meta)
  // Exactly 2048 bytes is accepted.
  const exact = JSON.stringify('x'.repeat(2046))
  t.equal(Buffer.byteLength(exact), 2048)
  t.equal(dataOf(await submitSelf(app, cookie, { game_id: game.gameId, score: '11', meta: exact })).improved, true)
  t.equal(dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/players/${name}`)).meta, exact)
  // An improving score without meta clears it.
  dataOf(await submitSelf(app, cookie, { game_id: game.gameId, score: '12' }))
  t.equal(dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/players/${name}`)).meta, null)
})

t.test('an API-key submit for player_name=alice and a session submit by alice land on one entry', async t => {
  const game = await createGame(app)
  const name = newName('same_')
  const cookie = await userWithSession(app, name)

  t.same(dataOf(await submit(app, game, { player: name, score: 300 })), { score: 300, improved: true, best_score: 300, rank: 1 })
  t.same(dataOf(await submitSelf(app, cookie, { game_id: game.gameId, score: '250' })),
    { score: 250, improved: false, best_score: 300, rank: 1, total_players: 1, is_dev_record: false, is_admin_record: false }, 'the API-key best counts for the session')
  t.same(dataOf(await submitSelf(app, cookie, { game_id: game.gameId, score: '400' })),
    { score: 400, improved: true, best_score: 400, rank: 1, total_players: 1, is_dev_record: false, is_admin_record: false })
  t.same(dataOf(await submit(app, game, { player: name, score: 350 })), { score: 350, improved: false, best_score: 400, rank: 1 }, 'the session best counts for API-key submits')
  t.same(dataOf(await me(app, game, name)), { player_name: name, best_score: 400, rank: 1 })

  // Case is kept: another name is another entry.
  const upper = name.toUpperCase()
  t.same(dataOf(await submit(app, game, { player: upper, score: 500 })), { score: 500, improved: true, best_score: 500, rank: 1 })
  const board = dataOf(await top(app, game))
  t.equal(board.total, 2)
  t.same(board.items.map((item: any) => [item.rank, item.player_name, item.score]), [[1, upper, 500], [2, name, 400]])
  t.same(dataOf(await meSelf(app, cookie, { game_id: game.gameId })),
    { player_name: name, best_score: 400, rank: 2, total_players: 2, is_dev_record: false, is_admin_record: false })
})

t.test('submit-self ignores a player_name field: the player is the logged-in user', async t => {
  const game = await createGame(app)
  const name = newName('self_')
  const cookie = await userWithSession(app, name)
  t.same(dataOf(await submitSelf(app, cookie, { game_id: game.gameId, score: '77', player_name: 'somebody_else' })),
    { score: 77, improved: true, best_score: 77, rank: 1, total_players: 1, is_dev_record: false, is_admin_record: false })
  t.same(dataOf(await me(app, game, 'somebody_else')), { player_name: 'somebody_else', best_score: null, rank: null })
  t.same(dataOf(await me(app, game, name)), { player_name: name, best_score: 77, rank: 1 })
  t.same(dataOf(await meSelf(app, cookie, { game_id: game.gameId, player_name: 'somebody_else' })),
    { player_name: name, best_score: 77, rank: 1, total_players: 1, is_dev_record: false, is_admin_record: false }, 'me-self too')
})

t.test('me-self with and without an entry', async t => {
  const dev = newName('medev_')
  const game = await createGame(app, { developer: dev })
  const plainName = newName('meplain_')
  const plain = await userWithSession(app, plainName)
  const devCookie = await userWithSession(app, dev)
  const adminName = newName('meadmin_')
  const adminCookie = await userWithSession(app, adminName, { is_admin: true })

  const empty = await meSelf(app, plain, { game_id: game.gameId })
  t.equal(empty.headers['content-type'], JSON_TYPE)
  t.same(empty.json(), { ok: true, data: { player_name: plainName, best_score: null, rank: null, total_players: 0, is_dev_record: false, is_admin_record: false } })

  dataOf(await submit(app, game, { player: 'api_player', score: 10 }))
  dataOf(await submit(app, game, { player: 'api_player2', score: 20 }))
  t.same(dataOf(await meSelf(app, devCookie, { game_id: game.gameId })),
    { player_name: dev, best_score: null, rank: null, total_players: 2, is_dev_record: true, is_admin_record: false }, 'developer without an entry')
  t.same(dataOf(await meSelf(app, adminCookie, { game_id: game.gameId })),
    { player_name: adminName, best_score: null, rank: null, total_players: 2, is_dev_record: false, is_admin_record: true }, 'admin without an entry')

  dataOf(await submitSelf(app, plain, { game_id: game.gameId, score: '15' }))
  t.same(dataOf(await meSelf(app, plain, { game_id: game.gameId })),
    { player_name: plainName, best_score: 15, rank: 2, total_players: 3, is_dev_record: false, is_admin_record: false })
  t.same(dataOf(await meSelf(app, devCookie, { game_id: game.gameId })),
    { player_name: dev, best_score: null, rank: null, total_players: 3, is_dev_record: true, is_admin_record: false })
})

t.test('not_logged_in without a cookie, with a garbage cookie, and with a deleted session', async t => {
  const game = await createGame(app)
  const name = newName('nli_')
  await createUser(app, name)
  const made = dataOf(await admin(app, 'POST', '/admin/sessions', { username: name }))
  const deleted = `sid=${String(made.session_id)}`
  dataOf(await admin(app, 'DELETE', `/admin/sessions/${String(made.session_id)}`))

  const fields = { game_id: game.gameId, score: '1' }
  for (const [what, cookie] of [
    ['no cookie', undefined],
    ['garbage cookie', 'sid=garbage'],
    ['well-formed unknown id', `sid=${'A'.repeat(43)}`],
    ['empty cookie', 'sid='],
    ['another cookie name', `other=${String(made.session_id)}`],
    ['deleted session', deleted]
  ] as Array<[string, string | undefined]>) {
    expectError(t, await submitSelf(app, cookie, fields), 'not_logged_in', `submit-self: ${what}`)
    expectError(t, await meSelf(app, cookie, { game_id: game.gameId }), 'not_logged_in', `me-self: ${what}`)
  }
  t.same(dataOf(await top(app, game)), { game_id: game.gameId, total: 0, items: [] }, 'nothing was stored')
})

t.test('forbidden_origin on submit-self from another site; me-self (GET) is not checked', { timeout: 30_000 }, async t => {
  const game = await createGame(app)
  const name = newName('orig_')
  const cookie = await userWithSession(app, name)
  const fields = { game_id: game.gameId, score: '5' }
  expectError(t, await submitSelf(app, cookie, fields, { origin: 'https://evil.example', host: 'localhost' }), 'forbidden_origin', 'foreign origin')
  expectError(t, await submitSelf(app, cookie, fields, { origin: 'null', host: 'localhost' }), 'forbidden_origin', 'Origin: null')
  t.same(dataOf(await meSelf(app, cookie, { game_id: game.gameId })),
    { player_name: name, best_score: null, rank: null, total_players: 0, is_dev_record: false, is_admin_record: false }, 'nothing stored')

  t.same(dataOf(await submitSelf(app, cookie, fields, { origin: 'http://localhost:80', host: 'localhost' })),
    { score: 5, improved: true, best_score: 5, rank: 1, total_players: 1, is_dev_record: false, is_admin_record: false }, 'same origin')
  t.same(dataOf(await meSelf(app, cookie, { game_id: game.gameId }, { origin: 'https://evil.example', host: 'localhost' })),
    { player_name: name, best_score: 5, rank: 1, total_players: 1, is_dev_record: false, is_admin_record: false }, 'GET me-self with a foreign Origin')

  const listed = await buildTestApp(t, { ALLOWED_ORIGINS: 'https://play.example.com' })
  const g2 = await createGame(listed.app)
  const c2 = await userWithSession(listed.app, 'listed_user')
  t.equal(dataOf(await submitSelf(listed.app, c2, { game_id: g2.gameId, score: '9' }, { origin: 'https://play.example.com', host: 'localhost' })).best_score, 9, 'ALLOWED_ORIGINS')
  expectError(t, await submitSelf(listed.app, c2, { game_id: g2.gameId, score: '10' }, { origin: 'https://evil.example', host: 'localhost' }), 'forbidden_origin', 'unlisted')
})

t.test('rate_limited per user across submit-self, me-self, rate and playtime', { timeout: 30_000 }, async t => {
  const limited = await buildTestApp(t, { SESSION_RATE_LIMIT_MAX: '3' })
  const game = await createGame(limited.app)
  const alice = await userWithSession(limited.app, 'alice')
  const bob = await userWithSession(limited.app, 'bob')
  // A second session of the same user shares the user's counter.
  const alice2 = await sessionOf(limited.app, 'alice')

  // Requests without a session are answered not_logged_in before counting.
  for (let i = 0; i < 5; i++) expectError(t, await meSelf(limited.app, undefined, { game_id: game.gameId }), 'not_logged_in', `anonymous ${i}`)

  const one = await submitSelf(limited.app, alice, { game_id: game.gameId, score: '1' })
  t.equal(dataOf(one).best_score, 1)
  t.equal(one.headers['x-ratelimit-limit'], '3')
  t.equal(one.headers['x-ratelimit-remaining'], '2')
  const two = await meSelf(limited.app, alice, { game_id: game.gameId })
  t.equal(dataOf(two).best_score, 1)
  t.equal(two.headers['x-ratelimit-remaining'], '1')
  const three = await limited.app.inject({ method: 'GET', url: `/api/rate?game_id=${game.gameId}`, headers: { cookie: alice } })
  t.same(dataOf(three), { avg: 0, count: 0, mine: null, weighted: null, distribution: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0] })
  t.equal(three.headers['x-ratelimit-remaining'], '0')

  const four = await limited.app.inject({ method: 'POST', url: '/api/playtime', payload: formBody({ game_id: game.gameId, seconds: '30' }), headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: alice2 } })
  expectError(t, four, 'rate_limited', 'the 4th request, on playtime from another session')
  const retryAfter = Number(four.headers['retry-after'])
  t.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `Retry-After ${String(four.headers['retry-after'])} in whole seconds`)
  t.equal(four.headers['x-ratelimit-limit'], '3')
  t.equal(four.headers['x-ratelimit-remaining'], '0')
  expectError(t, await submitSelf(limited.app, alice, { game_id: game.gameId, score: '99' }), 'rate_limited', 'submit-self')
  expectError(t, await meSelf(limited.app, alice, { game_id: game.gameId }), 'rate_limited', 'me-self')
  // Limited comes before missing_param and invalid_game.
  expectError(t, await submitSelf(limited.app, alice, {}), 'rate_limited', 'limited before missing_param')
  expectError(t, await meSelf(limited.app, alice, { game_id: 'no_such_game' }), 'rate_limited', 'limited before invalid_game')
  t.equal(await limited.app.redis.hget(`rank:{game:${game.gameId}}:playtime`, 'total'), null, 'the limited playtime report credited nothing')

  // Another user is not limited.
  t.same(dataOf(await submitSelf(limited.app, bob, { game_id: game.gameId, score: '2' })),
    { score: 2, improved: true, best_score: 2, rank: 1, total_players: 2, is_dev_record: false, is_admin_record: false })
  t.same(dataOf(await top(limited.app, game)).items.map((item: any) => [item.player_name, item.score]), [['bob', 2], ['alice', 1]], 'the limited submit stored nothing')
})

t.test('missing_param for game_id and score', async t => {
  const game = await createGame(app)
  const cookie = await userWithSession(app, newName('miss_'))
  expectError(t, await submitSelf(app, cookie, { score: '1' }), 'missing_param', 'submit-self without game_id')
  expectError(t, await submitSelf(app, cookie, { game_id: '', score: '1' }), 'missing_param', 'submit-self with empty game_id')
  expectError(t, await submitSelf(app, cookie, { game_id: game.gameId }), 'missing_param', 'submit-self without score')
  expectError(t, await submitSelf(app, cookie, { game_id: game.gameId, score: '' }), 'missing_param', 'submit-self with empty score')
  expectError(t, await submitSelf(app, cookie, {}), 'missing_param', 'submit-self with no fields')
  expectError(t, await meSelf(app, cookie, {}), 'missing_param', 'me-self without game_id')
  expectError(t, await meSelf(app, cookie, { game_id: '' }), 'missing_param', 'me-self with empty game_id')
})

t.test('invalid_game for an unknown, unapproved or malformed game', async t => {
  const cookie = await userWithSession(app, newName('ig_'))
  const unapproved = await createGame(app, { approved: false })
  for (const [what, gameId] of [
    ['unknown', 'no_such_game'],
    ['unapproved', unapproved.gameId],
    ['bad characters', 'bad id!'],
    ['dot', 'a.b'],
    ['65 characters', 'a'.repeat(65)]
  ] as Array<[string, string]>) {
    expectError(t, await submitSelf(app, cookie, { game_id: gameId, score: '1' }), 'invalid_game', `submit-self: ${what}`)
    expectError(t, await meSelf(app, cookie, { game_id: gameId }), 'invalid_game', `me-self: ${what}`)
  }
  // Approving the game lets it in.
  dataOf(await admin(app, 'PATCH', `/admin/games/${unapproved.gameId}`, { approved: true }))
  t.equal(dataOf(await submitSelf(app, cookie, { game_id: unapproved.gameId, score: '1' })).rank, 1)
})

t.test('invalid_score and invalid_meta', async t => {
  const game = await createGame(app)
  const name = newName('fv_')
  const cookie = await userWithSession(app, name)
  for (const score of ['1.5', 'abc', '+5', ' 5', '5 ', '1e3', '0x10', '--1', '-', '9007199254740992', '-9007199254740992', '99999999999999999999']) {
    expectError(t, await submitSelf(app, cookie, { game_id: game.gameId, score }), 'invalid_score', `score ${JSON.stringify(score)}`)
  }
  for (const meta of ['not json', '{', "{'a':1}", JSON.stringify('x'.repeat(2047))]) {
    expectError(t, await submitSelf(app, cookie, { game_id: game.gameId, score: '1', meta }), 'invalid_meta', `meta ${meta.slice(0, 12)} (${Buffer.byteLength(meta)} bytes)`)
  }
  // 2049 bytes with a multi-byte character.
  const multiByte = JSON.stringify('\u00e9'.repeat(1023))
  t.equal(Buffer.byteLength(multiByte), 2048)
  t.equal(dataOf(await submitSelf(app, cookie, { game_id: game.gameId, score: '1', meta: multiByte })).best_score, 1, '2048 bytes in UTF-8 is fine')
  expectError(t, await submitSelf(app, cookie, { game_id: game.gameId, score: '2', meta: JSON.stringify('\u00e9'.repeat(1023) + 'x') }), 'invalid_meta', '2049 bytes in UTF-8')
  t.same(dataOf(await meSelf(app, cookie, { game_id: game.gameId })),
    { player_name: name, best_score: 1, rank: 1, total_players: 1, is_dev_record: false, is_admin_record: false }, 'the refused submits stored nothing')
})

t.test('check order: not_logged_in -> forbidden_origin -> rate_limited -> missing_param -> invalid_game -> field values', async t => {
  const game = await createGame(app)
  const cookie = await userWithSession(app, newName('order_'))
  const evil = { origin: 'https://evil.example', host: 'localhost' }

  expectError(t, await submitSelf(app, undefined, { game_id: 'bad id!', meta: '{' }, evil), 'not_logged_in', 'not_logged_in before forbidden_origin and the rest')
  expectError(t, await submitSelf(app, 'sid=garbage', { score: 'x' }, evil), 'not_logged_in', 'garbage cookie before forbidden_origin')
  expectError(t, await submitSelf(app, cookie, { game_id: 'bad id!', meta: '{' }, evil), 'forbidden_origin', 'forbidden_origin before missing_param and invalid_game')
  expectError(t, await submitSelf(app, cookie, { game_id: 'no_such_game', meta: '{' }), 'missing_param', 'missing score before invalid_game')
  expectError(t, await submitSelf(app, cookie, { score: 'x', meta: '{' }), 'missing_param', 'missing game_id before invalid_score')
  expectError(t, await submitSelf(app, cookie, { game_id: 'bad id!', score: 'x', meta: '{' }), 'invalid_game', 'invalid_game before the field values')
  expectError(t, await submitSelf(app, cookie, { game_id: 'no_such_game', score: '1' }), 'invalid_game', 'invalid_game with valid values')
  expectError(t, await submitSelf(app, cookie, { game_id: game.gameId, score: 'x', meta: '{' }), 'invalid_score', 'invalid_score before invalid_meta')
  expectError(t, await submitSelf(app, cookie, { game_id: game.gameId, score: '1', meta: '{' }), 'invalid_meta', 'invalid_meta last')
  expectError(t, await meSelf(app, undefined, { game_id: 'bad id!' }), 'not_logged_in', 'me-self: not_logged_in before invalid_game')
  expectError(t, await meSelf(app, undefined, {}), 'not_logged_in', 'me-self: not_logged_in before missing_param')
})

t.test('check order around rate_limited', { timeout: 30_000 }, async t => {
  const limited = await buildTestApp(t, { SESSION_RATE_LIMIT_MAX: '1' })
  const game = await createGame(limited.app)
  const cookie = await userWithSession(limited.app, 'order_user')
  const evil = { origin: 'https://evil.example', host: 'localhost' }
  t.equal(dataOf(await meSelf(limited.app, cookie, { game_id: game.gameId })).best_score, null, 'the one allowed request')
  expectError(t, await submitSelf(limited.app, cookie, { game_id: 'bad id!', meta: '{' }), 'rate_limited', 'rate_limited before missing_param')
  expectError(t, await submitSelf(limited.app, cookie, { game_id: 'bad id!', score: 'x' }), 'rate_limited', 'rate_limited before invalid_game and invalid_score')
  expectError(t, await submitSelf(limited.app, cookie, { game_id: game.gameId, score: 'x' }, evil), 'forbidden_origin', 'forbidden_origin before rate_limited')
  expectError(t, await submitSelf(limited.app, undefined, { game_id: game.gameId, score: 'x' }, evil), 'not_logged_in', 'not_logged_in before rate_limited')
})

t.test('session responses carry no CORS headers; the API-key ones do', async t => {
  const game = await createGame(app)
  const cookie = await userWithSession(app, newName('cors_'))
  const origin = { origin: 'http://localhost', host: 'localhost' }
  const responses: Array<[string, LightMyRequestResponse]> = [
    ['submit-self', await submitSelf(app, cookie, { game_id: game.gameId, score: '3' }, origin)],
    ['me-self', await meSelf(app, cookie, { game_id: game.gameId }, { origin: 'https://elsewhere.example' })],
    ['me-self error', await meSelf(app, undefined, { game_id: game.gameId }, { origin: 'https://elsewhere.example' })],
    ['submit-self forbidden', await submitSelf(app, cookie, { game_id: game.gameId, score: '3' }, { origin: 'https://elsewhere.example', host: 'localhost' })],
    ['rate', await app.inject({ method: 'GET', url: `/api/rate?game_id=${game.gameId}`, headers: { cookie, origin: 'https://elsewhere.example' } })],
    ['playtime', await app.inject({ method: 'POST', url: '/api/playtime', payload: formBody({ game_id: game.gameId, seconds: '10' }), headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, ...origin } })]
  ]
  t.same(responses.map(([what, res]) => [what, res.json().ok]), [
    ['submit-self', true], ['me-self', true], ['me-self error', false], ['submit-self forbidden', false], ['rate', true], ['playtime', true]
  ])
  for (const [what, res] of responses) {
    t.equal(res.headers['access-control-allow-origin'], undefined, `${what}: no Access-Control-Allow-Origin`)
    t.equal(res.headers['access-control-allow-credentials'], undefined, `${what}: no Access-Control-Allow-Credentials`)
  }
  const preflight = await app.inject({
    method: 'OPTIONS',
    url: '/api/rank?action=submit-self',
    headers: { origin: 'https://elsewhere.example', 'access-control-request-method': 'POST' }
  })
  t.equal(preflight.headers['access-control-allow-origin'], undefined, 'no CORS on the submit-self preflight')
  t.equal(preflight.headers['access-control-allow-methods'], undefined, 'no allowed methods on the submit-self preflight')

  // For contrast: the API-key action allows any origin.
  const apiKey = await app.inject({ method: 'GET', url: `/api/rank?action=top&api_key=${game.apiKey}&game_id=${game.gameId}`, headers: { origin: 'https://elsewhere.example' } })
  t.equal(apiKey.headers['access-control-allow-origin'], '*')
})
