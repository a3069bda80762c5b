import t from 'tap'
import { computeSignature } from '../../../src/rules/signature.js'
import { entryBucket, keys } from '../../../src/store/keys.js'
import { ADMIN_TOKEN, admin, buildTestApp, createGame, dataOf, errorOf, formBody, get, submit, type TestGame } from '../../helpers/app.js'

/*
 * Achievements (docs/interface.md#achievements): a game's achievements,
 * unlocked by a board's stored score reaching a threshold or by the game
 * (signed, or by session), listed for a player with hidden ones masked and
 * each one's rarity; icons uploaded, checked by their bytes, served as
 * their type.
 */

const { app } = await buildTestApp(t)
const redis = app.redis

const make = async (game: TestGame, settings: Record<string, unknown>): Promise<any> => dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/achievements`, settings))
const listOf = async (game: TestGame, player?: string): Promise<any> =>
  dataOf(await get(app, '/api/rank', { action: 'achievements', api_key: game.apiKey, game_id: game.gameId, ...(player === undefined ? {} : { player_name: player }) }))

/** A signed unlock, as a game server sends it: unlock:<id> signed where the score goes. */
async function unlock (game: TestGame, player: string, id: string, signedId = id, extra: Record<string, string> = {}): Promise<any> {
  const fields = { api_key: game.apiKey, game_id: game.gameId, player_name: player, ts: String(Math.floor(Date.now() / 1000)) }
  const sign = computeSignature(game.apiSecret, { ...fields, score: `unlock:${signedId}` })
  return await app.inject({ method: 'POST', url: '/api/rank?action=unlock', payload: formBody({ ...fields, achievement_id: id, sign, ...extra }), headers: { 'content-type': 'application/x-www-form-urlencoded' } })
}

// The smallest PNG: a 1x1 transparent pixel.
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000' + '1f15c4890000000d49444154789c636000010000050001' + '0d0a2db40000000049454e44ae426082', 'hex')

t.test('operators make, read, change and delete achievements; bad input is refused with nothing written', async t => {
  const game = await createGame(app)
  dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/boards`, { board_id: 'lap', order: 'asc' }))
  const made = await make(game, { achievement_id: 'first-steps', name: 'First steps', description: 'Score 100.', points: 10, rule: { board: 'default', at_least: 100 } })
  t.match(made, { achievement_id: 'first-steps', name: 'First steps', points: 10, hidden: false, rule: { board: 'default', at_least: 100, at_most: null }, icon: null, created_at: /Z$/ })
  await make(game, { achievement_id: 'fast-lap', rule: { board: 'lap', at_most: 60_000 }, hidden: true })
  await make(game, { achievement_id: 'secret-door' })
  t.same(dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/achievements`)).items.map((item: any) => item.achievement_id), ['fast-lap', 'first-steps', 'secret-door'])
  t.match(dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}/achievements/secret-door`, { points: 50, description: 'Find it.' })), { points: 50, description: 'Find it.', name: 'secret-door' })

  const refused: Array<[Record<string, unknown>, string, RegExp]> = [
    [{ achievement_id: 'a:b' }, 'invalid_param', /achievement_id/],
    [{ achievement_id: '{game:x}' }, 'invalid_param', /achievement_id/],
    [{ achievement_id: 'x', rule: { board: 'default' } }, 'invalid_param', /one of at_least or at_most/],
    [{ achievement_id: 'x', rule: { board: 'default', at_least: 1, at_most: 2 } }, 'invalid_param', /one of at_least or at_most/],
    [{ achievement_id: 'x', rule: { board: 'nope', at_least: 1 } }, 'invalid_param', /no board "nope"/],
    [{ achievement_id: 'x', points: 1001 }, 'invalid_param', /points/],
    [{ achievement_id: 'first-steps' }, 'already_exists', /already/],
    [{ achievement_id: 'x', __proto__: { points: 5 }, constructor: 'y' }, 'invalid_param', /"constructor" is not valid/]
  ]
  for (const [body, code, message] of refused) {
    const answer = await admin(app, 'POST', `/admin/games/${game.gameId}/achievements`, body)
    t.equal(errorOf(answer), code, JSON.stringify(body))
    t.match(answer.json().message, message)
  }
  t.equal(dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/achievements`)).total, 3, 'nothing half-written')
  t.equal(errorOf(await admin(app, 'GET', `/admin/games/${game.gameId}/achievements/nope`)), 'not_found')
  dataOf(await admin(app, 'DELETE', `/admin/games/${game.gameId}/achievements/secret-door`))
  t.equal(errorOf(await admin(app, 'DELETE', `/admin/games/${game.gameId}/achievements/secret-door`)), 'not_found')
  const audit = dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/audit?action=achievement.`)).items
  t.same(audit.map((entry: any) => entry.action).sort(), ['achievement.create', 'achievement.create', 'achievement.create', 'achievement.delete', 'achievement.update'], 'every write audited')
})

