#!/usr/bin/env node
// `npm test`: the whole suite, in two halves (docs/contributing.md):
//   1. every test file under test/, each against servers it starts itself
//      (a redis-server per test, receivers, Chromium), with coverage;
//   2. every file that gets its Redis from test/helpers (buildTestApp,
//      listeningApp) again, against a real local Redis Cluster
//      (TEST_REDIS=cluster: 3 masters with a replica each, started per file).
//
// Arguments narrow it to some files or folders, in both halves, without
// the coverage thresholds (a part of the suite covers a part of the code):
//   npm test -- test/routes/rank/          one folder
//   npm test -- test/routes/session/ratings.test.ts  one file
// Other arguments go to tap as they are (npm test -- --bail). `--only=single`
// or `--only=cluster` runs one half. What follows `--` goes to tap too.
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { root } from './runtime.mjs'

const tap = join(root, 'node_modules', '.bin', 'tap')

/** Every *.test.ts file under a path (a file or a folder), relative to the root. */
function testFiles (path) {
  const absolute = resolve(root, path)
  if (!statSync(absolute).isDirectory()) return [relative(root, absolute)]
  return readdirSync(absolute, { recursive: true })
    .filter(name => name.endsWith('.test.ts'))
    .map(name => relative(root, join(absolute, name)))
    .sort()
}

/** Files whose Redis comes from test/helpers, so TEST_REDIS=cluster runs them on a cluster. */
const runsOnCluster = file => /\b(buildTestApps?|listeningApp)\(/.test(readFileSync(join(root, file), 'utf8'))

const args = process.argv.slice(2)
const only = args.find(arg => arg.startsWith('--only='))?.slice('--only='.length)
if (only !== undefined && only !== 'single' && only !== 'cluster') {
  console.error(`--only is single or cluster (got "${only}")`)
  process.exit(2)
}
const paths = args.filter(arg => !arg.startsWith('-') && existsSync(resolve(root, arg)))
const tapArgs = args.filter(arg => !paths.includes(arg) && !arg.startsWith('--only=') && arg !== '--')
const files = [...new Set((paths.length === 0 ? ['test'] : paths).flatMap(testFiles))]
if (files.length === 0) {
  console.error(`No test files under ${paths.join(', ')}.`)
  process.exit(2)
}

function half (title, files, extraArgs, env) {
  const started = Date.now()
  console.error(`\n${title}: ${files.length} test file${files.length === 1 ? '' : 's'}`)
  const result = spawnSync(tap, [...extraArgs, ...tapArgs, ...files], { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } })
  const minutes = ((Date.now() - started) / 60_000).toFixed(1)
  console.error(`${title}: ${result.status === 0 ? 'passed' : 'FAILED'} in ${minutes} min`)
  return result.status ?? 1
}

// Both halves run whatever the first answered: a failure of one says
// nothing of the other, and both are reported at the end.
const outcomes = []
if (only !== 'cluster') {
  // The whole suite is held to package.json's coverage thresholds; a part is not.
  const title = 'Each file on its own redis-server'
  outcomes.push([title, half(title, files, paths.length === 0 ? [] : ['--allow-incomplete-coverage'], {})])
}
const clusterFiles = only === 'single' ? [] : files.filter(runsOnCluster)
if (clusterFiles.length > 0) {
  const title = 'Again on a local Redis Cluster'
  outcomes.push([title, half(title, clusterFiles, ['--disable-coverage'], { TEST_REDIS: 'cluster' })])
}
if (outcomes.length > 1) for (const [title, status] of outcomes) console.error(`${status === 0 ? 'passed' : 'FAILED'}: ${title}`)
process.exit(outcomes.find(([, status]) => status !== 0)?.[1] ?? 0)
