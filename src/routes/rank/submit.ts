import type { FastifyInstance } from 'fastify'
import { ApiError, fail, ok } from '../../errors.js'
import { optional, param, type Params } from '../../lib/params.js'
import { parseBoardScores, parseMeta, parseRunId, parseScore } from '../../rules/fields.js'
import { parsePlayerName } from '../../rules/player-name.js'
import { rankSchemas } from './schemas.js'
import type { Signed, SubmitResult } from '../../store/board-format.js'
import type { Limits } from '../../store/limits.js'
import { TIME_FLOOR_NEEDED, checkScoreRange, lacksTimeFloor, runsKept, type GameRecord } from '../../rules/games.js'
import { DEFAULT_BOARD, answeredBoard, boardOf, type Boards, type NamedBoard } from '../../rules/boards.js'
import type { RankActions } from './group.js'

/**
 * What a submit's answer adds to v1's: `held` for a score held for review
 * only, each current period board for a game that keeps periods only.
 */
function submitExtras (game: GameRecord, result: SubmitResult, board?: NamedBoard): Record<string, unknown> {
  const periods = board?.periods ?? game.periods
  return {
    ...answeredBoard(board),
    ...(result.held ? { held: true } : {}),
    ...(result.unlocked === undefined ? {} : { unlocked: result.unlocked }),
    ...(periods.length === 0 ? {} : { periods: result.periods })
  }
}

/** What submit and submit-run answer (v1's fields, then submitExtras). */
function submitAnswer (game: GameRecord, score: number, result: SubmitResult, board?: NamedBoard) {
  return ok({ score, improved: result.improved, best_score: result.bestScore, rank: result.rank, ...submitExtras(game, result, board) })
}

/** A board's part of a submit of several: its id as named, the board, the score, and its refusal when it refuses before any write. */
interface BoardScore { id: string, board: NamedBoard | undefined, score: number, refused?: ApiError }

/**
 * The actions that store a score: submit and submit-run in API-key mode,
 * submit-self in session mode. The plugin registers each where it stands
 * in the order of all the actions (./index.ts).
 */
