import { readFileSync } from 'node:fs'
import { Cluster } from 'ioredis'
import { checkReplicated, writeConcernOf, type RedisClient as Redis } from './redis-client.js'
import { projectPath } from '../lib/paths.js'
import { child, metrics } from '../lib/metrics.js'
import { OUTBOX_MAX } from './events.js'
import { TIME_DIGITS } from './keys.js'

export type ScriptArg = string | number

/** Where the Lua scripts live: one file each, read once when the service starts. */
export const LUA_FOLDER = projectPath('src', 'store', 'lua')

/**
 * A script's source, from LUA_FOLDER/<name>.lua. Numbers the TypeScript
 * shares with it (`constants`) become locals on its first line, then the
 * one-line `pieces` (shared functions: luaPiece), so line numbers in Redis's
 * error messages still match the file.
 */
export function luaSource (name: string, constants: Record<string, number> = {}, pieces: string[] = []): string {
  const prelude = Object.entries(constants).map(([constant, value]) => `local ${constant} = ${value}; `).join('')
  return prelude + pieces.join(' ') + readFileSync(`${LUA_FOLDER}/${name}.lua`, 'utf8')
}

/** Where the shared pieces of Lua live: local functions that scripts include. */
export const LUA_INCLUDES = `${LUA_FOLDER}/includes`

/**
 * A shared piece of Lua (LUA_INCLUDES/<name>.lua, local functions that
 * scripts include), as one line: its comment lines left out, its lines
 * joined, so it can go on a script's first line. Its code must not end a
 * line in a comment.
 */
export function luaPiece (name: string): string {
  return readFileSync(`${LUA_INCLUDES}/${name}.lua`, 'utf8').split('\n').map(line => line.trim()).filter(line => line !== '' && !line.startsWith('--')).join(' ') + ' '
}

/**
 * Registers a Lua script with ioredis (EVAL on a connection's first use,
 * EVALSHA after) and returns a typed caller; the number of keys is the length
 * of the `keys` given to each call. A script that `writes` honours
 * the client's write concern (REDIS_WAIT_REPLICAS): WAIT follows it in the
 * same pipeline, to the same node, in the same round trip, and the write is
 * acknowledged only when enough replicas confirm it. WAIT holds up the
 * connection it is sent on, which is the one every command to that node
 * shares: while a replica is slow or away, the node's other commands wait
 * behind it (docs/guide.md, what an acknowledged write survives). (A script the server
 * has lost, after a SCRIPT FLUSH on a live connection, is sent again by
 * ioredis outside the pipeline, after the WAIT: that one write would go
 * unconfirmed. The service never flushes scripts.)
 */
export function defineScript<T> (redis: Redis, name: string, lua: string, options: { writes?: boolean } = {}): (keys: string[], args: ScriptArg[]) => Promise<T> {
  const send = scriptSender<T>(redis, name, lua, options)
  return async (keys, args) => await send([keys.length, ...keys, ...args])
}

/**
 * The call of a script, its arguments given as Redis takes them: the number
 * of keys, the keys, the arguments. Timed and counted (lib/metrics.ts) in the
 * same promise chain as the call, with no wrapper of its own: this is on
 * every request's path.
 */
