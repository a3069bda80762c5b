import { type Static } from '@sinclair/typebox'
import { fail } from '../errors.js'
import { DEFAULT_BOARD, DEFAULT_BOARD_SETTINGS, MAX_BOARDS, type NamedBoard } from '../rules/boards.js'
import { periodsOf } from '../store/games-and-keys.js'
import { periodsSinceAfter } from '../rules/periods.js'
import { everyScopeOf } from '../store/board-choice.js'
import { OperationContext } from './context.js'
import { now } from './games.js'
import { readInput, schemas } from './input.js'
import { displayChanges } from '../rules/score-format.js'
import { TIME_FLOOR_NEEDED, lacksTimeFloor, type GameRecord } from '../rules/games.js'
import { gamejoltIdOf } from '../rules/gamejolt-ids.js'

/** Named boards (docs/decisions/0070-named-boards-one-game-many-boards-in-its.md): a game's boards beside its own, made, changed, archived and deleted by operators. */

type BoardBody = Static<typeof schemas.updateBoard>

/** A body's settings over `board`'s, checked as a whole: score_min not above score_max, a review_factor above 1. */
function settingsOver (board: Omit<NamedBoard, 'first_season'>, body: BoardBody, at: number): Omit<NamedBoard, 'first_season'> {
  const next = { ...board }
  if (body.name !== undefined) next.name = body.name
  if (body.order !== undefined) next.order = body.order
  if (body.operator !== undefined) next.operator = body.operator
  if (body.periods !== undefined) {
    next.periods = periodsOf(body.periods)
    // A period kind begins to be kept at `at`, the calendar's clock.
    next.periods_since = periodsSinceAfter(board, next.periods, at)
  }
  if (body.archived !== undefined) next.archived = body.archived
  if (body.gamejolt_id !== undefined) next.gamejolt_id = body.gamejolt_id
  Object.assign(next, displayChanges(body, board))
  for (const name of ['score_min', 'score_max', 'review_above', 'review_below'] as const) {
    if (body[name] !== undefined) next[name] = body[name]
  }
  if (body.review_factor !== undefined) {
    // Kept to 6 decimals, as the game's own; 1 would hold every better score.
    const factor = body.review_factor === null ? null : Math.round(body.review_factor * 1e6) / 1e6
    if (factor !== null && factor <= 1) fail('invalid_param', 'Parameter "review_factor" is not valid: a number above 1.')
    next.review_factor = factor
  }
  if (next.score_min !== null && next.score_max !== null && next.score_min > next.score_max) {
    fail('invalid_param', `Parameter "${body.score_min === undefined ? 'score_max' : 'score_min'}" is not valid: score_min (${next.score_min}) must not be above score_max (${next.score_max}).`)
  }
  return next
}

/** A board that takes scores in a game that allows submit-run needs a floor for its times (rules/games.ts lacksTimeFloor). */
function checkTimeFloor (game: GameRecord, board: Omit<NamedBoard, 'first_season'>, body: BoardBody): void {
  if (game.submit_run !== 'on' || board.archived || !lacksTimeFloor(board)) return
  const blamed = (['order', 'score_min', 'review_below', 'archived'] as const).find(name => body[name] !== undefined) ?? 'order'
  fail('invalid_param', `Parameter "${blamed}" is not valid: this game allows submit-run (submit_run on), and ${TIME_FLOOR_NEEDED}.`)
}

