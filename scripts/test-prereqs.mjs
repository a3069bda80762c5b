#!/usr/bin/env node
// Runs before `npm test` (npm's pretest): the suite starts its own
// redis-server and drives Debian's Chromium for the browser test.
import { ensureDebianPackage } from './runtime.mjs'

ensureDebianPackage({ binary: 'redis-server', pkg: 'redis-server', why: 'each test file starts its own redis-server' })
ensureDebianPackage({ binary: 'chromium', pkg: 'chromium', why: 'the browser test drives headless Chromium' })
