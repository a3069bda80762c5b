import { readdirSync, readFileSync } from 'node:fs'
import { Redis } from 'ioredis'
import t from 'tap'
import { projectPath } from '../../src/lib/paths.js'
import { LUA_FOLDER, LUA_INCLUDES, luaPiece, luaScript, variantLines } from '../../src/store/script-loader.js'
import { startTestRedis } from '../helpers/redis.js'

/*
 * Every Lua script is a file in src/store/lua/. Redis compiles a script when
 * it is loaded, so loading each one into a real redis-server catches a
 * syntax error here rather than on the first request that runs it.
 */

const scriptNames = readdirSync(LUA_FOLDER).filter(file => file.endsWith('.lua')).map(file => file.slice(0, -'.lua'.length))
const includeNames = readdirSync(LUA_INCLUDES).filter(file => file.endsWith('.lua')).map(file => file.slice(0, -'.lua'.length))
// Every TypeScript file of src/, where the scripts are loaded (most in src/store).
const storeSources = readdirSync(projectPath('src'), { recursive: true, encoding: 'utf8' }).filter(file => file.endsWith('.ts')).map(file => readFileSync(projectPath('src', file), 'utf8')).join('\n')
const luaFiles = [...scriptNames.map(name => `${LUA_FOLDER}/${name}.lua`), ...includeNames.map(name => `${LUA_INCLUDES}/${name}.lua`)].map(file => readFileSync(file, 'utf8')).join('\n')

/** Each constant a script declares (its `--- @constants` line), as any number: what compiling needs. */
function anyConstants (name: string): Record<string, number> {
  const line = readFileSync(`${LUA_FOLDER}/${name}.lua`, 'utf8').split('\n').find(text => text.startsWith('--- @constants '))
  return Object.fromEntries((line?.slice('--- @constants '.length).split(' ') ?? []).map(constant => [constant, 1]))
}

/** The variants a script's `--- @if` blocks name ([undefined] for a script of one variant). */
function variantsOf (name: string): Array<string | undefined> {
  const variants = new Set([...readFileSync(`${LUA_FOLDER}/${name}.lua`, 'utf8').matchAll(/^--- @if ([a-z]+)$/gm)].map(match => match[1]))
  return variants.size === 0 ? [undefined] : [...variants]
}

t.test('every Lua script compiles in a real Redis', { timeout: 30_000 }, async t => {
  const server = await startTestRedis()
  t.teardown(server.stop)
  const redis = new Redis(server.url)
  t.teardown(() => { redis.disconnect() })

  t.ok(scriptNames.length >= 15, `${scriptNames.length} scripts found`)
  for (const name of scriptNames) {
    for (const variant of variantsOf(name)) {
      const source = luaScript(name, anyConstants(name), variant)
      const sha = await redis.script('LOAD', source) as string
      t.match(sha, /^[0-9a-f]{40}$/, `${name}.lua loads${variant === undefined ? '' : ` (${variant})`}`)
      // A file of comments alone would load too: each script must do something and answer.
      t.match(source.split('\n').filter((line: string) => !line.startsWith('--')).join('\n'), /\breturn\b/, `${name}.lua has a body that returns`)
    }
  }
  for (const name of includeNames) {
    const piece = luaPiece(name)
    t.notOk(piece.includes('\n'), `includes/${name}.lua becomes one line`)
    t.match(await redis.script('LOAD', `${piece} return 1`) as string, /^[0-9a-f]{40}$/, `includes/${name}.lua compiles in a script`)
  }
  // The check can fail: a script with a syntax error is refused at load.
  await t.rejects(redis.script('LOAD', 'local broken = '), /Error compiling script/, 'a syntax error is refused')
})

