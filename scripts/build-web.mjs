#!/usr/bin/env node
// Builds the modules the service serves to browsers on other pages than the
// console (docs/decisions/0072-score-formats-raw-in-the-api-shown-by.md, #73): each one file, a classic script (an
// IIFE that sets one global), so any page includes it with one <script src>.
//   /sdk/format.js      RankingFormat.formatScore, the score formatter (sdk/format.ts)
//   /sdk/platform.js    RankingPlatform.ready(), the kit for hosted games (sdk/platform.ts)
//   /embed/board.js     the <ranking-board> element, Lit bundled in (sdk/board.ts)
//   /embed/games.js     the <ranking-games> element, Lit bundled in (sdk/games.ts)
// esbuild, which Vite (the console's toolchain) runs and installs; the sizes (and
// gzipped sizes) are printed, and a module past its gzipped budget fails the build.
//
// And the example games that need a build (an engine from the npm registry
// bundled in), each into dist/web/games/<game_id>/ with its index.html; the
// service serves them at /games/<game_id>/ beside public/games/:
//   /games/phaser/      Star catcher, made with Phaser (examples/phaser-game/)
// An example imports the kit as a game would, from the SDK package's name.
//
// `--sdk`: the SDK package's build (sdk/package.json) instead writes the
// element and the kit as ES modules into sdk/dist, over what tsc emitted there
// (tsc keeps their types; the element's module gets Lit bundled in, so the
// package still has no dependencies).
import { build } from 'esbuild'
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const forSdk = process.argv.includes('--sdk')

/** name: where it is served from dist/web; budget: the most gzipped bytes it may take. */
const MODULES = [
  { name: 'format', entry: 'sdk/format.ts', globalName: 'RankingFormat', budget: 2_048 },
  { name: 'platform', entry: 'sdk/platform.ts', globalName: 'RankingPlatform', budget: 4_096 },
  { name: 'embed/board', entry: 'sdk/board.ts', globalName: 'RankingBoard', budget: 15_360, sdk: 'board' },
  { name: 'embed/games', entry: 'sdk/games.ts', globalName: 'RankingGames', budget: 10_240 }
]

/** id: the game's id (its folder under /games/); folder: its sources (main.js, index.html). */
const GAMES = [
  { id: 'phaser', folder: 'examples/phaser-game' }
]

/** What every build here shares: one minified file for the browsers of the last few years, its imports bundled in. */
const BUNDLE = { bundle: true, minify: true, target: 'es2021', legalComments: 'none', logLevel: 'warning' }

/** A built file's size, and its gzipped size, as the build prints them. */
function sizeOf (file) {
  const bytes = readFileSync(file)
  return { text: `${relative(root, file)} ${bytes.length} bytes`, gzipped: gzipSync(bytes).length }
}

let failed = false
for (const { name, entry, globalName, budget, sdk } of MODULES) {
  if (forSdk && sdk === undefined) continue
  const outfile = forSdk ? join(root, 'sdk', 'dist', `${sdk}.js`) : join(root, 'dist', 'web', `${name}.js`)
  await build({ ...BUNDLE, entryPoints: [join(root, entry)], outfile, format: forSdk ? 'esm' : 'iife', ...(forSdk ? {} : { globalName }) })
  const { text, gzipped } = sizeOf(outfile)
  const over = gzipped > budget
  failed ||= over
  console.log(`web: ${text}, ${gzipped} gzipped (budget ${budget})${over ? ' OVER BUDGET' : ''}`)
}
for (const { id, folder } of forSdk ? [] : GAMES) {
  const outdir = join(root, 'dist', 'web', 'games', id)
  const outfile = join(outdir, 'game.js')
  await build({ ...BUNDLE, entryPoints: [join(root, folder, 'main.js')], outfile, format: 'iife', alias: { '@ranking-service/sdk/platform': join(root, 'sdk', 'platform.ts') } })
  copyFileSync(join(root, folder, 'index.html'), join(outdir, 'index.html'))
  const { text, gzipped } = sizeOf(outfile)
  console.log(`web: ${text}, ${gzipped} gzipped (an example game)`)
}
if (failed) {
  console.error('web: a module is over its gzipped budget')
  process.exit(1)
}
if (!forSdk) {
  mkdirSync(join(root, 'dist', 'web'), { recursive: true })
  writeFileSync(join(root, 'dist', 'web', '.build-stamp'), `${new Date().toISOString()}\n`)
}
