import { parseArgs } from 'node:util'
import { loadConfig } from './config.js'
import { ConfigError } from './config/values.js'
import { ApiError } from './errors.js'
import { isEntryPoint } from './lib/paths.js'
import { COMMANDS } from './cli/commands.js'
import { connect, disconnect, operationsOf } from './cli/connection.js'
import { FLAGS } from './cli/flags.js'
import { defaultIo, type CliIo } from './cli/io.js'
import { usage } from './cli/usage.js'

/** Runs one command; returns the process exit code. */
export async function runCli (argv: string[], io: CliIo = defaultIo): Promise<number> {
  let parsed
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: FLAGS })
  } catch (error) {
    io.err(`${(error as Error).message}\n\n${usage(io.name)}`)
    return 2
  }
  const { positionals, values } = parsed
  const command = COMMANDS[positionals.slice(0, 2).join(' ')]
  if (values.help === true || command === undefined) {
    ;(values.help === true ? io.out : io.err)(usage(io.name))
    return values.help === true ? 0 : 2
  }
  const { help: _help, 'password-stdin': passwordStdin, ...flags } = values
  if (passwordStdin === true) flags.password = await io.readLine()

  let connection
  try {
    connection = await connect(io.env)
  } catch (error) {
    io.err(error instanceof ConfigError ? error.message : `error unavailable: cannot reach Redis (${(error as Error).message})`)
    return 1
  }
  try {
    const config = loadConfig(io.env)
    const result = await command(await operationsOf(connection.redis, config, io.env), positionals.slice(2), flags, { io, config })
    if (result !== undefined) io.out(JSON.stringify(result, null, 2))
    return 0
  } catch (error) {
    if (error instanceof ApiError) {
      io.err(`error ${error.code}: ${error.message}`)
      return 1
    }
    io.err(`error internal_error: ${(error as Error).message}`)
    return 1
  } finally {
    await disconnect(connection)
  }
}

// The container's `ranking-admin` runs this file directly (Dockerfile).
if (isEntryPoint(import.meta.url)) process.exitCode = await runCli(process.argv.slice(2), { ...defaultIo, name: 'ranking-admin' })
