import { readFileSync } from 'node:fs'
import { Cluster } from 'ioredis'
import { checkReplicated, writeConcernOf, type RedisClient as Redis } from './redis-client.js'
import { projectPath } from '../lib/paths.js'
import { child, metrics } from '../lib/metrics.js'
import { OUTBOX_MAX } from './events.js'
import { TIME_DIGITS, luaKeyExpression } from './keys.js'

export type ScriptArg = string | number

/** Where the Lua scripts live: one file each, read once when the service starts. */
export const LUA_FOLDER = projectPath('src', 'store', 'lua')

/** Where the shared pieces of Lua live: local functions that scripts include. */
export const LUA_INCLUDES = `${LUA_FOLDER}/includes`

const CONSTANTS_LINE = /^--- @constants ((?:[A-Z_][A-Z0-9_]* ?)+)$/
const INCLUDE_LINE = /^--- @include "([a-z-]+)"$/
const KEYS_LINE = '--- @keys'
const KEYS_NOTE = '-- KEY.<name>(...) below: a key of keys.ts (SCRIPT_KEYS), written in place by the loader'

/** Where each line of a loaded script comes from ("lua/submit.lua:12"), by its source: Redis's errors name a line of the whole script. */
const lineOrigins = new Map<string, string[]>()

/**
 * A script's source, from LUA_FOLDER/<name>.lua, with its directive lines
 * expanded:
 *
 *   --- @constants TIME_DIGITS OUTBOX_MAX   numbers the TypeScript shares
 *                                           with it (`constants`), as locals
 *   --- @include "events"                   a shared piece of includes/, its
 *                                           lines in place of this one (each
 *                                           piece once per script)
 *   --- @keys                               KEY.board(game, scope), ...: the
 *                                           game's keys a script names for
 *                                           itself, each call written in place
 *                                           as its concatenation (keys.ts
 *                                           luaKeyExpression)
 *
 * What Redis runs is the file with its pieces in place: no text is added
 * around it. An error Redis reports at a line of the whole script is told
 * with the file and line it comes from (scriptSender).
 * The constants the file declares and the ones the caller gives must be the
 * same names: a script that drifts from its caller fails at start-up.
 */
export function luaScript (name: string, constants: Record<string, number> = {}): string {
  const declared: string[] = []
  const lines: string[] = []
  const origins: string[] = []
  expandFile(`${name}.lua`, `${LUA_FOLDER}/${name}.lua`, new Set(), { lines, origins, declared, constants })
  const given = Object.keys(constants)
  const missing = declared.filter(constant => !given.includes(constant))
  const undeclared = given.filter(constant => !declared.includes(constant))
  if (missing.length > 0 || undeclared.length > 0) {
    throw new Error(`lua/${name}.lua: its @constants line and its caller disagree (not given: ${missing.join(', ') || 'none'}; not declared: ${undeclared.join(', ') || 'none'})`)
  }
  const source = lines.map(line => line === KEYS_LINE ? KEYS_NOTE : line).join('\n')
    .replace(/\bKEY\.([A-Za-z]+)\(([^()]*)\)/g, (call, key: string, args: string) => {
      if (!lines.includes(KEYS_LINE)) throw new Error(`lua/${name}.lua: ${call} without a --- @keys line`)
      return luaKeyExpression(key, args.split(',').map(arg => arg.trim()))
    })
  lineOrigins.set(source, origins)
  return source
}

interface Expansion { lines: string[], origins: string[], declared: string[], constants: Record<string, number> }

/** Appends a file's lines, its directives expanded, and where each came from. */
function expandFile (shown: string, path: string, included: Set<string>, out: Expansion): void {
  readFileSync(path, 'utf8').split('\n').forEach((line, index) => {
    const piece = INCLUDE_LINE.exec(line)?.[1]
    if (piece !== undefined) {
      if (included.has(piece)) return
      included.add(piece)
      expandFile(`includes/${piece}.lua`, `${LUA_INCLUDES}/${piece}.lua`, included, out)
      return
    }
    if (line === KEYS_LINE) {
      // Each KEY.<name>(...) is written in place once the whole script is known (luaScript).
      out.lines.push(KEYS_LINE)
      out.origins.push(`lua/${shown}:${index + 1} (keys.ts)`)
      return
    }
    const names = CONSTANTS_LINE.exec(line)?.[1]?.trim().split(' ')
    if (names !== undefined) out.declared.push(...names)
    out.lines.push(names === undefined ? line : names.map(constant => `local ${constant} = ${out.constants[constant] ?? 'nil'};`).join(' '))
    out.origins.push(`lua/${shown}:${index + 1}`)
  })
}

/** A shared piece of Lua (LUA_INCLUDES/<name>.lua) with the pieces it includes, as a script would have it. */
export function luaPiece (name: string): string {
  const out: Expansion = { lines: [], origins: [], declared: [], constants: {} }
  expandFile(`includes/${name}.lua`, `${LUA_INCLUDES}/${name}.lua`, new Set([name]), out)
  return out.lines.join('\n')
}

/** An error of a script's call, with the file and line of the script that Redis names (user_script:N). */
function withOrigin (lua: string, error: unknown): unknown {
  const origins = lineOrigins.get(lua)
  if (!(error instanceof Error) || origins === undefined) return error
  error.message = error.message.replace(/user_script:(\d+)(?!\d| \()/g, (text, line: string) => `${text} (${origins[Number(line) - 1] ?? '?'})`)
  return error
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
    (error: unknown) => { errors.inc(); duration.observe((performance.now() - started) / 1000); throw withOrigin(lua, error) })
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
 * auto-pipelining would, without its per-batch pipeline objects
 * (docs/decisions/0062-hot-path-choices-measured.md). On a cluster, every
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

/** The record scripts: create-if-absent, update-if-present, a game's creation with its usage, its update and the close of its season. */
const CREATE_HASH = luaScript('create-hash')
const UPDATE_HASH = luaScript('update-hash')
const CREATE_GAME = luaScript('create-game')
const UPDATE_GAME = luaScript('update-game')
const CLOSE_SEASON = luaScript('close-season', { TIME_DIGITS, OUTBOX_MAX })

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
