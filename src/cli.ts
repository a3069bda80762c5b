import { parseArgs } from 'node:util'
import type { RedisClient as Redis } from './store/redis-client.js'
import { userInfo } from 'node:os'
import { once } from 'node:events'
import { constants, createReadStream } from 'node:fs'
import { access, readFile } from 'node:fs/promises'
import { createAdmin, type AdminOperations } from './operations/index.js'
import { readInput, schemas, textFields } from './operations/input.js'
import { importLines } from './operations/import-export.js'
import { createAuditLog } from './store/audit.js'
import { ConfigError, loadConfig, type Config } from './config.js'
import { ApiError, fail } from './errors.js'
import { runningManagedRedis, startManagedRedis, type ManagedRedis } from './lib/managed-redis.js'
import { isEntryPoint } from './lib/paths.js'
import { closeRedis, connectRedis, setWriteConcern } from './store/redis-client.js'
import { createLeaderboard } from './store/leaderboard.js'
import { createRecordStore } from './store/games-and-keys.js'
import { createRatings } from './store/ratings.js'
import { createPlaytime } from './store/playtime.js'
import { createActivity } from './store/activity.js'
import { createUserStore } from './store/users.js'
import { createReviewQueue } from './store/review.js'
import { createWebhookStore } from './store/webhooks.js'
import { createEvents } from './store/events.js'
import { createBoardStore } from './store/named-boards.js'
import { createAchievementStore } from './store/achievements.js'
import type { BoardExport } from './operations/answers.js'

