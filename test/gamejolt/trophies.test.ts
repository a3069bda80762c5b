import { createHash } from 'node:crypto'
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { admin, buildTestApp, createGame, dataOf, errorOf, formBody, type Teardown } from '../helpers/app.js'
import { gamejoltIdOf } from '../../src/rules/gamejolt-ids.js'

/*
 * Game Jolt's trophies are the game's achievements (docs/gamejolt.md#trophies).
 */

const STRONG = 'correct horse battery staple'
const md5 = (text: string): string => createHash('md5').update(text).digest('hex')
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201e5270fe40000000049454e44ae426082', 'hex')

interface Link { gamejolt_game_id: number, private_key: string }

async function gamejolt (app: FastifyInstance, link: Link, endpoint: string, query: Record<string, string> = {}): Promise<Record<string, any>> {
  const path = `/api/game/v1_2/${endpoint}/?${formBody({ game_id: String(link.gamejolt_game_id), ...query })}`
  const answer = await app.inject({ method: 'GET', url: `${path}&signature=${md5(`https://api.gamejolt.com${path}${link.private_key}`)}` })
  return answer.json().response
}

async function setUp (t: Teardown) {
  const { app } = await buildTestApp(t)
  const game = await createGame(app)
  const link = dataOf(await admin(app, 'PUT', `/admin/games/${game.gameId}/gamejolt`, {})) as Link
  dataOf(await admin(app, 'POST', '/admin/users', { username: 'ann', password: STRONG }))
  const token = dataOf(await admin(app, 'POST', '/admin/users/ann/game-token', {})).game_token as string
  for (const [id, settings] of [['cookie', { name: 'Cookie Magnet', description: 'Eat 10 cookies.', difficulty: 'silver' }], ['job', { name: 'I like this job!', description: 'Eat 20 "cookies".' }], ['secret', { name: 'Secret', description: 'Find it.', hidden: true, difficulty: 'platinum' }]] as const) {
    dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/achievements`, { achievement_id: id, ...settings }))
  }
  await app.inject({ method: 'PUT', url: `/admin/games/${game.gameId}/achievements/cookie/icon`, payload: PNG, headers: { authorization: `Bearer ${process.env.ADMIN_TOKEN ?? 'test-admin-token-0123456789-abcdefghij'}`, 'content-type': 'image/png' } })
  await app.syncRecordCache()
  return { app, game, link, ann: { username: 'ann', user_token: token } }
}

t.test('an achievement is a trophy: its id, difficulty and icon, in the operator\'s record and in Game Jolt\'s fetch', async t => {
  const { app, game, link, ann } = await setUp(t)
  const record = dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/achievements/cookie`))
  t.equal(record.difficulty, 'silver')
  t.equal(record.gamejolt_id, gamejoltIdOf('cookie'), 'its trophy id, in the operator\'s record')
  t.equal(dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/achievements/job`)).difficulty, 'bronze', 'bronze by default')
  t.equal(errorOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}/achievements/job`, { difficulty: 'wood' })), 'invalid_param')

  const fetched = await gamejolt(app, link, 'trophies', ann)
  t.equal(fetched.success, 'true')
  t.same(fetched.trophies.map((trophy: { title: string }) => trophy.title), ['Cookie Magnet', 'I like this job!', ''], 'the game\'s achievements, the hidden one masked')
  const [cookie, job, secret] = fetched.trophies
  t.match(cookie, { id: String(gamejoltIdOf('cookie')), title: 'Cookie Magnet', description: 'Eat 10 cookies.', difficulty: 'Silver', achieved: 'false' })
  t.match(cookie.image_url, new RegExp(`^http://localhost:80/play/${game.gameId}/achievements/cookie/icon\\?v=`), 'an absolute image URL')
  t.same(job.image_url, '', 'no icon: ""')
  t.same(secret, { id: '', title: '', description: '', difficulty: '', image_url: '', achieved: 'false' }, 'masked: nothing of it told')

  t.same(await gamejolt(app, link, 'trophies/add-achieved', { ...ann, trophy_id: String(gamejoltIdOf('secret')) }), { success: 'true' }, 'unlocked')
  t.same(await gamejolt(app, link, 'trophies/add-achieved', { ...ann, trophy_id: String(gamejoltIdOf('secret')) }), { success: 'false', message: 'The user already has this trophy.' })
  t.same(await gamejolt(app, link, 'trophies/add-achieved', { ...ann, trophy_id: '12' }), { success: 'false', message: 'Incorrect trophy ID.' })
  const after = await gamejolt(app, link, 'trophies', { ...ann, achieved: 'true' })
  t.equal(after.trophies.length, 1, 'achieved=true: only those achieved')
  t.match(after.trophies[0], { title: 'Secret', difficulty: 'Platinum' }, 'the hidden one, once the user\'s, is shown')
  t.match(after.trophies[0].achieved, /^\d+ seconds? ago$/, 'when, in Game Jolt\'s words')
  t.equal((await gamejolt(app, link, 'trophies', { ...ann, achieved: 'false' })).trophies.length, 2, 'achieved=false: the others')
  const named = await gamejolt(app, link, 'trophies', { ...ann, trophy_id: `${gamejoltIdOf('job')},${gamejoltIdOf('cookie')}`, achieved: 'true' })
  t.same(named.trophies.map((trophy: { title: string }) => trophy.title), ['I like this job!', 'Cookie Magnet'], 'trophy_id: those, in that order, achieved ignored')
  t.same(await gamejolt(app, link, 'trophies', { ...ann, trophy_id: '5,abc' }), { success: 'false', message: 'The trophy returned does not belong to this game.' })
  t.equal((await gamejolt(app, link, 'trophies', { username: 'ann', user_token: 'nope' })).message, 'No such user with the credentials passed in could be found.')

  // Our own API says the same unlock.
  const ours = dataOf(await app.inject({ method: 'GET', url: `/api/rank?action=achievements&api_key=${game.apiKey}&game_id=${game.gameId}&player_name=ann` }))
  t.equal(ours.unlocked, 0, 'our public read masks a hidden one even unlocked (unsigned)')
  const stats = dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/achievements`))
  t.ok(stats.items.length === 3)

  t.same(await gamejolt(app, link, 'trophies/remove-achieved', { ...ann, trophy_id: String(gamejoltIdOf('secret')) }), { success: 'true' }, 'taken back')
  t.same(await gamejolt(app, link, 'trophies/remove-achieved', { ...ann, trophy_id: String(gamejoltIdOf('secret')) }), { success: 'false', message: 'The user does not have this trophy.' })
  t.same(await gamejolt(app, link, 'trophies/remove-achieved', { ...ann, trophy_id: '7' }), { success: 'false', message: 'Incorrect trophy ID.' })
  t.equal((await gamejolt(app, link, 'trophies', { ...ann, achieved: 'true' })).trophies.length, 0, 'no longer achieved')
  const audit = dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/audit?action=achievement.take_back`)).items
  t.equal(audit.length, 1, 'the take-back is audited')
  t.match(audit[0], { actor: 'player:ann', target: 'secret' })
  t.same(await gamejolt(app, link, 'trophies/add-achieved', { ...ann, trophy_id: String(gamejoltIdOf('secret')) }), { success: 'true' }, 'and can be unlocked again')
})