t.test('every Lua file is used by the store, and every script the store names exists', async t => {
  for (const name of scriptNames) t.match(storeSources, `luaScript('${name}'`, `${name}.lua is loaded by src/`)
  for (const [, name] of storeSources.matchAll(/luaScript\('([^']+)'/g)) t.ok(scriptNames.includes(name as string), `${String(name)}.lua exists`)
  for (const name of includeNames) t.match(luaFiles, `--- @include "${name}"`, `includes/${name}.lua is included by a script (or another piece)`)
  for (const [, name] of luaFiles.matchAll(/^--- @include "([^"]+)"$/gm)) t.ok(includeNames.includes(name as string), `includes/${String(name)}.lua exists`)
})

t.test('directive lines: constants and pieces take their own line, so line numbers match the file; a caller and its script agree on the constants', async t => {
  const source = luaScript('submit', anyConstants('submit'), 'full')
  const file = readFileSync(`${LUA_FOLDER}/submit.lua`, 'utf8').split('\n')
  t.equal(source.split('\n').length, file.length, 'no line added')
  t.match(source.split('\n')[file.findIndex(line => line.startsWith('--- @constants'))], /^local TIME_DIGITS = 1; /, 'the constants, on their line')
  t.match(source.split('\n')[file.indexOf('--- @include "board-prelude"')], /^local function seasonOf .* local function moved \(\)/, 'a piece and the piece it includes, on the include\'s line')
  t.equal(source.match(/local function seasonOf/g)?.length, 1, 'each piece once')
  t.throws(() => luaScript('submit', { ...anyConstants('submit'), EXTRA: 1 }, 'full'), /not declared: EXTRA/, 'a constant the script does not declare')
  t.throws(() => luaScript('set-visibility', { TIME_DIGITS: 13 }), /not given: OUTBOX_MAX/, 'a declared constant the caller does not give')
  t.notOk(luaPiece('board-prelude').includes('\n'), 'a piece is one line')
})

t.test('@if blocks: each variant of a script keeps its own blocks and the shared lines, on the file\'s lines', async t => {
  t.same(variantsOf('submit'), ['full', 'plain'], 'submit.lua is two scripts')
  const file = readFileSync(`${LUA_FOLDER}/submit.lua`, 'utf8').split('\n')
  const plain = luaScript('submit', anyConstants('submit'), 'plain').split('\n')
  const full = luaScript('submit', anyConstants('submit'), 'full').split('\n')
  t.equal(plain.length, file.length, 'plain: no line added or taken')
  t.equal(full.length, file.length, 'full: no line added or taken')
  const periodsLine = file.indexOf('local function periods (result, store)')
  t.ok(periodsLine > 0 && full[periodsLine] === file[periodsLine], 'a full block is in the full script')
  t.equal(plain[periodsLine], '', 'and blank in the plain one')
  t.notMatch(plain.join('\n'), /local function boardEvents|local function readRun|local function decide/, 'the pieces a plain block includes are left out with it')
  const shared = file.indexOf('local entry = redis.call(\'HGET\', entries, player)')
  t.ok(shared > 0 && plain[shared] === file[shared] && full[shared] === file[shared], 'a shared line is in both')
  t.equal(plain.filter(line => line.startsWith('--- @')).length + full.filter(line => line.startsWith('--- @')).length, 0, 'no directive is left')
  t.throws(() => luaScript('submit', anyConstants('submit')), /variants are full, plain, not none/, 'a script of variants needs one named')
  t.throws(() => luaScript('submit', anyConstants('submit'), 'lean'), /not lean/, 'a variant the file does not have')
  t.throws(() => luaScript('top', {}, 'plain'), /variants are none, not plain/, 'a script of one variant takes none')
})

t.test('@if blocks: what a malformed file is told', async t => {
  const lines = ['a', '--- @if one', 'b', '--- @end', '--- @if two', 'c', '--- @end', 'd']
  t.same(variantLines('x.lua', lines, 'one'), ['a', '', 'b', '', '', '', '', 'd'])
  t.same(variantLines('x.lua', lines, 'two'), ['a', '', '', '', '', 'c', '', 'd'])
  t.same(variantLines('x.lua', ['a', 'b'], undefined), ['a', 'b'], 'no blocks, no variant')
  t.throws(() => variantLines('x.lua', ['--- @if one', '--- @if two', '--- @end'], 'one'), /x\.lua:2: @if two inside @if one/, 'nested')
  t.throws(() => variantLines('x.lua', ['a', '--- @end'], undefined), /x\.lua:2: @end without @if/, 'a stray @end')
  t.throws(() => variantLines('x.lua', ['--- @if one', 'a'], 'one'), /@if one without its @end/, 'unclosed')
  t.throws(() => variantLines('x.lua', lines, undefined), /its variants are one, two, not none/, 'no variant named')
})
