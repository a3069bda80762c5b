// The benchmark harness (`npm run bench`, `npm run bench:smoke`).
//
// Starts its own redis-server (persistence off) and the compiled service in
// production mode, seeds boards of 1,000, 100,000 and 1,000,000 players
// straight into Redis (pipelined, in the exact stored format of the scripts),
// then drives each scenario with autocannon after a warm-up and compares it
// with a bare Fastify server (bench/floor.mjs) loaded the same way. Then,
// in the same pass, the service's submit and top20 are held to a hand-written
// minimal service (bench/minimal.mjs, same requests, its own board): rounds
// of floor, minimal submit, submit, minimal top20, top20, each service run
// compared with the minimal run of its round. It also
// measures what each request costs Redis (INFO commandstats / stats around
// each scenario, plus a short MONITOR probe that tells top-level commands
// from the ones run inside scripts) and the memory per board entry.
//
// Every response must be HTTP 2xx with "ok":true; any other answer, error
// or timeout fails the run (exit 1) and names the scenario. Missed
// performance targets are reported, never fatal.
//
// Options (argv, or the BENCH_* environment variable in brackets):
//   --smoke              boards of 1,000 only, 2 s per scenario, 1 s warm-up
//   --workers=1,2        WORKERS values to run the service with [BENCH_WORKERS]
//   --duration=10        seconds per scenario [BENCH_DURATION]
//   --warmup=3           warm-up seconds before each scenario [BENCH_WARMUP]
//   --connections=50     autocannon connections [BENCH_CONNECTIONS]
//   --boards=1000,...    board sizes [BENCH_BOARDS]
//   --quiet-wait=120     before each scenario, wait up to this many seconds
//                        while other processes keep the CPUs busy (0 in smoke) [BENCH_QUIET_WAIT]
//   --rounds=3           rounds against the minimal service per pass (1 in smoke) [BENCH_ROUNDS]
//   --minimal-duration=5 seconds per run of those rounds (--duration when shorter) [BENCH_MINIMAL_DURATION]
//   --hot-workers=1,2,4  one hot game: submits to one game with the service at
//                        each WORKERS in turn, beside the minimal service in as
//                        many processes, until Redis saturates [BENCH_HOT_WORKERS]
//
// This file runs the passes and writes the report; the parts are in lib/
// (processes, Redis, load, measurement, seeding, report) and the scenarios
// in scenarios/ (see scenarios/index.mjs).
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ensureBuild, ensureDependencies, root } from '../scripts/runtime.mjs'
import { parseOptions } from './lib/options.mjs'

const argv = process.argv.slice(2)
const opts = parseOptions(argv, process.env)
const { smoke } = opts

ensureDependencies()
ensureBuild()

// The rest needs the packages and the compiled service: loaded only now.
const { processCount } = await import('./lib/cpu.mjs')
const { fmt, int, rowLabel, sizeLabel } = await import('./lib/format.mjs')
const { measureScenario } = await import('./lib/measure.mjs')
const { cleanupSync, exited, logTail, stopProcess } = await import('./lib/processes.mjs')
const { parseInfo, redisClient, startRedis } = await import('./lib/redis.mjs')
const { results, resultsFile, scenarioLine } = await import('./lib/report.mjs')
const { createGame, createGames, createSessions, gameIdOf, measureMemory, memoryInfo, periodGameIdOf, seedBoard, seedNamedGame, seedPeriodGame, verifySeed } = await import('./lib/seed.mjs')
const { startFloor, startService } = await import('./lib/service.mjs')
const { minimalKey, seedMinimalBoard, startMinimal } = await import('./lib/minimal.mjs')
const { gamejoltGame } = await import('./lib/seed.mjs')
const { floor: floorScenario, perBoard, perPass, scaling: scalingScenarios, submit: submitScenario, submitBoardRows, submitEvents, submitPeriods, versusMinimal } = await import('./scenarios/index.mjs')
const { drained, latency, startReceiver } = await import('./lib/receiver.mjs')
const { adminCall } = await import('./lib/service.mjs')
const { computeSignature } = await import('./lib/compiled.mjs')
const { startCluster } = await import('./lib/cluster.mjs')
const { measureExport, measureOperator } = await import('./lib/operator.mjs')
/** The V8 old-space cap (MiB) of the second export run. */
const EXPORT_HEAP_CAP_MB = 96

