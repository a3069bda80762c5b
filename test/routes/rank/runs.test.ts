import t from 'tap'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { ADMIN_TOKEN, admin, buildTestApp, createGame, dataOf, errorOf, formBody, post, submit, top, type TestGame } from '../../helpers/app.js'
import { computeSignature } from '../../../src/rules/signature.js'
import { keys } from '../../../src/store/keys.js'
import { MAX_OPEN_RUNS, MAX_RUN_STARTS_PER_MINUTE } from '../../../src/store/runs.js'

/*
 * Runs (docs/interface.md#runs): a game session a score is tied to. Its
 * verified play is what the play-time reports credited it under the
 * wall-clock rule; a submit carrying it is held (or refused) when the score
 * is more than that play allows; a run takes one score.
 */

const FORM = { 'content-type': 'application/x-www-form-urlencoded' }
const PASSWORD = 'correct horse battery staple'

async function runGame (app: FastifyInstance, settings: Record<string, unknown> = {}): Promise<TestGame> {
  const game = await createGame(app)
  const updated = await admin(app, 'PATCH', `/admin/games/${game.gameId}`, { runs: 'optional', ...settings })
  if (updated.json().ok !== true) throw new Error(updated.body)
  return game
}

async function login (app: FastifyInstance, username: string): Promise<string> {
  await admin(app, 'POST', '/admin/users', { username, password: PASSWORD })
  const answer = await app.inject({ method: 'POST', url: '/auth/login', payload: formBody({ username, password: PASSWORD }), headers: FORM })
  return String(answer.headers['set-cookie']).split(';')[0] as string
}

async function session (app: FastifyInstance, cookie: string, url: string, fields: Record<string, string>): Promise<LightMyRequestResponse> {
  return await app.inject({ method: 'POST', url, payload: formBody(fields), headers: { ...FORM, cookie } })
}

async function startRun (app: FastifyInstance, cookie: string, game: TestGame): Promise<string> {
  return dataOf(await session(app, cookie, '/api/rank?action=run-start-self', { game_id: game.gameId })).run_id
}

/** Some verified play: the run played for a little over a second (the wall clock decides), then reported. */
async function verifiedPlay (app: FastifyInstance, cookie: string, game: TestGame, runId: string): Promise<number> {
  await new Promise(resolve => setTimeout(resolve, 1100))
  return dataOf(await session(app, cookie, '/api/playtime', { game_id: game.gameId, seconds: '300', run_id: runId })).run_verified_seconds
}

t.test('a game keeps no runs unless its operator says so: v1 answers stay as they were', async t => {
  const { app } = await buildTestApp(t)
  const game = await createGame(app)
  t.match(dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}`)), { runs: 'off', min_run_seconds: 0, max_score_rate: null, implausible: 'hold', run_ttl_s: 3600 })
  const cookie = await login(app, 'ann')
  const refused = await session(app, cookie, '/api/rank?action=run-start-self', { game_id: game.gameId })
  t.equal(errorOf(refused), 'forbidden')
  t.match(refused.json().message, /keeps no runs/)
  t.equal(errorOf(await session(app, cookie, '/api/rank?action=submit-self', { game_id: game.gameId, score: '5', run_id: 'A'.repeat(22) })), 'invalid_run', 'a run_id where there are none')
  t.same(dataOf(await submit(app, game, { player: 'bob', score: 10 })), { score: 10, improved: true, best_score: 10, rank: 1 }, 'a v1 submit, exactly')
  for (const bad of [{ runs: 'sometimes' }, { min_run_seconds: -1 }, { max_score_rate: 0 }, { implausible: 'ignore' }, { run_ttl_s: 30 }, { run_ttl_s: 86_401 }]) {
    t.equal(errorOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}`, bad)), 'invalid_param', JSON.stringify(bad))
  }
})

