// Prepares a checkout to run, using only Node's standard library (it runs
// before the dependencies exist): installs packages, builds the TypeScript,
// and makes sure a redis-server is available when the service must own one.
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, statSync, writeFileSync, accessSync, constants } from 'node:fs'
import { delimiter, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

export const root = resolve(fileURLToPath(import.meta.url), '../..')
const stamp = join(root, 'dist', '.build-stamp')

function run (command, args, env = process.env) {
  console.error(`> ${command} ${args.join(' ')}`)
  const result = spawnSync(command, args, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'], env })
  if (result.status !== 0) {
    console.error(`"${command} ${args.join(' ')}" failed (exit ${result.status ?? result.signal}).`)
    process.exit(1)
  }
}

function newestMtime (path) {
  const stat = statSync(path)
  if (!stat.isDirectory()) return stat.mtimeMs
  let newest = 0
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)))
  return newest
}

function mtime (path) {
  return existsSync(path) ? statSync(path).mtimeMs : 0
}

/** npm ci when node_modules is missing or older than the lock file. */
export function ensureDependencies () {
  const installed = join(root, 'node_modules', '.package-lock.json')
  if (existsSync(installed) && mtime(installed) >= mtime(join(root, 'package-lock.json'))) return
  // The build needs the dev dependencies (TypeScript), also when NODE_ENV=production.
  run('npm', ['ci', '--include=dev', '--no-audit', '--no-fund'])
}

function newestOf (names) {
  return Math.max(...names.map(name => join(root, name)).map(path => existsSync(path) ? newestMtime(path) : 0))
}

/** Compiles src/ and plugins/ when dist/ is missing or older than them, and the console (ensureConsole). */
export function ensureBuild () {
  const newestSource = newestOf(['src', 'plugins', 'sdk/index.ts', 'sdk/answers.ts', 'sdk/format.ts', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json'])
  if (!existsSync(join(root, 'dist', 'src', 'server.js')) || mtime(stamp) < newestSource) {
    run('npm', ['run', 'build:server', '--silent'])
    writeFileSync(stamp, `${new Date().toISOString()}\n`)
  }
  ensureConsole()
  ensureWeb()
}

/**
 * Builds the browser modules (scripts/build-web.mjs: the score formatter,
 * the hosted games' kit, the <ranking-board> element, the example games) into dist/web when
 * missing or older than their sources: the play page and other sites' pages load them.
 */
export function ensureWeb () {
  const webStamp = join(root, 'dist', 'web', '.build-stamp')
  if (mtime(webStamp) >= newestOf(['sdk/format.ts', 'sdk/platform.ts', 'sdk/board.ts', 'sdk/board-element.ts', 'examples', 'scripts/build-web.mjs', 'package-lock.json'])) return
  run('npm', ['run', 'build:web', '--silent'])
}

/**
 * Builds the operator console (console/, with Vite) into dist/console when
 * it is missing or older than its sources: `npm start` serves it, and the
 * browser tests of `npm test` drive it.
 */
export function ensureConsole () {
  const consoleStamp = join(root, 'dist', 'console', '.build-stamp')
  // The console bundles the SDK's score formatter (sdk/format.ts) too.
  if (mtime(consoleStamp) >= newestOf(['console', 'sdk/format.ts', 'package-lock.json'])) return
  run('npm', ['run', 'build:console', '--silent'])
  writeFileSync(consoleStamp, `${new Date().toISOString()}\n`)
}

function onPath (binary) {
  for (const folder of (process.env.PATH ?? '').split(delimiter)) {
    try {
      accessSync(join(folder, binary), constants.X_OK)
      return true
    } catch {}
  }
  return false
}

/**
 * Makes sure a program from a Debian package is there: as root with apt,
 * install the package; otherwise say the one command that does and stop.
 */
export function ensureDebianPackage ({ binary, pkg, why }) {
  if (onPath(binary)) return
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0
  if (isRoot && onPath('apt-get')) {
    console.error(`${binary} is not installed (${why}); installing Debian's ${pkg} package.`)
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
    run('apt-get', ['update', '-qq'], env)
    run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', pkg], env)
    return
  }
  console.error(`${binary} is not installed (${why}). Install it with:\n\n  sudo apt-get install -y ${pkg}\n`)
  process.exit(1)
}

/** A managed Redis needs redis-server (not when REDIS_URL names a Redis). */
export function ensureRedisServer () {
  if (process.env.REDIS_URL) return
  ensureDebianPackage({ binary: 'redis-server', pkg: 'redis-server', why: 'the service starts its own Redis when REDIS_URL is unset' })
}
