// `npm run bench:ab -- NAME=value ...`: is a setting worth it? Two copies of
// the service run side by side on one redis-server, A with the defaults and B
// with the settings given, beside the minimal service (bench/minimal.mjs).
// `npm run bench:ab -- --against=<checkout>`: is a change worth it? B is
// then another checkout's build (its dist/, built there first: an older
// commit in a git worktree), with the defaults;
// rounds of minimal, A, B for signed submit and top20 on a board of 1,000,
// back to back, so all three meet the same state of the box. Prints each
// one's req/s and its ratio to the minimal service of the same round, and
// the CPU time per request of the server, redis-server and the client.
// `--session`: rate and playtime instead, A then B each round, with
// redis-server's CPU per request of each and B's to A's: what a change
// costs Redis on those paths. 3,000 signed-in players: 1,000 rate (again and
// again: after the first pass it changes nothing) and report play as raters
// (their ratings weigh their play as it grows: docs/ratings.md), 2,000 only
// report play, as most players do; last, the 1,000 rate with other stars
// each time (every figure written).
//
// Options: --rounds=3, --duration=5, --warmup=2, --workers=1 (all three), --session.
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { ensureBuild, ensureDependencies } from '../scripts/runtime.mjs'

const argv = process.argv.slice(2)
const flag = (name, fallback) => Number(argv.find(arg => arg.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback)
const settings = Object.fromEntries(argv.filter(arg => !arg.startsWith('--') && arg.includes('=')).map(arg => [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]))
const against = argv.find(arg => arg.startsWith('--against='))?.slice('--against='.length)
const session = argv.includes('--session')
const otherEntry = against === undefined ? undefined : resolve(against, 'dist/src/server.js')
const usable = against === undefined
  ? Object.keys(settings).length > 0 && Object.keys(settings).every(name => /^[A-Z][A-Z0-9_]*$/.test(name))
  : Object.keys(settings).length === 0 && existsSync(otherEntry)
if (!usable) {
  console.error('usage: npm run bench:ab -- NAME=value [NAME=value ...] [--rounds=3] [--duration=5] [--warmup=2] [--workers=1]\n' +
    '   or: npm run bench:ab -- --against=<another checkout, built> [--rounds=3] ...')
  process.exit(2)
}
const opts = { rounds: flag('rounds', 3), duration: flag('duration', 5), warmup: flag('warmup', 2), workers: flag('workers', 1), connections: 50, quietWait: 60, probeRequests: 0 }

ensureDependencies()
ensureBuild()

const { fmt, int, markdownTable } = await import('./lib/format.mjs')
const { measureScenario } = await import('./lib/measure.mjs')
const { minimalKey, seedMinimalBoard, startMinimal } = await import('./lib/minimal.mjs')
const { cleanupSync, stopProcess } = await import('./lib/processes.mjs')
const { redisClient, startRedis } = await import('./lib/redis.mjs')
const { createGames, createSessions, gameIdOf, seedBoard } = await import('./lib/seed.mjs')
const { startService } = await import('./lib/service.mjs')
const { versusMinimal } = await import('./scenarios/index.mjs')
const { playtime } = await import('./scenarios/playtime.mjs')
const { rate, rateChanging } = await import('./scenarios/rate.mjs')

const SIZE = 1000
const label = against === undefined ? Object.entries(settings).map(([name, value]) => `${name}=${value}`).join(' ') : `the build in ${against}`
const servers = []
let redisServer
let redis

try {
  redisServer = await startRedis()
  redis = redisClient(redisServer.port)
  const a = await startService(redisServer.port, opts.workers)
  servers.push(a)
  const b = await startService(redisServer.port, opts.workers, settings, [], otherEntry)
  b.child.benchName = 'service B' // its CPU apart from A's
  servers.push(b)
  const games = await createGames(a.base, [SIZE])
  const board = await seedBoard(redis, gameIdOf(SIZE), SIZE)
  const ownKey = minimalKey(gameIdOf(SIZE))
  const minimalCtx = { board: await seedMinimalBoard(redis, ownKey, SIZE), key: ownKey, gameId: ownKey.game_id }
  const minimal = await startMinimal(redisServer.port, opts.workers, ownKey, SIZE)
  servers.push(minimal)
  const cookies = session ? await createSessions(a.base, 3000) : []
  const serviceCtx = { board, key: games[SIZE].key, gameId: board.gameId, cookies: cookies.slice(1000) }
  const ratersCtx = { ...serviceCtx, cookies: cookies.slice(0, 1000) }
  const raters = { ...playtime, name: 'playtime, raters' }
  const sessionRuns = [[rate, ratersCtx], [raters, ratersCtx], [playtime, serviceCtx], [rateChanging, ratersCtx]]
  const measuring = { opts, statsRedis: redis, redisPort: redisServer.port }
  const runs = { }
  const mean = (values) => values.reduce((sum, value) => sum + value, 0) / values.length
  if (session) {
    const redisCost = { }
    for (let round = 1; round <= opts.rounds; round++) {
      console.log(`bench: round ${round} of ${opts.rounds}`)
      for (const [scenario, ctx] of sessionRuns) {
        for (const [name, server] of [[`${scenario.name} (defaults)`, a], [`${scenario.name} (${label})`, b]]) {
          const row = await measureScenario({ name, size: SIZE, port: server.port, makeFeed: (poolSize) => scenario.makeFeed({ smoke: false, ...ctx }, poolSize), redisCost: false }, measuring)
          if (row.failed > 0) throw new Error(`${name}: ${row.failed} responses failed, e.g. ${row.examples.join(' / ')}`)
          const redisUs = row.cpuPerRequest['redis-server'] ?? 0
          console.log(`bench: ${name}: ${int(row.rps)} req/s; redis-server ${fmt(redisUs, 1)} µs/request`)
          redisCost[name] ??= []
          redisCost[name].push({ rps: row.rps, redisUs })
        }
      }
    }
    console.log(`\nWORKERS=${opts.workers}, ${opts.rounds} rounds of ${opts.warmup} s + ${opts.duration} s, ${opts.connections} connections, 1,000 raters and 2,000 players\n`)
    console.log(markdownTable(['run', 'req/s', 'Redis µs/request', 'per round'], Object.entries(redisCost).map(([name, rows]) => [
      name, int(mean(rows.map(row => row.rps))), fmt(mean(rows.map(row => row.redisUs)), 1), rows.map(row => fmt(row.redisUs, 1)).join(', ')
    ]), ['l', 'r', 'r', 'l']))
    for (const [scenario] of sessionRuns) {
      const [first, second] = [`${scenario.name} (defaults)`, `${scenario.name} (${label})`].map(name => redisCost[name].map(row => row.redisUs))
      const ratios = first.map((value, i) => second[i] / value)
      console.log(`${scenario.name}: B's Redis CPU per request is ${fmt(mean(ratios))}x A's (per round ${ratios.map(ratio => fmt(ratio)).join(', ')})`)
    }
  }
  const run = async (scenario, name, server, ctx) => {
    const row = await measureScenario({ name, size: SIZE, port: server.port, makeFeed: (poolSize) => scenario.makeFeed({ smoke: false, ...ctx }, poolSize), redisCost: false }, measuring)
    if (row.failed > 0) throw new Error(`${name}: ${row.failed} responses failed, e.g. ${row.examples.join(' / ')}`)
    const cpu = row.cpuPerRequest
    console.log(`bench: ${name}: ${int(row.rps)} req/s, p99 ${fmt(row.p99)} ms; CPU µs/request: server ${fmt(cpu[server.child.benchName] ?? 0, 1)}, ` +
      `redis-server ${fmt(cpu['redis-server'] ?? 0, 1)}, client ${fmt(cpu.client, 1)}`)
    return row.rps
  }
  for (let round = 1; round <= (session ? 0 : opts.rounds); round++) {
    console.log(`bench: round ${round} of ${opts.rounds}`)
    for (const scenario of versusMinimal) {
      const base = await run(scenario, `minimal ${scenario.name}`, minimal, minimalCtx)
      const first = await run(scenario, `${scenario.name} (defaults)`, a, serviceCtx)
      const second = await run(scenario, `${scenario.name} (${label})`, b, serviceCtx)
      for (const [name, rps] of [[`minimal ${scenario.name}`, base], [`${scenario.name} (defaults)`, first], [`${scenario.name} (${label})`, second]]) {
        runs[name] ??= []
        runs[name].push({ rps, ratio: rps / base })
      }
    }
  }
  if (!session) {
    console.log(`\nWORKERS=${opts.workers}, ${opts.rounds} rounds of ${opts.warmup} s + ${opts.duration} s, ${opts.connections} connections\n`)
    console.log(markdownTable(['run', 'req/s', 'x minimal', 'per round'], Object.entries(runs).map(([name, rows]) => [
      name, int(mean(rows.map(row => row.rps))), name.startsWith('minimal') ? '-' : fmt(mean(rows.map(row => row.ratio))),
      name.startsWith('minimal') ? '-' : rows.map(row => fmt(row.ratio)).join(', ')
    ]), ['l', 'r', 'r', 'l']))
  }
} catch (error) {
  console.error(`bench: ${error.stack ?? error}`)
  process.exitCode = 1
} finally {
  redis?.disconnect()
  for (const server of servers) await stopProcess(server.child)
  await stopProcess(redisServer?.child)
  cleanupSync()
}