t.test('a board\'s stored score unlocks its thresholds at the edge, once; a sum board by its total; the answer says what it unlocked', async t => {
  const game = await createGame(app)
  dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/boards`, { board_id: 'lap', order: 'asc' }))
  dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/boards`, { board_id: 'coins', operator: 'sum' }))
  await make(game, { achievement_id: 'hundred', rule: { board: 'default', at_least: 100 } })
  await make(game, { achievement_id: 'sub-minute', rule: { board: 'lap', at_most: 60_000 } })
  await make(game, { achievement_id: 'rich', rule: { board: 'coins', at_least: 50 } })
  t.same(dataOf(await submit(app, game, { player: 'ann', score: 99 })), { score: 99, improved: true, best_score: 99, rank: 1 }, 'below: nothing unlocked, the v1 answer')
  t.match(dataOf(await submit(app, game, { player: 'ann', score: 100 })), { best_score: 100, unlocked: ['hundred'] }, 'at the threshold: unlocked')
  t.equal(dataOf(await submit(app, game, { player: 'ann', score: 500 })).unlocked, undefined, 'once')
  t.equal(dataOf(await submit(app, game, { player: 'ann', score: 60_001, board: 'lap' })).unlocked, undefined, 'at most: one ms too slow')
  t.same(dataOf(await submit(app, game, { player: 'ann', score: 60_000, board: 'lap' })).unlocked, ['sub-minute'])
  t.equal(dataOf(await submit(app, game, { player: 'ann', score: 30, board: 'coins' })).unlocked, undefined)
  t.same(dataOf(await submit(app, game, { player: 'ann', score: 20, board: 'coins' })).unlocked, ['rich'], 'the total reached 50')
  const many = dataOf(await submit(app, game, { player: 'bob', score: '150,59000', board: 'default,lap' }))
  t.same(many.boards.map((part: any) => part.unlocked), [['hundred'], ['sub-minute']], 'several boards: each part says what it unlocked')
  // A threshold made after the score: the next accepted submit of that board unlocks it, better or not.
  await make(game, { achievement_id: 'fifty', rule: { board: 'default', at_least: 50 } })
  t.same(dataOf(await submit(app, game, { player: 'ann', score: 1 })).unlocked, ['fifty'], 'the stored best reaches it')
  const list = await listOf(game, 'ann')
  t.same(list.items.filter((item: any) => item.unlocked_at !== null).map((item: any) => item.achievement_id), ['fifty', 'hundred', 'rich', 'sub-minute'])
  t.equal(list.unlocked, 4)
})