export function scriptSender<T> (redis: Redis, name: string, lua: string, { writes = false }: { writes?: boolean }): (call: ScriptArg[]) => Promise<T> {
  if (!(name in redis)) redis.defineCommand(name, { lua })
  // defineCommand has just added the method, to the client and its pipelines.
  type Command = (...args: ScriptArg[]) => unknown
  const command = (redis as unknown as Record<string, Command>)[name]!
  const concern = writeConcernOf(redis)
  const duration = child(metrics.redisDuration, name)
  const errors = child(metrics.redisErrors, name)
  const timed = (started: number, reply: Promise<T>): Promise<T> => reply.then(
    (result) => { duration.observe((performance.now() - started) / 1000); return result },
    (error: unknown) => { errors.inc(); duration.observe((performance.now() - started) / 1000); throw error })
  if (!writes || concern.replicas === 0) {
    return (call) => {
      corkThisTurn(redis)
      return timed(performance.now(), command.apply(redis, call) as Promise<T>)
    }
  }
  const acknowledged = async (call: ScriptArg[]): Promise<T> => {
    for (let attempt = 1; ; attempt++) {
      const pipeline = redis.pipeline()
      ;(pipeline as unknown as Record<string, Command>)[name]!.apply(pipeline, call)
      const replies = await pipeline.call('WAIT', concern.replicas, concern.timeoutMs).exec() ?? []
      const scriptError = replies[0]?.[0]
      // MOVED/ASK: the script did not run (its slot has moved); learn the new layout and send it again.
      if (scriptError instanceof Error && /^(MOVED|ASK) /.test(scriptError.message) && redis instanceof Cluster && attempt < 3) {
        await new Promise<void>(resolve => { redis.refreshSlotsCache(() => { resolve() }) })
        continue
      }
      for (const [error] of replies) if (error !== null) throw error
      checkReplicated(replies[1]?.[1], concern)
      return replies[0]?.[1] as T
    }
  }
  return (call) => timed(performance.now(), acknowledged(call))
}

const corked = new WeakSet<object>()

/**
 * The script calls of one event-loop turn leave in one write: the first call
 * of a turn corks the connection, and it is uncorked once the turn's I/O
 * callbacks have run (setImmediate). Under load a turn serves many
 * requests, so one write syscall carries many calls, as ioredis's
 * auto-pipelining would, without its per-batch pipeline objects: measured
 * 18% more signed submits per second than one write per call, where
 * auto-pipelining measured no gain (bench/RESULTS.md). On a cluster, every
 * master's connection is corked for the turn.
 */
function corkThisTurn (redis: Redis): void {
  for (const node of redis instanceof Cluster ? redis.nodes('master') : [redis]) {
    const stream = node.stream
    if (stream === undefined || stream === null || corked.has(stream) || node.status !== 'ready') continue
    corked.add(stream)
    stream.cork()
    setImmediate(() => {
      corked.delete(stream)
      stream.uncork()
    })
  }
}

/**
 * A Lua function on one line, for the scripts that read a game's `season`:
 * the number records.ts reads from the stored text (1 to 999999999 in
 * digits; anything else, written by hand, is 1).
 */
export const SEASON_OF = "local function seasonOf (text) local season = text and string.match(text, '^%d%d?%d?%d?%d?%d?%d?%d?%d?$') and tonumber(text) or 1; if season == 0 then return 1 end return season end;"

/** The record scripts: create-if-absent, update-if-present, a game's creation with its usage, its update and the close of its season. */
const CREATE_HASH = luaSource('create-hash')
const UPDATE_HASH = luaSource('update-hash')
const CREATE_GAME = luaSource('create-game')
const UPDATE_GAME = SEASON_OF + luaSource('update-game')
const CLOSE_SEASON = luaSource('close-season', { TIME_DIGITS, OUTBOX_MAX }, [SEASON_OF, luaPiece('events')])

/** The record scripts (games, keys, users): create-if-absent and update-if-present. */
export function hashScripts (redis: Redis) {
  return {
    createHash: defineScript<number>(redis, 'rankCreateHash', CREATE_HASH, { writes: true }),
    createGame: defineScript<number>(redis, 'rankCreateGame', CREATE_GAME, { writes: true }),
    updateHash: defineScript<number>(redis, 'rankUpdateHash', UPDATE_HASH, { writes: true }),
    updateGame: defineScript<number>(redis, 'rankUpdateGame', UPDATE_GAME, { writes: true }),
    closeSeason: defineScript<number>(redis, 'rankCloseSeason', CLOSE_SEASON, { writes: true })
  }
}