t.test('a run: started, credited by play-time reports under the wall clock, takes one score', async t => {
  const { app } = await buildTestApp(t)
  const game = await runGame(app)
  const cookie = await login(app, 'ann')
  const before = Date.now()
  const started = dataOf(await session(app, cookie, '/api/rank?action=run-start-self', { game_id: game.gameId }))
  t.match(started.run_id, /^[A-Za-z0-9_-]{22}$/, '128 random bits')
  t.ok(Date.parse(started.expires_at) - Date.parse(started.started_at) === 3600_000 && Date.parse(started.started_at) >= before - 1000, 'run_ttl_s from its start')
  // Reports claiming more than the run has lasted credit the run only what the wall clock allows.
  const first = dataOf(await session(app, cookie, '/api/playtime', { game_id: game.gameId, seconds: '300', run_id: started.run_id }))
  t.equal(first.run_verified_seconds, 0, 'time claimed from before the run began is not the run\'s')
  t.equal(first.credited_seconds, 300, 'though the player\'s play time counts as before')
  const second = dataOf(await session(app, cookie, '/api/playtime', { game_id: game.gameId, seconds: '300', run_id: started.run_id }))
  const elapsed = (Date.now() - Date.parse(started.started_at)) / 1000
  t.ok(second.run_verified_seconds <= elapsed, `never more than the time since the run began: ${String(second.run_verified_seconds)} s of ${elapsed.toFixed(1)} s`)
  // Two tabs reporting the same run at once: no more.
  const tabs = await Promise.all([1, 2].map(async () => dataOf(await session(app, cookie, '/api/playtime', { game_id: game.gameId, seconds: '300', run_id: started.run_id }))))
  t.ok(Math.max(...tabs.map(tab => tab.run_verified_seconds)) <= (Date.now() - Date.parse(started.started_at)) / 1000, 'two tabs do not double it')
  // The score, once.
  t.match(dataOf(await session(app, cookie, '/api/rank?action=submit-self', { game_id: game.gameId, score: '40', run_id: started.run_id })), { score: 40, improved: true })
  const again = await session(app, cookie, '/api/rank?action=submit-self', { game_id: game.gameId, score: '50', run_id: started.run_id })
  t.equal(errorOf(again), 'invalid_run', 'a run takes one score')
  t.match(again.json().message, /took a score already/)
  t.match(dataOf(await top(app, game)).items, [{ player_name: 'ann', score: 40 }], 'the second was not stored')
  t.match(dataOf(await session(app, cookie, '/api/rank?action=submit-self', { game_id: game.gameId, score: '45' })), { score: 45 }, 'optional: a submit without a run still counts')
})

t.test('runs that are not the player\'s, not this game\'s, forged, malformed or over name no run', async t => {
  const { app } = await buildTestApp(t)
  const game = await runGame(app)
  const other = await runGame(app)
  const ann = await login(app, 'ann')
  const bob = await login(app, 'bob')
  const annRun = await startRun(app, ann, game)
  const otherRun = await startRun(app, ann, other)
  const cases: Array<[string, string, string, RegExp]> = [
    ['another player\'s', bob, annRun, /another player's/],
    ['another game\'s', ann, otherRun, /no open run/i],
    ['forged', ann, 'A'.repeat(22), /no open run/i]
  ]
  for (const [what, cookie, runId, why] of cases) {
    const answer = await session(app, cookie, '/api/rank?action=submit-self', { game_id: game.gameId, score: '5', run_id: runId })
    t.equal(errorOf(answer), 'invalid_run', what)
    t.match(answer.json().message, why, what)
    t.equal(errorOf(await session(app, cookie, '/api/playtime', { game_id: game.gameId, seconds: '30', run_id: runId })), 'invalid_run', `${what}: no play time for it either`)
  }
  for (const malformed of ['abc', 'A'.repeat(23), '../../../../etc/passwd', 'A'.repeat(21) + '*', '__proto__', 'A'.repeat(5000)]) {
    const answer = await session(app, ann, '/api/rank?action=submit-self', { game_id: game.gameId, score: '5', run_id: malformed })
    t.equal(errorOf(answer), 'invalid_run', `malformed: ${malformed.slice(0, 30)}`)
    t.match(answer.json().message, /malformed/)
  }
  const twice = await app.inject({ method: 'POST', url: '/api/rank?action=submit-self', payload: `game_id=${game.gameId}&score=5&run_id=${annRun}&run_id=${annRun}`, headers: { ...FORM, cookie: ann } })
  t.equal(errorOf(twice), 'invalid_param', 'run_id sent twice')
  // Its time up (as if an hour had passed).
  const stored = (await app.redis.hget(keys.playerRuns(game.gameId, 'ann'), annRun) as string).split('|')
  stored[1] = String(Date.now() - 1)
  await app.redis.hset(keys.playerRuns(game.gameId, 'ann'), annRun, stored.join('|'))
  const expired = await session(app, ann, '/api/rank?action=submit-self', { game_id: game.gameId, score: '5', run_id: annRun })
  t.equal(errorOf(expired), 'invalid_run')
  t.match(expired.json().message, /time is up/)
  t.same(dataOf(await top(app, game)).items, [], 'nothing stored by any of them')
})

t.test('the rate: a score at it counts, past it is held with its run (or refused), on both board orders', async t => {
  const { app } = await buildTestApp(t)
  for (const order of ['desc', 'asc'] as const) {
    const game = await runGame(app, { order, max_score_rate: 10 })
    const cookie = await login(app, `player_${order}`)
    const atRate = await startRun(app, cookie, game)
    const verified = await verifiedPlay(app, cookie, game, atRate)
    t.ok(verified > 0, `${order}: some verified play (${verified} s)`)
    t.match(dataOf(await session(app, cookie, '/api/rank?action=submit-self', { game_id: game.gameId, score: String(verified * 10), run_id: atRate })), { improved: true }, `${order}: verified × rate counts`)
    // Past the rate (another player, with no entry yet): on a desc board more points, on an asc board a longer time than the play allows.
    const other = await login(app, `other_${order}`)
    const past = await startRun(app, other, game)
    const pastVerified = await verifiedPlay(app, other, game, past)
    const held = dataOf(await session(app, other, '/api/rank?action=submit-self', { game_id: game.gameId, score: String(pastVerified * 10 + 1), run_id: past }))
    if (order === 'desc') {
      t.match(held, { held: true, improved: false }, 'desc: one point past the rate is held')
      const queue = dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/review`)).items
      t.match(queue, [{ rule: 'run_rate', run: { run_id: past, verified_seconds: pastVerified } }], 'the review queue shows the run and its verified play')
    } else {
      t.match(held, { held: true }, 'asc: a lap longer than the verified play is held')
      t.match(dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/review`)).items, [{ rule: 'run_rate' }])
    }
  }
  // Refused instead, as the game says.
  const strict = await runGame(app, { max_score_rate: 1, implausible: 'refuse' })
  const cookie = await login(app, 'strict')
  const runId = await startRun(app, cookie, strict)
  const verified = await verifiedPlay(app, cookie, strict, runId)
  const refused = await session(app, cookie, '/api/rank?action=submit-self', { game_id: strict.gameId, score: String(verified + 1000), run_id: runId })
  t.equal(errorOf(refused), 'implausible_score')
  t.match(refused.json().message, /verified play/)
  t.match(dataOf(await session(app, cookie, '/api/rank?action=submit-self', { game_id: strict.gameId, score: String(verified), run_id: runId })), { improved: true }, 'a refused score does not spend the run')
})