t.test('the list: hidden ones masked until unlocked, rarity among the game\'s players, points', async t => {
  const game = await createGame(app)
  await make(game, { achievement_id: 'open', name: 'Open', points: 5, rule: { board: 'default', at_least: 10 } })
  await make(game, { achievement_id: 'secret-boss', name: 'The boss was the narrator', description: 'Spoiler.', points: 20, hidden: true })
  for (const [player, score] of [['ann', 20], ['bob', 5], ['cy', 30], ['dee', 1]] as const) dataOf(await submit(app, game, { player, score }))
  const anyone = await listOf(game)
  t.equal(anyone.players, 4, 'four players known to the achievements')
  t.same(anyone.items, [
    { achievement_id: 'open', name: 'Open', description: '', points: 5, hidden: false, icon_url: null, unlocked_at: null, rarity: 50 },
    { achievement_id: null, name: null, description: null, points: null, hidden: true, icon_url: null, unlocked_at: null, rarity: null }
  ], 'the hidden one: nothing of it but that it exists')
  t.notMatch(JSON.stringify(anyone), /secret-boss|narrator|Spoiler/, 'no trace of it')
  t.match(dataOf(await unlock(game, 'ann', 'secret-boss')), { achievement_id: 'secret-boss', player_name: 'ann', unlocked: true })
  const unsigned = await listOf(game, 'ann')
  t.match(unsigned, { player_name: 'ann', unlocked: 1, points: 5 }, 'the sums count what the list shows: nothing tells of the masked unlock')
  t.notMatch(JSON.stringify(unsigned), /secret-boss|narrator/, 'the API key is public: an unsigned read of ann\'s list masks it all the same')
  t.same(unsigned.items.at(-1), { achievement_id: null, name: null, description: null, points: null, hidden: true, icon_url: null, unlocked_at: null, rarity: null }, 'masked as it is for a player who has not unlocked it')
  const withoutTimes = (list: any): unknown => ({ ...list, player_name: undefined, items: list.items.map((item: any) => ({ ...item, unlocked_at: item.unlocked_at === null ? null : 'a time' })) })
  t.same(withoutTimes(await listOf(game, 'cy')), withoutTimes(unsigned), 'ann\'s unsigned list reads as cy\'s, who did not unlock it (but for when each unlocked the open one)')
  // Signed by the game's server (the text achievements in the score's place), ann's list shows what she unlocked.
  const fields = { api_key: game.apiKey, game_id: game.gameId, player_name: 'ann', ts: String(Math.floor(Date.now() / 1000)) }
  const ann = dataOf(await get(app, '/api/rank', { action: 'achievements', ...fields, sign: computeSignature(game.apiSecret, { ...fields, score: 'achievements' }) }))
  t.match(ann, { unlocked: 2, points: 25 }, 'signed: her sums count the hidden one she unlocked')
  t.match(ann.items.find((item: any) => item.achievement_id === 'secret-boss'), { name: 'The boss was the narrator', hidden: true, unlocked_at: /Z$/, rarity: 25 })
  t.equal(errorOf(await get(app, '/api/rank', { action: 'achievements', ...fields, sign: computeSignature(game.apiSecret, { ...fields, score: 'unlock:secret-boss' }) })), 'invalid_signature', 'signed as a list, nothing else')
  t.notMatch(JSON.stringify(await listOf(game, 'bob')), /secret-boss/, 'still masked for the others')
  const self = await app.inject({ method: 'GET', url: `/api/rank?action=achievements-self&game_id=${game.gameId}` })
  t.equal(errorOf(self), 'not_logged_in')
})

t.test('the game unlocks: signed for that achievement only, idempotent, by session too', async t => {
  const game = await createGame(app)
  await make(game, { achievement_id: 'door' })
  await make(game, { achievement_id: 'vault' })
  const first = dataOf(await unlock(game, 'eve', 'door'))
  t.match(first, { unlocked: true, unlocked_at: /Z$/ })
  const again = dataOf(await unlock(game, 'eve', 'door'))
  t.same(again, { ...first, unlocked: false }, 'again: nothing changes, the first time stays')
  t.equal(errorOf(await unlock(game, 'eve', 'vault', 'door')), 'invalid_signature', 'a signature for another achievement')
  t.equal(errorOf(await unlock(game, 'eve', 'nope')), 'invalid_param', 'no such achievement')
  t.equal(errorOf(await unlock(game, 'eve', 'a:b')), 'invalid_param')

  await admin(app, 'POST', '/admin/users', { username: 'fay', password: 'correct horse battery staple' })
  const session = dataOf(await admin(app, 'POST', '/admin/sessions', { username: 'fay' }))
  const bySession = await app.inject({ method: 'POST', url: '/api/rank?action=unlock-self', payload: formBody({ game_id: game.gameId, achievement_id: 'vault' }), headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `sid=${session.session_id as string}` } })
  t.match(dataOf(bySession), { achievement_id: 'vault', player_name: 'fay', unlocked: true })
  const mine = await app.inject({ method: 'GET', url: `/api/rank?action=achievements-self&game_id=${game.gameId}`, headers: { cookie: `sid=${session.session_id as string}` } })
  t.match(dataOf(mine), { player_name: 'fay', unlocked: 1, items: [{ achievement_id: 'door', unlocked_at: null }, { achievement_id: 'vault', unlocked_at: /Z$/, rarity: 50 }] })
})

