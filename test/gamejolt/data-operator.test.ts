import { Readable } from 'node:stream'
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { admin, buildTestApp, createGame, dataOf, errorOf, formBody } from '../helpers/app.js'
import { md5, type Link } from '../helpers/gamejolt.js'
import { keys } from '../../src/store/keys.js'

/*
 * The data store as its operator sees it (docs/gamejolt.md#data-store): the
 * limits an operator sets, the body limit that follows the item size, the
 * listing, reading and removal of items, a guest's claim and the export of
 * a person, the CLI.
 */

const STRONG = 'correct horse battery staple'
const FORM = { 'content-type': 'application/x-www-form-urlencoded' }

/** A data-store call, its value posted (a save is large), signed as the docs sign a POST. */
async function post (app: FastifyInstance, link: Link, endpoint: string, query: Record<string, string>, fields: Record<string, string>): Promise<{ status: number, response: Record<string, any>, headers: Record<string, unknown> }> {
  const path = `/api/game/v1_2/${endpoint}/?${formBody({ game_id: String(link.gamejolt_game_id), ...query })}`
  const signedFields = Object.keys(fields).sort().map(name => `${name}${fields[name] as string}`).join('')
  const answer = await app.inject({ method: 'POST', url: `${path}&signature=${md5(`https://api.gamejolt.com${path}${signedFields}${link.private_key}`)}`, payload: formBody(fields), headers: FORM })
  return { status: answer.statusCode, response: answer.json().response, headers: answer.headers }
}

async function userWithToken (app: FastifyInstance, username: string): Promise<{ username: string, user_token: string }> {
  dataOf(await admin(app, 'POST', '/admin/users', { username, password: STRONG }))
  return { username, user_token: dataOf(await admin(app, 'POST', `/admin/users/${username}/game-token`, {})).game_token as string }
}

t.test('limits an operator sets: each refusal clear, nothing partly written, the body limit follows the item size', async t => {
  const { app } = await buildTestApp(t)
  const game = await createGame(app)
  const link = dataOf(await admin(app, 'PUT', `/admin/games/${game.gameId}/gamejolt`, {})) as Link
  t.same(dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/gamejolt`)).data_limits, { item_bytes: 1_048_576, items_per_user: 1000, items_per_game: 100_000, game_bytes: 268_435_456 }, 'safe defaults')
  const ann = await userWithToken(app, 'ann')

  const set = dataOf(await admin(app, 'PUT', `/admin/games/${game.gameId}/gamejolt`, { data_limits: { items_per_user: 2, game_bytes: 40 } }))
  t.same(set.data_limits, { item_bytes: 1_048_576, items_per_user: 2, items_per_game: 100_000, game_bytes: 40 }, 'what is given is taken, the rest kept')
  t.equal(set.private_key === link.private_key, false, 'a PUT without a key makes a new one, as before')
  const current = set as Link
  t.equal(errorOf(await admin(app, 'PUT', `/admin/games/${game.gameId}/gamejolt`, { data_limits: { item_bytes: 0 } })), 'invalid_param', 'a limit of 0')
  t.equal(errorOf(await admin(app, 'PUT', `/admin/games/${game.gameId}/gamejolt`, { data_limits: { item_bytes: 16_777_217 } })), 'invalid_param', 'past 16 MiB an item')
  t.equal(errorOf(await admin(app, 'PUT', `/admin/games/${game.gameId}/gamejolt`, { data_limits: { items: 5 } })), 'invalid_param', 'an unknown limit')
  t.equal(errorOf(await admin(app, 'PUT', `/admin/games/${game.gameId}/gamejolt`, { data_limits: '5' })), 'invalid_param', 'not an object')

  t.same((await post(app, current, 'data-store/set', { ...ann, key: 'a' }, { data: '1' })).response, { success: 'true' })
  t.same((await post(app, current, 'data-store/set', { ...ann, key: 'b' }, { data: '2' })).response, { success: 'true' })
  const third = (await post(app, current, 'data-store/set', { ...ann, key: 'c' }, { data: '3' })).response
  t.match(third, { success: 'false', message: /as many items as this game allows one owner.*Nothing was stored/ }, 'the per-user count')
  t.same((await post(app, current, 'data-store/set', { ...ann, key: 'a' }, { data: 'replaced' })).response, { success: 'true' }, 'replacing an item is not a new one')
  const bytes = (await post(app, current, 'data-store/set', { key: 'world' }, { data: 'x'.repeat(30) })).response
  t.match(bytes, { success: 'false', message: /as many bytes as it may/ }, 'the game\'s bytes')
  t.same(await app.redis.hgetall(keys.gamejoltDataUsage(game.gameId)), { items: '2', bytes: String(1 + 8 + 1 + 1) }, 'usage unchanged by the refusals')

  // The body limit is the game's item size (percent-encoded, three bytes a byte), read as it arrives.
  const big = 'x'.repeat(1_200_000)
  const refused = await post(app, current, 'data-store/set', { key: 'big' }, { data: big })
  t.equal(refused.status, 200, 'Game Jolt answers with 200, even a refusal')
  t.match(refused.response, { success: 'false', message: /past this game's limit for one item/ }, '1.2 MB against a 1 MiB item')
  const hugeBody = await app.inject({ method: 'POST', url: `/api/game/v1_2/data-store/set/?game_id=${current.gamejolt_game_id}&key=k&signature=x`, payload: `data=${'%41'.repeat(1_100_000)}`, headers: FORM })
  t.match(hugeBody.json().response, { success: 'false', message: /The request body is larger than this game takes \(3211264 bytes\)/ }, 'a body past three times the item size is not read')
  t.equal(hugeBody.headers.connection, 'close', 'and its connection closes')
  const raised = dataOf(await admin(app, 'PUT', `/admin/games/${game.gameId}/gamejolt`, { private_key: current.private_key, data_limits: { item_bytes: 2_000_000, game_bytes: 10_000_000 } })) as Link
  t.same((await post(app, raised, 'data-store/set', { key: 'big' }, { data: big })).response, { success: 'true' }, 'raised: a 1.2 MB save is taken')
  const encoded = await app.inject({ method: 'POST', url: `/api/game/v1_2/data-store/set/?game_id=${raised.gamejolt_game_id}&key=k&signature=x`, payload: `data=${'%41'.repeat(1_100_000)}`, headers: FORM })
  t.match(encoded.json().response, { success: 'false', message: 'The signature you entered for the request is invalid.' }, 'a 3.3 MB body is read for a game with a 2 MB item (then its signature checked)')
  const chunked = await app.inject({ method: 'POST', url: `/api/game/v1_2/data-store/set/?game_id=${current.gamejolt_game_id + 1_000_000}&key=k&signature=x`, payload: Readable.from((function * () { for (let i = 0; i < 40; i++) yield Buffer.alloc(100_000, 65) })()), headers: FORM })
  t.match(chunked.json().response, { success: 'false', message: /larger than this game takes \(3211264 bytes\)/ }, 'a chunked body for no such game: the default limit, whatever the headers say')
})

t.test('an operator lists, reads and removes items: API and CLI', async t => {
  const { app, redis } = await buildTestApp(t)
  const game = await createGame(app)
  const link = dataOf(await admin(app, 'PUT', `/admin/games/${game.gameId}/gamejolt`, {})) as Link
  const ann = await userWithToken(app, 'Ann')
  const bob = await userWithToken(app, 'bob')
  for (const key of ['slot 3', 'slot 1', 'slot 2']) t.same((await post(app, link, 'data-store/set', { ...ann, key }, { data: `save of ${key}` })).response, { success: 'true' })
  t.same((await post(app, link, 'data-store/set', { ...bob, key: 'only' }, { data: 'bob\'s' })).response, { success: 'true' })
  t.same((await post(app, link, 'data-store/set', { key: 'motd' }, { data: '<b>hello</b>' })).response, { success: 'true' })

  const summary = dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/gamejolt/data`))
  t.same(summary.owners, [{ owner: null, items: 1 }, { owner: 'Ann', items: 3 }, { owner: 'bob', items: 1 }], 'the global store, then each user with items')
  t.same(summary.usage, { items: 5, bytes: Number((await app.redis.hget(keys.gamejoltDataUsage(game.gameId), 'bytes'))) })
  t.equal(summary.limits.item_bytes, 1_048_576)

  const first = dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/gamejolt/data/items?owner=ann&limit=2`))
  t.same(first.items, [{ key: 'slot 1', bytes: 14 }, { key: 'slot 2', bytes: 14 }], 'in key order, with sizes, the name in any letter case')
  t.equal(first.owner, 'Ann', 'the owner as kept')
  const second = dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/gamejolt/data/items?owner=ann&limit=2&cursor=${encodeURIComponent(first.next_cursor)}`))
  t.same(second, { owner: 'Ann', items: [{ key: 'slot 3', bytes: 14 }], next_cursor: null }, 'the next page, the last')
  t.same(dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/gamejolt/data/items`)).items, [{ key: 'motd', bytes: 12 }], 'no owner: the global store')
  t.equal(errorOf(await admin(app, 'GET', `/admin/games/${game.gameId}/gamejolt/data/items?owner=ann&cursor=${encodeURIComponent('bm9wZQ')}`)), 'invalid_param', 'a cursor not of this listing')

  t.same(dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/gamejolt/data/item?owner=Ann&key=${encodeURIComponent('slot 2')}`)), { owner: 'Ann', key: 'slot 2', data: 'save of slot 2', bytes: 14 })
  t.equal(errorOf(await admin(app, 'GET', `/admin/games/${game.gameId}/gamejolt/data/item?owner=Ann&key=nope`)), 'not_found')
  t.equal(errorOf(await admin(app, 'GET', `/admin/games/${game.gameId}/gamejolt/data/item?owner=Ann`)), 'missing_param')
  t.equal(errorOf(await admin(app, 'GET', `/admin/games/${game.gameId}/gamejolt/data/item?owner=__proto__&key=x`)), 'not_found', 'no such user: no such item')
  t.equal(errorOf(await admin(app, 'GET', `/admin/games/${game.gameId}/gamejolt/data/item?owner=a%20b&key=x`)), 'invalid_param', 'not a username')

  t.same(dataOf(await admin(app, 'DELETE', `/admin/games/${game.gameId}/gamejolt/data/item?owner=Ann&key=${encodeURIComponent('slot 2')}`)), { owner: 'Ann', key: 'slot 2', removed: true })
  t.equal(errorOf(await admin(app, 'DELETE', `/admin/games/${game.gameId}/gamejolt/data/item?owner=Ann&key=${encodeURIComponent('slot 2')}`)), 'not_found', 'gone')
  t.same(dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/gamejolt/data`)).owners.find((one: any) => one.owner === 'Ann'), { owner: 'Ann', items: 2 }, 'the count follows')
  const audit = dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/audit?action=gamejolt.data_delete`)).items
  t.match(audit, [{ action: 'gamejolt.data_delete', target: 'Ann', before: { owner: 'Ann', key: 'slot 2' }, after: null }], 'audited')
  t.notMatch(JSON.stringify(audit), /save of/, 'without the data')
  t.equal(errorOf(await app.inject({ method: 'GET', url: `/admin/games/${game.gameId}/gamejolt/data` })), 'unauthorized', 'operators only')

  const gameOff = await createGame(app)
  t.equal(errorOf(await admin(app, 'GET', `/admin/games/${gameOff.gameId}/gamejolt/data`)), 'not_found', 'a game with the API off')

  const { runCli } = await import('../../src/cli.js')
  const cli = async (...argv: string[]): Promise<{ code: number, out: string }> => {
    let out = ''
    const code = await runCli(argv, { out: line => { out += `${line}\n` }, err: () => {}, env: { REDIS_URL: redis.url }, readLine: async () => '' })
    return { code, out }
  }
  const data = await cli('gamejolt', 'data', game.gameId)
  t.equal(data.code, 0)
  t.same(JSON.parse(data.out).owners, [{ owner: null, items: 1 }, { owner: 'Ann', items: 2 }, { owner: 'bob', items: 1 }], 'gamejolt data')
  t.same(JSON.parse((await cli('gamejolt', 'items', game.gameId, '--owner', 'bob')).out).items, [{ key: 'only', bytes: 5 }], 'gamejolt items')
  t.equal(JSON.parse((await cli('gamejolt', 'item', game.gameId, 'motd')).out).data, '<b>hello</b>', 'gamejolt item')
  t.same(JSON.parse((await cli('gamejolt', 'remove-item', game.gameId, 'only', '--owner', 'bob')).out), { owner: 'bob', key: 'only', removed: true }, 'gamejolt remove-item')
  const limits = await cli('gamejolt', 'set', game.gameId, '--private_key', link.private_key, '--items_per_user', '7', '--item_bytes', '4096')
  t.equal(limits.code, 0)
  t.same(JSON.parse(limits.out).data_limits, { item_bytes: 4096, items_per_user: 7, items_per_game: 100_000, game_bytes: 268_435_456 }, 'gamejolt set --items_per_user --item_bytes')
  t.equal((await cli('gamejolt', 'set', game.gameId, '--item_bytes', 'lots')).code === 0, false, 'a limit that is not a number')
})

