import { ApiError } from '../errors.js'
import { formatScore } from '../../sdk/format.js'
import { boardOf, type NamedBoard } from '../rules/boards.js'
import { checkScoreRange } from '../rules/games.js'
import { parsePlayerName } from '../rules/player-name.js'
import { scoreFormatOf } from '../rules/score-format.js'
import { boardScoreOf, scoreOf } from '../store/board-format.js'
import { TIME_DIGITS, keys } from '../store/keys.js'
import { readPipeline } from '../store/redis-client.js'
import type { StoredUser } from '../store/users.js'
import type { BoardItem } from '../../sdk/answers.js'
import { MESSAGES, refuse, success, type GamejoltAnswer, type GamejoltRecord } from './answers.js'
import type { GamejoltCall } from './call.js'
import { ago, requestUser } from './players.js'
import { sessionRun } from './sessions.js'

/*
 * Game Jolt's score tables are the game's boards (docs/gamejolt.md#scores):
 * its own is the primary table, its named boards the others. A score is
 * stored as our submits store it, every rule of the board holding; its
 * display text and extra data are kept beside the best they came with and
 * answered by Game Jolt's fetch only.
 */

/** The game's boards as tables, by the ids their records carry (docs/gamejolt.md#ids): its own first (the primary), then its named boards in id order. */
async function tablesOf ({ fastify, game, link }: GamejoltCall): Promise<Array<{ id: number, named: NamedBoard | undefined }>> {
  const named = [...(await fastify.namedBoards.boards(game.game_id)).values()]
  return [{ id: link.primary_table_id, named: undefined }, ...named.map(board => ({ id: board.gamejolt_id, named: board }))]
}

/** The board a request's table_id names (none: the primary), or Game Jolt's message for a table of no board. */
async function tableOf (call: GamejoltCall): Promise<NamedBoard | undefined> {
  const asked = call.fields.table_id ?? ''
  if (asked === '' || asked === '0') return undefined
  const id = /^\d{1,10}$/.test(asked) ? Number(asked) : -1
  const table = (await tablesOf(call)).find(one => one.id === id) ?? refuse(MESSAGES.badTable)
  return table.named
}

/** A sort value as a board keeps it: an integer (a decimal with an integer value is one); anything else is Game Jolt's message, or ours for a fraction. */
function sortOf (text: string | undefined): number {
  const match = /^\s*(-?\d{1,16})(?:\.0*)?\s*$/.exec(text ?? '')
  if (match === null) {
    if (/^\s*-?\d+\.\d+\s*$/.test(text ?? '')) refuse('This service keeps whole-number scores: send sort as an integer (a time in milliseconds, not seconds with decimals).')
    refuse(MESSAGES.sortNeeded)
  }
  const sort = Number(match[1])
  if (!Number.isSafeInteger(sort)) refuse(MESSAGES.sortNeeded)
  return sort
}

/** scores/tables: the primary table and the named boards, each with its id, name and description. */
export async function scoreTables (call: GamejoltCall): Promise<GamejoltAnswer> {
  const tables = (await tablesOf(call)).map(({ id, named }) => ({
    id: String(id),
    name: named?.name ?? call.game.name,
    description: '',
    primary: named === undefined ? '1' : ''
  }))
  return success({ tables })
}

/** Who a score is for: a user (username and token) or a guest (a name), never both. */
async function scorePlayer (call: GamejoltCall, { required }: { required: boolean }): Promise<{ name: string, user: StoredUser | null } | null> {
  const { fields, fastify, game } = call
  const guest = fields.guest ?? ''
  const named = (fields.username ?? '') !== '' || (fields.user_token ?? '') !== ''
  if (guest !== '' && named) refuse(MESSAGES.userAndGuest)
  if (named) {
    const user = await requestUser(call)
    return { name: user.username, user }
  }
  if (guest === '') {
    if (required) refuse(MESSAGES.scoreNeedsPlayer)
    return null
  }
  const name = parsePlayerName(guest)
  if (required) {
    if (game.guests === 'off') refuse(MESSAGES.guestsRefused)
    // A guest never lands on a user's entry.
    if (await fastify.users.nameHolder(name) !== null) refuse(`The guest name ${name} is a user's: log in as that user to send their scores.`)
  }
  return { name, user: null }
}

