import { createHash } from 'node:crypto'
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { admin, buildTestApp, createGame, dataOf, formBody } from '../helpers/app.js'

/* Game Jolt's data store (docs/gamejolt.md#data-store): cloud saves, global and per user. */

const STRONG = 'correct horse battery staple'
const md5 = (text: string): string => createHash('md5').update(text).digest('hex')

interface Link { gamejolt_game_id: number, private_key: string }

async function gamejolt (app: FastifyInstance, link: Link, endpoint: string, query: Record<string, string> = {}, post?: Record<string, string>): Promise<Record<string, any>> {
  const path = `/api/game/v1_2/${endpoint}/?${formBody({ game_id: String(link.gamejolt_game_id), ...query })}`
  if (post !== undefined) {
    const fields = Object.keys(post).sort().map(name => `${name}${post[name] as string}`).join('')
    const answer = await app.inject({ method: 'POST', url: `${path}&signature=${md5(`https://api.gamejolt.com${path}${fields}${link.private_key}`)}`, payload: formBody(post), headers: { 'content-type': 'application/x-www-form-urlencoded' } })
    return answer.json().response
  }
  const answer = await app.inject({ method: 'GET', url: `${path}&signature=${md5(`https://api.gamejolt.com${path}${link.private_key}`)}` })
  return answer.json().response
}

t.test('set, fetch, update, remove and get-keys, global and per user, in Game Jolt\'s words', async t => {
  const { app } = await buildTestApp(t)
  const game = await createGame(app)
  const link = dataOf(await admin(app, 'PUT', `/admin/games/${game.gameId}/gamejolt`, {})) as Link
  dataOf(await admin(app, 'POST', '/admin/users', { username: 'ann', password: STRONG }))
  const ann = { username: 'ann', user_token: dataOf(await admin(app, 'POST', '/admin/users/ann/game-token', {})).game_token as string }
  const ok = { success: 'true' }

  t.same(await gamejolt(app, link, 'data-store/set', { key: 'save 1' }, { data: 'hello world & more' }), ok, 'set, the data posted')
  t.same(await gamejolt(app, link, 'data-store', { key: 'save 1' }), { success: 'true', data: 'hello world & more' }, 'fetched back whole')
  t.same(await gamejolt(app, link, 'data-store', { ...ann, key: 'save 1' }), { success: 'false', message: 'No item with that key could be found.' }, 'a user\'s store is not the game\'s')
  t.same(await gamejolt(app, link, 'data-store/set', { ...ann, key: 'coins', data: '10' }), ok)
  t.same(await gamejolt(app, link, 'data-store/update', { ...ann, key: 'coins', operation: 'add', value: '5' }), { success: 'true', data: '15' })
  t.same(await gamejolt(app, link, 'data-store/update', { ...ann, key: 'coins', operation: 'divide', value: '2' }), { success: 'true', data: '7.5' })
  t.same(await gamejolt(app, link, 'data-store/update', { ...ann, key: 'coins', operation: 'multiply', value: '4' }), { success: 'true', data: '30' })
  t.same(await gamejolt(app, link, 'data-store/update', { ...ann, key: 'coins', operation: 'subtract', value: '0.5' }), { success: 'true', data: '29.5' })
  t.same(await gamejolt(app, link, 'data-store/update', { ...ann, key: 'coins', operation: 'append', value: ' gold' }), { success: 'true', data: '29.5 gold' })
  t.same(await gamejolt(app, link, 'data-store/update', { ...ann, key: 'coins', operation: 'prepend', value: '$' }), { success: 'true', data: '$29.5 gold' })
  const message = async (query: Record<string, string>) => (await gamejolt(app, link, 'data-store/update', { ...ann, ...query })).message as string
  t.equal(await message({ key: 'coins', operation: 'add', value: '1' }), 'Mathematical operations require the pre-existing data stored to also be numeric.')
  t.same(await gamejolt(app, link, 'data-store/set', { ...ann, key: 'n', data: '8' }), ok)
  t.equal(await message({ key: 'n', operation: 'add', value: 'x' }), 'Value must be numeric if operation is mathematical.')
  t.equal(await message({ key: 'n', operation: 'divide', value: '0' }), 'GAME JOLT STOP: 0x00000019 (0x00000000, 0xC00E0FF0, 0xFFFFEFD4, 0xC0000000) UNIVERSAL_COLLAPSE')
  t.equal(await message({ key: 'n', operation: 'power', value: '2' }), 'Operation must be add, subtract, multiply, divide, append or prepend.')
  t.equal(await message({ key: 'n', value: '2' }), 'You must enter an operation with the request.')
  t.equal(await message({ key: 'n', operation: 'add' }), 'You must enter an value with the request.')
  t.equal(await message({ key: 'nothing', operation: 'add', value: '1' }), 'There is no item with the key passed in: nothing')
  t.equal(await message({ operation: 'add', value: '1' }), 'You must enter the key for the item you would like to retrieve data for.')
  t.equal((await gamejolt(app, link, 'data-store/set', { key: 'x' })).message, 'You must enter data with the request.')
  t.same(await gamejolt(app, link, 'data-store', { ...ann, key: 'n' }), { success: 'true', data: '8' }, 'a refused update changed nothing')

  for (const key of ['save 2', 'level|1', 'level|2']) t.same(await gamejolt(app, link, 'data-store/set', { key, data: 'x' }), ok)
  t.same(await gamejolt(app, link, 'data-store/get-keys'), { success: 'true', keys: [{ key: 'level|1' }, { key: 'level|2' }, { key: 'save 1' }, { key: 'save 2' }] })
  t.same(await gamejolt(app, link, 'data-store/get-keys', { pattern: 'level|*' }), { success: 'true', keys: [{ key: 'level|1' }, { key: 'level|2' }] }, 'a pattern, * for any text, | as itself')
  t.same(await gamejolt(app, link, 'data-store/get-keys', ann), { success: 'true', keys: [{ key: 'coins' }, { key: 'n' }] }, 'a user\'s keys')
  t.same(await gamejolt(app, link, 'data-store/remove', { key: 'save 2' }), ok)
  t.same(await gamejolt(app, link, 'data-store/remove', { key: 'save 2' }), { success: 'false', message: 'There is no item with the key passed in: save 2' })
  t.same(await gamejolt(app, link, 'data_store/fetch', { key: 'save 1' }), { success: 'true', data: 'hello world & more' }, 'data_store/fetch spelling')

  const dump = await app.inject({ method: 'GET', url: (() => { const path = `/api/game/v1_2/data-store/?game_id=${link.gamejolt_game_id}&key=save%201&format=dump`; return `${path}&signature=${md5(`https://api.gamejolt.com${path}${link.private_key}`)}` })() })
  t.equal(dump.body, 'SUCCESS\r\nhello world & more', 'dump: exactly the data after SUCCESS')
  const huge = await gamejolt(app, link, 'data-store/set', { key: 'big' }, { data: 'x'.repeat(1_048_577) })
  t.match(huge.message, /past this game's limit for one item/, 'an item past 1 MiB is refused')
  t.same(await gamejolt(app, link, 'data-store', { key: 'big' }), { success: 'false', message: 'No item with that key could be found.' }, 'nothing partly written')
})

t.test('erasing a user erases their data store items and session; the game\'s own stay', async t => {
  const { app } = await buildTestApp(t)
  const game = await createGame(app)
  const link = dataOf(await admin(app, 'PUT', `/admin/games/${game.gameId}/gamejolt`, {})) as Link
  dataOf(await admin(app, 'POST', '/admin/users', { username: 'ann', password: STRONG }))
  const ann = { username: 'ann', user_token: dataOf(await admin(app, 'POST', '/admin/users/ann/game-token', {})).game_token as string }
  t.same(await gamejolt(app, link, 'data-store/set', { ...ann, key: 'save', data: 'personal' }), { success: 'true' })
  t.same(await gamejolt(app, link, 'data-store/set', { key: 'world', data: 'shared' }), { success: 'true' })
  t.same(await gamejolt(app, link, 'sessions/open', ann), { success: 'true' })
  dataOf(await admin(app, 'DELETE', '/admin/users/ann?erase=true'))
  const client = app.redis
  const { keys } = await import('../../src/store/keys.js')
  t.equal(await client.exists(keys.gamejoltData(game.gameId, 'ann')), 0, 'the user\'s items are gone')
  t.equal(await client.hexists(keys.gamejoltSessions(game.gameId), 'ann'), 0, 'and their session')
  t.same(await client.hgetall(keys.gamejoltDataUsage(game.gameId)), { items: '1', bytes: String('world'.length + 'shared'.length) }, 'the game\'s usage follows')
  t.same(await gamejolt(app, link, 'data-store', { key: 'world' }), { success: 'true', data: 'shared' }, 'the game\'s own item stays')
})