t.test('score.held says why: the run rule and its verified play, never the run id', async t => {
  const { app } = await buildTestApp(t, { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_DISPATCH: 'false' })
  const game = await runGame(app, { max_score_rate: 1 })
  dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/webhooks`, { url: 'http://127.0.0.1:9/nobody-listens' }))
  const cookie = await login(app, 'eve')
  const runId = await startRun(app, cookie, game)
  const verified = await verifiedPlay(app, cookie, game, runId)
  t.match(dataOf(await session(app, cookie, '/api/rank?action=submit-self', { game_id: game.gameId, score: String(verified + 100), run_id: runId })), { held: true })
  const events = dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/events`)).items
  const held = events.find((event: { type: string }) => event.type === 'score.held')
  t.match(held?.data, { player_name: 'eve', score: verified + 100, rule: 'run_rate', run_verified_seconds: verified })
  t.notMatch(JSON.stringify(events), new RegExp(runId), 'the run id is in no event')
})

t.test('an asc board: a time shorter than its run\'s play counts; min_run_seconds holds a run too short', async t => {
  const { app } = await buildTestApp(t)
  const game = await runGame(app, { order: 'asc', max_score_rate: 1000, min_run_seconds: 60 })
  const cookie = await login(app, 'lapper')
  const runId = await startRun(app, cookie, game)
  const verified = await verifiedPlay(app, cookie, game, runId)
  t.ok(verified < 60)
  const held = dataOf(await session(app, cookie, '/api/rank?action=submit-self', { game_id: game.gameId, score: '1200', run_id: runId }))
  t.match(held, { held: true }, 'a 1.2 s lap from a run shorter than min_run_seconds is held')
  t.match(dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/review`)).items, [{ rule: 'run_short', score: 1200 }])
})

t.test('required: a submit without a run is run_required; API-key mode starts runs signed, with run-start for the score', async t => {
  const { app } = await buildTestApp(t)
  const game = await runGame(app, { runs: 'required' })
  const noRun = await submit(app, game, { player: 'cy', score: 10 })
  t.equal(errorOf(noRun), 'run_required')
  const ts = String(Math.floor(Date.now() / 1000))
  const startFields = { api_key: game.apiKey, game_id: game.gameId, player_name: 'cy', ts }
  const sign = computeSignature(game.apiSecret, { ...startFields, score: 'run-start' })
  const started = dataOf(await post(app, '/api/rank?action=run-start', { ...startFields, sign }))
  t.match(started.run_id, /^[A-Za-z0-9_-]{22}$/)
  t.equal(errorOf(await post(app, '/api/rank?action=run-start', { ...startFields, sign: computeSignature(game.apiSecret, { ...startFields, score: '0' }) })), 'invalid_signature', 'signed with run-start, nothing else')
  t.equal(errorOf(await post(app, '/api/rank?action=run-start', { ...startFields, sign: sign.toUpperCase() })), 'invalid_signature')
  t.equal(errorOf(await submit(app, game, { player: 'dee', score: 10, extra: { run_id: started.run_id } })), 'invalid_run', 'cy\'s run is not dee\'s')
  t.match(dataOf(await submit(app, game, { player: 'cy', score: 10, extra: { run_id: started.run_id } })), { score: 10, improved: true }, 'the run_id is not signed: it is the run that vouches')
})

t.test('erasing a player erases their runs', async t => {
  const { app } = await buildTestApp(t)
  const game = await runGame(app)
  const cookie = await login(app, 'ann')
  await startRun(app, cookie, game)
  t.equal(await app.redis.exists(keys.playerRuns(game.gameId, 'ann')), 1)
  dataOf(await admin(app, 'DELETE', '/admin/users/ann?erase=true'))
  t.equal(await app.redis.exists(keys.playerRuns(game.gameId, 'ann'), keys.runStarts(game.gameId, 'ann')), 0, 'the runs and the count of starts are gone')
})

t.test('bounds: open runs per player (the oldest closes), run starts per minute', async t => {
  const { app } = await buildTestApp(t, { SESSION_RATE_LIMIT_MAX: '1000' })
  const game = await runGame(app)
  const cookie = await login(app, 'ann')
  const runs: string[] = []
  for (let i = 0; i <= MAX_OPEN_RUNS; i++) runs.push(await startRun(app, cookie, game))
  t.equal(errorOf(await session(app, cookie, '/api/rank?action=submit-self', { game_id: game.gameId, score: '1', run_id: runs[0] as string })), 'invalid_run', `past ${MAX_OPEN_RUNS} open runs the oldest closes`)
  t.match(dataOf(await session(app, cookie, '/api/rank?action=submit-self', { game_id: game.gameId, score: '1', run_id: runs[1] as string })), { score: 1 }, 'the next one is open')
  for (let i = runs.length; i < MAX_RUN_STARTS_PER_MINUTE; i++) await startRun(app, cookie, game)
  const tooMany = await session(app, cookie, '/api/rank?action=run-start-self', { game_id: game.gameId })
  t.equal(errorOf(tooMany), 'rate_limited', `more than ${MAX_RUN_STARTS_PER_MINUTE} starts a minute`)
  t.ok(Number(tooMany.headers['retry-after']) >= 1 && Number(tooMany.headers['retry-after']) <= 60)
  t.ok(await app.redis.hlen(keys.playerRuns(game.gameId, 'ann')) <= MAX_OPEN_RUNS, 'open runs stay bounded')
  t.ok(await app.redis.pttl(keys.playerRuns(game.gameId, 'ann')) > 0, 'and expire with the last of them')
})

/** An API-key request of the runs actions, as a browser game without a server sends it: the public key, no secret. */
async function keyRun (app: FastifyInstance, action: string, game: TestGame, fields: Record<string, string>, apiKey = game.apiKey): Promise<LightMyRequestResponse> {
  return await post(app, `/api/rank?action=${action}`, { api_key: apiKey, game_id: game.gameId, ...fields })
}

t.test('run-report: a run started with the key gets verified play under the wall clock; runs side by side share it', async t => {
  const { app } = await buildTestApp(t)
  const game = await runGame(app, { submit_run: 'on', max_score_rate: 100 })
  const first = dataOf(await keyRun(app, 'run-start', game, { player_name: 'kim' }))
  const second = dataOf(await keyRun(app, 'run-start', game, { player_name: 'kim' }))
  const right = dataOf(await keyRun(app, 'run-report', game, { player_name: 'kim', run_id: first.run_id, seconds: '300' }))
  t.match(right, { run_id: first.run_id }, 'the report answers the run')
  t.ok(right.run_verified_seconds <= 1, `a claim of 300 s right after the start is credited what has passed: ${String(right.run_verified_seconds)} s`)
  await new Promise(resolve => setTimeout(resolve, 2100))
  const firstLater = dataOf(await keyRun(app, 'run-report', game, { player_name: 'kim', run_id: first.run_id, seconds: '300' }))
  const secondLater = dataOf(await keyRun(app, 'run-report', game, { player_name: 'kim', run_id: second.run_id, seconds: '300' }))
  const elapsed = (Date.now() - Date.parse(first.started_at)) / 1000
  t.ok(firstLater.run_verified_seconds >= 2 && firstLater.run_verified_seconds <= elapsed, `the first run: ${String(firstLater.run_verified_seconds)} s of ${elapsed.toFixed(1)} s`)
  t.ok(firstLater.run_verified_seconds + secondLater.run_verified_seconds <= elapsed, 'the second run, played beside it, gets none of the same seconds: together no more than the wall clock')
  // What names no run of this key's.
  const otherKey = dataOf(await admin(app, 'POST', '/admin/keys', { game_id: game.gameId })).api_key as string
  t.equal(errorOf(await keyRun(app, 'run-report', game, { player_name: 'kim', run_id: first.run_id, seconds: '30' }, otherKey)), 'invalid_run', 'another key of the game')
  t.equal(errorOf(await keyRun(app, 'run-report', game, { player_name: 'lee', run_id: first.run_id, seconds: '30' })), 'invalid_run', 'another player')
  const cookie = await login(app, 'kim')
  const sessionRun = await startRun(app, cookie, game)
  t.equal(errorOf(await keyRun(app, 'run-report', game, { player_name: 'kim', run_id: sessionRun, seconds: '30' })), 'invalid_run', 'a run started by session reports by session')
  // And the other way: a run started with the key is not credited by the user's play-time reports (two clocks would double it).
  const keyRunId = dataOf(await keyRun(app, 'run-start', game, { player_name: 'kim' })).run_id
  t.equal(errorOf(await session(app, cookie, '/api/playtime', { game_id: game.gameId, seconds: '30', run_id: keyRunId })), 'invalid_run', 'a run started with the key reports with the key')
  t.equal(errorOf(await session(app, cookie, '/api/rank?action=submit-self', { game_id: game.gameId, score: '1', run_id: keyRunId })), 'invalid_run', 'and scores with the key')
  // Whoever holds the public key cannot close the user's session runs: they are another hash.
  for (let i = 0; i < MAX_OPEN_RUNS + 1; i++) dataOf(await keyRun(app, 'run-start', game, { player_name: 'kim' }))
  t.match(dataOf(await session(app, cookie, '/api/playtime', { game_id: game.gameId, seconds: '30', run_id: sessionRun })), { run_verified_seconds: 0 }, 'the session run is still open after many key runs')
  // A run that took its score is reported no more.
  const usedRun = dataOf(await keyRun(app, 'run-start', game, { player_name: 'lee' })).run_id
  dataOf(await keyRun(app, 'submit-run', game, { player_name: 'lee', run_id: usedRun, score: '0' }))
  const used = await keyRun(app, 'run-report', game, { player_name: 'lee', run_id: usedRun, seconds: '30' })
  t.equal(errorOf(used), 'invalid_run')
  t.match(used.json().message, /took a score already/)
  for (const [seconds, code] of [['0', 'invalid_seconds'], ['301', 'invalid_seconds'], ['1e2', 'invalid_seconds']]) {
    t.equal(errorOf(await keyRun(app, 'run-report', game, { player_name: 'kim', run_id: first.run_id, seconds: seconds as string })), code, `seconds ${seconds as string}`)
  }
  t.equal(errorOf(await keyRun(app, 'run-report', game, { player_name: 'kim', run_id: 'not-a-run', seconds: '30' })), 'invalid_run', 'a malformed run_id')
  t.equal(errorOf(await keyRun(app, 'run-report', game, { player_name: 'kim', seconds: '30' })), 'missing_param')
  const plain = await createGame(app)
  t.equal(errorOf(await keyRun(app, 'run-report', plain, { player_name: 'kim', run_id: first.run_id, seconds: '30' })), 'forbidden', 'a game that keeps no runs')
})

t.test('run-start without a signature only where the game allows submit-run', async t => {
  const { app } = await buildTestApp(t)
  const game = await runGame(app)
  t.equal(errorOf(await keyRun(app, 'run-start', game, { player_name: 'kim' })), 'missing_param', 'ts and sign, where scores are signed')
  const ts = String(Math.floor(Date.now() / 1000))
  t.equal(errorOf(await keyRun(app, 'run-start', game, { player_name: 'kim', ts, sign: 'f'.repeat(64) })), 'invalid_signature')
  t.equal(errorOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}`, { submit_run: 'on' })), 'invalid_param', 'submit_run on needs a max_score_rate: nothing else checks such scores')
  dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}`, { submit_run: 'on', max_score_rate: 100 }))
  t.equal(errorOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}`, { max_score_rate: null })), 'invalid_param', 'nor can the rate go while it is on')
  t.equal(errorOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}`, { runs: 'off' })), 'invalid_param', 'nor the runs')
  t.match(dataOf(await keyRun(app, 'run-start', game, { player_name: 'kim' })).run_id, /^[A-Za-z0-9_-]{22}$/, 'unsigned where submit-run is allowed')
  t.equal(errorOf(await keyRun(app, 'run-start', game, { player_name: 'kim', ts, sign: 'f'.repeat(64) })), 'invalid_signature', 'a signature sent is still checked')
  t.equal(errorOf(await keyRun(app, 'run-start', game, { player_name: 'kim', ts })), 'missing_param', 'half of one is not none')
  t.equal(errorOf(await keyRun(app, 'run-start', game, { player_name: 'x'.repeat(31) })), 'invalid_player_name')
})

t.test('submit-run: a browser game\'s score with its run and the public key, only where the game allows it', async t => {
  const { app } = await buildTestApp(t)
  const game = await runGame(app, { max_score_rate: 10 })
  const run = dataOf(await keyRun(app, 'run-start', game, { player_name: 'kim', ts: String(Math.floor(Date.now() / 1000)), sign: computeSignature(game.apiSecret, { api_key: game.apiKey, game_id: game.gameId, player_name: 'kim', score: 'run-start', ts: String(Math.floor(Date.now() / 1000)) }) }))
  const refused = await keyRun(app, 'submit-run', game, { player_name: 'kim', run_id: run.run_id, score: '1' })
  t.equal(errorOf(refused), 'forbidden', 'off by default')
  t.match(refused.json().message, /submit_run/)
  dataOf(await admin(app, 'PATCH', `/admin/games/${game.gameId}`, { submit_run: 'on' }))
  t.equal(errorOf(await keyRun(app, 'submit-run', game, { player_name: 'kim', score: '1' })), 'missing_param', 'a run is what it takes')
  t.equal(errorOf(await keyRun(app, 'submit-run', game, { player_name: 'kim', run_id: run.run_id, score: 'x' })), 'invalid_score')
  t.equal(errorOf(await keyRun(app, 'submit-run', game, { player_name: 'kim', run_id: run.run_id, score: '1', meta: '{' })), 'invalid_meta')
  // A run another key started is not this key's to submit with.
  const otherKey = dataOf(await admin(app, 'POST', '/admin/keys', { game_id: game.gameId })).api_key as string
  t.equal(errorOf(await keyRun(app, 'submit-run', game, { player_name: 'kim', run_id: run.run_id, score: '1' }, otherKey)), 'invalid_run', 'a run of another key')
  const cookie = await login(app, 'kim')
  const sessionRun = await startRun(app, cookie, game)
  t.equal(errorOf(await keyRun(app, 'submit-run', game, { player_name: 'kim', run_id: sessionRun, score: '1' })), 'invalid_run', 'a run started by session')
  // Play, reported; a score within the rate counts; the run takes it once.
  await new Promise(resolve => setTimeout(resolve, 1100))
  const verified = dataOf(await keyRun(app, 'run-report', game, { player_name: 'kim', run_id: run.run_id, seconds: '300' })).run_verified_seconds as number
  t.ok(verified >= 1)
  t.same(dataOf(await keyRun(app, 'submit-run', game, { player_name: 'kim', run_id: run.run_id, score: String(verified * 10) })), { score: verified * 10, improved: true, best_score: verified * 10, rank: 1 }, 'the answer of submit')
  t.equal(errorOf(await keyRun(app, 'submit-run', game, { player_name: 'kim', run_id: run.run_id, score: '2' })), 'invalid_run', 'a run takes one score')
  // Past the rate: held, with the run's timeline for the reviewer.
  const cheat = dataOf(await keyRun(app, 'run-start', game, { player_name: 'max' }))
  await new Promise(resolve => setTimeout(resolve, 1100))
  const cheatVerified = dataOf(await keyRun(app, 'run-report', game, { player_name: 'max', run_id: cheat.run_id, seconds: '300' })).run_verified_seconds as number
  t.match(dataOf(await keyRun(app, 'submit-run', game, { player_name: 'max', run_id: cheat.run_id, score: '1000000' })), { held: true, improved: false })
  const [held] = dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/review`)).items
  t.match(held, { player_name: 'max', rule: 'run_rate', run: { run_id: cheat.run_id, verified_seconds: cheatVerified, started_at: cheat.started_at, reports: 1 } })
  t.equal(held.run.timeline.length, 1, 'one report in its timeline')
  t.equal(held.run.timeline[0].credited_seconds, cheatVerified)
  t.ok(Date.parse(held.run.timeline[0].at) > Date.parse(cheat.started_at), 'after the run began')
  t.match(dataOf(await top(app, game)).items, [{ player_name: 'kim' }], 'the held score is on no board')
})

