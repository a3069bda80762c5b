#!/usr/bin/env node
// `npm run test:stress`: the whole test suite (scripts/test.mjs, what
// `npm test` runs) while the machine is kept busy, to show that no test
// depends on an idle machine (docs/contributing.md). Beside the suite, one
// process per core spins at normal priority for as long as the suite runs,
// then stops: the suite gets about half of each core. Arguments go to
// scripts/test.mjs (npm run test:stress -- test/webhooks/).
//   STRESS_PROCESSES   how many spinning processes (default: one per core)
import { fork, spawn } from 'node:child_process'
import { availableParallelism } from 'node:os'
import { fileURLToPath } from 'node:url'
import { join } from 'node:path'
import { root } from './runtime.mjs'

if (process.argv[2] === '--spin') {
  // A busy loop that yields now and then, so it can be told to stop.
  const spin = () => {
    const until = Date.now() + 100
    while (Date.now() < until) { /* busy, on purpose */ }
    setImmediate(spin)
  }
  spin()
} else {
  const count = Number(process.env.STRESS_PROCESSES ?? availableParallelism())
  if (!Number.isInteger(count) || count < 1) {
    console.error(`STRESS_PROCESSES must be a positive integer (got "${process.env.STRESS_PROCESSES}")`)
    process.exit(2)
  }
  const spinners = Array.from({ length: count }, () => fork(fileURLToPath(import.meta.url), ['--spin'], { stdio: 'ignore' }))
  const stopSpinners = () => { for (const spinner of spinners) spinner.kill('SIGKILL') }
  process.on('exit', stopSpinners)
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => { stopSpinners(); process.exit(130) })
  console.error(`test:stress: ${count} spinning process${count === 1 ? '' : 'es'} beside the suite, on ${availableParallelism()} cores`)
  const started = Date.now()
  const suite = spawn(process.execPath, [join(root, 'scripts', 'test.mjs'), ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' })
  suite.on('exit', (code, signal) => {
    stopSpinners()
    const minutes = ((Date.now() - started) / 60_000).toFixed(1)
    console.error(`test:stress: the suite ${code === 0 ? 'passed' : `FAILED (${code ?? signal})`} in ${minutes} min with ${count} spinning process${count === 1 ? '' : 'es'}`)
    process.exit(code ?? 1)
  })
}