export const USAGE = `Usage: npm run cli -- <command> [arguments] [--flag value ...]

Listings (--limit N, from 1 to 100; --cursor C goes on from the next_cursor a page printed):
  games list [--prefix P] [--approved true|false]
  games get <game_id>                   the game and its figures (entries, players, ratings, play time)
  games stats <game_id> [--minutes N] [--days N]
                                        submissions per minute, per UTC day with active players and
                                        play time, and the ratings by value (the console's charts)
  games scores <game_id> [--buckets N] [--period KIND] [--period_id ID] [--season_id N]
                                        how the board's scores spread over equal ranges
  keys list <game_id> [--revoked true|false]
  keys get <api_key>
  users list [--prefix P] [--hidden true|false] [--is_admin true|false] [--guest true|false]
  users get <username>
  players list <game_id> [--prefix P] [--board ID] [--period daily|weekly|monthly] [--period_id ID] [--season_id N]
                                        the board in board order, hidden entries marked; or by name prefix
  audit list [--game_id ID] [--action game.update|game.] [--actor NAME]
                                        the audit log of operator writes, newest first

Games and keys:
  games create <game_id> [--name TEXT] [--developer USERNAME] [--approved true|false]
               [--max_entries N] [--max_meta_bytes N] [--order desc|asc]
               [--periods daily,weekly,monthly] [--timezone ZONE] [--keep_periods N]
               [--score_min N] [--score_max N] [--review_above N] [--review_below N]
               [--review_factor X] [--notify_top N]     (default for a number clears it;
                                         a negative one goes after =: --score_min=-100)
               [--guests off|listed|unlisted]
               [--runs off|optional|required] [--min_run_seconds N] [--max_score_rate X]
               [--implausible hold|refuse] [--run_ttl_s N] [--submit_run off|on]
               [--score_format integer|decimal|time] [--score_decimals N] [--score_unit TEXT]
                                        how pages show the scores (the API keeps them raw)
  games update <game_id> (the same flags)
  seasons close <game_id>               archives the all-time board's season; an empty one begins
  seasons list <game_id>
  keys create <game_id> [--rate_limit N]
                                        prints api_key and api_secret (the secret is shown once)
  keys update <api_key> --rate_limit N|default
                                        this key's limit per address and window (default: RATE_LIMIT_MAX)
  keys revoke <api_key>

Named boards (beside the game's own; up to 1000 a game):
  boards create <game_id> <board_id> [--name TEXT] [--order desc|asc] [--operator best|latest|sum]
               [--periods daily,weekly,monthly] [--score_min N] [--score_max N]
               [--review_above N] [--review_below N] [--review_factor X]
               [--score_format integer|decimal|time] [--score_decimals N] [--score_unit TEXT]
  boards update <game_id> <board_id> (the same flags) [--archived true|false]
                                        order and operator change only while the board is empty
  boards list <game_id>
  boards get <game_id> <board_id>
  boards delete <game_id> <board_id>    the board and every entry of it (cannot be undone)

Fair play (scores held for review):
  review list <game_id> [--status pending|decided] [--limit N] [--offset N]
  review approve <game_id> <held_id> [--note TEXT]
                                        puts the score on the boards as of when it was submitted
  review reject <game_id> <held_id> [--note TEXT] [--hide true|false]

Webhooks and events (delivered by the running service):
  webhooks create <game_id> --url URL [--events score.best,board.first,...|*] [--description TEXT]
                                        prints the webhook and its signing secret (shown once)
  webhooks list <game_id>
  webhooks delete <game_id> <webhook_id>
  webhooks test <game_id> <webhook_id>  sends a webhook.test event to that webhook
  webhooks deliveries <game_id> <webhook_id> [--status done|pending] [--limit N] [--offset N]
  webhooks redeliver <game_id> <webhook_id> <delivery_id>
  events list <game_id> [--limit N] [--offset N]
                                        the newest events of the game's outbox

Users and sessions:
  users create <username> [--password-stdin | --password TEXT] [--is_admin true|false] [--hidden true|false]
  users update <username> [--password-stdin | --password TEXT] [--is_admin true|false] [--hidden true|false]
  sessions create <username>            a login session for a platform with its own login
  sessions delete [--] <session_id>      (-- before an id that begins with -)
  sessions list <username> [--limit N] [--cursor C]
                                        when each of the user's sessions expires
  sessions end <username>               logs the user out everywhere
  (A new password, users update --password..., also ends the user's sessions.)

Achievements (a game's; an icon is a PNG, JPEG, GIF or WebP file of at most 64 KiB):
  achievements list <game_id>
  achievements get <game_id> <achievement_id>
  achievements create <game_id> <achievement_id> [--name N] [--description D] [--points 0-1000] [--hidden true|false]
                      [--min_run_seconds N]   the verified play of the run an unlock by the game must carry
                      [--board default|ID --at_least N | --at_most N]
                                        unlocked when the board's stored score reaches N; without a
                                        threshold only the game unlocks it (action=unlock)
  achievements update <game_id> <achievement_id> [the same flags] [--rule none]
  achievements delete <game_id> <achievement_id>
  achievements icon <game_id> <achievement_id> --file PATH   (--clear true removes it)
  achievements unlocks <game_id> [--format ndjson|csv] [--player_name NAME] [--achievement_id ID]   (to standard output)

Board entries:
  players export <game_id> [--format ndjson|csv] [--board ID] [--period ...] [--period_id ID] [--season_id N]
                                        the whole board to standard output, in board order
  players import <game_id> [--file PATH] [--board ID]
                                        NDJSON lines (player_name, score, achieved_at, meta) from the
                                        file or standard input, into the current season, best-only
  players get <game_id> <player_name> [--board ID]
  players hide <game_id> <player_name> [--board ID]
                                        hides the player on every board of the game, and shows
                                        their entry on the board named (players show: back)
  players delete <game_id> <player_name>
                                        from every board of the game, named boards too

Erasure (a person, from every board of every game; cannot be undone):
  users erase <username>                the user, their sessions, entries, meta, held scores,
                                        ratings and play time
  players erase <player_name>           an API-key player name: entries, meta, held scores

--password-stdin reads the password from the first line of standard input, so
it stays out of the shell history and the process list.

Redis: REDIS_URL when set; otherwise the service's managed redis-server
(started for the duration of the command if the service is not running).
Each command prints the record as JSON; an error prints "error <code>: <message>".`

