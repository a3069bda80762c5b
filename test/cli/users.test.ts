import t from 'tap'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { runCli } from '../../src/cli.js'
import { keys } from '../../src/store/keys.js'
import { buildTestApp, createGame, dataOf, errorOf, formBody, me, submit, top } from '../helpers/app.js'

/*
 * The operator CLI for users, sessions and board entries
 * (docs/interface.md#command-line-tool: the same operations, directly
 * against Redis), run against the test's own Redis and checked over HTTP.
 */

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/

interface CliResult { code: number, out: string, err: string }

async function cli (env: Record<string, string>, argv: string[], stdinLine = 'from-stdin'): Promise<CliResult> {
  let out = ''
  let err = ''
  let stdinReads = 0
  const code = await runCli(argv, {
    out: line => { out += `${line}\n` },
    err: line => { err += `${line}\n` },
    env,
    readLine: async () => { stdinReads++; return stdinLine }
  })
  if (stdinReads > 1) throw new Error('stdin was read more than once')
  return { code, out, err }
}

/** `at` is between `before` and `after` (times of this process), give or take the ms a clock reading is rounded to. */
function within (at: number, before: number, after: number): boolean {
  return at >= before - 5 && at <= after + 5
}

/** The JSON a successful command printed. */
type Test = Pick<typeof t, 'equal'>

function printed (t: Test, result: CliResult): any {
  t.equal(result.code, 0, `exit 0 (stderr: ${result.err.trim()})`)
  t.equal(result.err, '', 'nothing on stderr')
  return JSON.parse(result.out)
}

async function login (app: FastifyInstance, username: string, password: string): Promise<LightMyRequestResponse> {
  return await app.inject({ method: 'POST', url: '/auth/login', payload: formBody({ username, password }), headers: { 'content-type': 'application/x-www-form-urlencoded' } })
}

async function meSelf (app: FastifyInstance, cookie: string, gameId: string): Promise<LightMyRequestResponse> {
  return await app.inject({ method: 'GET', url: `/api/rank?action=me-self&game_id=${gameId}`, headers: { cookie } })
}

function cookieOf (response: LightMyRequestResponse): string {
  const header = response.headers['set-cookie']
  const line = Array.isArray(header) ? header[0] : header
  if (line === undefined) throw new Error('no cookie')
  return line.split(';', 1)[0]!
}

const { app, redis } = await buildTestApp(t)
const env = { REDIS_URL: redis.url }
const game = await createGame(app)

t.test('users create with --password: the user can log in over HTTP', async t => {
  const before = Date.now()
  const result = await cli(env, ['users', 'create', 'alice', '--password', 's3cret pass'])
  const after = Date.now()
  const user = printed(t, result)
  t.same(Object.keys(user).sort(), ['created_at', 'guest', 'guest_until', 'hidden', 'is_admin', 'sign_in', 'username'], 'no password in the record')
  t.match(user, { username: 'alice', is_admin: false, hidden: false, created_at: ISO_MS })
  // Now is while the command ran, however long a busy machine took to run it.
  t.ok(within(Date.parse(user.created_at), before, after), `created_at is now (${user.created_at})`)
  t.notMatch(result.out, /s3cret/, 'the password is not printed')
  t.equal(result.out, `${JSON.stringify(user, null, 2)}\n`, 'pretty JSON and a newline')
  const stored = await app.redis.hget('rank:user:{alice}', 'password')
  t.ok(stored !== null && stored !== 's3cret pass' && !stored.includes('s3cret'), 'not stored in clear')

  t.same(dataOf(await login(app, 'alice', 's3cret pass')), { username: 'alice', is_admin: false })
  t.equal(errorOf(await login(app, 'alice', 'wrong')), 'invalid_credentials')
})

