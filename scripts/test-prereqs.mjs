#!/usr/bin/env node
// Runs before `npm test` (npm's pretest), so `npm test` works as the first
// command in a fresh clone: it installs the npm packages (tap is one), and
// the suite starts its own redis-server and drives Debian's Chromium for the
// browser tests (of the console too, which it builds).
import { ensureConsole, ensureDebianPackage, ensureDependencies, ensureWeb } from './runtime.mjs'

ensureDependencies()
// The console's browser tests drive the built page (dist/console).
ensureConsole()
// The play page loads the browser modules (the score formatter).
ensureWeb()
ensureDebianPackage({ binary: 'redis-server', pkg: 'redis-server', why: 'each test file starts its own redis-server' })
ensureDebianPackage({ binary: 'chromium', pkg: 'chromium', why: 'the browser tests drive headless Chromium' })
