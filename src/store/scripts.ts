import type { Redis } from 'ioredis'

export type ScriptArg = string | number

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

/** Creates a hash only when the key does not exist yet. Returns 1 when created. */
const CREATE_HASH = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1
`

/** Sets fields of a hash only when the key exists. Returns 1 when updated. */
const UPDATE_HASH = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if #ARGV > 0 then redis.call('HSET', KEYS[1], unpack(ARGV)) end
return 1
`

/**
 * Creates a game's record (KEYS[1]) only when it does not exist yet, and
 * starts its usage (KEYS[2]) at zero in the same step: a new game stores
 * nothing, and without the count the submit script would start from an
 * estimate that includes every hidden user. Returns 1 when created.
 */
const CREATE_GAME = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV))
redis.call('HSET', KEYS[2], 'entries', 0, 'meta_bytes', 0)
return 1
`

/** The record scripts (games, keys, users): create-if-absent and update-if-present. */
export function hashScripts (redis: Redis) {
  return {
    createHash: defineScript<number>(redis, 'rankCreateHash', 1, CREATE_HASH),
    createGame: defineScript<number>(redis, 'rankCreateGame', 2, CREATE_GAME),
    updateHash: defineScript<number>(redis, 'rankUpdateHash', 1, UPDATE_HASH)
  }
}
