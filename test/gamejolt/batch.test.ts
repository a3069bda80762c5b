import { createHash } from 'node:crypto'
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { admin, buildTestApp, createGame, dataOf } from '../helpers/app.js'

/* Game Jolt's batch (docs/gamejolt.md#batch): sub-requests signed one by one over their relative URL. */

const STRONG = 'correct horse battery staple'
const md5 = (text: string): string => createHash('md5').update(text).digest('hex')

interface Link { gamejolt_game_id: number, private_key: string }

/** A sub-request as the docs build it: the relative URL, its signature, URL-encoded (the docs' example ends in a newline, %0A). */
function sub (link: Link, path: string, key = link.private_key): string {
  return encodeURIComponent(`${path}&signature=${md5(`${path}${key}`)}\n`)
}

async function batch (app: FastifyInstance, link: Link, requests: string[], extra = '', method: 'GET' | 'POST' = 'GET'): Promise<Record<string, any>> {
  const query = `game_id=${link.gamejolt_game_id}${extra}`
  const list = requests.map(request => `requests[]=${request}`).join('&')
  if (method === 'POST') {
    const path = `/api/game/v1_2/batch/?${query}`
    const signed = md5(`http://api.gamejolt.com${path}${requests.map(request => `requests${decodeURIComponent(request)}`).join('')}${link.private_key}`)
    return (await app.inject({ method: 'POST', url: `${path}&signature=${signed}`, payload: list, headers: { 'content-type': 'application/x-www-form-urlencoded' } })).json().response
  }
  const path = `/api/game/v1_2/batch/?${query}&${list}`
  return (await app.inject({ method: 'GET', url: `${path}&signature=${md5(`https://api.gamejolt.com${path}${link.private_key}`)}` })).json().response
}

t.test('a batch answers each sub-request as it would be answered alone', async t => {
  const { app } = await buildTestApp(t)
  const game = await createGame(app, { developer: 'ann' })
  const link = dataOf(await admin(app, 'PUT', `/admin/games/${game.gameId}/gamejolt`, {})) as Link
  dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}`, { guests: 'listed' }))
  dataOf(await admin(app, 'POST', '/admin/users', { username: 'ann', password: STRONG }))
  await app.syncRecordCache()
  const id = link.gamejolt_game_id
  const add = (name: string, sort: number): string => sub(link, `/scores/add/?game_id=${id}&guest=${name}&score=${sort}%20pts&sort=${sort}`)

  const answer = await batch(app, link, [add('g1', 10), add('g2', 20), sub(link, `/users/?game_id=${id}&username=ann`), sub(link, `/scores/?game_id=${id}`)])
  t.equal(answer.success, 'true')
  t.equal(answer.responses.length, 4)
  t.same(answer.responses.slice(0, 2), [{ success: 'true' }, { success: 'true' }], 'each score taken, in order')
  t.equal(answer.responses[2].users[0].username, 'ann')
  t.same(answer.responses[3].scores.map((score: { guest: string }) => score.guest), ['g2', 'g1'], 'the fetch after the adds sees them: one after the other')

  const wrongKey = await batch(app, link, [add('g3', 30), sub(link, `/scores/add/?game_id=${id}&guest=g4&score=x&sort=40`, 'wrong-key-123')])
  t.same(wrongKey.responses, [{ success: 'true' }, { success: 'false', message: 'The signature you entered for the request is invalid.' }], 'a sub-request signed with a wrong key fails alone')

  const stopped = await batch(app, link, [sub(link, `/scores/add/?game_id=${id}&guest=g5&score=x`), add('g6', 60)], '&break_on_error=true')
  t.equal(stopped.success, 'false', 'break_on_error: a failure fails the batch')
  t.equal(stopped.responses.length, 1, 'and stops it there')
  t.match(stopped.responses[0].message, /sort value/)
  t.same((await batch(app, link, [add('g7', 70)], '&break_on_error=true&parallel=true')).message, 'The parallel and break_on_error parameters cannot be used in the same request.')

  const parallel = await batch(app, link, [add('p1', 1), add('p2', 2), add('p3', 3)], '&parallel=true')
  t.same(parallel.responses, [{ success: 'true' }, { success: 'true' }, { success: 'true' }], 'parallel')

  const posted = await batch(app, link, [add('q1', 5), sub(link, `/time/?game_id=${id}`)], '', 'POST')
  t.equal(posted.success, 'true', 'requests[] as POST fields, signed element by element')
  t.equal(typeof posted.responses[1].timestamp, 'number')

  t.match((await batch(app, link, [sub(link, `/batch/?game_id=${id}`)])).responses[0].message, /cannot hold a batch/, 'no batch in a batch')
  t.match((await batch(app, link, [sub(link, `/time/?game_id=${id}&format=dump`)])).responses[0].message, /Dump format is not supported/, 'no dump in a batch')
  t.equal((await batch(app, link, [sub(link, `/time/?game_id=${id + 1}`)])).responses[0].message, 'The game ID you passed in does not point to a valid game.', 'another game\'s sub-request')
  const many = Array.from({ length: 51 }, (_, i) => add(`m${i}`, i))
  t.match((await batch(app, link, many, '', 'POST')).message, /at most 50/, '51 sub-requests are refused')
  t.match((await batch(app, link, [])).message, /at least one/, 'none is refused')
  t.equal((await batch(app, link, [encodeURIComponent('/time/?game_id=%ZZ&signature=x')])).responses[0].success, 'false', 'a broken sub-request fails alone, no crash')
})
