// `npm run bench:profile`: where a request's time goes. For signed `submit`
// and `top?limit=20` on a board of 1,000, one service process (WORKERS=1),
// then the minimal service (bench/minimal.mjs) on a board of its own, runs
// under `node --cpu-prof` while autocannon drives the one request (after a
// warm-up); the profile's samples taken during the measured run are charged
// to phases (lib/cpu-profile.mjs) and divided by the requests served, and
// Redis's INFO commandstats around the run gives the commands per request.
// Prints the tables side by side and writes them into bench/PROFILE.md.
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
const { minimalKey, seedMinimalBoard, startMinimal } = await import('./lib/minimal.mjs')
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

  const ownKey = minimalKey(board.gameId)
  const minimalCtx = { board: await seedMinimalBoard(redis, ownKey, SIZE), key: ownKey, gameId: ownKey.game_id, smoke: false }

  /** One server under --cpu-prof while the scenario runs: CPU by phase per request, and Redis commands per request. */
  async function profiled (scenario, start, feedCtx, what) {
    const profileDir = join(tmp, `profile-${what}-${scenario.name}`)
    const server = await start(['--cpu-prof', `--cpu-prof-dir=${profileDir}`])
    service = server
    const warm = scenario.makeFeed(feedCtx, 30_000 * warmup)
    await load(server.port, warm.request, { duration: warmup, connections })
    warm.commit?.()
    const main = scenario.makeFeed(feedCtx, 30_000 * duration)
    const before = await redisStats(redis)
    const from = nowUs()
    const run = await load(server.port, main.request, { duration, connections })
    const to = nowUs()
    const after = await redisStats(redis)
    main.commit?.()
    await stopProcess(server.child) // the profile is written as the process exits
    service = undefined
    if (run.failed > 0) throw new Error(`${what} ${scenario.name}: ${run.failed} responses failed, e.g. ${run.check.examples.join(' / ')}`)
    const file = readdirSync(profileDir).find(name => name.endsWith('.cpuprofile'))
    if (file === undefined) throw new Error(`${what} ${scenario.name}: no CPU profile was written`)
    const requests = run.result.requests.total
    return {
      requests,
      rps: requests / run.result.duration,
      profile: analyzeProfile(JSON.parse(readFileSync(join(profileDir, file), 'utf8')), from, to),
      redisCost: diffStats(before, after),
      seconds: (to - from) / 1e6
    }
  }

  for (const scenario of [submit, top20]) {
    const ours = await profiled(scenario, async (nodeArgs) => await startService(redisServer.port, 1, {}, nodeArgs), ctx, 'service')
    const theirs = await profiled(scenario, async (nodeArgs) => await startMinimal(redisServer.port, 1, ownKey, SIZE, nodeArgs), minimalCtx, 'minimal')
    const per = (run, us) => us / run.requests
    const describe = (run, who) => `${who}: ${int(run.rps)} req/s, busy ${fmt(run.profile.busyUs / (run.seconds * 1e6) * 100, 0)}% of the time, ` +
      `**${fmt(per(run, run.profile.busyUs), 1)} µs of CPU per request**; Redis ${fmt(run.redisCost.total / run.requests, 2)} commands per request ` +
      `(${Object.entries(run.redisCost.commands).sort((a, b) => b[1] - a[1]).map(([name, calls]) => `${name} ${fmt(calls / run.requests, 2)}`).join(', ')}).`
    const phases = [...new Set([...ours.profile.phases, ...theirs.profile.phases].filter(phase => phase.name !== 'idle').map(phase => phase.name))]
    const usOf = (run, name) => per(run, run.profile.phases.find(phase => phase.name === name)?.us ?? 0)
    phases.sort((a, b) => usOf(ours, b) - usOf(ours, a))
    const lines = [
      `### ${scenario.name} (board of ${int(SIZE)}, one process, ${connections} connections, ${duration} s after ${warmup} s of warm-up)`, '',
      `- ${describe(ours, 'The service')}`,
      `- ${describe(theirs, 'The minimal service (bench/minimal.mjs)')}`, '',
      '| phase | service µs/request | minimal µs/request | difference |', '|---|--:|--:|--:|',
      ...phases.map(name => `| ${name} | ${fmt(usOf(ours, name), 1)} | ${fmt(usOf(theirs, name), 1)} | ${fmt(usOf(ours, name) - usOf(theirs, name), 1)} |`),
      `| **all** | **${fmt(per(ours, ours.profile.busyUs), 1)}** | **${fmt(per(theirs, theirs.profile.busyUs), 1)}** | **${fmt(per(ours, ours.profile.busyUs) - per(theirs, theirs.profile.busyUs), 1)}** |`, '',
      'The service\'s functions with the most self time:', '',
      '| function | where | phase | µs per request |', '|---|---|---|--:|',
      ...ours.profile.functions.map(fn => `| \`${fn.name}\` | ${fn.where === '' ? '(native)' : `\`${fn.where}\``} | ${fn.phase} | ${fmt(per(ours, fn.us), 1)} |`), ''
    ]
    console.log(lines.join('\n'))
    sections.push(...lines)
  }

  writeFileSync(join(root, 'bench', 'PROFILE.md'), [
    '# Where a request\'s time goes', '',
    `\`npm run bench:profile\` (bench/profile.mjs), ${new Date().toISOString()}. One service process, then the minimal service ` +
    '(bench/minimal.mjs, one process), under `node --cpu-prof`; ' +
    'each sample of the measured run is charged to the function on top of the stack, and that function to a phase by the file it is in ' +
    '(bench/lib/cpu-profile.mjs); native code (the HMAC, JSON, socket writes) counts in the phase of the JavaScript that called it. ' +
    '"Node HTTP and sockets" holds the write system calls: one per answer, and one per Redis call unless calls share a write. ' +
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