t.test('submit-run on a lower-is-better board: a time needs a floor, since a run bounds it only from above (docs/interface.md#what-each-setting-bounds)', async t => {
  const { app } = await buildTestApp(t)
  /** A run of `player` started with the public key, played `playMs` and reported, then its score. */
  async function playedRun (game: TestGame, player: string, score: number, playMs = 1100): Promise<LightMyRequestResponse> {
    const run = dataOf(await keyRun(app, 'run-start', game, { player_name: player }))
    await new Promise(resolve => setTimeout(resolve, playMs))
    dataOf(await keyRun(app, 'run-report', game, { player_name: player, run_id: run.run_id, seconds: '300' }))
    return await keyRun(app, 'submit-run', game, { player_name: player, run_id: run.run_id, score: String(score) })
  }
  // Higher is better: the rate is the ceiling a cheater's score meets; no floor is asked for.
  const points = await runGame(app, { runs: 'required', max_score_rate: 1000 })
  t.match(dataOf(await admin(app, 'PATCH', `/admin/games/${points.gameId}`, { submit_run: 'on' })), { submit_run: 'on' }, 'desc: the rate is enough')
  t.match(dataOf(await playedRun(points, 'hi', 1_000_000)), { held: true }, 'desc: a score past the rate is held')

  // Lower is better: the same settings would let a 1 ms time from 1 s of play rank first.
  const laps = await runGame(app, { order: 'asc', runs: 'required', max_score_rate: 1000 })
  const refused = await admin(app, 'PATCH', `/admin/games/${laps.gameId}`, { submit_run: 'on' })
  t.equal(errorOf(refused), 'invalid_param', 'asc: submit_run on without a floor')
  t.match(refused.json().message, /submit_run.*score_min.*review_below/)
  t.equal(errorOf(await admin(app, 'POST', '/admin/games', { game_id: 'laps_new', order: 'asc', runs: 'required', max_score_rate: 1000, submit_run: 'on' })), 'invalid_param', 'nor made so')
  t.match(dataOf(await admin(app, 'PATCH', `/admin/games/${laps.gameId}`, { submit_run: 'on', score_min: 2000 })), { submit_run: 'on', score_min: 2000 }, 'with score_min')
  const noFloor = await admin(app, 'PATCH', `/admin/games/${laps.gameId}`, { score_min: null })
  t.equal(errorOf(noFloor), 'invalid_param', 'the floor cannot go while submit_run is on')
  t.match(noFloor.json().message, /"score_min"/)
  t.match(dataOf(await playedRun(laps, 'honest', 2500, 3100)), { improved: true, rank: 1 }, 'an honest 2.5 s, from 3 s of play')
  t.equal(errorOf(await playedRun(laps, 'cheat', 1)), 'score_out_of_range', 'a 1 ms time is below the floor')
  t.match(dataOf(await top(app, laps)).items, [{ player_name: 'honest', score: 2500 }], 'the honest time stays first')
  // review_below instead: a time below it is held for review.
  t.match(dataOf(await admin(app, 'PATCH', `/admin/games/${laps.gameId}`, { score_min: null, review_below: 2000 })), { score_min: null, review_below: 2000 })
  t.match(dataOf(await playedRun(laps, 'cheat', 1)), { held: true, improved: false }, 'with review_below: held')
  t.match(dataOf(await admin(app, 'GET', `/admin/games/${laps.gameId}/review`)).items, [{ player_name: 'cheat', score: 1, rule: 'review_below' }])

  // Named boards of a game that allows submit-run: a lower-is-better one needs its own floor.
  const made = await admin(app, 'POST', `/admin/games/${points.gameId}/boards`, { board_id: 'sprint', order: 'asc' })
  t.equal(errorOf(made), 'invalid_param', 'an asc board without a floor')
  t.match(made.json().message, /"order".*submit-run/)
  dataOf(await admin(app, 'POST', `/admin/games/${points.gameId}/boards`, { board_id: 'sprint', order: 'asc', score_min: 1500 }))
  t.equal(errorOf(await admin(app, 'PATCH', `/admin/games/${points.gameId}/boards/sprint`, { score_min: null })), 'invalid_param', 'nor may it lose it')
  dataOf(await admin(app, 'PATCH', `/admin/games/${points.gameId}/boards/sprint`, { score_min: null, archived: true }))
  t.equal(errorOf(await admin(app, 'PATCH', `/admin/games/${points.gameId}/boards/sprint`, { archived: false })), 'invalid_param', 'an archived board takes no score; back in use it needs its floor')
  dataOf(await admin(app, 'PATCH', `/admin/games/${points.gameId}`, { submit_run: 'off' }))
  dataOf(await admin(app, 'PATCH', `/admin/games/${points.gameId}/boards/sprint`, { archived: false }))
  const turnedOn = await admin(app, 'PATCH', `/admin/games/${points.gameId}`, { submit_run: 'on' })
  t.equal(errorOf(turnedOn), 'invalid_param', 'submit_run on over a named board without a floor')
  t.match(turnedOn.json().message, /"sprint"/)

  // A game kept from before the rule (written by hand): its submit-runs are refused until it has a floor.
  await app.redis.hset(keys.game(laps.gameId), 'review_below', '')
  t.equal((await app.records.game(laps.gameId, { fresh: true }))?.review_below, null)
  const legacy = await playedRun(laps, 'late', 1)
  t.equal(errorOf(legacy), 'forbidden', 'no floor: no submit-run')
  t.match(legacy.json().message, /floor/)
})

