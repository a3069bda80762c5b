import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { admin, buildTestApp, createGame, dataOf, type Teardown } from '../helpers/app.js'
import { gamejolt, type Link } from '../helpers/gamejolt.js'
import { keys } from '../../src/store/keys.js'

/*
 * Game Jolt's sessions are play time, and proof of play
 * (docs/gamejolt.md#sessions).
 */

const STRONG = 'correct horse battery staple'

async function setUp (t: Teardown, settings: Record<string, unknown> = {}) {
  const context = await buildTestApp(t)
  const { app } = context
  const game = await createGame(app)
  if (Object.keys(settings).length > 0) dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}`, settings))
  const link = dataOf(await admin(app, 'PUT', `/admin/games/${game.gameId}/gamejolt`, {})) as Link
  dataOf(await admin(app, 'POST', '/admin/users', { username: 'ann', password: STRONG }))
  const token = dataOf(await admin(app, 'POST', '/admin/users/ann/game-token', {})).game_token as string
  await app.syncRecordCache()
  const ann = { username: 'ann', user_token: token }
  return { ...context, game, link, ann }
}

const ok = { success: 'true' }
const noSession = { success: 'false', message: 'Could not find an open session. You must open a new one.' }

t.test('open, ping, check, close: a ping credits play time as the play page does', async t => {
  const { app, redis, game, link, ann } = await setUp(t)
  t.same(await gamejolt(app, link, 'sessions/check', ann), { success: 'false' }, 'check: false, with no message, when none is open')
  t.same(await gamejolt(app, link, 'sessions/ping', ann), noSession)
  t.same(await gamejolt(app, link, 'sessions/close', ann), noSession)
  t.same(await gamejolt(app, link, 'sessions/open', ann), ok)
  t.same(await gamejolt(app, link, 'sessions/check', ann), ok)
  t.same(await gamejolt(app, link, 'sessions/open', { ...ann, user_token: 'wrong' }), { success: 'false', message: 'No such user with the credentials passed in could be found.' })

  // The last ping 30 s ago (the test moves it back rather than wait): a ping credits those 30 s.
  const client = (app as unknown as { redis: FastifyInstance['redis'] }).redis
  await client.hset(keys.gamejoltSessions(game.gameId), 'ann', `${Date.now() - 30_000}|`)
  t.same(await gamejolt(app, link, 'sessions/ping', { ...ann, status: 'active' }), ok)
  const figures = dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}`))
  t.equal(figures.playtime_seconds, 30, 'the game\'s play time, as /api/playtime credits it')
  // A ping at once after credits nothing more: never ahead of the clock.
  t.same(await gamejolt(app, link, 'sessions/ping', ann), ok)
  t.equal(dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}`)).playtime_seconds, 30, 'nothing for no time')

  // Past 120 s without a ping the session is over: nothing credited for the gap.
  await client.hset(keys.gamejoltSessions(game.gameId), 'ann', `${Date.now() - 121_000}|`)
  t.same(await gamejolt(app, link, 'sessions/ping', ann), noSession, 'a session past 120 s is closed')
  t.same(await gamejolt(app, link, 'sessions/check', ann), { success: 'false' })
  t.equal(dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}`)).playtime_seconds, 30, 'nothing for the gap')
  t.same(await gamejolt(app, link, 'sessions/open', ann), ok)
  t.same(await gamejolt(app, link, 'sessions/close', ann), ok)
  t.same(await gamejolt(app, link, 'sessions/check', ann), { success: 'false' })
  t.ok(redis.url)
})

t.test('on a game that keeps runs, an open session vouches for every score made during it', { timeout: 60_000 }, async t => {
  const { app, game, link, ann } = await setUp(t, { runs: 'required', min_run_seconds: 2, implausible: 'hold' })
  const add = async (sort: string) => await gamejolt(app, link, 'scores/add', { ...ann, score: `${sort} pts`, sort })
  t.match((await add('10')).message, /only during an open session/, 'runs required: no session, no score')
  t.same(await gamejolt(app, link, 'sessions/open', ann), ok)
  t.same(await add('20'), ok, 'a score with too little play is taken, and held')
  let held = dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/review`)).items
  t.equal(held.length, 1)
  t.equal(held[0].rule, 'run_short', 'held for its short run')
  t.equal(held[0].run?.verified_seconds, 0, 'with the session\'s verified play')

  await sleep(2500)
  t.same(await gamejolt(app, link, 'sessions/ping', ann), ok)
  t.same(await add('30'), ok)
  t.match((await gamejolt(app, link, 'scores')).scores, [{ sort: '30', user: 'ann' }], 'with 2 s of verified play, on the board')
  t.same(await add('40'), ok, 'a second score of the same session')
  t.match((await gamejolt(app, link, 'scores')).scores, [{ sort: '40', user: 'ann' }], 'the session vouches for it too')
  held = dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/review`)).items
  t.equal(held.length, 1, 'still only the first one held')
})

t.test('friends: none kept here, an empty list', async t => {
  const { app, link, ann } = await setUp(t)
  t.same(await gamejolt(app, link, 'friends', ann), { success: 'true', friends: [] })
  t.equal((await gamejolt(app, link, 'friends', { ...ann, user_token: 'no' })).success, 'false')
})