t.test('icons: an image by its bytes, at most 64 KiB, served as its type; a hidden one\'s only with its version', async t => {
  const game = await createGame(app)
  await make(game, { achievement_id: 'shown' })
  await make(game, { achievement_id: 'secret', hidden: true })
  const put = async (id: string, body: Buffer, type = 'image/png'): Promise<any> =>
    await app.inject({ method: 'PUT', url: `/admin/games/${game.gameId}/achievements/${id}/icon`, payload: body, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': type } })
  const set = dataOf(await put('shown', PNG, 'image/jpeg'))
  t.match(set.icon, { content_type: 'image/png', bytes: PNG.length, etag: /^[A-Za-z0-9_-]{16}$/ }, 'a PNG, whatever it was sent as')
  t.equal(errorOf(await put('shown', Buffer.from('<svg onload="alert(1)"></svg>'), 'image/png')), 'invalid_body', 'not an image')
  t.equal(errorOf(await put('shown', Buffer.alloc(0))), 'invalid_body', 'empty')
  const big = await put('shown', Buffer.concat([PNG, Buffer.alloc(70_000)]))
  t.equal(errorOf(big), 'payload_too_large', 'past 64 KiB')
  const huge = await app.inject({ method: 'PUT', url: `/admin/games/${game.gameId}/achievements/shown/icon`, payload: Buffer.alloc(50 * 1024 * 1024), headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'image/png' } })
  t.equal(errorOf(huge), 'payload_too_large', '50 MB')
  t.equal(errorOf(await put('nope', PNG)), 'not_found')
  t.same(dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/achievements/shown`)).icon, set.icon, 'the first icon stays')

  const item = (await listOf(game)).items.find((one: any) => one.achievement_id === 'shown')
  t.equal(item.icon_url, `/play/${game.gameId}/achievements/shown/icon?v=${set.icon.etag as string}`)
  const served = await app.inject({ method: 'GET', url: item.icon_url })
  t.equal(served.statusCode, 200)
  t.equal(served.headers['content-type'], 'image/png')
  t.same(served.rawPayload, PNG, 'the bytes uploaded')
  t.equal(served.headers['cache-control'], 'public, max-age=31536000, immutable')
  t.equal(served.headers['x-content-type-options'], 'nosniff')

  const secret = dataOf(await put('secret', PNG))
  t.equal(errorOf(await app.inject({ method: 'GET', url: `/play/${game.gameId}/achievements/secret/icon` })), 'not_found', 'a hidden one\'s icon without its version')
  t.equal((await app.inject({ method: 'GET', url: `/play/${game.gameId}/achievements/secret/icon?v=${secret.icon.etag as string}` })).statusCode, 200)
  t.equal(dataOf(await admin(app, 'DELETE', `/admin/games/${game.gameId}/achievements/shown/icon`)).icon, null)
  t.equal(errorOf(await app.inject({ method: 'GET', url: item.icon_url })), 'not_found', 'removed')
})

t.test('erasure takes a player\'s achievements and their counts; one deleted and made again starts anew; events for webhooks', async t => {
  const game = await createGame(app)
  await redis.hset(keys.game(game.gameId), 'webhooks', '1')
  await make(game, { achievement_id: 'hundred', rule: { board: 'default', at_least: 100 } })
  dataOf(await submit(app, game, { player: 'gus', score: 150 }))
  dataOf(await submit(app, game, { player: 'hal', score: 150 }))
  t.match((await listOf(game)).items[0], { rarity: 100 })
  const events = (await redis.xrange(keys.events(game.gameId), '-', '+'))
    .map(([, fields]) => Object.fromEntries(Array.from({ length: fields.length / 2 }, (_, i) => [fields[2 * i], fields[2 * i + 1]])))
    .filter(event => event.type === 'achievement.unlocked').map(event => JSON.parse(event.data as string))
  t.match(events, [{ player_name: 'gus', achievement_id: 'hundred' }, { player_name: 'hal', achievement_id: 'hundred' }])

  t.match(dataOf(await admin(app, 'DELETE', '/admin/players/gus')), { achievements: 1 })
  const after = await listOf(game, 'gus')
  t.match(after, { players: 1, unlocked: 0 })
  t.equal(after.items[0].rarity, 100, 'hal alone: all of the players left')

  dataOf(await admin(app, 'DELETE', `/admin/games/${game.gameId}/achievements/hundred`))
  await make(game, { achievement_id: 'hundred', rule: { board: 'default', at_least: 1000 } })
  t.match(await listOf(game, 'hal'), { unlocked: 0, items: [{ achievement_id: 'hundred', unlocked_at: null, rarity: 0 }] }, 'made again: the old unlock does not count')
})

t.test('a game that requires runs takes an unlock only with a run of the player', async t => {
  const game = await createGame(app)
  dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}`, { runs: 'required' }))
  await make(game, { achievement_id: 'boss' })
  t.equal(errorOf(await unlock(game, 'kai', 'boss')), 'run_required')
  const ts = String(Math.floor(Date.now() / 1000))
  const startFields = { api_key: game.apiKey, game_id: game.gameId, player_name: 'kai', ts }
  const started = dataOf(await app.inject({ method: 'POST', url: '/api/rank?action=run-start', payload: formBody({ ...startFields, sign: computeSignature(game.apiSecret, { ...startFields, score: 'run-start' }) }), headers: { 'content-type': 'application/x-www-form-urlencoded' } }))
  t.equal(errorOf(await unlock(game, 'kai', 'boss', 'boss', { run_id: 'A'.repeat(22) })), 'invalid_run', 'an unknown run')
  t.equal(errorOf(await unlock(game, 'lea', 'boss', 'boss', { run_id: started.run_id })), 'invalid_run', 'another player\'s run')
  t.match(dataOf(await unlock(game, 'kai', 'boss', 'boss', { run_id: started.run_id })), { unlocked: true })
  dataOf(await submit(app, game, { player: 'kai', score: 5, extra: { run_id: started.run_id } }))
  t.match(dataOf(await unlock(game, 'kai', 'boss', 'boss', { run_id: started.run_id })), { unlocked: false }, 'a run that took its score still vouches')
})