const started = Date.now()
const failures = []
const passes = []
let redisServer
let service
let floor
let minimal
let redis
let statsRedis
let receiver
let webhooks

try {
  console.log(`bench: ${smoke ? 'SMOKE run' : 'full run'}: boards ${opts.boards.map(sizeLabel).join(', ')}; WORKERS ${opts.workers.join(', ')}; ` +
    `${opts.connections} connections, ${opts.warmup} s warm-up + ${opts.duration} s per scenario, pipelining 1; ` +
    `${opts.rounds} round(s) against the minimal service, ${opts.warmup} s + ${opts.minimalDuration} s per run`)

  redisServer = await startRedis()
  redis = redisClient(redisServer.port)
  statsRedis = redisClient(redisServer.port)
  const redisVersion = parseInfo(await redis.info('server')).fields.redis_version
  console.log(`bench: redis-server ${redisVersion} on 127.0.0.1:${redisServer.port} (persistence off)`)

  service = await startService(redisServer.port, opts.workers[0])
  console.log(`bench: service on ${service.base} (WORKERS=${opts.workers[0]})`)

  // games, keys, users, sessions: through the admin HTTP API
  const setupStart = Date.now()
  const games = await createGames(service.base, opts.boards)
  const cookies = await createSessions(service.base, opts.users)
  console.log(`bench: ${opts.boards.length} games with keys, ${opts.users} users and sessions in ${fmt((Date.now() - setupStart) / 1000, 1)} s`)

  // boards, straight into Redis
  const boards = {}
  const seeding = []
  let memory
  const largest = Math.max(...opts.boards)
  for (const size of [...opts.boards].sort((a, b) => a - b)) {
    const gameId = gameIdOf(size)
    const before = await memoryInfo(redis)
    const seedStart = Date.now()
    boards[size] = await seedBoard(redis, gameId, size)
    const seconds = (Date.now() - seedStart) / 1000
    seeding.push(`${int(size)} in ${fmt(seconds, 1)} s`)
    if (size === largest) memory = await measureMemory(redis, gameId, size, before)
    await verifySeed(service, boards[size], games[size].key.api_key)
    console.log(`bench: seeded ${gameId}: ${int(size)} players in ${fmt(seconds, 1)} s (${int(size / seconds)} entries/s), checked through the API`)
  }

  // The operator API on the largest board, while the service is fresh and the box quiet: export, listing pages, import.
  const operatorStart = Date.now()
  const operator = await measureOperator({ base: service.base, pid: service.child.pid, gameId: gameIdOf(largest), size: largest, smoke })
  // The same export from a process whose V8 old space is capped: what it needs, not what the heap grows to when it may.
  const capped = await startService(redisServer.port, 1, {}, [`--max-old-space-size=${EXPORT_HEAP_CAP_MB}`])
  operator.capped = { heapMb: EXPORT_HEAP_CAP_MB, ...await measureExport({ base: capped.base, pid: capped.child.pid, gameId: gameIdOf(largest), size: largest, format: 'ndjson' }) }
  await stopProcess(capped.child)
  console.log(`bench: operator API on ${int(largest)} entries in ${fmt((Date.now() - operatorStart) / 1000, 1)} s: export ${int(operator.ndjson.rate)} entries/s (first byte ${fmt(operator.ndjson.firstByteMs)} ms, service RSS ${int(operator.ndjson.rssBefore / 2 ** 20)} -> ${int(operator.ndjson.rssPeak / 2 ** 20)} MiB), ` +
    `a page at the top ${fmt(operator.topPageMs)} ms, at the bottom ${fmt(operator.bottomPageMs)} ms; import ${int(operator.import.rate)} entries/s`)

  const smallest = Math.min(...opts.boards)
  // The games with daily, weekly and monthly boards: one as large as the
  // smallest board for the submit row, and one of up to 100,000 players
  // whose boards' memory is measured (every player on every period board).
  let periodMemory
  const periodGames = {}
  const periodMemorySize = Math.min(100_000, largest)
  for (const size of new Set([smallest, periodMemorySize])) {
    const game = await createGame(service.base, periodGameIdOf(size), `Bench periods ${sizeLabel(size)}`, { periods: 'daily,weekly,monthly' })
    const seedStart = Date.now()
    const seeded = await seedPeriodGame(redis, game.gameId, size)
    if (size === periodMemorySize) periodMemory = seeded.memory
    await verifySeed(service, seeded.board, game.key.api_key)
    periodGames[size] = { ...game, board: seeded.board }
    console.log(`bench: seeded ${game.gameId}: ${int(size)} players on the all-time board and on each current period board in ${fmt((Date.now() - seedStart) / 1000, 1)} s`)
  }

  // A game with a webhook for every event, seeded like the smallest board; its receiver runs in this process.
  receiver = await startReceiver()
  const eventsGame = await createGame(service.base, `bench_events_${smallest}`, `Bench events ${sizeLabel(smallest)}`)
  const eventsBoard = await seedBoard(redis, eventsGame.gameId, smallest)
  await verifySeed(service, eventsBoard, eventsGame.key.api_key)
  await adminCall(service.base, 'POST', `/admin/games/${eventsGame.gameId}/webhooks`, { url: receiver.url })
  console.log(`bench: seeded ${eventsGame.gameId}: ${int(smallest)} players, a webhook for every event to ${receiver.url}`)
  const eventsWritten = async () => {
    const info = await redis.call('XINFO', 'STREAM', `rank:{game:${eventsGame.gameId}}:events`).catch(() => [])
    return Number(info[info.indexOf('entries-added') + 1] ?? 0)
  }
  // Deliveries made, and those of them still pending: what was neither delivered nor pending was dead at once (backlog full).
  const deliveriesMade = async () => Number(await redis.call('GET', `rank:{game:${eventsGame.gameId}}:deliveries:seq`) ?? 0)
  const deliveriesPending = async () => {
    const [webhookId] = await redis.call('HKEYS', `rank:{game:${eventsGame.gameId}}:webhooks`)
    return Number(await redis.call('ZCARD', `rank:{game:${eventsGame.gameId}}:deliveries:due:${webhookId}`))
  }
  const notDelivered = async (madeBefore, pendingBefore, delivered) => (await deliveriesMade() - madeBefore) - delivered - (await deliveriesPending() - pendingBefore)

  // Named boards and achievements: a game with a named board `lap`
  // holding the same players as its own board (one as large as the smallest
  // board for the submit rows, one of up to 100,000 players whose memory per
  // entry is measured), and a game with 3 achievement thresholds no score reaches.
  let namedMemory
  const namedGames = {}
  for (const size of new Set([smallest, periodMemorySize])) {
    const game = await createGame(service.base, `bench_named_${size}`, `Bench named ${sizeLabel(size)}`)
    await adminCall(service.base, 'POST', `/admin/games/${game.gameId}/boards`, { board_id: 'lap' })
    const seeded = await seedNamedGame(redis, game.gameId, size)
    if (size === periodMemorySize) namedMemory = seeded.memory
    await verifySeed(service, seeded.named, game.key.api_key, 'lap')
    namedGames[size] = { ...game, ...seeded }
  }
  const achievementsGame = await createGame(service.base, `bench_achievements_${smallest}`, `Bench achievements ${sizeLabel(smallest)}`)
  for (const i of [1, 2, 3]) await adminCall(service.base, 'POST', `/admin/games/${achievementsGame.gameId}/achievements`, { achievement_id: `far-${i}`, rule: { board: 'default', at_least: 1e15 + i } })
  const achievementsBoard = await seedBoard(redis, achievementsGame.gameId, smallest)
  await verifySeed(service, achievementsBoard, achievementsGame.key.api_key)
  const boardRowCtx = {
    'submit (named board)': { board: namedGames[smallest].named, key: namedGames[smallest].key, gameId: namedGames[smallest].gameId },
    'submit (2 boards, one call)': { board: namedGames[smallest].board, key: namedGames[smallest].key, gameId: namedGames[smallest].gameId },
    'submit (achievements)': { board: achievementsBoard, key: achievementsGame.key, gameId: achievementsGame.gameId },
    'Game Jolt scores/add': await gamejoltGame(service.base, redis, `bench_gamejolt_${smallest}`, smallest)
  }
  console.log(`bench: seeded bench_named_${smallest} (its own board and a named board, ${int(smallest)} players each) and ${achievementsGame.gameId} (3 thresholds)`)

  // the minimal service's own key and board, as large as the smallest board (lib/minimal.mjs)
  const ownKey = minimalKey(gameIdOf(smallest))
  const minimalCtx = { board: await seedMinimalBoard(redis, ownKey, smallest), key: ownKey, gameId: ownKey.game_id }
  console.log(`bench: seeded the minimal service's ${ownKey.board}: ${int(smallest)} players`)

  const measuring = { opts, statsRedis, redisPort: redisServer.port }
  // the rounds against the minimal service: shorter runs, the same warm-up
  const measuringRounds = { ...measuring, opts: { ...opts, duration: opts.minimalDuration } }

  for (const [passIndex, workers] of opts.workers.entries()) {
    if (passIndex > 0) {
      await stopProcess(service.child)
      service = await startService(redisServer.port, workers)
    }
    const processes = processCount(service.child)
    console.log(`\nbench: WORKERS=${workers}: service ${service.base}, ${processes} process(es) in its group`)
    const rows = []

    /**
     * Measures one scenario on `server` (the service, the floor or the minimal
     * service), as row `name` of `into`; failed responses are recorded, not thrown.
     */
    async function runScenario (scenario, { name = scenario.name, size, server = service, ctx = {}, redisCost = true, into = rows, settings = measuring } = {}) {
      const makeFeed = (poolSize) => scenario.makeFeed({ smoke, cookies, ...ctx }, poolSize)
      const row = await measureScenario({ name, size, port: server.port, makeFeed, redisCost }, settings)
      row.scenario = scenario
      into.push(row)
      if (row.failed > 0) {
        failures.push({ workers, name, size, failed: row.failed, examples: row.examples })
        console.log(`bench: FAILED ${name} ${size === undefined ? '' : sizeLabel(size)}: ${row.failed} responses failed; e.g. ${row.examples.join(' / ')}`)
      }
      if (exited(server.child)) throw new Error(`the ${server.child.benchName} process exited during ${name}:\n${logTail(server.child)}`)
      console.log(scenarioLine(row))
      return row
    }

    // the floor at the start and at the end of the pass; ratios are to the mean of the two
    floor = await startFloor()
    const floorStart = await runScenario(floorScenario, { server: floor, redisCost: false })

    for (const size of opts.boards) {
      const ctx = { board: boards[size], key: games[size].key, gameId: boards[size].gameId }
      for (const scenario of perBoard) await runScenario(scenario, { size, ctx })
    }
    // play time and ratings do not touch the board: run once, on the smallest board's game
    for (const scenario of perPass) await runScenario(scenario, { ctx: { gameId: gameIdOf(smallest) } })

    const floorEnd = await runScenario(floorScenario, { name: 'floor (end)', server: floor, redisCost: false })
    const floorRow = { rps: (floorStart.rps + floorEnd.rps) / 2 }
    for (const row of rows) row.ratio = row.rps / floorRow.rps

    // Against the minimal service, with as many workers as the service: each
    // request on the minimal service then on the service, back to back, so
    // both meet the same state of the box; alternating rounds average out drift.
    minimal = await startMinimal(redisServer.port, workers, ownKey, smallest)
    const versus = { processes: processCount(minimal.child), rounds: [] }
    const serviceCtx = { board: boards[smallest], key: games[smallest].key, gameId: boards[smallest].gameId }
    const periodCtx = { board: periodGames[smallest].board, key: periodGames[smallest].key, gameId: periodGames[smallest].gameId }
    const eventsCtx = { board: eventsBoard, key: eventsGame.key, gameId: eventsGame.gameId }
    const measureDelivery = passIndex === 0
    const writtenBefore = await eventsWritten()
    const deliveredBefore = receiver.deliveries.length
    const [madeBefore, pendingBefore] = [await deliveriesMade(), await deliveriesPending()]
    const drains = []
    for (let round = 1; round <= opts.rounds; round++) {
      console.log(`bench: WORKERS=${workers}: round ${round} of ${opts.rounds} against the minimal service (${versus.processes} process(es))`)
      const runs = []
      await runScenario(floorScenario, { server: floor, redisCost: false, into: runs, settings: measuringRounds })
      for (const scenario of versusMinimal) {
        const base = await runScenario(scenario, { name: `minimal ${scenario.name}`, size: smallest, server: minimal, ctx: minimalCtx, into: runs, settings: measuringRounds })
        const row = await runScenario(scenario, { size: smallest, ctx: serviceCtx, into: runs, settings: measuringRounds })
        row.minimal = base
        if (scenario.name === 'submit') {
          const withPeriods = await runScenario(submitPeriods, { size: smallest, ctx: periodCtx, into: runs, settings: measuringRounds })
          withPeriods.minimal = base
          withPeriods.plain = row
          const withEvents = await runScenario(submitEvents, { size: smallest, ctx: eventsCtx, into: runs, settings: measuringRounds })
          withEvents.minimal = base
          withEvents.plain = row
          for (const scenario of submitBoardRows) {
            const boardRow = await runScenario(scenario, { size: smallest, ctx: boardRowCtx[scenario.name], into: runs, settings: measuringRounds })
            boardRow.minimal = base
            boardRow.plain = row
          }
          // What is left to deliver is delivered before the next run, which it would slow down.
          const ended = Date.now()
          drains.push(Math.max(0, (await drained(receiver, 1000) ?? ended) - ended))
        }
      }
      versus.rounds.push(runs)
    }
    await stopProcess(minimal.child)
    await stopProcess(floor.child)

    // Webhook delivery: what the runs above left to deliver, then a light, steady load (first pass only).
    if (measureDelivery) {
      const underLoad = { ...latency(receiver.deliveries.slice(deliveredBefore)), written: await eventsWritten() - writtenBefore, drainMs: Math.max(...drains) }
      underLoad.dead = await notDelivered(madeBefore, pendingBefore, underLoad.count)
      const lightBefore = receiver.deliveries.length
      const lightWrittenBefore = await eventsWritten()
      const [lightMadeBefore, lightPendingBefore] = [await deliveriesMade(), await deliveriesPending()]
      const light = { submits: smoke ? 50 : 300, intervalMs: 20 }
      for (let i = 0; i < light.submits; i++) {
        const fields = { api_key: eventsGame.key.api_key, game_id: eventsGame.gameId, player_name: `bench_light_${i}`, score: String(1e12 + i), ts: String(Math.floor(Date.now() / 1000)) }
        const answer = await fetch(`${service.base}/api/rank?action=submit`, { method: 'POST', body: new URLSearchParams({ ...fields, sign: computeSignature(eventsGame.key.api_secret, fields) }) })
        if ((await answer.json()).ok !== true) throw new Error('a light-load submit failed')
        await new Promise(resolve => setTimeout(resolve, light.intervalMs))
      }
      await drained(receiver)
      Object.assign(light, latency(receiver.deliveries.slice(lightBefore)), { written: await eventsWritten() - lightWrittenBefore })
      light.dead = await notDelivered(lightMadeBefore, lightPendingBefore, light.count)
      webhooks = { underLoad, light }
      console.log(`bench: webhook deliveries under load: ${underLoad.count} of ${underLoad.written} events (${underLoad.dead} dead at once: backlog full), p50 ${underLoad.p50} ms, p99 ${underLoad.p99} ms, drained ${underLoad.drainMs} ms after; light: ${light.count} of ${light.written}, p50 ${light.p50} ms, p99 ${light.p99} ms`)
    }

    const log = readFileSync(service.logPath, 'utf8').trim()
    passes.push({ workers, processes, rows, floorRow, versus, logLines: log === '' ? [] : log.split('\n') })
  }

  // One hot game: signed submits to one game, the service at each of
  // --hot-workers in turn, then the minimal service in as many processes, on
  // one Redis. A game lives on one Redis core: "Redis busy" (its CPU time over
  // the wall time) nearing 1 is saturation, and 1e6 / (Redis µs per request)
  // is the most submits a second one core could take at that cost, measured
  // on any box, also one with too few cores to saturate it.
  const hotGame = []
  {
    const size = Math.min(...opts.boards)
    const serviceCtx = { board: boards[size], key: games[size].key, gameId: boards[size].gameId }
    for (const workers of opts.hotWorkers) {
      await stopProcess(service.child)
      service = await startService(redisServer.port, workers)
      const hotMinimal = await startMinimal(redisServer.port, workers, ownKey, size)
      for (const [label, server, ctx] of [['service', service, serviceCtx], ['minimal service', hotMinimal, minimalCtx]]) {
        const row = await measureScenario({ name: `submit (${label})`, size, port: server.port, makeFeed: (poolSize) => submitScenario.makeFeed({ smoke, ...ctx }, poolSize), redisCost: true }, measuringRounds)
        Object.assign(row, { workers, label, scenario: submitScenario, processes: processCount(server.child) })
        hotGame.push(row)
        if (row.failed > 0) failures.push({ workers, name: row.name, size, failed: row.failed, examples: row.examples })
        console.log(`${scenarioLine(row)}  (one hot game, WORKERS=${workers})`)
      }
      await stopProcess(hotMinimal.child)
    }
  }

  // Scaling out: the same requests through one Redis and through a local
  // cluster, each setup after the other, on the smallest board.
  const scaling = []
  {
    const size = Math.min(...opts.boards)
    const setups = [
      { label: 'one Redis, 1 instance', workers: 1 },
      { label: 'one Redis, 2 instances', workers: 2 },
      { label: 'cluster 3+3, 2 instances', workers: 2, cluster: true },
      { label: 'cluster 3+3, 2 instances, REDIS_WAIT_REPLICAS=1', workers: 2, cluster: true, env: { REDIS_WAIT_REPLICAS: '1' } }
    ]
    let cluster
    let clusterCtx
    for (const setup of setups) {
      await stopProcess(service.child)
      if (setup.cluster && cluster === undefined) {
        cluster = await startCluster()
        console.log(`\nbench: Redis Cluster of 3 masters + 3 replicas on ports ${cluster.ports.join(', ')}`)
      }
      service = await startService(setup.cluster ? cluster.ports[0] : redisServer.port, setup.workers, setup.env)
      let ctx = { board: boards[size], key: games[size].key, gameId: boards[size].gameId, cookies }
      if (setup.cluster) {
        if (clusterCtx === undefined) {
          const clusterGames = await createGames(service.base, [size])
          const clusterCookies = await createSessions(service.base, opts.users)
          const seeder = await cluster.masterClientFor(`{game:${gameIdOf(size)}}`)
          const board = await seedBoard(seeder, gameIdOf(size), size)
          seeder.disconnect()
          await verifySeed(service, board, clusterGames[size].key.api_key)
          clusterCtx = { board, key: clusterGames[size].key, gameId: board.gameId, cookies: clusterCookies }
        }
        ctx = clusterCtx
      }
      console.log(`bench: scaling: ${setup.label}`)
      for (const scenario of scalingScenarios) {
        const row = await measureScenario({ name: scenario.name, size, port: service.port, makeFeed: (poolSize) => scenario.makeFeed({ smoke, ...ctx }, poolSize), redisCost: false }, measuring)
        row.setup = setup.label
        row.scenario = scenario
        scaling.push(row)
        if (row.failed > 0) {
          failures.push({ workers: setup.label, name: scenario.name, size, failed: row.failed, examples: row.examples })
          console.log(`bench: FAILED ${scenario.name} (${setup.label}): ${row.failed} responses failed; e.g. ${row.examples.join(' / ')}`)
        }
        if (exited(service.child)) throw new Error(`the service exited during ${scenario.name} (${setup.label}):\n${logTail(service.child)}`)
        console.log(scenarioLine(row))
      }
    }
    for (const child of cluster?.children ?? []) await stopProcess(child)
  }

  const body = results({ opts, passes, memory, periodMemory, namedMemory, failures, scaling, webhooks, operator, hotGame })
  console.log(`\n${body}`)
  console.log(`bench: finished in ${fmt((Date.now() - started) / 1000, 0)} s`)

  if (!smoke) {
    if (failures.length > 0) {
      console.log('bench: bench/RESULTS.md left as it was, since responses failed.')
    } else {
      writeFileSync(join(root, 'bench', 'RESULTS.md'), resultsFile({ opts, argv, body, redisVersion, seeding, started }))
      console.log('bench: wrote bench/RESULTS.md')
    }
  }
} catch (error) {
  console.error(`bench: ${error.stack ?? error}`)
  process.exitCode = 1
} finally {
  redis?.disconnect()
  statsRedis?.disconnect()
  await receiver?.close()
  await stopProcess(floor?.child)
  await stopProcess(minimal?.child)
  await stopProcess(service?.child)
  await stopProcess(redisServer?.child)
  cleanupSync()
}

if (failures.length > 0) {
  console.error(`bench: FAILED: responses failed in ${failures.map(f => `${rowLabel(f.name, f.size)} (WORKERS=${f.workers}, ${f.failed})`).join(', ')}`)
  process.exitCode = 1
}
