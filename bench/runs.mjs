// What proof of play costs the submit path (`npm run bench:runs`;
// docs/interface.md#runs): Redis CPU and commands per signed submit on a game
// that keeps runs, without a run and with one, and per unsigned submit-run;
// and a plain game (runs off) beside them. Each variant runs in blocks of
// --requests submits (--concurrency at a time), alternating over --rounds
// rounds on the same Redis and service, so every variant meets the same state
// of the box; the report takes each variant's median over the rounds.
//
// Measured around each block, from Redis itself: INFO cpu (used_cpu_sys +
// used_cpu_user: everything the Redis process spent, network included),
// INFO commandstats (calls and usec per command, the scripts' own commands
// included) and the EVALSHA time alone. Runs are seeded straight into Redis
// before the block that uses them (one per submit: a run takes one score),
// in the stored form of lua/includes/runs.lua, outside the measured window.
//
// Options: --requests=4000 --concurrency=16 --rounds=5 --players=1000 (so a
// player has about four runs in a block, as in use: at most five are open)
// Writes bench/RUNS.md.
import { randomBytes } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ensureBuild, ensureDependencies, root } from '../scripts/runtime.mjs'

ensureDependencies()
ensureBuild()

const { cleanupSync, stopProcess } = await import('./lib/processes.mjs')
const { redisClient, startRedis } = await import('./lib/redis.mjs')
const { adminCall, startService } = await import('./lib/service.mjs')
const { createGame, playerName, scoreMix, seedBoard } = await import('./lib/seed.mjs')
const { computeSignature, keys } = await import('./lib/compiled.mjs')
const { BUDGETS, budgetLine } = await import('./lib/budgets.mjs')

const option = (name, fallback) => {
  const arg = process.argv.find(value => value.startsWith(`--${name}=`))
  return arg === undefined ? fallback : Number(arg.slice(name.length + 3))
}
const REQUESTS = option('requests', 4000)
const CONCURRENCY = option('concurrency', 16)
const ROUNDS = option('rounds', 5)
const PLAYERS = option('players', 1000)

process.on('exit', cleanupSync)

/** INFO cpu and commandstats: Redis's CPU seconds, and calls and usec per command. */
async function redisCost (redis) {
  const text = await redis.info('cpu', 'commandstats')
  let cpu = 0
  const commands = {}
  for (const line of text.split('\r\n')) {
    const [name, value] = line.split(':')
    if (name === 'used_cpu_sys' || name === 'used_cpu_user') cpu += Number(value)
    if (name.startsWith('cmdstat_')) {
      commands[name.slice(8)] = { calls: Number(/calls=(\d+)/.exec(value)[1]), usec: Number(/usec=(\d+)/.exec(value)[1]) }
    }
  }
  return { cpu, commands }
}

function costDelta (before, after, requests) {
  const commands = {}
  let calls = 0
  for (const [name, { calls: c, usec }] of Object.entries(after.commands)) {
    if (name === 'info') continue
    const was = before.commands[name] ?? { calls: 0, usec: 0 }
    if (c > was.calls) {
      commands[name] = { calls: (c - was.calls) / requests, usec: (usec - was.usec) / requests }
      calls += c - was.calls
    }
  }
  return { cpuUs: (after.cpu - before.cpu) * 1e6 / requests, commands: calls / requests, evalshaUs: commands.evalsha?.usec ?? 0, byCommand: commands }
}

/** Sends the bodies, CONCURRENCY at a time; every answer must be "ok":true. */
async function send (base, action, bodies) {
  let next = 0
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < bodies.length) {
      const body = bodies[next++]
      const response = await fetch(`${base}/api/rank?action=${action}`, { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded' } })
      const answer = await response.json()
      if (answer.ok !== true) throw new Error(`${action} answered ${JSON.stringify(answer)}`)
    }
  }))
}

const redisServer = await startRedis()
const redis = redisClient(redisServer.port)
const service = await startService(redisServer.port, 1)
console.log(`bench:runs: Redis on ${redisServer.port}, the service on ${service.port}, ${ROUNDS} rounds of ${REQUESTS} submits per variant`)

const runsGame = await createGame(service.base, 'bench_runs', 'Bench runs', { runs: 'optional', submit_run: 'on', max_score_rate: 1e12 })
const plainGame = await createGame(service.base, 'bench_plain', 'Bench plain')
const boards = { [runsGame.gameId]: await seedBoard(redis, runsGame.gameId, PLAYERS), [plainGame.gameId]: await seedBoard(redis, plainGame.gameId, PLAYERS) }

/** A run for each submit of a block (player indexes), as run-start writes them, played for 60 s and reported once: their ids, in order. */
async function seedRuns (gameId, players, apiKey) {
  const now = Date.now()
  const runIds = []
  const pipeline = redis.pipeline()
  // A player holds at most 5 open runs (run-start drops the rest): the hashes start empty, as small as they are in use.
  for (const i of new Set(players)) pipeline.del(keys.playerRuns(gameId, playerName(i), true))
  for (const i of players) {
    const runId = randomBytes(16).toString('base64url')
    runIds.push(runId)
    pipeline.hset(keys.playerRuns(gameId, playerName(i), true), runId, `${now - 60_000}|${now + 3_600_000}|60|${now}||${apiKey}|1|60:60`)
  }
  await pipeline.exec()
  return runIds
}

