import t from 'tap'
import { ADMIN_TOKEN, createGame, dataOf, submit } from '../../helpers/app.js'
import { listeningApp } from '../../helpers/listening.js'

/*
 * Item 11 of the hardening issue: every player is reachable by the operator
 * over HTTP. Clients (fetch, curl, browsers) rewrite the path segments "."
 * and ".." (and their %2E forms) before sending, so those names are
 * addressed through /admin/games/:game_id/player?player_name=...
 */

const { app, baseUrl } = await listeningApp(t)
const game = await createGame(app)
const NAMES = ['.', '..', '...', 'a/b', '../x', '?', '#', '%', '%2E', 'a b', '\\', '😀.']

async function call (method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  return await response.json()
}

for (const [index, name] of NAMES.entries()) dataOf(await submit(app, game, { player: name, score: 100 - index }))

t.test('by the query, every name can be read, hidden, shown and deleted over real HTTP', async t => {
  for (const [index, name] of NAMES.entries()) {
    const at = `/admin/games/${game.gameId}/player?player_name=${encodeURIComponent(name)}`
    t.match(await call('GET', at), { ok: true, data: { player_name: name, best_score: 100 - index, hidden: false } }, `read ${JSON.stringify(name)}`)
    t.match(await call('PATCH', at, { hidden: true }), { ok: true, data: { player_name: name, hidden: true, rank: null } }, `hide ${JSON.stringify(name)}`)
    t.match(await call('PATCH', at, { hidden: false }), { ok: true, data: { player_name: name, hidden: false } }, `show ${JSON.stringify(name)}`)
  }
  for (const name of NAMES) {
    const at = `/admin/games/${game.gameId}/player?player_name=${encodeURIComponent(name)}`
    t.same(await call('DELETE', at), { ok: true, data: {} }, `delete ${JSON.stringify(name)}`)
    t.match(await call('GET', at), { ok: false, error: 'not_found' }, `${JSON.stringify(name)} is gone`)
  }
})

t.test('the path form reaches every name a client sends unchanged, and says why it cannot reach "." and ".."', async t => {
  // Signed after the deletion above (the second after it: docs/interface.md#replays-and-deleted-entries).
  dataOf(await submit(app, game, { player: 'a/b', score: 1, ts: Math.floor(Date.now() / 1000) + 1 }))
  t.match(await call('GET', `/admin/games/${game.gameId}/players/${encodeURIComponent('a/b')}`), { ok: true, data: { player_name: 'a/b' } }, 'a/b through its encoded path segment')
  dataOf(await submit(app, game, { player: '..', score: 1, ts: Math.floor(Date.now() / 1000) + 1 }))
  const rewritten = await call('GET', `/admin/games/${game.gameId}/players/%2E%2E`)
  t.same(rewritten, { ok: false, error: 'not_found', message: 'No such route.' }, 'fetch rewrote /players/%2E%2E into /admin/games/<id>/, which is no route')
})

t.test('the query form: missing_param, invalid_param, not_found', async t => {
  t.match(await call('GET', `/admin/games/${game.gameId}/player`), { ok: false, error: 'missing_param' })
  t.match(await call('GET', `/admin/games/${game.gameId}/player?player_name=a&player_name=b`), { ok: false, error: 'invalid_param' })
  t.match(await call('GET', `/admin/games/${game.gameId}/player?player_name=%zz`), { ok: false, error: 'invalid_param' })
  t.match(await call('GET', '/admin/games/no-such-game/player?player_name=x'), { ok: false, error: 'not_found' })
  t.match(await call('PATCH', `/admin/games/${game.gameId}/player?player_name=nobody`, { hidden: true }), { ok: false, error: 'not_found' })
})
