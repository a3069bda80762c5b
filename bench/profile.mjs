// `npm run bench:profile`: where a request's time goes. For signed `submit`
// and `top?limit=20` on a board of 1,000, one service process (WORKERS=1)
// runs under `node --cpu-prof` while autocannon drives the one request
// (after a warm-up); the profile's samples taken during the measured run
// are charged to phases (lib/cpu-profile.mjs) and divided by the requests
// served, and Redis's INFO commandstats around the run gives the commands
// per request. Prints the tables and writes them into bench/PROFILE.md.
//
// Options: --duration=10 (seconds measured), --warmup=3, --connections=50.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ensureBuild, ensureDependencies, root } from '../scripts/runtime.mjs'

const argv = process.argv.slice(2)
const flag = (name, fallback) => Number(argv.find(arg => arg.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback)
const duration = flag('duration', 10)
const warmup = flag('warmup', 3)
const connections = flag('connections', 50)

ensureDependencies()
ensureBuild()

const { analyzeProfile } = await import('./lib/cpu-profile.mjs')
const { fmt, int } = await import('./lib/format.mjs')
const { load } = await import('./lib/load.mjs')
const { cleanupSync, stopProcess, tmp } = await import('./lib/processes.mjs')
const { diffStats, redisClient, redisStats, startRedis } = await import('./lib/redis.mjs')
const { createGames, seedBoard, verifySeed } = await import('./lib/seed.mjs')
const { startService } = await import('./lib/service.mjs')
const { submit } = await import('./scenarios/submit.mjs')
const { top20 } = await import('./scenarios/top.mjs')

const SIZE = 1000
const nowUs = () => Number(process.hrtime.bigint() / 1000n)
const sections = []
let redisServer
let redis
let service

try {
  redisServer = await startRedis()
  redis = redisClient(redisServer.port)
  service = await startService(redisServer.port, 1)
  const games = await createGames(service.base, [SIZE])
  const board = await seedBoard(redis, games[SIZE].gameId, SIZE)
  await verifySeed(service, board, games[SIZE].key.api_key)
  await stopProcess(service.child)
  const ctx = { board, key: games[SIZE].key, gameId: board.gameId, smoke: false }

  for (const scenario of [submit, top20]) {
    const profileDir = join(tmp, `profile-${scenario.name}`)
    service = await startService(redisServer.port, 1, {}, ['--cpu-prof', `--cpu-prof-dir=${profileDir}`])
    const warm = scenario.makeFeed(ctx, 30_000 * warmup)
    await load(service.port, warm.request, { duration: warmup, connections })
    warm.commit?.()
    const main = scenario.makeFeed(ctx, 30_000 * duration)
    const before = await redisStats(redis)
    const from = nowUs()
    const run = await load(service.port, main.request, { duration, connections })
    const to = nowUs()
    const after = await redisStats(redis)
    main.commit?.()
    await stopProcess(service.child) // the profile is written as the process exits
    service = undefined
    if (run.failed > 0) throw new Error(`${scenario.name}: ${run.failed} responses failed, e.g. ${run.check.examples.join(' / ')}`)
    const file = readdirSync(profileDir).find(name => name.endsWith('.cpuprofile'))
    if (file === undefined) throw new Error(`${scenario.name}: the service wrote no CPU profile`)
    const profile = analyzeProfile(JSON.parse(readFileSync(join(profileDir, file), 'utf8')), from, to)
    const requests = run.result.requests.total
    const redisCost = diffStats(before, after)
    const perRequest = (us) => fmt(us / requests, 1)
    const lines = [
      `### ${scenario.name} (board of ${int(SIZE)}, WORKERS=1, ${connections} connections, ${duration} s after ${warmup} s of warm-up)`, '',
      `${int(requests)} requests, ${int(requests / run.result.duration)} req/s; the service process was busy ${fmt(profile.busyUs / (to - from) * 100, 0)}% of the time, ` +
      `**${perRequest(profile.busyUs)} µs of CPU per request**. Redis: ${fmt(redisCost.total / requests, 2)} commands per request ` +
      `(${Object.entries(redisCost.commands).sort((a, b) => b[1] - a[1]).map(([name, calls]) => `${name} ${fmt(calls / requests, 2)}`).join(', ')}).`, '',
      '| phase | µs per request | share of busy CPU |', '|---|--:|--:|',
      ...profile.phases.filter(phase => phase.name !== 'idle').map(phase => `| ${phase.name} | ${perRequest(phase.us)} | ${fmt(phase.us / profile.busyUs * 100, 1)}% |`), '',
      'Functions with the most self time:', '',
      '| function | where | phase | µs per request |', '|---|---|---|--:|',
      ...profile.functions.map(fn => `| \`${fn.name}\` | ${fn.where === '' ? '(native)' : `\`${fn.where}\``} | ${fn.phase} | ${perRequest(fn.us)} |`), ''
    ]
    console.log(lines.join('\n'))
    sections.push(...lines)
  }

  writeFileSync(join(root, 'bench', 'PROFILE.md'), [
    '# Where a request\'s time goes', '',
    `\`npm run bench:profile\` (bench/profile.mjs), ${new Date().toISOString()}. One service process under \`node --cpu-prof\`; ` +
    'each sample of the measured run is charged to the function on top of the stack, and that function to a phase by the file it is in ' +
    '(bench/lib/cpu-profile.mjs); native code (the HMAC, JSON, socket writes) counts in the phase of the JavaScript that called it. ' +
    'The autocannon client and redis-server run on the same box.', '',
    ...sections
  ].join('\n'))
  console.log('bench: wrote bench/PROFILE.md')
} catch (error) {
  console.error(`bench: ${error.stack ?? error}`)
  process.exitCode = 1
} finally {
  redis?.disconnect()
  await stopProcess(service?.child)
  await stopProcess(redisServer?.child)
  cleanupSync()
}