const VARIANTS = {
  'signed submit, plain game (runs off)': { game: plainGame, action: 'submit', signed: true, run: false },
  'signed submit, runs game, no run': { game: runsGame, action: 'submit', signed: true, run: false },
  'signed submit with a run': { game: runsGame, action: 'submit', signed: true, run: true },
  'submit-run (unsigned, with a run)': { game: runsGame, action: 'submit-run', signed: false, run: true }
}

async function block (variant) {
  const { game, action, signed, run } = variant
  const board = boards[game.gameId]
  const mix = scoreMix(board, PLAYERS, REQUESTS)
  const ts = String(Math.floor(Date.now() / 1000))
  // Runs started with the game's key (API-key mode's runs), as run-start writes them.
  const runIds = run ? await seedRuns(game.gameId, mix.players, game.key.api_key) : []
  const bodies = Array.from(mix.players, (i, k) => {
    const fields = { api_key: game.key.api_key, game_id: game.gameId, player_name: playerName(i), score: String(mix.scores[k]) }
    const form = new URLSearchParams(fields)
    if (signed) {
      form.set('ts', ts)
      form.set('sign', computeSignature(game.key.api_secret, { ...fields, ts }))
    }
    if (run) form.set('run_id', runIds[k])
    return form.toString()
  })
  const before = await redisCost(redis)
  await send(service.base, action, bodies)
  const after = await redisCost(redis)
  mix.commit(REQUESTS)
  return costDelta(before, after, REQUESTS)
}

// Warm-up: every script loaded, every code path once.
for (const variant of Object.values(VARIANTS)) await block({ ...variant })

const measured = Object.fromEntries(Object.keys(VARIANTS).map(name => [name, []]))
for (let round = 1; round <= ROUNDS; round++) {
  for (const [name, variant] of Object.entries(VARIANTS)) measured[name].push(await block(variant))
  console.log(`bench:runs: round ${round} of ${ROUNDS} done`)
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]
const rows = Object.entries(measured).map(([name, blocks]) => ({
  name,
  cpuUs: median(blocks.map(b => b.cpuUs)),
  evalshaUs: median(blocks.map(b => b.evalshaUs)),
  commands: median(blocks.map(b => b.commands)),
  byCommand: blocks[Math.floor(blocks.length / 2)].byCommand
}))
const base = rows[1]
const withRun = rows[2]
const fmt = (n, digits = 1) => n.toFixed(digits)
const budget = [
  budgetLine(withRun.cpuUs - base.cpuUs <= BUDGETS.run.us, `Redis CPU a run adds to a signed submit: +${fmt(withRun.cpuUs - base.cpuUs)} µs (budget <= +${BUDGETS.run.us} µs; bench/lib/budgets.mjs)`),
  budgetLine(withRun.commands - base.commands <= BUDGETS.run.commands, `Redis commands a run adds: +${fmt(withRun.commands - base.commands, 2)} (budget <= +${BUDGETS.run.commands})`)
]
const lines = [
  '# Proof of play on the submit path (`npm run bench:runs`)',
  '',
  `Generated ${new Date().toISOString()} by bench/runs.mjs: ${ROUNDS} rounds of ${REQUESTS} submits per variant, ${CONCURRENCY} at a time, one`,
  `service process (WORKERS=1) and its own redis-server, boards of ${PLAYERS} players, about half of the scores improving a best.`,
  'Medians over the rounds; every variant runs in every round, so the differences are measured on the same state of the box.',
  '',
  '| variant | Redis CPU µs / request | of it, the submit script (EVALSHA) µs | Redis commands / request | Δ CPU vs no run | Δ commands |',
  '|---|---:|---:|---:|---:|---:|',
  ...rows.map(row => `| ${row.name} | ${fmt(row.cpuUs)} | ${fmt(row.evalshaUs)} | ${fmt(row.commands, 2)} | ${row === base ? '' : `${row.cpuUs >= base.cpuUs ? '+' : ''}${fmt(row.cpuUs - base.cpuUs)}`} | ${row === base ? '' : `${row.commands >= base.commands ? '+' : ''}${fmt(row.commands - base.commands, 2)}`} |`),
  '',
  'Where the difference goes, per request (calls / µs by command, scripts\' own commands included; EVALSHA\'s µs include',
  'its commands and the Lua around them):',
  '',
  `| command | ${rows.map(row => row.name).join(' | ')} |`,
  `|---|${rows.map(() => '---:').join('|')}|`,
  ...[...new Set(rows.flatMap(row => Object.keys(row.byCommand)))].sort().map(command =>
    `| ${command} | ${rows.map(row => row.byCommand[command] === undefined ? '' : `${fmt(row.byCommand[command].calls, 2)} / ${fmt(row.byCommand[command].usec, 2)}`).join(' | ')} |`),
  '',
  '### Budget',
  '',
  ...budget.map(line => `- ${line}`),
  ''
]
writeFileSync(join(root, 'bench', 'RUNS.md'), lines.join('\n'))
console.log(lines.join('\n'))
await adminCall(service.base, 'GET', '/admin/whoami')
redis.disconnect()
await stopProcess(service.child)
await stopProcess(redisServer.child)
