#!/usr/bin/env node
// `npm start`: from a fresh clone to a running service (README, "Run it").
import { ensureBuild, ensureDependencies, ensureRedisServer } from './runtime.mjs'

ensureDependencies()
ensureBuild()
ensureRedisServer()
const { main } = await import('../dist/src/server.js')
await main()