export function submitActions (fastify: FastifyInstance, { apiKeyAction, sessionAction, namedBoardOf }: RankActions) {
  const { leaderboard } = fastify

  /**
   * The named board a score is for (none: the game's own), and its score
   * bounds checked: the board's, or the game's. A submit names a board
   * only (no period or season: a score goes to the current ones).
   */
  function scoreBoard (fields: Params, game: GameRecord, boards: Boards, score: number): NamedBoard | undefined {
    const named = namedBoardOf(fields, boards)
    if (named?.archived === true) fail('invalid_param', 'Parameter "board" is not valid: that board is archived; it takes no new scores.')
    checkScoreRange(boardOf(game, named).rules, score)
    return named
  }

  /**
   * The boards of a submit of several boards' scores (parseBoardScores): an
   * unknown board refuses the whole request; an archived board, or a score
   * outside a board's bounds, only that board's score.
   */
  function boardScoresOf (scores: Array<{ board: string | undefined, score: number }>, game: GameRecord, boards: Boards): BoardScore[] {
    return scores.map(({ board: boardId, score }) => {
      const named = namedBoardOf({ board: boardId ?? DEFAULT_BOARD }, boards)
      const id = boardId ?? DEFAULT_BOARD
      try {
        if (named?.archived === true) fail('invalid_param', `Board "${id}" is archived; it takes no new scores.`)
        checkScoreRange(boardOf(game, named).rules, score)
        return { id, board: named, score }
      } catch (error) {
        if (!(error instanceof ApiError)) throw error
        return { id, board: named, score, refused: error }
      }
    })
  }

  /**
   * Stores the scores of a submit of several boards, in one script call, and
   * answers each board in the request's order: its standing (`extra` adds
   * what a submit to it alone adds in this mode) or its refusal.
   */
  async function submitBoards (
    game: GameRecord, player: string, scores: BoardScore[], meta: string | undefined, options: { signed?: Signed, limits?: Limits },
    extra: (result: SubmitResult) => Record<string, unknown> = () => ({})
  ): Promise<Array<Record<string, unknown>>> {
    const taken = scores.filter(item => item.refused === undefined)
    const results = taken.length === 0 ? [] : await leaderboard.submitMany(game, player, taken.map(({ board, score }) => ({ board, score })), meta, options)
    let next = 0
    return scores.map(({ id, board, score, refused }) => {
      const result = refused ?? results[next++] as SubmitResult | ApiError
      if (result instanceof ApiError) return { board: id, score, error: result.code, message: result.message }
      const periods = board?.periods ?? game.periods
      return {
        board: id,
        score,
        improved: result.improved,
        best_score: result.bestScore,
        rank: result.rank,
        ...extra(result),
        ...(result.held ? { held: true } : {}),
        ...(result.unlocked === undefined ? {} : { unlocked: result.unlocked }),
        ...(periods.length === 0 ? {} : { periods: result.periods })
      }
    })
  }

  /** submit: a score signed by the game's server, to one board or several. */
  function submit (): void {
    apiKeyAction('submit', rankSchemas.submit, ['api_key', 'game_id', 'player_name', 'score', 'ts', 'sign'], async (fields, { game, boards, limits }) => {
      const player = parsePlayerName(param(fields, 'player_name'))
      const many = parseBoardScores(fields)
      if (many !== undefined) {
        // A run's score goes to one board (docs/interface.md#runs).
        if (optional(fields, 'run_id') !== undefined) fail('invalid_param', 'Parameter "run_id" is not valid with several boards: a run\'s score goes to one board.')
        const scores = boardScoresOf(many, game, boards)
        const meta = parseMeta(optional(fields, 'meta'))
        const signed = { ts: param(fields, 'ts'), sign: param(fields, 'sign') }
        return ok({ boards: await submitBoards(game, player, scores, meta, { signed, limits }) })
      }
      const score = parseScore(param(fields, 'score'))
      const board = scoreBoard(fields, game, boards, score)
      const meta = parseMeta(optional(fields, 'meta'))
      const runId = parseRunId(optional(fields, 'run_id'))
      const signed = { ts: param(fields, 'ts'), sign: param(fields, 'sign') }
      const run = runId === undefined ? undefined : { id: runId, byKey: true }
      const result = await leaderboard.submit(game, player, score, meta, { signed, limits, board, total: false, run })
      return submitAnswer(game, score, result, board)
    }, { signed: true, limitsInStore: true })
  }

  /** A browser game without a server: the score of a run started with this key, without the secret (docs/interface.md#submit-run). */
  function submitRun (): void {
    apiKeyAction('submit-run', rankSchemas.submitRun, ['api_key', 'game_id', 'player_name', 'score', 'run_id'], async (fields, { game, boards, key, limits }) => {
      if (game.submit_run !== 'on') fail('forbidden', 'This game takes no submit-run: its scores are signed by its server (submit) or sent by session (submit-self). An operator can allow it (submit_run).')
      runsKept(game)
      const player = parsePlayerName(param(fields, 'player_name'))
      const score = parseScore(param(fields, 'score'))
      const board = scoreBoard(fields, game, boards, score)
      // A board kept from before this rule (or changed by hand) takes no unsigned time without a floor.
      if (lacksTimeFloor(boardOf(game, board).rules)) fail('forbidden', `This board takes no submit-run until an operator sets a floor: ${TIME_FLOOR_NEEDED}.`)
      const meta = parseMeta(optional(fields, 'meta'))
      const runId = parseRunId(param(fields, 'run_id')) as string
      const result = await leaderboard.submit(game, player, score, meta, { limits, board, run: { id: runId, byKey: true, key: key.api_key } })
      return submitAnswer(game, score, result, board)
    }, { limitsInStore: true })
  }

  /** submit-self: the logged-in player's score, to one board or several. */
  function submitSelf (): void {
    sessionAction('submit-self', rankSchemas.submitSelf, ['score'], async (fields, { game, boards, user }) => {
      const many = parseBoardScores(fields)
      if (many !== undefined) {
        if (optional(fields, 'run_id') !== undefined) fail('invalid_param', 'Parameter "run_id" is not valid with several boards: a run\'s score goes to one board.')
        const scores = boardScoresOf(many, game, boards)
        const meta = parseMeta(optional(fields, 'meta'))
        return ok({
          boards: await submitBoards(game, user.username, scores, meta, {}, result => ({ total_players: result.totalPlayers })),
          is_dev_record: game.developer === user.username,
          is_admin_record: user.is_admin
        })
      }
      const score = parseScore(param(fields, 'score'))
      const board = scoreBoard(fields, game, boards, score)
      const meta = parseMeta(optional(fields, 'meta'))
      const runId = parseRunId(optional(fields, 'run_id'))
      const result = await leaderboard.submit(game, user.username, score, meta, { board, run: runId === undefined ? undefined : { id: runId, byKey: false } })
      return ok({
        score,
        improved: result.improved,
        best_score: result.bestScore,
        rank: result.rank,
        total_players: result.totalPlayers,
        is_dev_record: game.developer === user.username,
        is_admin_record: user.is_admin,
        ...submitExtras(game, result, board)
      })
    })
  }

  return { submit, submitRun, submitSelf }
}