t.test('users create with --password-stdin and flags', async t => {
  const user = printed(t, await cli(env, ['users', 'create', 'bob', '--password-stdin', '--is_admin', 'true'], 'stdin secret'))
  t.match(user, { username: 'bob', is_admin: true, hidden: false, created_at: ISO_MS })
  t.same(dataOf(await login(app, 'bob', 'stdin secret')), { username: 'bob', is_admin: true })
  t.equal(errorOf(await login(app, 'bob', 'from-stdin')), 'invalid_credentials')

  const hidden = printed(t, await cli(env, ['users', 'create', 'carol', '--hidden', '1', '--is_admin', '0']))
  t.match(hidden, { username: 'carol', is_admin: false, hidden: true })
  // Without a password the user cannot log in (sessions only).
  t.equal(errorOf(await login(app, 'carol', '')), 'missing_param')
  t.equal(errorOf(await login(app, 'carol', 'anything')), 'invalid_credentials')
})

t.test('users update: password, flags; changes apply to HTTP at once', async t => {
  printed(t, await cli(env, ['users', 'create', 'dave', '--password', 'first']))
  const cookie = cookieOf(await login(app, 'dave', 'first'))
  t.equal(dataOf(await meSelf(app, cookie, game.gameId)).is_admin_record, false)

  const updated = printed(t, await cli(env, ['users', 'update', 'dave', '--password-stdin'], 'second'))
  t.match(updated, { username: 'dave', is_admin: false, hidden: false, created_at: ISO_MS })
  // The CLI's change reaches the running service's record cache through pub/sub.
  await app.syncRecordCache()
  t.equal(errorOf(await login(app, 'dave', 'first')), 'invalid_credentials', 'the old password no longer works')
  t.same(dataOf(await login(app, 'dave', 'second')), { username: 'dave', is_admin: false })
  printed(t, await cli(env, ['users', 'update', 'dave', '--password', 'third']))
  await app.syncRecordCache()
  t.equal(errorOf(await meSelf(app, cookie, game.gameId)), 'not_logged_in', 'a new password ended the old session')
  const third = await login(app, 'dave', 'third')
  t.same(dataOf(third), { username: 'dave', is_admin: false })
  const session = cookieOf(third)

  t.match(printed(t, await cli(env, ['users', 'update', 'dave', '--is_admin', 'true'])), { username: 'dave', is_admin: true, hidden: false })
  await app.syncRecordCache()
  t.equal(dataOf(await meSelf(app, session, game.gameId)).is_admin_record, true, 'the existing session sees the flag')

  // Hiding through the CLI takes the user off the boards.
  dataOf(await submit(app, game, { player: 'dave', score: 70 }))
  dataOf(await submit(app, game, { player: 'someone', score: 60 }))
  t.match(printed(t, await cli(env, ['users', 'update', 'dave', '--hidden', 'true'])), { username: 'dave', is_admin: true, hidden: true })
  t.same(dataOf(await me(app, game, 'dave')), { player_name: 'dave', best_score: 70, rank: null })
  t.same(dataOf(await top(app, game)).items.map((item: any) => item.player_name), ['someone'])
  t.match(printed(t, await cli(env, ['users', 'update', 'dave', '--hidden', 'false'])), { hidden: false })
  t.same(dataOf(await me(app, game, 'dave')), { player_name: 'dave', best_score: 70, rank: 1 })
})