t.test('an achievement\'s min_run_seconds: an unlock by the game needs a run with that much verified play', async t => {
  const game = await createGame(app)
  const refused = await admin(app, 'POST', `/admin/games/${game.gameId}/achievements`, { achievement_id: 'boss', min_run_seconds: 1 })
  t.equal(errorOf(refused), 'invalid_param', 'a run\'s play, in a game that keeps no runs')
  t.match(refused.json().message, /min_run_seconds.*keeps no runs/)
  dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}`, { runs: 'optional' }))
  t.match(await make(game, { achievement_id: 'boss', points: 500, hidden: true, min_run_seconds: 1 }), { min_run_seconds: 1 })
  t.match(await make(game, { achievement_id: 'first-jump' }), { min_run_seconds: 0 }, 'none by default')
  t.equal(errorOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}/achievements/boss`, { min_run_seconds: -1 })), 'invalid_param')

  await admin(app, 'POST', '/admin/users', { username: 'rae', password: 'correct horse battery staple' })
  const cookie = `sid=${dataOf(await admin(app, 'POST', '/admin/sessions', { username: 'rae' })).session_id as string}`
  const self = async (action: string, fields: Record<string, string>): Promise<any> =>
    await app.inject({ method: 'POST', url: `/api/rank?action=${action}`, payload: formBody({ game_id: game.gameId, ...fields }), headers: { 'content-type': 'application/x-www-form-urlencoded', cookie } })
  const runId = dataOf(await self('run-start-self', {})).run_id as string
  t.equal(errorOf(await self('unlock-self', { achievement_id: 'boss' })), 'run_required', 'without a run, on a game where runs are optional')
  const early = await self('unlock-self', { achievement_id: 'boss', run_id: runId })
  t.equal(errorOf(early), 'play_required', 'at once after the run began: no verified play yet')
  t.match(early.json().message, /needs 1 s .* has 0 s: 1 more second/)
  t.match(dataOf(await self('unlock-self', { achievement_id: 'first-jump' })), { unlocked: true }, 'an achievement without a minimum, as before')
  t.match(await listOf(game, 'rae'), { unlocked: 1, points: 0 }, 'the boss not unlocked')
  // Played a little over a second, reported: the run has it.
  await new Promise(resolve => setTimeout(resolve, 1100))
  const reported = await app.inject({ method: 'POST', url: '/api/playtime', payload: formBody({ game_id: game.gameId, seconds: '300', run_id: runId }), headers: { 'content-type': 'application/x-www-form-urlencoded', cookie } })
  t.ok(dataOf(reported).run_verified_seconds >= 1)
  t.match(dataOf(await self('unlock-self', { achievement_id: 'boss', run_id: runId })), { achievement_id: 'boss', unlocked: true })
  // Signed by the game's server: the same rule, for the runs started with its keys.
  t.equal(errorOf(await unlock(game, 'sol', 'boss')), 'run_required')
})