t.test('a guest\'s saves go with its claim; a person\'s export lists them; erasure takes them', async t => {
  const { app } = await buildTestApp(t)
  const game = await createGame(app)
  dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}`, { guests: 'listed' }))
  const link = dataOf(await admin(app, 'PUT', `/admin/games/${game.gameId}/gamejolt`, {})) as Link
  const ivy = await userWithToken(app, 'ivy')
  t.same((await post(app, link, 'data-store/set', { ...ivy, key: 'both' }, { data: 'ivy\'s own' })).response, { success: 'true' })
  const guestAnswer = await app.inject({ method: 'POST', url: '/auth/guest', payload: formBody({ game_id: game.gameId }), headers: FORM })
  const guest = guestAnswer.json().data.username as string
  const cookie = String(guestAnswer.headers['set-cookie']).split(';')[0] as string
  const guestToken = { username: guest, user_token: dataOf(await admin(app, 'POST', `/admin/users/${guest}/game-token`, {})).game_token as string }
  t.same((await post(app, link, 'data-store/set', { ...guestToken, key: 'both' }, { data: 'the guest\'s' })).response, { success: 'true' })
  t.same((await post(app, link, 'data-store/set', { ...guestToken, key: 'level' }, { data: '7' })).response, { success: 'true' })

  const login = await app.inject({ method: 'POST', url: '/auth/login', payload: formBody({ username: 'ivy', password: STRONG }), headers: { ...FORM, cookie } })
  t.equal(login.statusCode, 200, 'the guest logs in as ivy: a claim')
  const items = dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/gamejolt/data/items?owner=ivy`)).items
  t.same(items.map((item: any) => item.key), ['both', 'level'], 'the guest\'s item moved; the one ivy had stays one')
  t.equal(dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/gamejolt/data/item?owner=ivy&key=both`)).data, 'ivy\'s own', 'the account\'s own data wins')
  t.same(dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/gamejolt/data`)).owners, [{ owner: null, items: 0 }, { owner: 'ivy', items: 2 }], 'the guest owns nothing now')
  t.same(dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/gamejolt/data`)).usage.items, 2, 'usage: the dropped duplicate is gone')

  const exported = dataOf(await admin(app, 'GET', '/admin/users/ivy/export'))
  t.same(exported.games.find((one: any) => one.game_id === game.gameId)?.saved_items, [{ key: 'both', bytes: 9 }, { key: 'level', bytes: 1 }], 'the operator\'s export of a person lists their saves')
  const own = dataOf(await app.inject({ method: 'GET', url: '/auth/account', headers: { cookie: String(login.headers['set-cookie']).split(';')[0] as string } }))
  t.same(own.games.find((one: any) => one.game_id === game.gameId)?.saved_items.length, 2, 'and the person\'s own')
  t.equal(errorOf(await admin(app, 'GET', '/admin/users/nobody/export')), 'not_found')

  dataOf(await admin(app, 'DELETE', '/admin/users/ivy?erase=true'))
  t.same(dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/gamejolt/data`)), { usage: { items: 0, bytes: 0 }, limits: link.data_limits ?? dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/gamejolt`)).data_limits, owners: [{ owner: null, items: 0 }] }, 'erased: no owner, no usage')
})