/** scores/add: a score for a user or a guest, on the table named (the primary by default). A held score is taken too: it shows once approved. */
export async function addScore (call: GamejoltCall): Promise<GamejoltAnswer> {
  const { fastify, fields, game } = call
  const player = await scorePlayer(call, { required: true }) as { name: string, user: StoredUser | null }
  if ((fields.score ?? '') === '') refuse(MESSAGES.scoreNeeded)
  const sort = sortOf(fields.sort)
  const named = await tableOf(call)
  if (named?.archived === true) refuse('This table is archived: it takes no new scores.')
  checkScoreRange(boardOf(game, named).rules, sort)
  // A guest on a game that keeps guests unlisted is hidden before anything is stored, as the play page's guests are.
  if (player.user === null && game.guests === 'unlisted') await fastify.users.hideGuest(player.name, game.game_id)
  // A user's open session is their run, on a game that keeps runs: it vouches for the score (docs/gamejolt.md#sessions).
  const runId = player.user === null ? undefined : await sessionRun(call, player.user)
  try {
    await fastify.leaderboard.submit(game, player.name, sort, undefined, {
      board: named,
      limits: call.limits,
      total: false,
      text: { score: fields.score as string, extra_data: fields.extra_data ?? '' },
      ...(runId === undefined ? {} : { run: { id: runId, byKey: false } })
    })
  } catch (error) {
    // The run rules speak of sessions here, as the game's client knows them.
    if (error instanceof ApiError && error.code === 'run_required') refuse('This game takes a score only during an open session: call sessions/open first, and ping it while the game is played.')
    if (error instanceof ApiError && error.code === 'invalid_run') refuse(`The session cannot vouch for this score (${error.message}): open a new session.`)
    throw error
  }
  return success()
}

/** The text kept with each entry, while it is that entry's ("ms|score|text"): its display text and extra data. */
async function textsOf (call: GamejoltCall, scope: string, items: BoardItem[]): Promise<Array<{ score: string, extra_data: string } | null>> {
  if (items.length === 0) return []
  const replies = await readPipeline(call.fastify.redis, pipeline => {
    for (const item of items) pipeline.hget(keys.gamejoltText(call.game.game_id, item.player_name, scope), item.player_name)
  }) as Array<string | null>
  return items.map((item, i) => {
    const kept = replies[i]
    if (kept === null || kept === undefined) return null
    const [ms, score] = kept.split('|', 2)
    if (ms !== String(Date.parse(item.created_at)).padStart(TIME_DIGITS, '0') || Number(score) !== item.score) return null
    try {
      const text = JSON.parse(kept.slice(`${ms as string}|${score as string}|`.length)) as { score?: unknown, extra_data?: unknown }
      return { score: String(text.score ?? ''), extra_data: String(text.extra_data ?? '') }
    } catch {
      return null
    }
  })
}

/** Game Jolt's record of a board item: its text (or the score as the board shows it), the user or guest, when. */
async function scoreRecords (call: GamejoltCall, named: NamedBoard | undefined, scope: string, items: BoardItem[]): Promise<GamejoltRecord[]> {
  const texts = await textsOf(call, scope, items)
  const format = scoreFormatOf(boardOf(call.game, named).rules)
  return await Promise.all(items.map(async (item, i) => {
    const user = await call.fastify.users.user(item.player_name)
    const stored = Date.parse(item.created_at)
    return {
      score: texts[i]?.score ?? formatScore(item.score, format, 'en'),
      sort: String(item.score),
      extra_data: texts[i]?.extra_data ?? '',
      user: user === null ? '' : user.username,
      user_id: user === null ? '' : String(await call.fastify.users.ensureUserId(user)),
      guest: user === null ? item.player_name : '',
      stored: ago(stored),
      stored_timestamp: Math.floor(stored / 1000)
    }
  }))
}