export function namedBoardsOperations ({ namedBoards, achievements, review, audit, existingGame, leaderboard, checkGamejoltIdFree }: OperationContext) {
  /** The board, or not_found (the default board is the game's own: its settings are the game's). */
  async function existingBoard (gameId: string, boardId: string): Promise<NamedBoard> {
    if (boardId === DEFAULT_BOARD) fail('not_found', `"${DEFAULT_BOARD}" is the game's own board: its settings are the game's (PATCH /admin/games/:game_id).`)
    return (await namedBoards.board(gameId, boardId))?.board ?? fail('not_found', 'No such board for this game.')
  }

  return {
    /** The game's named boards, in id order (all of them: at most MAX_BOARDS). */
    async boards (gameId: string): Promise<{ game_id: string, total: number, items: NamedBoard[] }> {
      const game = await existingGame(gameId)
      const items = [...(await namedBoards.boards(game.game_id, { fresh: true })).values()]
      return { game_id: game.game_id, total: items.length, items }
    },

    async board (gameId: string, boardId: string): Promise<NamedBoard> {
      const game = await existingGame(gameId)
      return await existingBoard(game.game_id, boardId)
    },

    /** A named board; already_exists for a taken id, invalid_param past MAX_BOARDS. */
    async createBoard (gameId: string, input: unknown): Promise<NamedBoard> {
      const body = readInput(schemas.createBoard, input)
      if (body.board_id === DEFAULT_BOARD) fail('invalid_param', `Parameter "board_id" is not valid: "${DEFAULT_BOARD}" names the game's own board.`)
      const game = await existingGame(gameId)
      const fresh = { board_id: body.board_id, name: body.board_id, ...DEFAULT_BOARD_SETTINGS, periods: [], periods_since: {}, gamejolt_id: gamejoltIdOf(body.board_id), created_at: now() }
      const settings = settingsOver(fresh, body, leaderboard.now())
      checkTimeFloor(game, settings, body)
      if (body.gamejolt_id !== undefined) await checkGamejoltIdFree(game, 'table', body.gamejolt_id, body.board_id)
      const made = await namedBoards.create(game.game_id, settings)
      if (made === 'no_game') fail('not_found', 'No such game.')
      if (made === 'exists') fail('already_exists', `This game has a board "${body.board_id}" already.`)
      if (made === 'full') fail('invalid_param', `This game has ${MAX_BOARDS} boards, the most it may have: delete one first.`)
      if (typeof made === 'string') throw new Error(`unexpected answer ${made}`)
      await audit({ action: 'board.create', game_id: game.game_id, target: made.board_id, before: null, after: made })
      return made
    },

    /** Changes a board's settings; its order and operator only while it is empty (invalid_param). */
    async updateBoard (gameId: string, boardId: string, input: unknown): Promise<NamedBoard> {
      const body = readInput(schemas.updateBoard, input)
      const game = await existingGame(gameId)
      await existingBoard(game.game_id, boardId)
      if (body.gamejolt_id !== undefined) await checkGamejoltIdFree(game, 'table', body.gamejolt_id, boardId)
      const changed = await namedBoards.update(game.game_id, boardId, board => {
        const next = settingsOver(board, body, leaderboard.now())
        checkTimeFloor(game, next, body)
        return { ...next, first_season: board.first_season }
      })
      if (changed === 'no_board' || changed === 'no_game') fail('not_found', 'No such board for this game.')
      if (changed === 'has_entries') fail('invalid_param', 'The board has entries: its order and operator can change only while it is empty (make a new board instead).')
      if (typeof changed === 'string') throw new Error(`unexpected answer ${changed}`)
      await audit({ action: 'board.update', game_id: game.game_id, target: boardId, before: changed.before, after: changed.after })
      return changed.after
    },

    /** Deletes a board and every entry of it, on every season and period; it cannot be undone (archive it to keep it). */
    async deleteBoard (gameId: string, boardId: string, input?: unknown): Promise<Record<string, never>> {
      readInput(schemas.none, input)
      const game = await existingGame(gameId)
      const before = await existingBoard(game.game_id, boardId)
      // An achievement's threshold on it would be left naming no board (and a board made again with its id would take it over).
      const unlocking = [...(await achievements.achievements(game.game_id, { fresh: true })).values()].filter(achievement => achievement.rule?.board === boardId)
      if (unlocking.length > 0) fail('invalid_param', `Achievements unlock on this board (${unlocking.map(achievement => achievement.achievement_id).join(', ')}): change or delete their rules first.`)
      // A held score would be left to be rejected only: the operator decides it first (a score held while the board goes is still refused on approval).
      const pending = await review.pendingOnBoard(game.game_id, boardId)
      if (pending > 0) fail('invalid_param', `${pending} held score(s) on this board wait for review: approve or reject them first.`)
      const { seasons, periods } = everyScopeOf(game, before, Date.now())
      if (!await namedBoards.remove(game.game_id, boardId, [...seasons, ...periods])) fail('not_found', 'No such board for this game.')
      await audit({ action: 'board.delete', game_id: game.game_id, target: boardId, before, after: null })
      return {}
    }
  }
}
