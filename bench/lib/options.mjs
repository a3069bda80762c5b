// The command line of bench/run.mjs: --name=value flags, each falling back to
// a BENCH_* environment variable and then to a default (smaller in --smoke).
// The flags are listed at the top of bench/run.mjs.

const FLAGS = /^--(workers|duration|warmup|connections|boards|quiet-wait|rounds|minimal-duration|hot-workers)=/

function positiveNumbers (name, text) {
  const values = String(text).split(',').map(part => part.trim()).filter(part => part !== '').map(Number)
  if (values.length === 0 || values.some(value => !Number.isInteger(value) || value <= 0)) {
    console.error(`bench: --${name} must be positive integers, comma-separated (got "${text}")`)
    process.exit(2)
  }
  return values
}

/** The run's settings from argv and env; exits 2 on a bad option. */
export function parseOptions (argv, env) {
  for (const arg of argv) {
    if (arg !== '--smoke' && !FLAGS.test(arg)) {
      console.error(`bench: unknown option "${arg}" (see the top of bench/run.mjs)`)
      process.exit(2)
    }
  }

  const option = (name, envName, fallback) => {
    const prefix = `--${name}=`
    const given = argv.find(arg => arg.startsWith(prefix))
    if (given !== undefined) return given.slice(prefix.length)
    const fromEnv = env[envName]
    return fromEnv === undefined || fromEnv === '' ? fallback : fromEnv
  }

  const smoke = argv.includes('--smoke') || env.BENCH_SMOKE === '1'
  const duration = positiveNumbers('duration', option('duration', 'BENCH_DURATION', smoke ? '2' : '10'))[0]
  return {
    smoke,
    workers: positiveNumbers('workers', option('workers', 'BENCH_WORKERS', smoke ? '1' : '1,2')),
    // one hot game: the service's WORKERS in turn, each beside the minimal service in as many processes
    hotWorkers: positiveNumbers('hot-workers', option('hot-workers', 'BENCH_HOT_WORKERS', smoke ? '1,2' : '1,2,4')),
    duration,
    // the rounds against the minimal service: 5 runs each, shorter so the full run stays near 20 minutes
    rounds: positiveNumbers('rounds', option('rounds', 'BENCH_ROUNDS', smoke ? '1' : '3'))[0],
    minimalDuration: positiveNumbers('minimal-duration', option('minimal-duration', 'BENCH_MINIMAL_DURATION', String(Math.min(5, duration))))[0],
    warmup: positiveNumbers('warmup', option('warmup', 'BENCH_WARMUP', smoke ? '1' : '3'))[0],
    connections: positiveNumbers('connections', option('connections', 'BENCH_CONNECTIONS', '50'))[0],
    boards: positiveNumbers('boards', option('boards', 'BENCH_BOARDS', smoke ? '1000' : '1000,100000,1000000')),
    quietWait: Number(option('quiet-wait', 'BENCH_QUIET_WAIT', smoke ? '0' : '120')),
    users: smoke ? 500 : 2000,
    /** Requests of the MONITOR probe that splits top-level from in-script commands. */
    probeRequests: 200
  }
}