export interface CliIo {
  out: (line: string) => void
  err: (line: string) => void
  env: Record<string, string | undefined>
  /** The first line of standard input, for --password-stdin. */
  readLine: () => Promise<string>
  /** Raw output as it comes (an export), resolved once it may go on (backpressure); false once the reader has gone (`| head`). */
  write?: (text: string) => Promise<boolean>
  /** Standard input as it arrives (an import). */
  input?: () => AsyncIterable<Buffer | string>
}

async function readStdinLine (): Promise<string> {
  let text = ''
  for await (const chunk of process.stdin) {
    text += String(chunk)
    if (text.includes('\n')) break
  }
  return text.split(/\r?\n/, 1)[0] ?? ''
}

const defaultIo: CliIo = {
  out: line => { process.stdout.write(`${line}\n`) },
  err: line => { process.stderr.write(`${line}\n`) },
  env: process.env,
  readLine: readStdinLine
}

type Admin = AdminOperations
/** What a command may use besides the admin operations: the I/O, and the configuration. */
interface CommandContext {
  io: CliIo
  config: Config
}
/** A command's result is printed as JSON; `undefined` (an export, written as it went) prints nothing. */
type Command = (admin: Admin, args: string[], flags: Record<string, string | undefined>, context: CommandContext) => Promise<unknown>

/** Standard output closed by its reader (EPIPE): an export stops there, quietly, as `git log | head` does. */
let stdoutClosed = false

async function writeStdout (text: string): Promise<boolean> {
  if (stdoutClosed) return false
  if (process.stdout.listenerCount('error') === 0) process.stdout.on('error', () => { stdoutClosed = true })
  try {
    // once() rejects when the stream errors while it waits: the reader has gone.
    if (!process.stdout.write(text)) await Promise.race([once(process.stdout, 'drain'), once(process.stdout, 'close')])
  } catch {
    stdoutClosed = true
  }
  return !stdoutClosed
}

/** Writes a file an operation gives (an export) to the CLI's output as it is read; stops when the reader goes. */
async function writeFile (file: BoardExport, io: CliIo): Promise<undefined> {
  const write = io.write ?? writeStdout
  for await (const text of file.body) if (!await write(text)) break
  return undefined
}

/** Flags become the same input fields the HTTP API takes (as text, like a form), so the rules are the admin module's. */
function fieldsOf (flags: Record<string, string | undefined>, extra: Record<string, string> = {}): unknown {
  const fields: Record<string, string> = {}
  for (const [name, value] of Object.entries(flags)) if (value !== undefined) fields[name] = value
  return textFields({ ...fields, ...extra })
}

/**
 * An achievement's flags as the operations take them: the threshold from
 * --board with --at_least or --at_most (--rule none: only the game unlocks
 * it), the rest as text fields.
 */
function achievementFields ({ board, at_least: atLeast, at_most: atMost, rule, ...flags }: Record<string, string | undefined>, extra: Record<string, string> = {}): unknown {
  const number = (text: string | undefined): number | string | undefined => text === undefined ? undefined : /^-?\d{1,16}$/.test(text) ? Number(text) : text
  const fields = fieldsOf(flags, extra) as Record<string, unknown>
  if (rule === 'none') fields.rule = null
  else if (rule !== undefined) fields.rule = rule
  else if (board !== undefined || atLeast !== undefined || atMost !== undefined) fields.rule = { board: board ?? 'default', ...(atLeast === undefined ? {} : { at_least: number(atLeast) }), ...(atMost === undefined ? {} : { at_most: number(atMost) }) }
  return fields
}

function argument (args: string[], index: number, name: string): string {
  const value = args[index]
  if (value === undefined || value === '') throw new ApiError('missing_param', `Argument <${name}> is required.`)
  return value
}

