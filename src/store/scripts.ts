import { readFileSync } from 'node:fs'
import type { RedisClient as Redis } from './redis-client.js'
import { projectPath } from '../ops/paths.js'

export type ScriptArg = string | number

/** Where the Lua scripts live: one file each, read once when the service starts. */
export const LUA_FOLDER = projectPath('src', 'store', 'lua')

/**
 * A script's source, from LUA_FOLDER/<name>.lua. Numbers the TypeScript
 * shares with it (`constants`) become locals on its first line, so line
 * numbers in Redis's error messages still match the file.
 */
export function luaSource (name: string, constants: Record<string, number> = {}): string {
  const prelude = Object.entries(constants).map(([constant, value]) => `local ${constant} = ${value}; `).join('')
  return prelude + readFileSync(`${LUA_FOLDER}/${name}.lua`, 'utf8')
}

/**
 * Registers a Lua script with ioredis (EVALSHA, falling back to EVAL after a
 * Redis restart empties the script cache) and returns a typed caller.
 */
export function defineScript<T> (redis: Redis, name: string, numberOfKeys: number, lua: string): (keys: string[], args: ScriptArg[]) => Promise<T> {
  if (!(name in redis)) redis.defineCommand(name, { numberOfKeys, lua })
  // defineCommand has just added the method.
  const command = (redis as unknown as Record<string, (...args: ScriptArg[]) => Promise<T>>)[name]!
  return async (keys, args) => await command.call(redis, ...keys, ...args)
}

/** The record scripts: create-if-absent, update-if-present, and a game's creation with its usage. */
const CREATE_HASH = luaSource('create-hash')
const UPDATE_HASH = luaSource('update-hash')
const CREATE_GAME = luaSource('create-game')

/** The record scripts (games, keys, users): create-if-absent and update-if-present. */
export function hashScripts (redis: Redis) {
  return {
    createHash: defineScript<number>(redis, 'rankCreateHash', 1, CREATE_HASH),
    createGame: defineScript<number>(redis, 'rankCreateGame', 2, CREATE_GAME),
    updateHash: defineScript<number>(redis, 'rankUpdateHash', 1, UPDATE_HASH)
  }
}
