import { readdirSync, readFileSync } from 'node:fs'
import { Redis } from 'ioredis'
import t from 'tap'
import { projectPath } from '../../src/lib/paths.js'
import { LUA_FOLDER, LUA_INCLUDES, defineScript, luaPiece, luaScript } from '../../src/store/script-loader.js'
import { boardScopes, entryBucket, keys, luaKeyExpression } from '../../src/store/keys.js'
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
function anyConstants (name: string, path = `${LUA_FOLDER}/${name}.lua`): Record<string, number> {
  const lines = readFileSync(path, 'utf8').split('\n')
  const line = lines.find(text => text.startsWith('--- @constants '))
  // The pieces it includes may declare constants too (includes/playtime-credit.lua).
  const included = lines.map(text => /^--- @include "([a-z-]+)"$/.exec(text)?.[1]).filter((piece): piece is string => piece !== undefined)
  return Object.assign({}, ...included.map(piece => anyConstants(piece, `${LUA_FOLDER}/includes/${piece}.lua`)),
    Object.fromEntries((line?.slice('--- @constants '.length).split(' ') ?? []).map(constant => [constant, 1])))
}

t.test('every Lua script compiles in a real Redis', { timeout: 30_000 }, async t => {
  const server = await startTestRedis()
  t.teardown(server.stop)
  const redis = new Redis(server.url)
  t.teardown(() => { redis.disconnect() })

  t.ok(scriptNames.length >= 15, `${scriptNames.length} scripts found`)
  for (const name of scriptNames) {
    const source = luaScript(name, anyConstants(name))
    const sha = await redis.script('LOAD', source) as string
    t.match(sha, /^[0-9a-f]{40}$/, `${name}.lua loads`)
    // A file of comments alone would load too: each script must do something and answer.
    t.match(source.split('\n').filter((line: string) => !line.trim().startsWith('--')).join('\n'), /\breturn\b/, `${name}.lua has a body that returns`)
  }
  for (const name of includeNames) {
    const piece = luaPiece(name)
    t.match(await redis.script('LOAD', `${piece}\nreturn 1`) as string, /^[0-9a-f]{40}$/, `includes/${name}.lua compiles in a script`)
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

t.test('directives: constants on their line, each piece once, in place of its include line', async t => {
  const source = luaScript('submit', anyConstants('submit')).split('\n')
  t.match(source[0], /^local TIME_DIGITS = 1; /, 'the constants, on their line')
  t.notOk(source.some(line => line.startsWith('--- @')), 'no directive is left')
  t.equal(source.filter(line => line.startsWith('local function seasonOf')).length, 1, 'a piece included twice (board-check, by submit-board and board-prelude) is there once')
  const limits = readFileSync(`${LUA_INCLUDES}/limits.lua`, 'utf8').split('\n')
  const at = source.indexOf(limits[0] as string)
  t.same(source.slice(at, at + limits.length - 1), limits.slice(0, -1), 'a piece keeps its lines')
  t.throws(() => luaScript('submit', { ...anyConstants('submit'), EXTRA: 1 }), /not declared: EXTRA/, 'a constant the script does not declare')
  t.throws(() => luaScript('set-visibility', { TIME_DIGITS: 13 }), /not given: OUTBOX_MAX/, 'a declared constant the caller does not give')
})

t.test('an error Redis reports in a script names the file and line it comes from', { timeout: 30_000 }, async t => {
  const server = await startTestRedis()
  t.teardown(server.stop)
  const redis = new Redis(server.url)
  t.teardown(() => { redis.disconnect() })
  // count-limits.lua runs limits.lua's countLimits: a counter whose max is not a number fails in the piece's comparison.
  const count = defineScript(redis, 'scriptsTestCount', luaScript('count-limits'))
  const error = await count(['scripts-test:counter'], ['not a number', 1000, 0, 1]).then(() => null, (failure: Error) => failure)
  const line = readFileSync(`${LUA_INCLUDES}/limits.lua`, 'utf8').split('\n').findIndex(text => text.includes('if current > max then')) + 1
  t.match(error?.message, new RegExp(`user_script:\\d+ \\(lua/includes/limits\\.lua:${line}\\)`), 'the piece\'s file and line')
})

t.test('the keys a script names for itself are the keys of keys.ts', { timeout: 30_000 }, async t => {
  const server = await startTestRedis()
  t.teardown(server.stop)
  const redis = new Redis(server.url)
  t.teardown(() => { redis.disconnect() })
  const game = 'g-1.x_Y'
  const player = 'Plâyer_1'
  const scope = boardScopes.named('level-2') + boardScopes.season(3)
  const sign = 'ab'.repeat(32)
  const bucket = entryBucket(player)
  const [g, sc, b, sg, p] = ['ARGV[1]', 'ARGV[2]', 'tonumber(ARGV[3])', 'ARGV[4]', 'ARGV[5]']
  const named = await redis.eval(`return {${[luaKeyExpression('game', [g]), luaKeyExpression('board', [g, sc]), luaKeyExpression('entries', [g, b, sc]), luaKeyExpression('meta', [g, b, sc]),
    luaKeyExpression('hidden', [g]), luaKeyExpression('hiddenUsers', [g]), luaKeyExpression('usage', [g, sc]), luaKeyExpression('seen', [g, sg]), luaKeyExpression('deleted', [g, p]),
    luaKeyExpression('live', [g]), luaKeyExpression('boardsVersion', [g])].join(', ')}}`, 0, game, scope, bucket, sign.slice(0, 32), player)
  t.same(named, [keys.game(game), keys.board(game, scope), keys.entries(game, player, scope), keys.meta(game, player, scope), keys.hiddenPlayers(game), keys.boardHiddenUsers(game),
    keys.usage(game, scope), keys.seenSubmission(game, sign), keys.deletedPlayer(game, player), keys.live(game), keys.boardsVersion(game)])
  t.notMatch(luaScript('submit-plain', anyConstants('submit-plain')), /KEY\.[A-Za-z]+\(/, 'the loader writes every KEY.<name>(...) of a script in place')
  t.throws(() => luaKeyExpression('nothing', []), /no such key/, 'a key keys.ts does not name')
  t.throws(() => luaKeyExpression('board', ['game']), /takes game, scope, not 1/, 'a key given too few parts')
})
