#!/usr/bin/env node
// Builds the modules the service serves to browsers on other pages than the
// console (docs/decisions.md#72): each one file, a classic script (an IIFE
// that sets one global), so any page includes it with one <script src>.
//   /sdk/format.js   RankingFormat.formatScore, the score formatter (sdk/format.ts)
// esbuild, as Vite itself uses it; the sizes (and gzipped sizes) are printed.
import { build } from 'esbuild'
import { readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const outdir = join(root, 'dist', 'web')

const MODULES = [
  { name: 'format', entry: 'sdk/format.ts', globalName: 'RankingFormat' }
]

for (const { name, entry, globalName } of MODULES) {
  await build({
    entryPoints: { [name]: join(root, entry) },
    outdir,
    bundle: true,
    format: 'iife',
    globalName,
    minify: true,
    target: 'es2020',
    legalComments: 'none',
    logLevel: 'warning'
  })
  const bytes = readFileSync(join(outdir, `${name}.js`))
  console.log(`web: dist/web/${name}.js ${bytes.length} bytes, ${gzipSync(bytes).length} gzipped`)
}
writeFileSync(join(outdir, '.build-stamp'), `${new Date().toISOString()}\n`)