t.test('a board an achievement unlocks on cannot be deleted; a change naming no board writes nothing; a stale pair is not counted twice', async t => {
  const game = await createGame(app)
  dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/boards`, { board_id: 'lap', order: 'asc' }))
  await make(game, { achievement_id: 'quick', rule: { board: 'lap', at_most: 1000 } })
  const refused = await admin(app, 'DELETE', `/admin/games/${game.gameId}/boards/lap`)
  t.equal(errorOf(refused), 'invalid_param')
  t.match(refused.json().message, /Achievements unlock on this board \(quick\)/)
  t.equal(errorOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}/achievements/quick`, { rule: { board: 'nope', at_least: 5 } })), 'invalid_param')
  t.same(dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/achievements/quick`)).rule, { board: 'lap', at_most: 1000, at_least: null }, 'nothing written')
  dataOf(await submit(app, game, { player: 'mo', score: 900, board: 'lap' }))
  // A field with an older pair of the same id before the one that counts (a claim can leave one): erased once.
  const field = await redis.hget(keys.achieved(game.gameId, 'mo'), 'mo')
  await redis.hset(keys.achieved(game.gameId, 'mo'), 'mo', `quick 1\n${field as string}`)
  t.match(dataOf(await admin(app, 'DELETE', '/admin/players/mo')), { achievements: 1 })
  t.equal(await redis.hget(keys.achievementCounts(game.gameId), 'quick'), '0', 'the count back to 0, not below')
  dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}/achievements/quick`, { rule: null }))
  dataOf(await admin(app, 'DELETE', `/admin/games/${game.gameId}/boards/lap`))
  t.pass('with no rule on it, the board can go')
})