const COMMANDS: Record<string, Command> = {
  'games list': async (admin, _args, flags) => await admin.listGames(fieldsOf(flags)),
  'games get': async (admin, args) => await admin.game(argument(args, 0, 'game_id')),
  'games stats': async (admin, args, flags) => await admin.stats(argument(args, 0, 'game_id'), fieldsOf(flags)),
  'games scores': async (admin, args, flags) => await admin.scoreStats(argument(args, 0, 'game_id'), fieldsOf(flags)),
  'keys list': async (admin, args, flags) => await admin.listKeys(argument(args, 0, 'game_id'), fieldsOf(flags)),
  'keys get': async (admin, args) => await admin.key(argument(args, 0, 'api_key')),
  'users list': async (admin, _args, flags) => await admin.listUsers(fieldsOf(flags)),
  'users get': async (admin, args) => await admin.user(argument(args, 0, 'username')),
  'players list': async (admin, args, flags) => await admin.listEntries(argument(args, 0, 'game_id'), fieldsOf(flags)),
  'audit list': async (admin, _args, flags) => await admin.listAudit(fieldsOf(flags)),
  'games create': async (admin, args, flags) => await admin.createGame(fieldsOf(flags, { game_id: argument(args, 0, 'game_id') })),
  'games update': async (admin, args, flags) => await admin.updateGame(argument(args, 0, 'game_id'), fieldsOf(flags)),
  'seasons close': async (admin, args) => await admin.closeSeason(argument(args, 0, 'game_id')),
  'seasons list': async (admin, args) => await admin.seasons(argument(args, 0, 'game_id')),
  'keys create': async (admin, args, flags) => await admin.createKey(fieldsOf(flags, { game_id: argument(args, 0, 'game_id') })),
  'keys update': async (admin, args, flags) => await admin.updateKey(argument(args, 0, 'api_key'), fieldsOf(flags)),
  'keys revoke': async (admin, args) => await admin.revokeKey(argument(args, 0, 'api_key')),
  'users create': async (admin, args, flags) => await admin.createUser(fieldsOf(flags, { username: argument(args, 0, 'username') })),
  'users update': async (admin, args, flags) => await admin.updateUser(argument(args, 0, 'username'), fieldsOf(flags)),
  'sessions create': async (admin, args) => await admin.createSession({ username: argument(args, 0, 'username') }),
  'sessions delete': async (admin, args) => await admin.deleteSession(argument(args, 0, 'session_id')),
  'sessions list': async (admin, args, flags) => await admin.userSessions(argument(args, 0, 'username'), fieldsOf(flags)),
  'sessions end': async (admin, args) => await admin.endUserSessions(argument(args, 0, 'username')),
  'players get': async (admin, args, flags) => await admin.player(argument(args, 0, 'game_id'), argument(args, 1, 'player_name'), fieldsOf(flags)),
  'players hide': async (admin, args, flags) => await admin.setPlayer(argument(args, 0, 'game_id'), argument(args, 1, 'player_name'), fieldsOf(flags, { hidden: 'true' })),
  'players show': async (admin, args, flags) => await admin.setPlayer(argument(args, 0, 'game_id'), argument(args, 1, 'player_name'), fieldsOf(flags, { hidden: 'false' })),
  'review list': async (admin, args, flags) => await admin.reviewList(argument(args, 0, 'game_id'), fieldsOf(flags)),
  'review approve': async (admin, args, flags) => await admin.approveHeld(argument(args, 0, 'game_id'), argument(args, 1, 'held_id'), fieldsOf(flags)),
  'review reject': async (admin, args, flags) => await admin.rejectHeld(argument(args, 0, 'game_id'), argument(args, 1, 'held_id'), fieldsOf(flags)),
  'achievements list': async (admin, args) => await admin.achievements(argument(args, 0, 'game_id')),
  'achievements get': async (admin, args) => await admin.achievement(argument(args, 0, 'game_id'), argument(args, 1, 'achievement_id')),
  'achievements create': async (admin, args, flags) => await admin.createAchievement(argument(args, 0, 'game_id'), achievementFields(flags, { achievement_id: argument(args, 1, 'achievement_id') })),
  'achievements update': async (admin, args, flags) => await admin.updateAchievement(argument(args, 0, 'game_id'), argument(args, 1, 'achievement_id'), achievementFields(flags)),
  'achievements delete': async (admin, args) => await admin.deleteAchievement(argument(args, 0, 'game_id'), argument(args, 1, 'achievement_id')),
  'achievements icon': async (admin, args, { file, clear }) => {
    const [gameId, id] = [argument(args, 0, 'game_id'), argument(args, 1, 'achievement_id')]
    if (clear === 'true') return await admin.deleteAchievementIcon(gameId, id)
    if (file === undefined) throw new ApiError('missing_param', 'Give the image: --file PATH (or --clear true to remove the icon).')
    const bytes = await readFile(file).catch((error: Error) => fail('invalid_param', `Cannot read --file: ${error.message}`))
    return await admin.setAchievementIcon(gameId, id, bytes)
  },
  'boards list': async (admin, args) => await admin.boards(argument(args, 0, 'game_id')),
  'boards get': async (admin, args) => await admin.board(argument(args, 0, 'game_id'), argument(args, 1, 'board_id')),
  'boards create': async (admin, args, flags) => await admin.createBoard(argument(args, 0, 'game_id'), fieldsOf(flags, { board_id: argument(args, 1, 'board_id') })),
  'boards update': async (admin, args, flags) => await admin.updateBoard(argument(args, 0, 'game_id'), argument(args, 1, 'board_id'), fieldsOf(flags)),
  'boards delete': async (admin, args) => await admin.deleteBoard(argument(args, 0, 'game_id'), argument(args, 1, 'board_id')),
  'webhooks create': async (admin, args, flags) => await admin.createWebhook(argument(args, 0, 'game_id'), fieldsOf(flags)),
  'webhooks list': async (admin, args) => await admin.webhooks(argument(args, 0, 'game_id')),
  'webhooks delete': async (admin, args) => await admin.deleteWebhook(argument(args, 0, 'game_id'), argument(args, 1, 'webhook_id')),
  'webhooks test': async (admin, args) => await admin.testWebhook(argument(args, 0, 'game_id'), argument(args, 1, 'webhook_id')),
  'webhooks deliveries': async (admin, args, flags) => await admin.webhookDeliveries(argument(args, 0, 'game_id'), argument(args, 1, 'webhook_id'), fieldsOf(flags)),
  'webhooks redeliver': async (admin, args) => await admin.redeliver(argument(args, 0, 'game_id'), argument(args, 1, 'webhook_id'), argument(args, 2, 'delivery_id')),
  'events list': async (admin, args, flags) => await admin.events(argument(args, 0, 'game_id'), fieldsOf(flags)),
  'players delete': async (admin, args) => await admin.deletePlayer(argument(args, 0, 'game_id'), argument(args, 1, 'player_name')),
  'players export': async (admin, args, flags, { io }) => await writeFile(await admin.exportBoard(argument(args, 0, 'game_id'), fieldsOf(flags)), io),
  'achievements unlocks': async (admin, args, flags, { io }) => await writeFile(await admin.exportUnlocks(argument(args, 0, 'game_id'), fieldsOf(flags)), io),
  'players import': async (admin, args, { file, ...flags }, { io, config }) => {
    const gameId = argument(args, 0, 'game_id')
    const query = fieldsOf(flags)
    readInput(schemas.importBoard, query)
    if (file !== undefined) await access(file, constants.R_OK).catch((error: Error) => fail('invalid_param', `Cannot read --file: ${error.message}`))
    const source = file === undefined ? (io.input ?? (() => process.stdin))() : createReadStream(file)
    return await admin.importBoard(gameId, importLines(source, config.importMaxBytes), query)
  },
  'users erase': async (admin, args) => await admin.eraseUser(argument(args, 0, 'username'), textFields({ erase: 'true' })),
  'players erase': async (admin, args) => await admin.erasePlayer(argument(args, 0, 'player_name'))
}