t.test('export: an entry from a run carries its verified play; a later best without one does not', async t => {
  const { app } = await buildTestApp(t)
  const game = await runGame(app, { max_score_rate: 1 })
  const cookie = await login(app, 'ann')
  const runId = await startRun(app, cookie, game)
  const verified = await verifiedPlay(app, cookie, game, runId)
  dataOf(await session(app, cookie, '/api/rank?action=submit-self', { game_id: game.gameId, score: String(verified), run_id: runId }))
  dataOf(await submit(app, game, { player: 'bob', score: 1 }))
  // A held score from a run, approved: its entry carries the run too.
  const cheat = await login(app, 'cat')
  const cheatRun = await startRun(app, cheat, game)
  const cheatVerified = await verifiedPlay(app, cheat, game, cheatRun)
  t.match(dataOf(await session(app, cheat, '/api/rank?action=submit-self', { game_id: game.gameId, score: String(cheatVerified + 50), run_id: cheatRun })), { held: true })
  const [held] = dataOf(await admin(app, 'GET', `/admin/games/${game.gameId}/review`)).items
  dataOf(await admin(app, 'POST', `/admin/games/${game.gameId}/review/${String(held.held_id)}/approve`, {}))
  const lines = (await admin(app, 'GET', `/admin/games/${game.gameId}/export`)).body.trim().split('\n').map(line => JSON.parse(line))
  t.match(lines.find(line => line.player_name === 'ann'), { score: verified, run_verified_seconds: verified }, 'the run beside its entry')
  t.match(lines.find(line => line.player_name === 'cat'), { score: cheatVerified + 50, run_verified_seconds: cheatVerified }, 'an approved run score too')
  t.match(lines.find(line => line.player_name === 'bob'), { run_verified_seconds: null }, 'no run, null')
  const csv = (await admin(app, 'GET', `/admin/games/${game.gameId}/export?format=csv`)).body.split('\r\n')
  t.ok(csv.some(row => row.includes(',ann,') && row.endsWith(`,${String(verified)}`)), 'the CSV\'s last column')
  // A better score without a run replaces the entry: its run no longer speaks for it.
  dataOf(await session(app, cookie, '/api/rank?action=submit-self', { game_id: game.gameId, score: String(verified + 100) }))
  const after = (await admin(app, 'GET', `/admin/games/${game.gameId}/export`)).body.trim().split('\n').map(line => JSON.parse(line))
  t.match(after.find(line => line.player_name === 'ann'), { score: verified + 100, run_verified_seconds: null })
  // A run speaks for its entry only while both the entry's ms and score are its own (a best without a run in the same ms is not the run's).
  const catLine = after.find(line => line.player_name === 'cat')
  const catMs = String(Date.parse(catLine.achieved_at)).padStart(13, '0')
  await app.redis.hset(keys.entryRun(game.gameId, 'cat'), 'cat', `${catMs}|${String(catLine.score - 1)}|${String(cheatVerified)}`)
  t.match(JSON.parse((await admin(app, 'GET', `/admin/games/${game.gameId}/export`)).body.trim().split('\n').find(line => line.includes('"cat"')) as string), { run_verified_seconds: null }, 'another score at the same ms is not the run\'s')
  // Deleting an entry forgets its run: its exported line, imported again, comes from no run.
  // (ann's first export line: the entry of her run, whose run record is still there until the delete.)
  const annLine = lines.find(line => line.player_name === 'ann')
  dataOf(await admin(app, 'DELETE', `/admin/games/${game.gameId}/players/ann`))
  t.equal(await app.redis.hexists(keys.entryRun(game.gameId, 'ann'), 'ann'), 0, 'the deleted entry\'s run is gone')
  const imported = await app.inject({ method: 'POST', url: `/admin/games/${game.gameId}/import`, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/x-ndjson' }, payload: `${JSON.stringify(annLine)}\n` })
  t.match(imported.json(), { ok: true, data: { imported: 1 } }, 'an export line is still an import line')
  const reimported = (await admin(app, 'GET', `/admin/games/${game.gameId}/export`)).body.trim().split('\n').map(line => JSON.parse(line))
  t.match(reimported.find(line => line.player_name === 'ann'), { score: verified, achieved_at: annLine.achieved_at, run_verified_seconds: null }, 'and comes from no run')
  // Erasing a player forgets their entries' runs too.
  dataOf(await admin(app, 'DELETE', '/admin/users/cat?erase=true'))
  t.equal(await app.redis.hexists(keys.entryRun(game.gameId, 'cat'), 'cat'), 0, 'the erased player\'s entry run is gone')
})