t.test('sessions create and delete: the session works as a cookie over HTTP', async t => {
  printed(t, await cli(env, ['users', 'create', 'erin']))
  const before = Date.now()
  const made = printed(t, await cli(env, ['sessions', 'create', 'erin']))
  const after = Date.now()
  t.same(Object.keys(made).sort(), ['cookie_name', 'expires_at', 'session_id'])
  t.equal(made.cookie_name, 'sid')
  t.match(made.session_id, /^[A-Za-z0-9_-]{22,}$/)
  t.match(made.expires_at, ISO_MS)
  t.ok(within(Date.parse(made.expires_at) - 2592000 * 1000, before, after), `expires in 30 days (${made.expires_at})`)
  const cookie = `sid=${String(made.session_id)}`
  t.same(dataOf(await meSelf(app, cookie, game.gameId)),
    { player_name: 'erin', best_score: null, rank: null, total_players: dataOf(await top(app, game)).total, is_dev_record: false, is_admin_record: false })

  t.same(printed(t, await cli(env, ['sessions', 'delete', '--', made.session_id])), {})
  await app.syncRecordCache()
  t.equal(errorOf(await meSelf(app, cookie, game.gameId)), 'not_logged_in', 'the deleted session no longer works')
  t.match(await cli(env, ['sessions', 'delete', '--', made.session_id]), { code: 1, out: '', err: /^error not_found: .+\n$/ }, 'deleting it again')

  // A login session can be deleted from the CLI too.
  printed(t, await cli(env, ['users', 'update', 'erin', '--password', 'pw']))
  await app.syncRecordCache()
  const loginCookie = cookieOf(await login(app, 'erin', 'pw'))
  t.same(printed(t, await cli(env, ['sessions', 'delete', '--', loginCookie.slice('sid='.length)])), {})
  await app.syncRecordCache()
  t.equal(errorOf(await meSelf(app, loginCookie, game.gameId)), 'not_logged_in')

  // SESSION_TTL_S and SESSION_COOKIE of the CLI's environment apply.
  const beforeCustom = Date.now()
  const custom = printed(t, await cli({ ...env, SESSION_TTL_S: '60', SESSION_COOKIE: 'game_sid' }, ['sessions', 'create', 'erin']))
  const afterCustom = Date.now()
  t.equal(custom.cookie_name, 'game_sid')
  t.ok(within(Date.parse(custom.expires_at) - 60000, beforeCustom, afterCustom), `expires in 60 s (${custom.expires_at})`)
  const ttl = await app.redis.ttl(keys.session(String(custom.session_id)))
  t.ok(ttl > 50 && ttl <= 60, `TTL ${ttl}`)
})

t.test('players get, hide, show and delete', async t => {
  const g = await createGame(app)
  dataOf(await submit(app, g, { player: 'p1', score: 50, meta: '{"lvl": 2}' }))
  // Part of the scenario: p2 gets a later created_at than p1.
  await new Promise(resolve => setTimeout(resolve, 3))
  dataOf(await submit(app, g, { player: 'p2', score: 40 }))
  const createdAt = dataOf(await top(app, g)).items[0].created_at

  t.same(printed(t, await cli(env, ['players', 'get', g.gameId, 'p1'])),
    { player_name: 'p1', best_score: 50, created_at: createdAt, meta: '{"lvl": 2}', hidden: false, rank: 1, season_id: 1 })
  t.same(printed(t, await cli(env, ['players', 'get', g.gameId, 'p2'])),
    { player_name: 'p2', best_score: 40, created_at: dataOf(await top(app, g)).items[1].created_at, meta: null, hidden: false, rank: 2, season_id: 1 })

  t.same(printed(t, await cli(env, ['players', 'hide', g.gameId, 'p1'])),
    { player_name: 'p1', best_score: 50, created_at: createdAt, meta: '{"lvl": 2}', hidden: true, rank: null, season_id: 1 })
  t.same(dataOf(await top(app, g)).items.map((item: any) => [item.rank, item.player_name]), [[1, 'p2']], 'off the board over HTTP')
  t.same(dataOf(await me(app, g, 'p1')), { player_name: 'p1', best_score: 50, rank: null })
  t.same(dataOf(await me(app, g, 'p2')), { player_name: 'p2', best_score: 40, rank: 1 })

  t.same(printed(t, await cli(env, ['players', 'show', g.gameId, 'p1'])),
    { player_name: 'p1', best_score: 50, created_at: createdAt, meta: '{"lvl": 2}', hidden: false, rank: 1, season_id: 1 })
  t.same(dataOf(await top(app, g)).items.map((item: any) => [item.rank, item.player_name]), [[1, 'p1'], [2, 'p2']], 'back on the board')

  t.same(printed(t, await cli(env, ['players', 'delete', g.gameId, 'p1'])), {})
  t.same(dataOf(await me(app, g, 'p1')), { player_name: 'p1', best_score: null, rank: null })
  t.same(dataOf(await top(app, g)).items.map((item: any) => [item.rank, item.player_name]), [[1, 'p2']])
  t.match(await cli(env, ['players', 'get', g.gameId, 'p1']), { code: 1, out: '', err: /^error not_found: .+\n$/ }, 'get after delete')
})