/** Who runs the command, for the audit log: the OS user (or USER, or the uid, where the system has no name for it). */
function osUser (env: CliIo['env']): string {
  try {
    return userInfo().username
  } catch {
    return env.USER ?? String(process.getuid?.() ?? 'unknown')
  }
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
  try {
    // Errors are reported through the failed command instead.
    const redis = await connectRedis(url, 5000, client => { client.on('error', () => {}) })
    setWriteConcern(redis, config.writeConcern)
    return { redis, managed }
  } catch (error) {
    await managed?.stop()
    throw error
  }
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
        max_entries: { type: 'string' },
        max_meta_bytes: { type: 'string' },
        order: { type: 'string' },
        periods: { type: 'string' },
        timezone: { type: 'string' },
        keep_periods: { type: 'string' },
        rate_limit: { type: 'string' },
        score_min: { type: 'string' },
        score_max: { type: 'string' },
        review_above: { type: 'string' },
        review_below: { type: 'string' },
        review_factor: { type: 'string' },
        notify_top: { type: 'string' },
        guests: { type: 'string' },
        runs: { type: 'string' },
        min_run_seconds: { type: 'string' },
        max_score_rate: { type: 'string' },
        implausible: { type: 'string' },
        run_ttl_s: { type: 'string' },
        submit_run: { type: 'string' },
        score_format: { type: 'string' },
        score_decimals: { type: 'string' },
        score_unit: { type: 'string' },
        operator: { type: 'string' },
        archived: { type: 'string' },
        status: { type: 'string' },
        format: { type: 'string' },
        file: { type: 'string' },
        prefix: { type: 'string' },
        revoked: { type: 'string' },
        cursor: { type: 'string' },
        board: { type: 'string' },
        at_least: { type: 'string' },
        at_most: { type: 'string' },
        rule: { type: 'string' },
        points: { type: 'string' },
        clear: { type: 'string' },
        period: { type: 'string' },
        period_id: { type: 'string' },
        season_id: { type: 'string' },
        game_id: { type: 'string' },
        action: { type: 'string' },
        actor: { type: 'string' },
        limit: { type: 'string' },
        offset: { type: 'string' },
        note: { type: 'string' },
        url: { type: 'string' },
        events: { type: 'string' },
        description: { type: 'string' },
        hide: { type: 'string' },
        password: { type: 'string' },
        'password-stdin': { type: 'boolean' },
        is_admin: { type: 'string' },
        guest: { type: 'string' },
        hidden: { type: 'string' },
        minutes: { type: 'string' },
        days: { type: 'string' },
        buckets: { type: 'string' },
        player_name: { type: 'string' },
        achievement_id: { type: 'string' },
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
    const records = createRecordStore(connection.redis)
    const activity = createActivity(connection.redis)
    const namedBoards = createBoardStore(connection.redis)
    const admin = createAdmin({
      records,
      namedBoards,
      achievements: createAchievementStore(connection.redis),
      review: createReviewQueue(connection.redis),
      webhooks: createWebhookStore(connection.redis),
      events: createEvents(connection.redis),
      webhookAllowPrivate: config.webhooks.allowPrivate,
      users: createUserStore(connection.redis),
      leaderboard: createLeaderboard(connection.redis, { freshGame: async gameId => await records.game(gameId), freshBoards: async gameId => await namedBoards.boards(gameId), activity }),
      sessionTtlS: config.sessionTtlS,
      guestTtlS: config.guestTtlS,
      sessionCookie: config.sessionCookie,
      audit: createAuditLog(connection.redis, { retentionMs: config.auditRetentionMs }),
      ratings: createRatings(connection.redis),
      playtime: createPlaytime(connection.redis, activity),
      activity
    })
    const result = await command(admin.as({ name: `cli:${osUser(io.env)}`, via: 'cli' }), positionals.slice(2), flags, { io, config })
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
    await closeRedis(connection.redis)
    await connection.managed?.stop()
  }
}

// The container's `ranking-admin` runs this file directly (Dockerfile).
if (isEntryPoint(import.meta.url)) process.exitCode = await runCli(process.argv.slice(2))
