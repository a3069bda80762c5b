import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { runCli } from '../../src/cli.js'
import { usage } from '../../src/cli/usage.js'
import { ADMIN_TOKEN, buildTestApp, dataOf, submit } from '../helpers/app.js'

async function cli (env: Record<string, string>, ...argv: string[]): Promise<{ code: number, out: string, err: string }> {
  let out = ''
  let err = ''
  const code = await runCli(argv, { out: line => { out += `${line}\n` }, err: line => { err += `${line}\n` }, env, readLine: async () => 'from-stdin' })
  return { code, out, err }
}

t.test('the CLI does what the admin API does, against the same Redis', { timeout: 40_000 }, async t => {
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

  // The console's charts, from the box: the service writes its counts within a second (store/activity.ts), so this polls.
  let stats = await cli(env, 'games', 'stats', 'cli_game', '--minutes', '5', '--days', '2')
  for (let i = 0; i < 60 && JSON.parse(stats.out || '{}').days?.[1]?.submissions !== 1; i++) {
    await new Promise(resolve => setTimeout(resolve, 50))
    stats = await cli(env, 'games', 'stats', 'cli_game', '--minutes', '5', '--days', '2')
  }
  t.equal(stats.code, 0, stats.err)
  t.match(JSON.parse(stats.out), { game_id: 'cli_game', minutes: Array, days: [{}, { submissions: 1, active_players: 1 }] })
  t.equal(JSON.parse(stats.out).minutes.length, 5)
  t.match(JSON.parse((await cli(env, 'games', 'scores', 'cli_game', '--buckets', '4')).out), { total: 1, min: 3, max: 3, items: [{ from: 3, to: 3, count: 1 }] })
  t.match(await cli(env, 'games', 'stats', 'cli_game', '--days', '0'), { code: 1, err: /^error invalid_param: Parameter "days"/ })

  const revokedKey = await cli(env, 'keys', 'revoke', apiKey)
  t.equal(revokedKey.code, 0)
  t.same(Object.keys(JSON.parse(revokedKey.out)).sort(), ['api_key', 'created_at', 'game_id', 'revoked'])
  // The CLI's change reaches the running service's record cache through pub/sub.
  await app.syncRecordCache()
  t.equal((await submit(app, game, { player: 'p', score: 4 })).json().error, 'key_revoked')
})

