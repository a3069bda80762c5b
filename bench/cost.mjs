// `npm run bench:cost`: what one request costs Redis, in about two minutes,
// for working on the submit path. One service (WORKERS=1) on one
// redis-server, games of 1,000 players: signed submit on a plain game, on a
// game with daily, weekly and monthly boards and on a game with a webhook
// for every event; top20 of a board nobody writes; the first page of the
// public games list (GET /api/games) on a platform of 200 games. For each: req/s, Redis
// CPU µs and commands per request (top-level and inside scripts, by name),
// the service's own CPU µs per request, and the budget lines of
// lib/budgets.mjs. The full bench (`npm run bench`) measures the same
// figures in rounds beside the minimal service; this is its quick look.
//
// Options: --duration=4, --warmup=2, --connections=50, --rounds=1, --quiet-wait=30.
import { ensureBuild, ensureDependencies } from '../scripts/runtime.mjs'

const argv = process.argv.slice(2)
const flag = (name, fallback) => Number(argv.find(arg => arg.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback)
const opts = { duration: flag('duration', 4), warmup: flag('warmup', 2), connections: flag('connections', 50), rounds: flag('rounds', 1), quietWait: flag('quiet-wait', 30), probeRequests: 200 }

ensureDependencies()
ensureBuild()

const { BUDGETS, budgetLine } = await import('./lib/budgets.mjs')
const { fmt, int, markdownTable } = await import('./lib/format.mjs')
const { measureScenario } = await import('./lib/measure.mjs')
const { cleanupSync, stopProcess } = await import('./lib/processes.mjs')
const { startReceiver } = await import('./lib/receiver.mjs')
const { redisClient, startRedis } = await import('./lib/redis.mjs')
const { createGame, gamejoltGame, seedBoard, seedPeriodGame } = await import('./lib/seed.mjs')
const { adminCall, startService } = await import('./lib/service.mjs')
const { gamejoltScoresAdd, submit, submitEvents, submitPeriods } = await import('./scenarios/index.mjs')
const { top20 } = await import('./scenarios/top.mjs')
const { gamesList } = await import('./scenarios/games.mjs')

const SIZE = 1000
const GAMES_LISTED = 200
let redisServer
let redis
let service
let receiver

try {
  redisServer = await startRedis()
  redis = redisClient(redisServer.port)
  service = await startService(redisServer.port, 1)
  const plain = await createGame(service.base, 'cost_plain', 'Cost: plain')
  const plainBoard = await seedBoard(redis, plain.gameId, SIZE)
  const periods = await createGame(service.base, 'cost_periods', 'Cost: periods', { periods: 'daily,weekly,monthly' })
  const periodBoard = (await seedPeriodGame(redis, periods.gameId, SIZE)).board
  receiver = await startReceiver()
  const events = await createGame(service.base, 'cost_events', 'Cost: webhooks')
  const eventsBoard = await seedBoard(redis, events.gameId, SIZE)
  await adminCall(service.base, 'POST', `/admin/games/${events.gameId}/webhooks`, { url: receiver.url })
  const quiet = await createGame(service.base, 'cost_quiet', 'Cost: read only')
  const quietBoard = await seedBoard(redis, quiet.gameId, SIZE)
  const gamejolt = await gamejoltGame(service.base, redis, 'cost_gamejolt', SIZE)
  // A platform of GAMES_LISTED games for the games list (each listed and approved: the index takes them as they are made).
  for (let i = 0; i < GAMES_LISTED; i++) await createGame(service.base, `cost_listed_${i}`, `Listed ${i}`)

  const measuring = { opts, statsRedis: redis, redisPort: redisServer.port }
  const cases = [
    ['submit, plain game', submit, { board: plainBoard, key: plain.key, gameId: plain.gameId }],
    ['submit, 3 periods', submitPeriods, { board: periodBoard, key: periods.key, gameId: periods.gameId }],
    ['submit, webhooks', submitEvents, { board: eventsBoard, key: events.key, gameId: events.gameId }],
    ['Game Jolt scores/add', gamejoltScoresAdd, gamejolt],
    ['top20, unchanged board', top20, { board: quietBoard, key: quiet.key, gameId: quiet.gameId }],
    ['GET /api/games, first 20', gamesList, {}]
  ]
  const rows = {}
  for (let round = 1; round <= opts.rounds; round++) {
    for (const [name, scenario, ctx] of cases) {
      const row = await measureScenario({ name, size: SIZE, port: service.port, makeFeed: (poolSize) => scenario.makeFeed({ smoke: false, ...ctx }, poolSize) }, measuring)
      if (row.failed > 0) throw new Error(`${name}: ${row.failed} responses failed, e.g. ${row.examples.join(' / ')}`)
      rows[name] ??= []
      rows[name].push(row)
      console.log(`bench: ${name}: ${int(row.rps)} req/s; Redis ${fmt(row.redis.cpuUs, 1)} µs, ${fmt(row.redis.commands, 2)} commands per request; service ${fmt(row.cpuPerRequest.service ?? 0, 1)} µs`)
      console.log(`       top-level ${row.redis.topNames || '-'}; in scripts ${row.redis.scriptNames || '-'}`)
    }
  }
  const mean = (name, pick) => rows[name].reduce((sum, row) => sum + pick(row), 0) / rows[name].length
  console.log(`\nWORKERS=1, ${opts.rounds} round(s) of ${opts.warmup} s + ${opts.duration} s, ${opts.connections} connections, boards of ${int(SIZE)}\n`)
  console.log(markdownTable(['scenario', 'req/s', 'Redis µs/request', 'commands/request', 'service µs/request'], cases.map(([name]) => [
    name, int(mean(name, row => row.rps)), fmt(mean(name, row => row.redis.cpuUs), 1), fmt(mean(name, row => row.redis.commands), 2), fmt(mean(name, row => row.cpuPerRequest.service ?? 0), 1)
  ]), ['l', 'r', 'r', 'r', 'r']))
  const plainUs = mean('submit, plain game', row => row.redis.cpuUs)
  const plainCommands = mean('submit, plain game', row => row.redis.commands)
  const perPeriod = (mean('submit, 3 periods', row => row.redis.cpuUs) - plainUs) / 3
  const webhooks = mean('submit, webhooks', row => row.redis.cpuUs) - plainUs
  const top = mean('top20, unchanged board', row => row.redis.cpuUs)
  const gamejoltUs = mean('Game Jolt scores/add', row => row.redis.cpuUs)
  const gamejoltCommands = mean('Game Jolt scores/add', row => row.redis.commands)
  console.log('')
  console.log(budgetLine(plainUs <= BUDGETS.plainSubmit.us, `Redis CPU per signed submit, plain game: ${fmt(plainUs, 1)} µs (budget <= ${BUDGETS.plainSubmit.us})`))
  console.log(budgetLine(plainCommands <= BUDGETS.plainSubmit.commands, `Redis commands per signed submit, plain game: ${fmt(plainCommands, 2)} (budget <= ${BUDGETS.plainSubmit.commands})`))
  console.log(budgetLine(perPeriod <= BUDGETS.perPeriodBoard.us, `Redis CPU per period board: +${fmt(perPeriod, 1)} µs (budget <= +${BUDGETS.perPeriodBoard.us})`))
  console.log(budgetLine(webhooks <= BUDGETS.webhooks.us, `Redis CPU a game's webhooks add: +${fmt(webhooks, 1)} µs (budget <= +${BUDGETS.webhooks.us})`))
  // The bar: no more than our own submit plus the text fields (the text is one HSET in the same script).
  console.log(budgetLine(gamejoltCommands <= plainCommands + 1, `Redis commands per Game Jolt scores/add: ${fmt(gamejoltCommands, 2)} (our submit's ${fmt(plainCommands, 2)} + 1 for the text)`))
  console.log(`Redis CPU per Game Jolt scores/add: ${fmt(gamejoltUs, 1)} µs, ${fmt(gamejoltUs / plainUs, 2)}x our submit's`)
  console.log(budgetLine(top <= BUDGETS.unchangedTop20.us, `Redis CPU per top20 of an unchanged board: ${fmt(top, 1)} µs (budget <= ${BUDGETS.unchangedTop20.us})`))
  // The bar: the games list's first page costs Redis no more than a top20.
  const games = mean('GET /api/games, first 20', row => row.redis.cpuUs)
  console.log(budgetLine(games <= top, `Redis CPU per GET /api/games (first 20 of ${GAMES_LISTED + 5}): ${fmt(games, 1)} µs (a top20's: ${fmt(top, 1)})`))
} catch (error) {
  console.error(`bench: ${error.stack ?? error}`)
  process.exitCode = 1
} finally {
  redis?.disconnect()
  await receiver?.close?.()
  await stopProcess(service?.child)
  await stopProcess(redisServer?.child)
  cleanupSync()
}