/** Most scores one fetch answers. */
const MAX_FETCHED = 100

/**
 * scores (fetch): a table's scores in its order, `limit` of them (10 by
 * default, at most 100); only those better or worse than a sort value; or
 * one user's or guest's own.
 */
export async function fetchScores (call: GamejoltCall): Promise<GamejoltAnswer> {
  const { fastify, fields, game } = call
  const named = await tableOf(call)
  const player = await scorePlayer(call, { required: false })
  const betterThan = fields.better_than ?? ''
  const worseThan = fields.worse_than ?? ''
  if (betterThan !== '' && worseThan !== '') refuse(MESSAGES.betterAndWorse)
  const asked = /^\d{1,9}$/.test(fields.limit ?? '') ? Number(fields.limit) : 10
  const limit = Math.min(Math.max(asked, 1), MAX_FETCHED)
  const board = boardOf(game, named)
  const boards = named === undefined ? undefined : await fastify.namedBoards.boards(game.game_id)
  const chosen = fastify.leaderboard.choose(game, { board: named?.board_id }, boards)
  // A bound, as the board stores scores (lower is better there, whatever the board's order).
  const bound = betterThan !== '' || worseThan !== '' ? Number(boardScoreOf(sortOf(betterThan !== '' ? betterThan : worseThan), board.order)) : null
  let items: BoardItem[]
  if (player !== null) {
    // A player's own: their one best, kept only if it passes the bound, as Game Jolt filters a user's scores too.
    items = (await fastify.leaderboard.players(game, chosen, [player.name])).items.filter(item => {
      if (bound === null) return true
      const stored = Number(boardScoreOf(item.score, board.order))
      return betterThan !== '' ? stored < bound : stored > bound
    })
  } else if (bound !== null) {
    const key = keys.board(game.game_id, chosen.board.scope)
    const page = betterThan !== ''
      ? await fastify.redis.zrangebyscore(key, '-inf', `(${bound}`, 'WITHSCORES', 'LIMIT', 0, limit)
      : await fastify.redis.zrangebyscore(key, `(${bound}`, '+inf', 'WITHSCORES', 'LIMIT', 0, limit)
    items = []
    for (let i = 0; i + 1 < page.length; i += 2) {
      const member = page[i] as string
      const createdAt = new Date(Number(member.slice(0, TIME_DIGITS))).toISOString()
      items.push({ rank: 0, player_name: member.slice(TIME_DIGITS), score: scoreOf(page[i + 1] as string, board.order), created_at: createdAt })
    }
  } else {
    items = (await fastify.leaderboard.top(game, chosen, 0, limit)).items
  }
  return success({ scores: await scoreRecords(call, named, chosen.board.scope, items.slice(0, limit)) })
}

/** scores/get-rank: the rank a sort value has, or would have, on a table: the closest rank when no entry has it. */
export async function scoreRank (call: GamejoltCall): Promise<GamejoltAnswer> {
  const { fastify, fields, game } = call
  const sort = sortOf(fields.sort)
  const named = await tableOf(call)
  const board = boardOf(game, named)
  const boards = named === undefined ? undefined : await fastify.namedBoards.boards(game.game_id)
  const chosen = fastify.leaderboard.choose(game, { board: named?.board_id }, boards)
  const key = keys.board(game.game_id, chosen.board.scope)
  const [better, total] = await readPipeline(fastify.redis, pipeline => {
    pipeline.zcount(key, '-inf', `(${boardScoreOf(sort, board.order)}`).zcard(key)
  }) as [number, number]
  if (total === 0) refuse(MESSAGES.noRank)
  return success({ rank: String(Math.min(better + 1, total)) })
}
