import t from 'tap'
import { runCli, USAGE } from '../src/ops/cli.js'
import { buildTestApp, dataOf, submit } from './helpers/app.js'

async function cli (env: Record<string, string>, ...argv: string[]): Promise<{ code: number, out: string, err: string }> {
  let out = ''
  let err = ''
  const code = await runCli(argv, { out: line => { out += `${line}\n` }, err: line => { err += `${line}\n` }, env, readLine: async () => 'from-stdin' })
  return { code, out, err }
}

t.test('the CLI does what the admin API does, against the same Redis', async t => {
  const { app, redis } = await buildTestApp(t)
  const env = { REDIS_URL: redis.url }

  const created = await cli(env, 'games', 'create', 'cli_game', '--name', 'CLI game', '--developer', 'dev1')
  t.equal(created.code, 0, created.err)
  t.match(JSON.parse(created.out), { game_id: 'cli_game', name: 'CLI game', developer: 'dev1', approved: false })

  const approved = await cli(env, 'games', 'update', 'cli_game', '--approved', 'true')
  t.equal(approved.code, 0)
  t.equal(JSON.parse(approved.out).approved, true)

  const key = await cli(env, 'keys', 'create', 'cli_game')
  t.equal(key.code, 0)
  const { api_key: apiKey, api_secret: apiSecret, revoked } = JSON.parse(key.out)
  t.equal(revoked, false)
  t.match(apiKey, /^rk_[0-9a-f]{32}$/)
  t.match(apiSecret, /^[0-9a-f]{64}$/)

  // The key works on the HTTP API at once.
  const game = { gameId: 'cli_game', apiKey, apiSecret }
  t.same(dataOf(await submit(app, game, { player: 'p', score: 3 })), { score: 3, improved: true, best_score: 3, rank: 1 })

  const revokedKey = await cli(env, 'keys', 'revoke', apiKey)
  t.equal(revokedKey.code, 0)
  t.same(Object.keys(JSON.parse(revokedKey.out)).sort(), ['api_key', 'created_at', 'game_id', 'revoked'])
  // The CLI's change reaches the running service's record cache through pub/sub.
  await app.syncRecordCache()
  t.equal((await submit(app, game, { player: 'p', score: 4 })).json().error, 'key_revoked')
})

t.test('errors are one line with the code, and a non-zero exit', async t => {
  const { redis } = await buildTestApp(t)
  const env = { REDIS_URL: redis.url }
  t.match(await cli(env, 'games', 'create', 'dup'), { code: 0, err: '' })
  t.match(await cli(env, 'games', 'create', 'dup'), { code: 1, err: /^error already_exists: / })
  t.match(await cli(env, 'games', 'create', 'bad id'), { code: 1, err: /^error invalid_param: / })
  t.match(await cli(env, 'games', 'create'), { code: 1, err: /^error missing_param: / })
  t.match(await cli(env, 'games', 'update', 'nope', '--approved', 'true'), { code: 1, err: /^error not_found: / })
  t.match(await cli(env, 'games', 'update', 'dup', '--approved', 'maybe'), { code: 1, err: /^error invalid_param: / })
  t.match(await cli(env, 'keys', 'create', 'nope'), { code: 1, err: /^error invalid_game: / })
  t.match(await cli(env, 'keys', 'revoke', 'rk_unknown'), { code: 1, err: /^error not_found: / })
})

t.test('usage, bad flags and bad configuration', async t => {
  t.match(await cli({}, '--help'), { code: 0, out: USAGE + '\n' })
  t.match(await cli({}, 'bogus'), { code: 2, err: USAGE + '\n' })
  t.match(await cli({}, 'games', 'create', 'x', '--nope', '1'), { code: 2, err: /Unknown option/ })
  t.match(await cli({ REDIS_URL: 'http://x' }, 'games', 'create', 'x'), { code: 1, err: /^Configuration error: REDIS_URL/ })
  // A Redis that is not there: port 1 on loopback refuses at once.
  t.match(await cli({ REDIS_URL: 'redis://127.0.0.1:1' }, 'games', 'create', 'x'), { code: 1, err: /^error unavailable: cannot reach Redis/ })
})
