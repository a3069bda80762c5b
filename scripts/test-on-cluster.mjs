#!/usr/bin/env node
// The second half of `npm test`: every test file that gets its Redis from
// test/helpers (buildTestApp, listeningApp) runs again against a real local
// Redis Cluster (3 masters, 1 replica each, started per file), so the store,
// HTTP and operator tests hold on a cluster as on one server.
import { spawnSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { root } from './runtime.mjs'

const files = readdirSync(join(root, 'test'))
  .filter(name => name.endsWith('.test.ts'))
  .filter(name => /\b(buildTestApps?|listeningApp)\(/.test(readFileSync(join(root, 'test', name), 'utf8')))
  .map(name => `test/${name}`)
console.error(`On a local Redis Cluster: ${files.length} test files`)
const result = spawnSync(join(root, 'node_modules', '.bin', 'tap'), ['--disable-coverage', ...files], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, TEST_REDIS: 'cluster' }
})
process.exit(result.status ?? 1)
