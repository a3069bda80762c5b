// What the run prints and writes: a console line per scenario, the results
// (tables, Redis commands by name, memory, targets, failures) and the whole
// of bench/RESULTS.md around them.
import { existsSync, readFileSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { root } from '../../scripts/runtime.mjs'
import { SERVER_ENTRY } from './compiled.mjs'
import { DISTURBED, disturbed } from './cpu.mjs'
import { fmt, int, markdownTable, rowLabel, sizeLabel } from './format.mjs'
import { playerName } from './seed.mjs'
import { BUDGETS } from './budgets.mjs'

/** The console line of a scenario's row. */
export function scenarioLine (row) {
  return `bench:   ${rowLabel(row.name, row.size).padEnd(17)} ${int(row.rps).padStart(7)} req/s  p50 ${fmt(row.p50)} ms  p99 ${fmt(row.p99)} ms` +
    (row.redis === undefined ? '' : `  redis ${fmt(row.redis.cpuUs, 1)} µs CPU, ${fmt(row.redis.commands)} cmds, ${fmt(row.redis.topLevel)} top-level, ${fmt(row.redis.reads)} reads /req`) +
    (row.scenario.countsImproved ? `  improved ${fmt(row.improved * 100, 0)}%` : '') +
    (disturbed(row.cpu) ? `  (other processes used ${fmt(row.cpu.others)} CPUs, steal ${fmt(row.cpu.steal)})` : '')
}

const mean = (values) => values.reduce((sum, value) => sum + value, 0) / values.length

/** The service's req/s over the minimal service's that it must reach (same run, same WORKERS). */
const VS_MINIMAL = 0.9

/**
 * The rounds against the minimal service (pass.versus), one row per run name
 * in the order of a round: means over the rounds (other CPU: the highest),
 * and for a service run (row.minimal set) its ratio to the minimal service:
 * of the means, and the lowest and highest of each round's own ratio.
 */
function versusRows (versus) {
  const byName = new Map()
  for (const row of versus.rounds.flat()) byName.set(row.name, [...byName.get(row.name) ?? [], row])
  const floorRps = mean(byName.get('floor').map(row => row.rps))
  return [...byName.values()].map(runs => {
    const [first] = runs
    const summary = {
      name: first.name,
      size: first.size,
      scenario: first.scenario,
      rps: mean(runs.map(row => row.rps)),
      p50: mean(runs.map(row => row.p50)),
      p99: mean(runs.map(row => row.p99)),
      improved: mean(runs.map(row => row.improved)),
      wrapped: runs.some(row => row.wrapped),
      otherCpu: Math.max(...runs.map(row => row.cpu.others + row.cpu.steal)),
      disturbed: runs.some(row => disturbed(row.cpu)),
      redis: first.redis === undefined
        ? undefined
        : { cpuUs: mean(runs.map(row => row.redis.cpuUs)), commands: mean(runs.map(row => row.redis.commands)), topLevel: mean(runs.map(row => row.redis.topLevel)), reads: mean(runs.map(row => row.redis.reads)), topNames: first.redis.topNames }
    }
    summary.floorRatio = summary.rps / floorRps
    if (first.minimal !== undefined) {
      const perRound = runs.map(row => row.rps / row.minimal.rps)
      summary.minimalRps = mean(runs.map(row => row.minimal.rps))
      summary.vsMinimal = summary.rps / summary.minimalRps
      summary.lowest = Math.min(...perRound)
      summary.highest = Math.max(...perRound)
    }
    if (first.plain !== undefined) {
      summary.plainRps = mean(runs.map(row => row.plain.rps))
      summary.vsPlain = summary.rps / summary.plainRps
    }
    return summary
  })
}

/** The targets: PASS, FAIL or n/a lines. */
function targets (opts, passes, memory, periodMemory, namedMemory) {
  const checks = []
  const check = (pass, text) => checks.push(`${pass ? 'PASS' : 'FAIL'} ${text}`)
  for (const workers of [...new Set([1, 2, ...passes.map(pass => pass.workers)])].sort((a, b) => a - b)) {
    const pass = passes.find(pass => pass.workers === workers)
    if (pass === undefined) {
      checks.push(`n/a  submit and top20 vs the minimal service with WORKERS=${workers}: WORKERS=${workers} was not run`)
      continue
    }
    for (const row of versusRows(pass.versus).filter(row => row.vsMinimal !== undefined && row.scenario.heldToMinimal !== false)) {
      check(row.vsMinimal >= VS_MINIMAL, `${row.name} ${sizeLabel(row.size)} with WORKERS=${workers}: ${int(row.rps)} req/s = ${fmt(row.vsMinimal)}x the minimal service's ${int(row.minimalRps)} ` +
        `(rounds ${fmt(row.lowest)}..${fmt(row.highest)}; target >= ${VS_MINIMAL}x, same run)`)
    }
  }
  const big = opts.boards.includes(1_000_000)
  const small = opts.boards.includes(1000)
  for (const pass of passes) {
    if (!big || !small) {
      checks.push(`n/a  p99 at 1M vs 1k (WORKERS=${pass.workers}): needs boards of 1k and 1M`)
      break
    }
    for (const at1k of pass.rows.filter(row => row.size === 1000 && row.scenario.targets?.p99Flat)) {
      const at1m = pass.rows.find(row => row.name === at1k.name && row.size === 1_000_000)
      check(at1m.p99 <= 1.3 * at1k.p99, `${at1k.name} p99 at 1M ${fmt(at1m.p99)} ms vs 1k ${fmt(at1k.p99)} ms = ${fmt(at1m.p99 / at1k.p99)}x (WORKERS=${pass.workers}, target <= 1.3x)`)
    }
  }
  // The submit path's budgets (lib/budgets.mjs), from the rounds against the minimal service: means over the rounds, same run.
  for (const pass of passes) {
    const versus = versusRows(pass.versus)
    const row = (name) => versus.find(one => one.name === name && one.redis !== undefined)
    const plain = row('submit')
    const top20 = row('top20')
    const where = `WORKERS=${pass.workers}`
    if (plain !== undefined) {
      check(plain.redis.cpuUs <= BUDGETS.plainSubmit.us, `Redis CPU per signed submit, plain game: ${fmt(plain.redis.cpuUs, 1)} µs (${where}; budget <= ${BUDGETS.plainSubmit.us} µs)`)
      check(plain.redis.commands <= BUDGETS.plainSubmit.commands, `Redis commands per signed submit, plain game: ${fmt(plain.redis.commands)} (${where}; budget <= ${BUDGETS.plainSubmit.commands})`)
      const periods = row('submit (3 periods)')
      if (periods !== undefined) {
        const perBoard = (periods.redis.cpuUs - plain.redis.cpuUs) / 3
        check(perBoard <= BUDGETS.perPeriodBoard.us, `Redis CPU per period board: +${fmt(perBoard, 1)} µs (3 boards: ${fmt(periods.redis.cpuUs, 1)} vs ${fmt(plain.redis.cpuUs, 1)} µs; ${where}; budget <= +${BUDGETS.perPeriodBoard.us} µs each)`)
      }
      const events = row('submit (events + webhook)')
      if (events !== undefined) {
        const added = events.redis.cpuUs - plain.redis.cpuUs
        check(added <= BUDGETS.webhooks.us, `Redis CPU a game's webhooks add to a submit (its outbox, and the deliveries made while it runs): +${fmt(added, 1)} µs (${fmt(events.redis.cpuUs, 1)} vs ${fmt(plain.redis.cpuUs, 1)} µs; ${where}; budget <= +${BUDGETS.webhooks.us} µs)`)
      }
    }
    if (top20 !== undefined) {
      // No write runs during a top20 scenario: every read of it is of an unchanged board.
      check(top20.redis.cpuUs <= BUDGETS.unchangedTop20.us, `Redis CPU per top20 of an unchanged board: ${fmt(top20.redis.cpuUs, 1)} µs (${where}; budget <= ${BUDGETS.unchangedTop20.us} µs)`)
    }
  }
  checks.push('n/a  what review rules and runs add to a submit: review rules are not in these scenarios; runs are measured by npm run bench:runs (bench/RUNS.md)')
  if (memory.size === 1_000_000) check(memory.perEntry <= 200, `${fmt(memory.perEntry, 1)} bytes per board entry at 1M (target <= 200)`)
  else checks.push(`n/a  bytes per entry at 1M: largest board here is ${sizeLabel(memory.size)} (${fmt(memory.perEntry, 1)} bytes per entry)`)
  if (periodMemory !== undefined) {
    for (const kind of ['daily', 'weekly', 'monthly']) {
      const perEntry = periodMemory.perEntry[kind]
      check(perEntry <= 200, `a ${kind} board: ${fmt(perEntry, 1)} bytes per entry at ${sizeLabel(periodMemory.size)} (the all-time board's budget: <= 200; the all-time board of the same game: ${fmt(periodMemory.perEntry.all, 1)})`)
    }
  }
  if (namedMemory !== undefined) {
    const { own, named } = namedMemory.perEntry
    // Below 100,000 players the 4,096 bucket keys' names (10 bytes longer on a named board) weigh on each entry; past it they are a rounding error.
    if (namedMemory.size >= 100_000) check(named <= own * 1.05, `a named board: ${fmt(named, 1)} bytes per entry at ${sizeLabel(namedMemory.size)}, as on the game's own board (${fmt(own, 1)}; within 5%)`)
    else checks.push(`n/a  a named board's bytes per entry as the own board's, held at 100k players or more: here ${sizeLabel(namedMemory.size)}, named ${fmt(named, 1)} vs own ${fmt(own, 1)} (the 4,096 bucket keys, each name 10 bytes longer, weigh on a small board)`)
  }
  return checks
}

/**
 * The results, printed at the end and written as the "Results" section of
 * bench/RESULTS.md. passes: { workers, processes, rows, floorRow, logLines }.
 */
export function results ({ opts, passes, memory, periodMemory, namedMemory, failures, scaling = [], webhooks, operator, hotGame = [] }) {
  const report = []
  const push = (...lines) => report.push(...lines)
  push(`Scenarios: ${opts.connections} connections, pipelining 1, ${opts.warmup} s warm-up then ${opts.duration} s measured, each; ` +
    'p50/p99 over every response of the measured part. "x floor" is req/s over the mean of the two floor runs of the same pass.', '')
  push('Redis per request: "Redis µs" is the CPU time redis-server used (INFO cpu: used_cpu_sys + used_cpu_user) over the requests answered, ' +
    'everything included (commands, scripts, reading and writing the sockets); one Redis core bounds one game, so this is what caps a hot game. ' +
    '"cmds" counts every command Redis ran, including those run inside Lua scripts (INFO stats total_commands_processed; ' +
    'commandstats gives the same sum); "top-level" the commands the service itself sent, i.e. the Redis round trips on the request\'s path ' +
    `(commandstats split into top-level and in-script with a MONITOR probe of ${opts.probeRequests} requests after each scenario); ` +
    '"reads" Redis read events (INFO stats total_reads_processed), fewer than the round trips when commands of concurrent requests arrive in one read. ' +
    'The INFO calls of the harness are subtracted. "other CPU": CPUs\' worth of time used during the measured part by processes that are not part of the run, plus hypervisor steal ' +
    '(/proc/stat minus the CPU time of the harness, the service, redis-server, the floor and the minimal service); near 0 on a quiet box.', '')
  push(`Against the minimal service (bench/minimal.mjs), in each pass: ${opts.rounds} round${opts.rounds === 1 ? '' : 's'} of floor, minimal submit, submit, submit (3 periods), submit (events + webhook), minimal top20, top20, ` +
    `${opts.warmup} s warm-up then ${opts.minimalDuration} s measured each, on the board of ${int(Math.min(...opts.boards))} (the minimal service on its own board of as many players). ` +
    'req/s, p50, p99 and Redis per request are means over the rounds, "other CPU" the highest of them, "top-level commands" from the first round. ' +
    '"x minimal" is the service\'s mean req/s over the minimal service\'s for the same request; "per round" the lowest and highest of that ratio when each round\'s service run is taken over the minimal run of the same round.', '')
  for (const pass of passes) {
    push(`### WORKERS=${pass.workers} (${pass.processes} service process${pass.processes === 1 ? '' : 'es'})`, '')
    push(markdownTable(
      ['scenario', 'board', 'req/s', 'p50 ms', 'p99 ms', 'x floor', 'Redis µs/req', 'cmds/req', 'top-level/req', 'reads/req', 'other CPU'],
      pass.rows.map(row => [
        row.name, row.size === undefined ? '-' : sizeLabel(row.size), int(row.rps), fmt(row.p50), fmt(row.p99),
        fmt(row.ratio), row.redis === undefined ? '-' : fmt(row.redis.cpuUs, 1), row.redis === undefined ? '-' : fmt(row.redis.commands), row.redis === undefined ? '-' : fmt(row.redis.topLevel),
        row.redis === undefined ? '-' : fmt(row.redis.reads),
        fmt(row.cpu.others + row.cpu.steal)
      ]),
      'llrrrrrrrrr'
    ), '')
    const submits = pass.rows.filter(row => row.scenario.countsImproved)
    push(`Submits that improved the best: ${submits.map(row => `${row.name} ${sizeLabel(row.size)} ${fmt(row.improved * 100, 0)}%${row.wrapped ? ' (pool reused)' : ''}`).join(', ')}.`, '')
    const disturbedRows = pass.rows.filter(row => disturbed(row.cpu))
    if (disturbedRows.length > 0) push(`**Disturbed:** other processes on the box used ${DISTURBED} CPUs or more during ${disturbedRows.map(row => rowLabel(row.name, row.size)).join(', ')}; those figures are not representative.`, '')
    if (pass.logLines.length > 0) push(`Service log at warn and above: ${pass.logLines.length} line(s), first: \`${pass.logLines[0].slice(0, 300)}\``, '')

    const versus = versusRows(pass.versus)
    push(`#### WORKERS=${pass.workers} against the minimal service (${pass.versus.processes} minimal process${pass.versus.processes === 1 ? '' : 'es'})`, '')
    push(markdownTable(
      ['scenario', 'board', 'req/s', 'p50 ms', 'p99 ms', 'x floor', 'x minimal', 'per round', 'Redis µs/req', 'cmds/req', 'top-level/req', 'reads/req', 'top-level commands', 'other CPU'],
      versus.map(row => [
        row.name, row.size === undefined ? '-' : sizeLabel(row.size), int(row.rps), fmt(row.p50), fmt(row.p99), fmt(row.floorRatio),
        row.vsMinimal === undefined ? '-' : fmt(row.vsMinimal), row.vsMinimal === undefined ? '-' : `${fmt(row.lowest)}..${fmt(row.highest)}`,
        row.redis === undefined ? '-' : fmt(row.redis.cpuUs, 1), row.redis === undefined ? '-' : fmt(row.redis.commands), row.redis === undefined ? '-' : fmt(row.redis.topLevel),
        row.redis === undefined ? '-' : fmt(row.redis.reads), row.redis?.topNames ?? '-', fmt(row.otherCpu)
      ]),
      'llrrrrrrrrrrlr'
    ), '')
    push(`Submits that improved the best: ${versus.filter(row => row.scenario.countsImproved).map(row => `${row.name} ${fmt(row.improved * 100, 0)}%${row.wrapped ? ' (pool reused)' : ''}`).join(', ')}.`, '')
    for (const row of versus.filter(row => row.vsPlain !== undefined)) {
      push(`${row.name}: ${row.scenario.plainNote}, ${int(row.rps)} req/s = **${fmt(row.vsPlain)}x submit** on a plain game, in the same rounds (${fmt(row.vsMinimal)}x the minimal service; the 0.9x target is for plain games).`, '')
    }
    const disturbedRuns = versus.filter(row => row.disturbed)
    if (disturbedRuns.length > 0) push(`**Disturbed:** other processes on the box used ${DISTURBED} CPUs or more during a round of ${disturbedRuns.map(row => row.name).join(', ')}; those figures are not representative.`, '')
  }
  const firstPass = passes[0]
  push('### Redis commands per request, by name', '')
  push(markdownTable(['scenario', 'board', 'top-level (under load)', 'inside scripts (under load)'],
    firstPass.rows.filter(row => row.redis !== undefined).map(row => [row.name, row.size === undefined ? '-' : sizeLabel(row.size), row.redis.topNames, row.redis.scriptNames || '-']), 'llll'), '')
  push(`(From the WORKERS=${firstPass.workers} pass.)`, '')
  if (operator !== undefined) {
    const mib = bytes => fmt(bytes / 2 ** 20, 1)
    push(`### The operator API on ${int(operator.size)} entries`, '')
    push('Measured once, right after seeding, on the largest board, with the service fresh (WORKERS=1) and no load: each export read whole as it streams, ' +
      'the service\'s resident memory sampled every 10 ms; listing pages of 100 timed one after another; the import fed by an export of the same board, 100,000 lines a request.', '')
    push(markdownTable(['what', 'entries', 'seconds', 'entries/s', 'first byte ms', 'MiB sent', 'service RSS before -> peak, MiB'], [
      ...['ndjson', 'csv'].map(format => [`export ${format}`, int(operator[format].entries), fmt(operator[format].seconds, 1), int(operator[format].rate), fmt(operator[format].firstByteMs), mib(operator[format].bytes), `${mib(operator[format].rssBefore)} -> ${mib(operator[format].rssPeak)}`]),
      [`export ndjson, --max-old-space-size=${operator.capped.heapMb}`, int(operator.capped.entries), fmt(operator.capped.seconds, 1), int(operator.capped.rate), fmt(operator.capped.firstByteMs), mib(operator.capped.bytes), `${mib(operator.capped.rssBefore)} -> ${mib(operator.capped.rssPeak)}`],
      ['import (ndjson)', int(operator.import.entries), fmt(operator.import.seconds, 1), int(operator.import.rate), '-', '-', `${operator.import.requests} requests`]
    ], 'lrrrrrl'), '')
    push(`The service's peak memory during an export is V8 letting its heap grow while it may: the same export from a service started with \`--max-old-space-size=${operator.capped.heapMb}\` ` +
      `(a fresh process, the last row but one) runs at ${fmt(operator.capped.rate / operator.ndjson.rate)}x the rate and grows by ${mib(operator.capped.rssPeak - operator.capped.rssBefore)} MiB while it sends ${mib(operator.capped.bytes)} MiB: ` +
      'the export holds one page of 1000 entries at a time.', '')
    push(`A page of 100 entries: **${fmt(operator.topPageMs)} ms at the top, ${fmt(operator.bottomPageMs)} ms at the bottom** (ranks ${int(Math.max(1, operator.size - 99))}..${int(operator.size)}): ${fmt(operator.bottomPageMs / operator.topPageMs)}x. ` +
      `A page of a name-prefix search (\`bench_user_12\`, up to 512 of the 4096 buckets): ${fmt(operator.searchPageMs)} ms.`, '')
  }
  push(`### Memory at ${int(memory.size)} players`, '')
  push(`- INFO memory used_memory grew by ${int(memory.usedAfter - memory.usedBefore)} bytes while the board was seeded: **${fmt(memory.perEntry, 1)} bytes per board entry** (board zset + entries hash together).`)
  push(`- MEMORY USAGE ... SAMPLES 5000: board zset ${fmt(memory.boardPerEntry, 1)} + entries hash ${fmt(memory.entriesPerEntry, 1)} = ${fmt(memory.boardPerEntry + memory.entriesPerEntry, 1)} bytes per entry (encodings ${memory.encodings.join(' / ')}; player names \`bench_user_<i>\`, ${playerName(memory.size - 1).length} characters at most).`, '')

  if (periodMemory !== undefined) {
    const { perEntry } = periodMemory
    push(`### Memory with periods on, at ${int(periodMemory.size)} players`, '')
    push(`A game that keeps daily, weekly and monthly boards, each current period board seeded with every player (the most it holds), each key with its expiry; INFO memory used_memory growth per board: all-time **${fmt(perEntry.all, 1)}**, daily **${fmt(perEntry.daily, 1)}**, weekly **${fmt(perEntry.weekly, 1)}**, monthly **${fmt(perEntry.monthly, 1)}** bytes per entry; ` +
      `${fmt(perEntry.all + perEntry.daily + perEntry.weekly + perEntry.monthly, 1)} bytes per player on all four. A period board keeps no meta, and holds only the players who submitted in that period.`, '')
  }

  if (namedMemory !== undefined) {
    const { perEntry } = namedMemory
    push(`### Memory of a named board, at ${int(namedMemory.size)} players`, '')
    push(`A game's own board, then its named board \`lap\` with the same players and bests; INFO memory used_memory growth per board: own **${fmt(perEntry.own, 1)}**, named **${fmt(perEntry.named, 1)}** bytes per entry (${fmt(perEntry.named - perEntry.own, 1)} bytes more: the longer scope in each key name, \`board:lap:\`, spread over the entries).`, '')
  }

  if (webhooks !== undefined) {
    const { underLoad, light } = webhooks
    push('### Webhook delivery latency', '')
    push('From an event (its outbox entry, by the Redis clock) to its arrival at a receiver on this box that answers 204 at once; the service\'s own dispatcher (WORKERS=1, WEBHOOK_POLL_MS 250) delivers while it serves.', '')
    push('"Dead at once" are deliveries made while the webhook already had 10,000 pending (its backlog bound): finished unsent, listed, counted in ranking_webhook_backlog_full_total, and deliverable again.', '')
    push(markdownTable(['load', 'events written', 'delivered', 'dead at once', 'p50 ms', 'p99 ms', 'max ms', 'last delivery after the load ended (longest)'],
      [
        [`under the submit load above (${opts.rounds} run${opts.rounds === 1 ? '' : 's'} of submit (events + webhook))`, int(underLoad.written), int(underLoad.count), int(underLoad.dead), int(underLoad.p50), int(underLoad.p99), int(underLoad.max), `${fmt(underLoad.drainMs / 1000, 1)} s`],
        [`${int(light.submits)} improving submits, one every ${light.intervalMs} ms`, int(light.written), int(light.count), int(light.dead), int(light.p50), int(light.p99), int(light.max), '-']
      ], 'lrrrrrrr'), '')
  }

  if (hotGame.length > 0) {
    push(`### One hot game: signed submits to one game on one Redis (board of ${int(hotGame[0].size)})`, '')
    push('The service at each WORKERS in turn, then the minimal service (bench/minimal.mjs: the HMAC check and one script of ZADD GT, ZREVRANK, ZSCORE) in as many processes, ' +
      `${opts.warmup} s warm-up then ${opts.minimalDuration} s each. A game lives in one Redis slot, so on one Redis core: "Redis busy" is Redis's CPU time over the wall time ` +
      '(1.00 is one core saturated); "one core\'s ceiling" is 1,000,000 / (Redis µs per request), the submits a second one core could take at that cost, ' +
      'which can be measured on a box with too few cores to saturate Redis (this one has ' + os.cpus().length + ').', '')
    push(markdownTable(['WORKERS', 'server', 'processes', 'req/s', 'p99 ms', 'Redis µs/req', 'cmds/req', 'Redis busy', 'one core\'s ceiling req/s', 'other CPU'],
      hotGame.map(row => [String(row.workers), row.label, String(row.processes), int(row.rps), fmt(row.p99), fmt(row.redis.cpuUs, 1), fmt(row.redis.commands),
        fmt(row.redis.cpuUs * row.rps / 1e6), int(1e6 / row.redis.cpuUs), fmt(row.cpu.others + row.cpu.steal)]), 'llrrrrrrrr'), '')
  }

  if (scaling.length > 0) {
    const base = new Map(scaling.filter(row => row.setup === scaling[0].setup).map(row => [row.name, row.rps]))
    push(`### Scaling out: one Redis and a local Redis Cluster (board of ${int(scaling[0].size)})`, '')
    push('The same requests through each setup in turn, back to back: one redis-server, or a cluster of 3 masters with 1 replica each ' +
      '(6 redis-servers); 1 or 2 service processes (WORKERS). "x first" is req/s over the first setup\'s for the same scenario. ' +
      'Everything shares this box\'s CPUs, so a cluster cannot add capacity here: the ratios show what the cluster client and WAIT cost, not how far a cluster of machines grows.', '')
    push(markdownTable(['setup', 'scenario', 'req/s', 'p50 ms', 'p99 ms', 'x first', 'other CPU'],
      scaling.map(row => [row.setup, row.name, int(row.rps), fmt(row.p50), fmt(row.p99), fmt(row.rps / (base.get(row.name) ?? row.rps)), fmt(row.cpu.others + row.cpu.steal)]), 'llrrrrr'), '')
  }

  push('### Targets', '')
  push(...targets(opts, passes, memory, periodMemory, namedMemory).map(line => `- ${line}`), '')

  if (failures.length > 0) {
    push('### FAILED responses', '')
    for (const f of failures) push(`- WORKERS=${f.workers} ${rowLabel(f.name, f.size)}: ${f.failed} failed; e.g. ${f.examples.join(' / ')}`)
    push('')
  }
  return report.join('\n')
}

/** The whole of bench/RESULTS.md: the command, the machine, the setup, then `body` (from results). */
export function resultsFile ({ opts, argv, body, redisVersion, seeding, started }) {
  const args = argv.join(' ')
  const command = process.env.npm_lifecycle_event === 'bench' ? `npm run bench${args === '' ? '' : ` -- ${args}`}` : `node bench/run.mjs${args === '' ? '' : ` ${args}`}`
  const cpus = os.cpus()
  const machine = [
    `- OS: ${os.type()} ${os.release()} (${os.arch()})`,
    `- CPU: ${cpus[0]?.model ?? 'unknown'} x ${cpus.length}`,
    `- Memory: ${fmt(os.totalmem() / 2 ** 30, 1)} GiB`,
    `- Node.js ${process.version}, redis-server ${redisVersion}, autocannon ${JSON.parse(readFileSync(join(root, 'node_modules/autocannon/package.json'), 'utf8')).version}`
  ]
  return [
    '# Benchmark results', '',
    `The latest figures of \`npm run bench\` (code in \`bench/\`), from ${new Date().toISOString()} (run took ${fmt((Date.now() - started) / 60_000, 1)} min).`, '',
    '```sh', command, '```', '',
    '## Machine', '', ...machine,
    '- Everything on this one box over 127.0.0.1: the autocannon client (one thread, in the harness process), the service, ' +
    'redis-server and the floor server share these CPUs, so the figures are a lower bound of what a dedicated box gives.', '',
    '## Setup', '',
    '- redis-server with the project\'s `redis.conf`, but persistence off (`--save "" --appendonly no`) so seeding is not slowed by disk writes; ' +
    'with AOF `everysec` (the production setting) writes cost a little more.',
    `- The service: \`node ${SERVER_ENTRY}\` with NODE_ENV=production, LOG_LEVEL=warn, METRICS_TOKEN set (metrics on), RATE_LIMIT_MAX and SESSION_RATE_LIMIT_MAX raised to 1000000000 (the rate limiter still runs), WORKERS=${opts.workers.join(' then ')}.`,
    `- Boards of ${opts.boards.map(size => int(size)).join(', ')} players, seeded straight into Redis (pipelined HSET/ZADD of 1,000 entries, 10,000 per pipeline, 4 pipelines in flight) with the scripts' stored format (\`encode\` of src/store/board-format.ts), then checked through \`me\` and \`top\`: ${seeding.join(', ')}.`,
    `- ${opts.users} users with a session each (admin API); submit-self, playtime and rate-get rotate over them (submit-self over the first min(${opts.users}, board size), all on the board).`,
    '- submit: a pool of pre-signed bodies (fresh ts) for random seeded players; about half raise the player\'s best by 1..1000, the others are at or below it. me: random seeded players.',
    '- playtime (seconds=30) and rate-get do not touch the board, so they run once per pass, on the smallest board\'s game.',
    '- The floor: bench/floor.mjs, a bare Fastify server answering GET / with {"ok":true}, one process, loaded with the same settings at the start and at the end of each pass; "x floor" is to the mean of the two ' +
    '(in the rounds against the minimal service: to the mean of the floor runs that start each round).',
    '- The minimal service: bench/minimal.mjs, the hand-written bar the service\'s submit and top20 are held to (target: 0.9x its req/s, same run). ' +
    'Fastify 5 (logger off) with @fastify/formbody, ioredis with auto-pipelining (enableAutoPipelining); the API key\'s secret and game from an in-memory Map, ' +
    'the same HMAC-SHA256 signature check as the service (constant-time compare), then ONE EVALSHA per request: ZADD GT + ZREVRANK + ZSCORE for submit, ZCARD + ZREVRANGE WITHSCORES for top. ' +
    'It does not rate-limit, look the key or the game up in Redis, check the ts window or replays, keep the time of a best or a meta, hide players, send security headers or CORS headers, log, or serialize with response schemas; ' +
    'with WORKERS=N it runs N node:cluster workers sharing its port, as the service does. ' +
    `It gets the service's submit and top20 requests unchanged (the same scenario code), with its own API key of the same form on the same game id, and its own sorted set of ${int(Math.min(...opts.boards))} players seeded like the service's board (pipelined ZADD).`,
    '- Every response was checked: HTTP 2xx and `"ok":true` (none failed in this run).',
    `- The box is shared: before each scenario the harness waited (up to ${opts.quietWait} s) until processes outside the run used less than ${DISTURBED} CPUs, and the "other CPU" column shows what they used during the measured part.`, '',
    '## Results', '', body,
    ...profiles(),
    ...notes()
  ].join('\n')
}

/**
 * bench/NOTES.md, written by hand: what a change cost, in words, kept
 * across runs (the rest of the report is written anew each time).
 */
function notes () {
  const path = join(root, 'bench', 'NOTES.md')
  return existsSync(path) ? [readFileSync(path, 'utf8').trim(), ''] : []
}

/**
 * The CPU profiles of `npm run bench:profile` (bench/PROFILE.md, the latest)
 * and of the code before the hot-path work (bench/PROFILE-before.md, kept),
 * as sections of the report.
 */
function profiles () {
  const section = (file, title) => {
    const path = join(root, 'bench', file)
    if (!existsSync(path)) return []
    const text = readFileSync(path, 'utf8').trim().split('\n').slice(1).join('\n').replace(/^### /gm, '#### ')
    return [`### ${title}`, '', text, '']
  }
  const after = section('PROFILE.md', 'Now')
  const before = section('PROFILE-before.md', 'Before the one-call hot path (main at 13a5bd2, the same tool, the service alone)')
  if (after.length + before.length === 0) return []
  return ['## Where the time goes (`npm run bench:profile`)', '', ...after, ...before]
}
