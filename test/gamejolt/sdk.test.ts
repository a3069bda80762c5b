import { createRequire } from 'node:module'
import t from 'tap'
import type { GamejoltGameApi } from 'gamejolt-ts-sdk'
import { admin, createGame, dataOf, top } from '../helpers/app.js'
import { gamejolt, type Link } from '../helpers/gamejolt.js'
import { listeningApp } from '../helpers/listening.js'
import { gamejoltIdOf } from '../../src/rules/gamejolt-ids.js'

/*
 * gamejolt-ts-sdk 0.1.1, as npm ships it (its browser bundle, unmodified),
 * talking to this service over a real port. It offers scores (add, fetch),
 * trophies (fetch, add-achieved) and data storage (set, update, fetch,
 * get-keys); nothing else (no tables, ranks, sessions, removals), so the
 * rest is tested elsewhere with other clients' requests.
 */

const STRONG = 'correct horse battery staple'
const require = createRequire(import.meta.url)
const globals = globalThis as Record<string, unknown>

/**
 * The SDK for a game, as a hosted build makes it: its UMD wrapper reads
 * `self` as it loads, and each sub-API reads its player from
 * `window.location.search` (Game Jolt's `gjapi_username` and `gjapi_token`)
 * when it is made. Those globals are there only while it is made. Its
 * requests go to `baseUrl` instead of Game Jolt (the plain property each
 * sub-API keeps its address in), signed over that address like any client.
 */
function sdkFor (baseUrl: string, key: string, gameId: number, player?: { username: string, user_token: string }): GamejoltGameApi {
  const saved = { self: globals.self, window: globals.window }
  globals.self = globalThis
  globals.window = { location: { search: player === undefined ? '' : `?gjapi_username=${player.username}&gjapi_token=${player.user_token}` } }
  try {
    const sdk = require('gamejolt-ts-sdk') as { create: (key: string, gameId: number) => GamejoltGameApi }
    const api = sdk.create(key, gameId)
    for (const part of [api.scores, api.trophies, api.dataStorage]) (part as unknown as { m_baseUrl: string }).m_baseUrl = `${baseUrl}/api/game`
    return api
  } finally {
    globals.self = saved.self
    globals.window = saved.window
    if (saved.self === undefined) delete globals.self
    if (saved.window === undefined) delete globals.window
  }
}