t.test('error codes', async t => {
  const g = await createGame(app)
  dataOf(await submit(app, g, { player: 'known', score: 1 }))
  printed(t, await cli(env, ['users', 'create', 'frank']))
  const cases: Array<[string[], string]> = [
    [['users', 'create', 'frank'], 'already_exists'],
    [['users', 'create', 'bad name'], 'invalid_param'],
    [['users', 'create', 'x'.repeat(31)], 'invalid_param'],
    [['users', 'create'], 'missing_param'],
    [['users', 'create', 'gina', '--is_admin', 'maybe'], 'invalid_param'],
    [['users', 'create', 'gina', '--hidden', 'yes'], 'invalid_param'],
    [['users', 'update', 'nobody', '--is_admin', 'true'], 'not_found'],
    [['users', 'update', 'frank', '--is_admin', 'maybe'], 'invalid_param'],
    [['users', 'update'], 'missing_param'],
    [['sessions', 'create', 'nobody'], 'not_found'],
    [['sessions', 'create'], 'missing_param'],
    [['sessions', 'delete', 'A'.repeat(43)], 'not_found'],
    [['sessions', 'delete', 'short'], 'not_found'],
    [['sessions', 'delete'], 'missing_param'],
    [['players', 'get', 'no_such_game', 'known'], 'not_found'],
    [['players', 'get', g.gameId, 'nobody'], 'not_found'],
    [['players', 'get', g.gameId], 'missing_param'],
    [['players', 'get'], 'missing_param'],
    [['players', 'hide', 'no_such_game', 'known'], 'not_found'],
    [['players', 'hide', g.gameId, 'nobody'], 'not_found'],
    [['players', 'show', g.gameId, 'nobody'], 'not_found'],
    [['players', 'delete', 'no_such_game', 'known'], 'not_found'],
    [['players', 'delete', g.gameId, 'nobody'], 'not_found']
  ]
  for (const [argv, code] of cases) {
    const result = await cli(env, argv)
    t.equal(result.code, 1, `${argv.join(' ')}: exit 1`)
    t.equal(result.out, '', `${argv.join(' ')}: nothing on stdout`)
    t.match(result.err, new RegExp(`^error ${code}: [^\\n]+\\n$`), `${argv.join(' ')}: ${code}`)
  }
  // Nothing was created by the failed commands.
  t.equal(await app.redis.exists('rank:user:{gina}'), 0)
  t.match(printed(t, await cli(env, ['users', 'update', 'frank'])), { username: 'frank', is_admin: false, hidden: false }, 'frank unchanged')
  t.same(dataOf(await me(app, g, 'known')), { player_name: 'known', best_score: 1, rank: 1 })

  // Unknown flags and unknown commands print the usage with exit 2.
  t.match(await cli(env, ['users', 'update', 'frank', '--nope', '1']), { code: 2, out: '', err: /Unknown option/ })
  t.match(await cli(env, ['players', 'frobnicate']), { code: 2, out: '', err: /^Usage: / })
  t.match(await cli(env, ['users', 'create', 'x', '--password-stdin', '--password']), { code: 2, err: /--password/ }, '--password without a value')
})