t.test('a held score approved after an achievement was made unlocks it at the achievement\'s making, once', async t => {
  const game = await createGame(app)
  dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}`, { review_above: 1000 }))
  t.match(dataOf(await submit(app, game, { player: 'nia', score: 5000 })), { held: true })
  await new Promise(resolve => setTimeout(resolve, 5))
  await make(game, { achievement_id: 'big', rule: { board: 'default', at_least: 5000 } })
  const held = dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/review`)).items[0]
  dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/review/${held.held_id as string}/approve`, {}))
  const list = await listOf(game, 'nia')
  t.match(list, { unlocked: 1, items: [{ achievement_id: 'big', unlocked_at: /Z$/, rarity: 100 }] }, 'shown, and counted once')
  dataOf(await submit(app, game, { player: 'nia', score: 10 }))
  t.equal(await redis.hget(keys.achievementCounts(game.gameId), 'big'), '1', 'a later submit does not count it again')
})

t.test('operators export the unlocks: every player\'s, or one player\'s, or one achievement\'s, as NDJSON or CSV', async t => {
  const game = await createGame(app)
  await make(game, { achievement_id: 'boss' })
  await make(game, { achievement_id: 'gone' })
  await make(game, { achievement_id: 'ten', rule: { board: 'default', at_least: 10 } })
  const players = Array.from({ length: 300 }, (_, i) => `p${i}`)
  for (const player of players) t.equal(dataOf(await unlock(game, player, 'boss')).unlocked, true)
  dataOf(await submit(app, game, { player: '=cmd', score: 10 }))
  dataOf(await unlock(game, '=cmd', 'gone'))
  dataOf(await admin(app, 'DELETE', `/admin/games/${game.gameId}/achievements/gone`))

  const file = async (query: string): Promise<{ type: string, disposition: string, lines: string[] }> => {
    const response = await admin(app, 'GET', `/admin/games/${game.gameId}/unlocks${query}`)
    t.equal(response.statusCode, 200)
    return { type: String(response.headers['content-type']), disposition: String(response.headers['content-disposition']), lines: response.body.split(/\r?\n/).filter(line => line !== '') }
  }
  const all = await file('')
  t.equal(all.type, 'application/x-ndjson; charset=utf-8')
  t.equal(all.disposition, `attachment; filename="${game.gameId}-unlocks.ndjson"`)
  const records = all.lines.map(line => JSON.parse(line))
  t.equal(records.length, 301, 'every unlock that counts once, across the buckets (a deleted achievement\'s not)')
  t.same(new Set(records.filter(record => record.achievement_id === 'boss').map(record => record.player_name)), new Set(players))
  t.match(records.find(record => record.player_name === '=cmd'), { achievement_id: 'ten', unlocked_at: /^\d{4}-\d\d-\d\dT.*Z$/ })
  t.same(Object.keys(records[0]), ['player_name', 'achievement_id', 'unlocked_at'])

  const csv = await file('?format=csv&player_name=%3Dcmd')
  t.equal(csv.type, 'text/csv; charset=utf-8')
  t.same(csv.lines.map(line => line.replace(/,[^,]*Z$/, ',<at>')), ['player_name,achievement_id,unlocked_at', '\'=cmd,ten,<at>'], 'one player\'s; a formula is not run by a spreadsheet')
  t.equal((await file('?achievement_id=ten')).lines.length, 1, 'one achievement\'s')
  t.equal((await file('?player_name=nobody')).lines.length, 0, 'a player with none: an empty file')

  // One bucket of many players is walked in several HSCAN steps: each of them once all the same.
  const crowded: string[] = []
  for (let i = 0; crowded.length < 530; i++) if (entryBucket(`c${i}`) === entryBucket('c0')) crowded.push(`c${i}`)
  for (const player of crowded) dataOf(await unlock(game, player, 'boss'))
  t.equal(await redis.object('ENCODING', keys.achieved(game.gameId, 'c0')), 'hashtable', 'past a listpack: HSCAN walks it in steps')
  const crowd = (await file('?achievement_id=boss')).lines.map(line => JSON.parse(line).player_name as string)
  t.equal(crowd.length, 830, 'every unlock once')
  t.equal(new Set(crowd).size, 830, 'none twice')

  t.equal(errorOf(await admin(app, 'GET', `/admin/games/${game.gameId}/unlocks?achievement_id=gone`)), 'not_found')
  t.equal(errorOf(await admin(app, 'GET', `/admin/games/${game.gameId}/unlocks?format=xml`)), 'invalid_param')
  t.equal(errorOf(await admin(app, 'GET', `/admin/games/${game.gameId}/unlocks?player_name=${'x'.repeat(65)}`)), 'invalid_param')
  t.equal(errorOf(await admin(app, 'GET', `/admin/games/${game.gameId}/unlocks?player_name=a&player_name=b`)), 'invalid_param', 'a repeated parameter')
  t.equal(errorOf(await admin(app, 'GET', '/admin/games/no_such_game/unlocks')), 'not_found')
  t.equal(errorOf(await app.inject({ method: 'GET', url: `/admin/games/${game.gameId}/unlocks` })), 'unauthorized')
})
