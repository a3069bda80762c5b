// One scenario, measured: a warm-up, the measured run with Redis's counters
// and the box's CPU use around it, then a short MONITOR probe. Every response
// of all three is checked.
import { cpuPerRequest, cpuSnapshot, otherCpu, waitForQuiet } from './cpu.mjs'
import { perRequest } from './format.mjs'
import { load, percentile } from './load.mjs'
import { diffStats, monitorProbe, redisStats } from './redis.mjs'

/** Pre-signed bodies per second of load: enough not to repeat below 30,000 req/s (or twice the warm-up's rate). */
const WARMUP_POOL_PER_S = 30_000
const MAIN_POOL_PER_S = 30_000

/**
 * makeFeed(poolSize) gives a fresh request feed; redisCost is off for the
 * floor. statsRedis: a client for the INFO calls; redisPort: for MONITOR.
 * Returns the scenario's row.
 */
export async function measureScenario ({ name, size, port, makeFeed, redisCost = true }, { opts, statsRedis, redisPort }) {
  const { warmup, duration, connections } = opts
  const waited = await waitForQuiet(opts.quietWait)
  // warm-up: its own feed, its responses checked too
  const warm = makeFeed(WARMUP_POOL_PER_S * warmup)
  const warmRun = await load(port, warm.request, { duration: warmup, connections })
  warm.commit?.()
  // sized from the warm-up's rate, so pre-signed bodies are (almost) never reused
  const warmRate = warmRun.result.requests.total / Math.max(0.1, warmRun.result.duration)
  const main = makeFeed(Math.max(MAIN_POOL_PER_S * duration, Math.ceil(warmRate * duration * 2)))
  const before = redisCost ? await redisStats(statsRedis) : undefined
  const cpuBefore = cpuSnapshot()
  const run = await load(port, main.request, { duration, connections })
  const cpuAfter = cpuSnapshot()
  const cpu = otherCpu(cpuBefore, cpuAfter)
  const after = redisCost ? await redisStats(statsRedis) : undefined
  main.commit?.()
  let probe
  if (redisCost) {
    const extra = makeFeed(opts.probeRequests + connections)
    probe = await monitorProbe(redisPort, async () => {
      const probeRun = await load(port, extra.request, { amount: opts.probeRequests, connections: 4 })
      if (probeRun.failed > 0) run.check.examples.push(...probeRun.check.examples)
      run.failed += probeRun.failed
      return probeRun.check.responses
    })
    extra.commit?.()
  }
  const sorted = Float64Array.from(run.latencies).sort()
  const ok = run.result.requests.total
  const row = {
    name,
    size,
    rps: ok / run.result.duration,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    responses: run.check.responses,
    improved: run.check.improved / Math.max(1, run.check.responses),
    wrapped: main.feed !== undefined && main.feed.sent > main.feed.poolSize,
    failed: run.failed + warmRun.failed,
    examples: [...warmRun.check.examples, ...run.check.examples],
    cpu,
    cpuPerRequest: cpuPerRequest(cpuBefore, cpuAfter, run.result.requests.total),
    waited
  }
  if (before !== undefined) {
    const delta = diffStats(before, after)
    const n = Math.max(1, run.check.responses)
    let topLevel = 0
    const topNames = {}
    const scriptNames = {}
    for (const [command, calls] of Object.entries(delta.commands)) {
      const seenTop = probe.topLevel[command] ?? 0
      const seenLua = probe.inScripts[command] ?? 0
      const topShare = seenTop + seenLua === 0 ? 1 : seenTop / (seenTop + seenLua)
      topLevel += calls * topShare
      if (topShare > 0) topNames[command] = calls * topShare
      if (topShare < 1) scriptNames[command] = calls * (1 - topShare)
    }
    if (Math.abs(Object.values(delta.commands).reduce((a, b) => a + b, 0) - delta.total) > 0.01 * delta.total + 2) {
      console.log(`bench: note: ${name}: commandstats calls and total_commands_processed disagree (${JSON.stringify(delta)})`)
    }
    row.redis = {
      commands: delta.total / n,
      topLevel: topLevel / n,
      reads: delta.reads / n,
      cpuUs: delta.cpuUs / n,
      topNames: perRequest(topNames, n),
      scriptNames: perRequest(scriptNames, n),
      probe: `top-level ${perRequest(probe.topLevel, probe.responses)}; in scripts ${perRequest(probe.inScripts, probe.responses) || '-'}`
    }
  }
  return row
}