t.test('gamejolt-ts-sdk, unmodified: scores, trophies and data storage land where our own API reads them', { timeout: 60_000 }, async t => {
  const { app, baseUrl } = await listeningApp(t)
  const game = await createGame(app)
  const link = dataOf(await admin(app, 'PUT', `/admin/games/${game.gameId}/gamejolt`, {})) as Link
  dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/boards`, { board_id: 'level-2', name: 'Level 2' }))
  for (const [id, name] of [['cookie', 'Cookie Magnet'], ['job', 'I like this job!']]) {
    dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/achievements`, { achievement_id: id, name, description: 'Eat cookies.' }))
  }
  dataOf(await admin(app, 'POST', '/admin/users', { username: 'ann', password: STRONG }))
  const ann = { username: 'ann', user_token: dataOf(await admin(app, 'POST', '/admin/users/ann/game-token', {})).game_token as string }
  await app.syncRecordCache()
  const api = sdkFor(baseUrl, link.private_key, link.gamejolt_game_id, ann)
  t.equal(api.username, 'ann', 'the player, read from the page\'s address')

  // Scores: the primary table, then a named board by its table id (the SDK cannot list tables: Game Jolt's tables call says it).
  t.same(await api.scores.add({ score: '1,234 Points', sort: 1234, extra_data: 'level 3' }), { success: 'true' }, 'a score added')
  const tables = await gamejolt(app, link, 'scores/tables')
  const level2 = tables.tables.find((table: { name: string }) => table.name === 'Level 2')
  t.equal(level2.id, String(gamejoltIdOf('level-2')))
  t.same(await api.scores.add({ score: '77 seconds', sort: 77, table_id: level2.id }), { success: 'true' }, 'a score on a named board')
  t.match(dataOf(await top(app, game)), { total: 1, items: [{ rank: 1, player_name: 'ann', score: 1234 }] }, 'on the game\'s board, as our API reads it')
  t.match(dataOf(await top(app, game, { board: 'level-2' })), { total: 1, items: [{ player_name: 'ann', score: 77 }] }, 'and on the named board')
  const fetched = await api.scores.fetch({ game_id: String(link.gamejolt_game_id), limit: 5 })
  t.equal(fetched.scores.length, 1)
  t.match(fetched.scores[0], { score: '1,234 Points', sort: '1234', extra_data: 'level 3', user: 'ann', guest: '' }, 'fetched back with its text (the SDK also sends game_id twice, the same)')
  t.same((await api.scores.fetch({ game_id: String(link.gamejolt_game_id), table_id: level2.id })).scores.map(score => score.score), ['77 seconds'])
  // With a player in the address the SDK sends them on every call, so its fetch reads their own scores (here the one
  // best). The whole table, without a player:
  const anyone = sdkFor(baseUrl, link.private_key, link.gamejolt_game_id)
  const gameId = String(link.gamejolt_game_id)
  t.same((await anyone.scores.fetch({ game_id: gameId, better_than: 2000 })).scores, [], 'better_than')
  t.same((await anyone.scores.fetch({ game_id: gameId, worse_than: 2000 })).scores.map(score => score.user), ['ann'], 'worse_than')

  // Trophies: the game's achievements.
  const trophies = await api.trophies.fetch({})
  t.same(trophies.trophies.map(trophy => [trophy.title, trophy.achieved]), [['Cookie Magnet', 'false'], ['I like this job!', 'false']])
  t.same(await api.trophies.addAchieved(gamejoltIdOf('job')), { success: 'true' }, 'unlocked (the SDK writes add_achieved)')
  await t.rejects(api.trophies.addAchieved({ trophy_id: gamejoltIdOf('job') }), { message: 'GameJolt error: The user already has this trophy.' }, 'a failure is thrown with Game Jolt\'s message')
  t.same((await api.trophies.fetch({ achieved: true })).trophies.map(trophy => trophy.title), ['I like this job!'])
  const achievements = dataOf(await app.inject({ method: 'GET', url: `/api/rank?action=achievements&api_key=${game.apiKey}&game_id=${game.gameId}&player_name=ann` }))
  t.same(achievements.items.filter((item: { unlocked_at: string | null }) => item.unlocked_at !== null).map((item: { achievement_id: string }) => item.achievement_id), ['job'], 'unlocked, as our API reads it')

  // Data storage: with a player in the address, every call is the player's own store.
  t.same(await api.dataStorage.set({ key: 'coins', data: '10' }), { success: 'true' })
  t.same(await api.dataStorage.update({ key: 'coins', operation: 'add' as never, value: 5 }), { success: 'true', data: '15' })
  t.same(await api.dataStorage.update({ key: 'coins', operation: 'append' as never, value: ' gold' }), { success: 'true', data: '15 gold' })
  t.same(await api.dataStorage.set({ key: 'save 1', data: 'level 2' }), { success: 'true' }, 'a key with a space, sent unencoded as the SDK does')
  t.same(await api.dataStorage.fetch({ key: 'coins' }), { success: 'true', data: '15 gold' })
  t.same(await api.dataStorage.getKeys(), { success: 'true', keys: [{ key: 'coins' }, { key: 'save 1' }] })
  t.same(await api.dataStorage.getKeys({ pattern: 'sav*' }), { success: 'true', keys: [{ key: 'save 1' }] })
  await t.rejects(api.dataStorage.fetch({ key: 'nothing' }), { message: 'GameJolt error: No item with that key could be found.' })
  t.equal(await app.gamejolt.dataItem(game.gameId, 'coins', 'ann'), '15 gold', 'stored in ann\'s store')
  t.equal(await app.gamejolt.dataItem(game.gameId, 'coins'), null, 'not the game\'s')
  // Without a player, the game's global store.
  t.same(await anyone.dataStorage.set({ key: 'motd', data: 'hello' }), { success: 'true' })
  t.equal(await app.gamejolt.dataItem(game.gameId, 'motd'), 'hello', 'in the game\'s store')
  t.same(await anyone.dataStorage.getKeys(), { success: 'true', keys: [{ key: 'motd' }] })
  t.equal(globals.window, undefined, 'the globals the SDK needed are gone again')
})

t.test('gamejolt-ts-sdk with a wrong private key: every call refused, nothing stored', { timeout: 60_000 }, async t => {
  const { app, baseUrl } = await listeningApp(t)
  const game = await createGame(app)
  const link = dataOf(await admin(app, 'PUT', `/admin/games/${game.gameId}/gamejolt`, {})) as Link
  dataOf(await admin(app, 'POST', '/admin/users', { username: 'ann', password: STRONG }))
  const ann = { username: 'ann', user_token: dataOf(await admin(app, 'POST', '/admin/users/ann/game-token', {})).game_token as string }
  await app.syncRecordCache()
  const forged = sdkFor(baseUrl, `${link.private_key}x`, link.gamejolt_game_id, ann)
  const refused = { message: 'GameJolt error: The signature you entered for the request is invalid.' }
  await t.rejects(forged.scores.add({ score: '5', sort: 5 }), refused)
  await t.rejects(forged.dataStorage.set({ key: 'coins', data: '1' }), refused)
  await t.rejects(forged.trophies.fetch({}), refused)
  t.match(dataOf(await top(app, game)), { total: 0 }, 'no score')
  t.equal(await app.gamejolt.dataItem(game.gameId, 'coins', 'ann'), null, 'no item')
  const wrongGame = sdkFor(baseUrl, link.private_key, link.gamejolt_game_id + 1, ann)
  await t.rejects(wrongGame.scores.add({ score: '5', sort: 5 }), { message: 'GameJolt error: The game ID you passed in does not point to a valid game.' })
})
