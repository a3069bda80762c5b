import { readdirSync, readFileSync } from 'node:fs'
import { Redis } from 'ioredis'
import t from 'tap'
import { projectPath } from '../../src/lib/paths.js'
import { LUA_FOLDER, LUA_INCLUDES, luaPiece, luaSource } from '../../src/store/script-loader.js'
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

t.test('every Lua script compiles in a real Redis', { timeout: 30_000 }, async t => {
  const server = await startTestRedis()
  t.teardown(server.stop)
  const redis = new Redis(server.url)
  t.teardown(() => { redis.disconnect() })

  t.ok(scriptNames.length >= 15, `${scriptNames.length} scripts found`)
  for (const name of scriptNames) {
    const source = luaSource(name)
    const sha = await redis.script('LOAD', source) as string
    t.match(sha, /^[0-9a-f]{40}$/, `${name}.lua loads`)
    // A file of comments alone would load too: each script must do something and answer.
    t.match(source.split('\n').filter(line => !line.startsWith('--')).join('\n'), /\breturn\b/, `${name}.lua has a body that returns`)
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
  for (const name of scriptNames) t.match(storeSources, `luaSource('${name}'`, `${name}.lua is loaded by src/`)
  for (const [, name] of storeSources.matchAll(/luaSource\('([^']+)'/g)) t.ok(scriptNames.includes(name as string), `${String(name)}.lua exists`)
  for (const name of includeNames) t.match(storeSources, `luaPiece('${name}')`, `includes/${name}.lua is included by a script`)
})

t.test('shared constants become locals on the first line, so line numbers match the file', async t => {
  const source = luaSource('submit', { TIME_DIGITS: 13 })
  t.ok(source.startsWith('local TIME_DIGITS = 13; '), 'the constant is declared first')
  t.equal(source.split('\n').length, readFileSync(`${LUA_FOLDER}/submit.lua`, 'utf8').split('\n').length, 'no line added')
})
