#!/usr/bin/env node
// `npm run cli -- ...`: the operator's command-line tool (README, "Operating it").
import { ensureBuild, ensureDependencies, ensureRedisServer } from './runtime.mjs'

ensureDependencies()
ensureBuild()
ensureRedisServer()
const { runCli } = await import('../dist/src/cli.js')
process.exitCode = await runCli(process.argv.slice(2))