t.test('errors are one line with the code, and a non-zero exit', { timeout: 30_000 }, async t => {
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

// 5 s on an idle machine: the CLI waits up to 5 s (src/cli/connection.ts, connect) for the Redis that is not there.
t.test('usage, bad flags and bad configuration', { timeout: 50_000 }, async t => {
  t.match(await cli({}, '--help'), { code: 0, out: usage() + '\n' })
  t.match(await cli({}, 'bogus'), { code: 2, err: usage() + '\n' })
  t.match(usage(), /^Usage: npm run cli -- <command>/, 'in a checkout, the npm script')
  // Run as the container runs it (ranking-admin execs the file itself): the help names ranking-admin.
  const direct = spawnSync(process.execPath, [...process.execArgv, 'src/cli.ts', '--help'], { encoding: 'utf8', env: { ...process.env, NODE_ENV: 'test' } })
  t.equal(direct.status, 0, direct.stderr)
  t.match(direct.stdout, /^Usage: ranking-admin <command>/, 'run directly, it names itself ranking-admin')
  t.match(await cli({}, 'games', 'create', 'x', '--nope', '1'), { code: 2, err: /Unknown option/ })
  t.match(await cli({ REDIS_URL: 'http://x' }, 'games', 'create', 'x'), { code: 1, err: /^Configuration error: REDIS_URL/ })
  // A Redis that is not there: port 1 on loopback refuses at once.
  t.match(await cli({ REDIS_URL: 'redis://127.0.0.1:1' }, 'games', 'create', 'x'), { code: 1, err: /^error unavailable: cannot reach Redis/ })
})

t.test('fair play and webhooks from the CLI: settings, the review queue, webhooks, deliveries, events', { timeout: 30_000 }, async t => {
  const { app, redis } = await buildTestApp(t, { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_MS: '20' })
  const env = { REDIS_URL: redis.url, WEBHOOK_ALLOW_PRIVATE: 'true' }
  const run = async (...argv: string[]): Promise<any> => {
    const { code, out, err } = await cli(env, ...argv)
    if (code !== 0) throw new Error(`${argv.join(' ')}: ${err}`)
    return JSON.parse(out)
  }
  t.match(await run('games', 'create', 'fair_cli', '--approved', 'true', '--score_min=-10', '--score_max', '1000000', '--review_above', '500', '--review_factor', '2.5', '--notify_top', '3'),
    { score_min: -10, score_max: 1_000_000, review_above: 500, review_below: null, review_factor: 2.5, notify_top: 3 })
  t.match(await run('games', 'update', 'fair_cli', '--score_max', 'default'), { score_max: null })
  t.match(await run('games', 'update', 'fair_cli', '--runs', 'optional', '--max_score_rate', '12.5', '--implausible', 'refuse', '--run_ttl_s', '600', '--submit_run', 'on'),
    { runs: 'optional', max_score_rate: 12.5, implausible: 'refuse', run_ttl_s: 600, submit_run: 'on' }, 'the runs settings, submit-run too')
  t.match(await run('games', 'update', 'fair_cli', '--runs', 'off', '--max_score_rate', 'default', '--implausible', 'hold', '--run_ttl_s', '3600', '--submit_run', 'off'),
    { runs: 'off', max_score_rate: null, implausible: 'hold', run_ttl_s: 3600, submit_run: 'off' })
  t.match(await run('games', 'update', 'fair_cli', '--score_format', 'decimal', '--score_unit', '100'), { score_format: 'decimal', score_decimals: 2, score_unit: '100' }, 'a display format; a unit of digits stays text')
  t.match(await run('boards', 'create', 'fair_cli', 'lap', '--order', 'asc', '--score_format', 'time', '--score_decimals', '2'), { board_id: 'lap', score_format: 'time', score_decimals: 2, score_unit: '' })
  const key = await run('keys', 'create', 'fair_cli')
  const game = { gameId: 'fair_cli', apiKey: key.api_key, apiSecret: key.api_secret }

  const hook = await run('webhooks', 'create', 'fair_cli', '--url', 'http://127.0.0.1:9/hook', '--events', 'score.held,score.approved', '--description', 'review bot')
  t.match(hook, { webhook_id: /^wh_/, events: ['score.held', 'score.approved'], description: 'review bot', secret: /^whsec_/ })
  t.same((await run('webhooks', 'list', 'fair_cli')).items.map((one: { webhook_id: string }) => one.webhook_id), [hook.webhook_id])

  t.ok(dataOf(await submit(app, game, { player: 'rocket', score: 900 })).held)
  const pending = await run('review', 'list', 'fair_cli')
  t.match(pending, { status: 'pending', total: 1, items: [{ player_name: 'rocket', score: 900, rule: 'review_above' }] })
  t.match(await run('review', 'approve', 'fair_cli', pending.items[0].held_id, '--note', 'fine'), { held: { status: 'approved', note: 'fine' }, rank: 1 })
  t.ok(dataOf(await submit(app, game, { player: 'cheat', score: 999 })).held)
  const second = (await run('review', 'list', 'fair_cli')).items[0].held_id
  t.match(await run('review', 'reject', 'fair_cli', second, '--hide', 'true'), { status: 'rejected', player_name: 'cheat' })
  t.equal((await run('review', 'list', 'fair_cli', '--status', 'decided', '--limit', '1')).items[0].status, 'rejected')

  t.same((await run('events', 'list', 'fair_cli', '--limit', '3')).items.map((event: { type: string }) => event.type), ['player.hidden', 'score.rejected', 'score.held'])
  const test = await run('webhooks', 'test', 'fair_cli', hook.webhook_id)
  t.match(test, { type: 'webhook.test', status: 'pending' })
  t.equal((await run('webhooks', 'deliveries', 'fair_cli', hook.webhook_id, '--status', 'pending')).total >= 1, true, 'the deliveries are listed')
  t.match(await cli(env, 'webhooks', 'redeliver', 'fair_cli', hook.webhook_id, '999'), { code: 1, err: /^error not_found: / })
  t.same(await run('webhooks', 'delete', 'fair_cli', hook.webhook_id), {})
  t.match(await cli(env, 'webhooks', 'create', 'fair_cli', '--url', 'ftp://x'), { code: 1, err: /^error invalid_param: Parameter "url"/ })
  t.match(await cli({ REDIS_URL: redis.url, NODE_ENV: 'test' }, 'webhooks', 'create', 'fair_cli', '--url', 'http://127.0.0.1/'), { code: 1, err: /WEBHOOK_ALLOW_PRIVATE/ }, 'outside development the CLI refuses private receivers too, by the same setting')
})

t.test('the CLI lists what the API lists, and its writes are audited as cli:<OS user>', { timeout: 30_000 }, async t => {
  const { app, redis } = await buildTestApp(t)
  const env = { REDIS_URL: redis.url }
  for (const id of ['list_a', 'list_b', 'list_c']) t.equal((await cli(env, 'games', 'create', id)).code, 0)
  const first = await cli(env, 'games', 'list', '--prefix', 'list_', '--limit', '2')
  t.equal(first.code, 0, first.err)
  const page = JSON.parse(first.out)
  t.same(page.items.map((game: { game_id: string }) => game.game_id), ['list_a', 'list_b'])
  const second = JSON.parse((await cli(env, 'games', 'list', '--prefix', 'list_', '--cursor', page.next_cursor)).out)
  t.same(second.items.map((game: { game_id: string }) => game.game_id), ['list_c'])
  t.equal(second.next_cursor, null)
  t.match(JSON.parse((await cli(env, 'games', 'get', 'list_a')).out), { game_id: 'list_a', entries: 0, players: 0 })
  t.match((await cli(env, 'games', 'list', '--cursor', 'junk')).err, /^error invalid_param: Parameter "cursor" is not valid/)

  const audit = JSON.parse((await cli(env, 'audit', 'list', '--game_id', 'list_a')).out)
  t.equal(audit.items.length, 1)
  t.match(audit.items[0], { action: 'game.create', via: 'cli', actor: /^cli:./, target: 'list_a', request_id: null })
  // The same log over HTTP.
  const overHttp = dataOf(await app.inject({ method: 'GET', url: '/admin/audit?game_id=list_a', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }))
  t.same(overHttp.items, audit.items)
})

t.test('the CLI exports a board to standard output, imports one from standard input or a file, and erases a person', { timeout: 30_000 }, async t => {
  const { app, redis } = await buildTestApp(t)
  const env = { REDIS_URL: redis.url }
  t.equal((await cli(env, 'games', 'create', 'from_game', '--approved', 'true')).code, 0)
  const key = JSON.parse((await cli(env, 'keys', 'create', 'from_game')).out)
  const game = { gameId: 'from_game', apiKey: key.api_key, apiSecret: key.api_secret }
  for (const [player, score] of [['ann', 3], ['bob', 9], ['cy', 5]] as const) await submit(app, game, { player, score })

  let written = ''
  const exported = await runCli(['players', 'export', 'from_game'], { out: () => {}, err: () => {}, env, readLine: async () => '', write: async text => { written += text; return true } })
  t.equal(exported, 0)
  t.same(written.trim().split('\n').map(line => JSON.parse(line).player_name), ['bob', 'cy', 'ann'])

  t.equal((await cli(env, 'games', 'create', 'to_game')).code, 0)
  let out = ''
  const imported = await runCli(['players', 'import', 'to_game'], { out: line => { out += line }, err: () => {}, env, readLine: async () => '', input: () => Readable.from([Buffer.from(written)]) })
  t.equal(imported, 0)
  t.match(JSON.parse(out), { lines: 3, imported: 3, refused: 0 })
  const dir = mkdtempSync(join(tmpdir(), 'ranking-import-'))
  t.teardown(() => { rmSync(dir, { recursive: true, force: true }) })
  writeFileSync(join(dir, 'board.ndjson'), written)
  t.match(JSON.parse((await cli(env, 'players', 'import', 'to_game', '--file', join(dir, 'board.ndjson'))).out), { lines: 3, unchanged: 3 }, 'from a file, idempotent')
  t.match((await cli(env, 'players', 'import', 'to_game', '--file', join(dir, 'missing.ndjson'))).err, /^error invalid_param: Cannot read --file/)

  t.same(JSON.parse((await cli(env, 'players', 'erase', 'bob')).out), { games: 2, entries: 2, metas: 0, held: 0, achievements: 0 })
  t.equal((await cli(env, 'users', 'create', 'erin')).code, 0)
  const erin = await cli(env, 'users', 'erase', 'erin')
  t.match(JSON.parse(erin.out), { user: 1, sessions: 0 })
  t.equal(erin.err, '', 'a user erased: no note')
  // Nobody of that name, ever: the counts are zeros, and the operator is told so in words.
  const nobody = await cli(env, 'users', 'erase', 'never_was')
  t.equal(nobody.code, 0, 'erasing is idempotent')
  t.match(JSON.parse(nobody.out), { user: 0, sessions: 0, entries: 0 })
  t.match(nobody.err, /^No user named "never_was" exists and nothing of theirs was found: nothing was erased\./)
  t.match((await cli(env, 'players', 'erase', 'bob')).err, /^Nothing of the player "bob" was found in any game/, 'a player erased already')
  t.match(JSON.parse((await cli(env, 'audit', 'list', '--action', 'user.erase')).out).items[0], { target: null, via: 'cli' })
})

t.test('achievements from the CLI: make one with a threshold, give it an icon, change, list, export the unlocks, delete', { timeout: 30_000 }, async t => {
  const { app, redis } = await buildTestApp(t)
  const env = { REDIS_URL: redis.url }
  t.equal((await cli(env, 'games', 'create', 'cli_game', '--approved', 'true')).code, 0)
  const made = await cli(env, 'achievements', 'create', 'cli_game', 'hundred', '--name', 'A hundred', '--points', '10', '--board', 'default', '--at_least', '100')
  t.equal(made.code, 0, made.err)
  t.match(JSON.parse(made.out), { achievement_id: 'hundred', name: 'A hundred', points: 10, rule: { board: 'default', at_least: 100, at_most: null } })
  const folder = mkdtempSync(join(tmpdir(), 'cli-icon-'))
  t.teardown(() => { rmSync(folder, { recursive: true, force: true }) })
  const png = join(folder, 'icon.png')
  writeFileSync(png, Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000100000500010d0a2db40000000049454e44ae426082', 'hex'))
  t.match(JSON.parse((await cli(env, 'achievements', 'icon', 'cli_game', 'hundred', '--file', png)).out).icon, { content_type: 'image/png' })
  const notImage = join(folder, 'icon.txt')
  writeFileSync(notImage, 'hello')
  t.match((await cli(env, 'achievements', 'icon', 'cli_game', 'hundred', '--file', notImage)).err, /^error invalid_body: The icon is not a PNG/)
  const key = JSON.parse((await cli(env, 'keys', 'create', 'cli_game')).out)
  t.match(dataOf(await submit(app, { gameId: 'cli_game', apiKey: key.api_key, apiSecret: key.api_secret }, { player: 'ann', score: 150 })), { unlocked: ['hundred'] })
  t.match(JSON.parse((await cli(env, 'achievements', 'update', 'cli_game', 'hundred', '--rule', 'none', '--hidden', 'true')).out), { rule: null, hidden: true })
  t.equal(JSON.parse((await cli(env, 'achievements', 'list', 'cli_game')).out).total, 1)
  let written = ''
  t.equal(await runCli(['achievements', 'unlocks', 'cli_game', '--format', 'csv'], { out: () => {}, err: () => {}, env, readLine: async () => '', write: async text => { written += text; return true } }), 0)
  t.match(written, /^player_name,achievement_id,unlocked_at\r\nann,hundred,\d{4}-.*Z\r\n$/, 'the unlocks, to standard output')
  t.match((await cli(env, 'achievements', 'unlocks', 'cli_game', '--achievement_id', 'nope')).err, /^error not_found/)
  t.match((await cli(env, 'achievements', 'create', 'cli_game', 'x', '--board', 'default', '--at_least', 'lots')).err, /^error invalid_param/)
  t.equal((await cli(env, 'achievements', 'delete', 'cli_game', 'hundred')).code, 0)
  t.match((await cli(env, 'achievements', 'get', 'cli_game', 'hundred')).err, /^error not_found/)
})

type Checks = Pick<typeof t, 'equal'>

/** ann (made by the CLI) plays 300 s of `gameId` and rates it 9; bob, who never played, rates it 1. */
async function annAndBobRate (t: Checks, app: FastifyInstance, env: Record<string, string>, gameId: string): Promise<void> {
  const form = (cookie: string) => ({ 'content-type': 'application/x-www-form-urlencoded', cookie })
  for (const [name, seconds, stars] of [['ann', 300, 9], ['bob', 0, 1]] as const) {
    t.equal((await cli(env, 'users', 'create', name)).code, 0)
    const cookie = `sid=${String(dataOf(await app.inject({ method: 'POST', url: '/admin/sessions', payload: { username: name }, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).session_id)}`
    if (seconds > 0) dataOf(await app.inject({ method: 'POST', url: '/api/playtime', payload: `game_id=${gameId}&seconds=${seconds}`, headers: form(cookie) }))
    dataOf(await app.inject({ method: 'POST', url: `/api/rate?game_id=${gameId}`, payload: `stars=${stars}`, headers: form(cookie) }))
  }
}

t.test('ratings from the CLI: export them (NDJSON, CSV, filtered), remove one, and the games list follows', { timeout: 30_000 }, async t => {
  const { app, redis } = await buildTestApp(t, { RATING_PRIOR_MEAN: '5.5' })
  const env = { REDIS_URL: redis.url, RATING_PRIOR_MEAN: '5.5' }
  t.equal((await cli(env, 'games', 'create', 'rated_game', '--approved', 'true')).code, 0)
  await annAndBobRate(t, app, env, 'rated_game')
  const exported = async (...flags: string[]): Promise<string> => {
    let written = ''
    t.equal(await runCli(['ratings', 'export', 'rated_game', ...flags], { out: () => {}, err: () => {}, env, readLine: async () => '', write: async text => { written += text; return true } }), 0)
    return written
  }
  const lines = (await exported()).trim().split('\n').map(line => JSON.parse(line))
  t.match(lines, [{ username: 'bob', stars: 1, play_at_rating_seconds: 0, playtime_seconds: 0 }, { username: 'ann', stars: 9, play_at_rating_seconds: 300, playtime_seconds: 300 }], 'NDJSON, newest first, the listing\'s columns')
  t.match(await exported('--format', 'csv', '--max_playtime_seconds', '0'), /^username,stars,play_at_rating_seconds,playtime_seconds,rated_at\r\nbob,1,0,0,\d{4}-[^,]*Z\r\n$/, 'CSV, only those who never played')
  t.match((await cli(env, 'ratings', 'export', 'rated_game', '--stars', '11')).err, /^error invalid_param/, 'a bad filter')
  const file = await app.inject({ method: 'GET', url: '/admin/games/rated_game/ratings/export?format=csv', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
  t.equal(file.headers['content-type'], 'text/csv; charset=utf-8', 'the API answers the same file')
  t.match(file.headers['content-disposition'], 'rated_game-ratings.csv')
  t.equal(file.body.split('\r\n').length, 4, 'a header, two ratings, the end')

  await app.syncRecordCache()
  await app.gamesIndex.flush()
  t.match(dataOf(await app.inject({ method: 'GET', url: '/api/games' })).items, [{ game_id: 'rated_game', ratings: 2 }])
  t.match(JSON.parse((await cli(env, 'ratings', 'remove', 'rated_game', 'BOB')).out), { username: 'bob', stars: 1, count: 1 }, 'removed, by any letter case')
  // The CLI is another process: the service's index hears of it through the changed set.
  await app.gamesIndex.flush()
  t.match(dataOf(await app.inject({ method: 'GET', url: '/api/games' })).items, [{ game_id: 'rated_game', ratings: 1, avg: 9 }], 'the games list follows')
})

t.test('the CLI\'s weighted figures lean on the platform\'s mean as the service\'s index wrote it', { timeout: 30_000 }, async t => {
  const { app, redis } = await buildTestApp(t)
  const env = { REDIS_URL: redis.url }
  t.equal((await cli(env, 'games', 'create', 'mean_game', '--approved', 'true')).code, 0)
  await annAndBobRate(t, app, env, 'mean_game')
  await app.syncRecordCache()
  await app.gamesIndex.flush()
  // The platform's mean is ann's 9 (bob's rating weighs nothing): without it, the CLI would lean on 5.5, (5 * 5.5 + 0.5 * 9) / 5.5 = 5.82.
  t.match(JSON.parse((await cli(env, 'ratings', 'remove', 'mean_game', 'bob')).out), { count: 1, weighted: 9 }, '(5 * 9 + 0.5 * 9) / (5 + 0.5)')
  await app.gamesIndex.flush()
  t.match(dataOf(await app.inject({ method: 'GET', url: '/api/games' })).items, [{ game_id: 'mean_game', ratings: 1, weighted: 9 }], 'as the service answers')
})
