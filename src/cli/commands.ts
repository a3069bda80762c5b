import { constants, createReadStream } from 'node:fs'
import { access, readFile } from 'node:fs/promises'
import type { AdminOperations } from '../operations/index.js'
import { readInput, schemas, textFields } from '../operations/input.js'
import { importLines } from '../operations/import-export.js'
import type { Config } from '../config.js'
import { ApiError, fail } from '../errors.js'
import { writeFile, type CliIo } from './io.js'

type Admin = AdminOperations
/** What a command may use besides the admin operations: the I/O, and the configuration. */
interface CommandContext {
  io: CliIo
  config: Config
}
/** A command's result is printed as JSON; `undefined` (an export, written as it went) prints nothing. */
type Command = (admin: Admin, args: string[], flags: Record<string, string | undefined>, context: CommandContext) => Promise<unknown>

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

/** `gamejolt set`'s flags as the operation takes them: the data store's limits (--item_bytes N, ...) under data_limits, the rest as text fields. */
function gamejoltFields ({ item_bytes: itemBytes, items_per_user: perUser, items_per_game: perGame, game_bytes: gameBytes, ...flags }: Record<string, string | undefined>): unknown {
  const number = (text: string): number | string => /^\d{1,16}$/.test(text) ? Number(text) : text
  const limits = Object.entries({ item_bytes: itemBytes, items_per_user: perUser, items_per_game: perGame, game_bytes: gameBytes }).filter(([, value]) => value !== undefined)
  const fields = fieldsOf(flags) as Record<string, unknown>
  if (limits.length > 0) fields.data_limits = Object.fromEntries(limits.map(([name, value]) => [name, number(value as string)]))
  return fields
}

function argument (args: string[], index: number, name: string): string {
  const value = args[index]
  if (value === undefined || value === '') throw new ApiError('missing_param', `Argument <${name}> is required.`)
  return value
}

/** Erasing is idempotent (a second call counts zeros): the operator is told when there was nothing to erase at all. */
const erasedNothing = (counts: object): boolean => Object.values(counts).every(count => count === 0)

/** Every command, by its first two words; the words after them are its arguments. */
export const COMMANDS: Record<string, Command> = {
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
  'users export': async (admin, args) => await admin.userData(argument(args, 0, 'username')),
  'users game-token': async (admin, args) => await admin.gameToken(argument(args, 0, 'username')),
  'gamejolt get': async (admin, args) => await admin.gamejolt(argument(args, 0, 'game_id')),
  'gamejolt set': async (admin, args, flags) => await admin.setGamejolt(argument(args, 0, 'game_id'), gamejoltFields(flags)),
  'gamejolt off': async (admin, args) => await admin.deleteGamejolt(argument(args, 0, 'game_id')),
  'gamejolt data': async (admin, args) => await admin.gamejoltData(argument(args, 0, 'game_id')),
  'ratings list': async (admin, args, flags) => await admin.listRatings(argument(args, 0, 'game_id'), fieldsOf(flags)),
  'ratings remove': async (admin, args) => await admin.removeRating(argument(args, 0, 'game_id'), argument(args, 1, 'username')),
  'ratings export': async (admin, args, flags, { io }) => await writeFile(await admin.exportRatings(argument(args, 0, 'game_id'), fieldsOf(flags)), io),
  'gamejolt items': async (admin, args, flags) => await admin.gamejoltDataItems(argument(args, 0, 'game_id'), fieldsOf(flags)),
  'gamejolt item': async (admin, args, flags) => await admin.gamejoltDataItem(argument(args, 0, 'game_id'), fieldsOf(flags, { key: argument(args, 1, 'key') })),
  'gamejolt remove-item': async (admin, args, flags) => await admin.deleteGamejoltDataItem(argument(args, 0, 'game_id'), fieldsOf(flags, { key: argument(args, 1, 'key') })),
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
  'users erase': async (admin, args, _flags, { io }) => {
    const username = argument(args, 0, 'username')
    const counts = await admin.eraseUser(username, textFields({ erase: 'true' }))
    if (erasedNothing(counts)) io.err(`No user named "${username}" exists and nothing of theirs was found: nothing was erased.`)
    return counts
  },
  'players erase': async (admin, args, _flags, { io }) => {
    const playerName = argument(args, 0, 'player_name')
    const counts = await admin.erasePlayer(playerName)
    if (erasedNothing(counts)) io.err(`Nothing of the player "${playerName}" was found in any game: nothing was erased.`)
    return counts
  }
}
