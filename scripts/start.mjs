#!/usr/bin/env node
// `npm start`: from a fresh clone to a running service (README, "Run it").
import { ensureBuild, ensureDependencies, ensureRedisServer } from './runtime.mjs'

ensureDependencies()
ensureBuild()
ensureRedisServer()
// `npm start` is the development start that makes up an admin token when none is set.
process.env.RANKING_GENERATE_ADMIN_TOKEN ??= '1'
const { main } = await import('../dist/src/server.js')
await main()
