import { parseArgs } from 'node:util'
import type { Redis } from 'ioredis'
import { createAdmin } from './admin.js'
import { ConfigError, loadConfig } from './config.js'
import { ApiError } from './envelope.js'
import { runningManagedRedis, startManagedRedis, type ManagedRedis } from './managed-redis.js'
import { closeRedis, createRedisClient, waitUntilReady } from './store/redis-client.js'
import { createRecordStore } from './store/records.js'

export const USAGE = `Usage: npm run cli -- <command> [arguments] [--flag value ...]

Games and keys:
  games create <game_id> [--name TEXT] [--developer USERNAME] [--approved true|false]
  games update <game_id> [--name TEXT] [--developer USERNAME] [--approved true|false]
  keys create <game_id>                 prints api_key and api_secret (the secret is shown once)
  keys revoke <api_key>

Redis: REDIS_URL when set; otherwise the service's managed redis-server
(started for the duration of the command if the service is not running).
Each command prints the record as JSON; an error prints "error <code>: <message>".`

export interface CliIo {
  out: (line: string) => void
  err: (line: string) => void
  env: Record<string, string | undefined>
}

const defaultIo: CliIo = {
  out: line => { process.stdout.write(`${line}\n`) },
  err: line => { process.stderr.write(`${line}\n`) },
  env: process.env
}

type Admin = ReturnType<typeof createAdmin>
type Command = (admin: Admin, args: string[], flags: Record<string, string | undefined>) => Promise<unknown>

/** Flags become the same input fields the HTTP API takes, so the rules are the admin module's. */
function fieldsOf (flags: Record<string, string | undefined>): Record<string, string> {
  const fields: Record<string, string> = {}
  for (const [name, value] of Object.entries(flags)) if (value !== undefined) fields[name] = value
  return fields
}

function argument (args: string[], index: number, name: string): string {
  const value = args[index]
  if (value === undefined || value === '') throw new ApiError('missing_param', `Argument <${name}> is required.`)
  return value
}

const COMMANDS: Record<string, Command> = {
  'games create': async (admin, args, flags) => await admin.createGame({ ...fieldsOf(flags), game_id: argument(args, 0, 'game_id') }),
  'games update': async (admin, args, flags) => await admin.updateGame(argument(args, 0, 'game_id'), fieldsOf(flags)),
  'keys create': async (admin, args) => await admin.createKey({ game_id: argument(args, 0, 'game_id') }),
  'keys revoke': async (admin, args) => await admin.revokeKey(argument(args, 0, 'api_key'))
}

/** Connects to REDIS_URL, or to the managed redis-server (starting it when it is not running). */
async function connect (env: CliIo['env']): Promise<{ redis: Redis, managed: ManagedRedis | undefined }> {
  const config = loadConfig(env)
  let url = config.redisUrl
  let managed: ManagedRedis | undefined
  url ??= await runningManagedRedis(config.dataDir)
  if (url === undefined) {
    managed = await startManagedRedis(config.dataDir)
    url = managed.url
  }
  const redis = createRedisClient(url)
  redis.on('error', () => {}) // reported through the failed command instead
  try {
    await waitUntilReady(redis, 5000)
  } catch (error) {
    redis.disconnect()
    await managed?.stop()
    throw error
  }
  return { redis, managed }
}

/** Runs one command; returns the process exit code. */
export async function runCli (argv: string[], io: CliIo = defaultIo): Promise<number> {
  let parsed
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        name: { type: 'string' },
        developer: { type: 'string' },
        approved: { type: 'string' },
        help: { type: 'boolean', short: 'h' }
      }
    })
  } catch (error) {
    io.err(`${(error as Error).message}\n\n${USAGE}`)
    return 2
  }
  const { positionals, values } = parsed
  const command = COMMANDS[positionals.slice(0, 2).join(' ')]
  if (values.help === true || command === undefined) {
    ;(values.help === true ? io.out : io.err)(USAGE)
    return values.help === true ? 0 : 2
  }
  const { help: _help, ...flags } = values

  let connection
  try {
    connection = await connect(io.env)
  } catch (error) {
    io.err(error instanceof ConfigError ? error.message : `error unavailable: cannot reach Redis (${(error as Error).message})`)
    return 1
  }
  try {
    const result = await command(createAdmin(createRecordStore(connection.redis)), positionals.slice(2), flags)
    io.out(JSON.stringify(result, null, 2))
    return 0
  } catch (error) {
    if (error instanceof ApiError) {
      io.err(`error ${error.code}: ${error.message}`)
      return 1
    }
    io.err(`error internal_error: ${(error as Error).message}`)
    return 1
  } finally {
    await closeRedis(connection.redis)
    await connection.managed?.stop()
  }
}
