import type { FastifyInstance } from 'fastify'
import { ApiError, ok } from '../../errors.js'
import { optional, param, type Params } from '../../lib/params.js'
import { parseBoardChoice, parseLimit, parseNeighbours, parseOffset, parsePlayerNames } from '../../rules/fields.js'
import { parsePlayerName } from '../../rules/player-name.js'
import { rankSchemas } from './schemas.js'
import { keptPeriodsOf, type ChosenBoard } from '../../store/board-choice.js'
import { keptDuring } from '../../rules/periods.js'
import type { Limits } from '../../store/limits.js'
import type { Stream } from '../public-action.js'
import { clientAddress } from '../../../plugins/app/rate-limit.js'
import { livePlaces } from '../../live/caps.js'
import type { LiveGuard } from '../../live/stream.js'
import { boardFields, iso } from '../../store/board-fields.js'
import { keyAcceptedFor, type GameRecord } from '../../rules/games.js'
import { DEFAULT_BOARD, answeredBoard, boardOf, type Boards } from '../../rules/boards.js'
import { scoreFormatOf } from '../../rules/score-format.js'
import type { RankActions } from './group.js'

/** The body limit of players and players-self (64 KiB). */
export const PLAYERS_BODY_LIMIT = 65_536

/**
 * The actions that read a board or the game's facts: top, me, around,
 * players, periods, boards, seasons and live in API-key mode; me-self,
 * around-self and players-self in session mode. The plugin registers each
 * mode's reads where they stand in the order of all the actions (./index.ts).
 */
export function readActions (fastify: FastifyInstance, { apiKeyAction, sessionAction, namedBoardOf }: RankActions) {
  const { leaderboard } = fastify
  const now = leaderboard.now

  /** The board a request asks for, chosen where the action's fields are read (a bad one is counted against the rate limit like any bad field). */
  const chosenBoard = (fields: Params, game: GameRecord, boards: Boards): ChosenBoard => leaderboard.choose(game, parseBoardChoice(fields), boards)
  /**
   * A body that holds 100 names of 30 four-byte characters, form-encoded
   * (about 37 KB), whatever BODY_LIMIT says for the other actions.
   */
  const playersBodyLimit = { bodyLimit: Math.max(fastify.config.bodyLimit, PLAYERS_BODY_LIMIT) }

  /** around and around-self: the player, then the request's board and sides. */
  async function aroundOf (fields: Params, game: GameRecord, boards: Boards, player: string, limits?: Limits) {
    const chosen = chosenBoard(fields, game, boards)
    const before = parseNeighbours(fields, 'before')
    const after = parseNeighbours(fields, 'after')
    const { player: standing, total, items, board } = await leaderboard.around(game, chosen, player, before, after, limits)
    return ok({ game_id: game.game_id, total, player: standing, items, ...await boardFields(leaderboard, game, board) })
  }

  /** players and players-self: the named players on the request's board. */
  async function playersOf (fields: Params, game: GameRecord, boards: Boards, players: string[], limits?: Limits) {
    const chosen = chosenBoard(fields, game, boards)
    const { total, items, board } = await leaderboard.players(game, chosen, players, limits)
    return ok({ game_id: game.game_id, total, items, ...await boardFields(leaderboard, game, board) })
  }

  /** A live stream opened with a key goes on while the key would still be accepted for its game (revoked: it ends). */
  const keyGuard = (apiKey: string, gameId: string): LiveGuard => ({
    kind: 'key',
    id: apiKey,
    check: async () => {
      const { key, game } = await fastify.records.keyAndGame(apiKey, gameId)
      try {
        keyAcceptedFor(key, game)
        return undefined
      } catch (error) {
        if (error instanceof ApiError) return error
        throw error
      }
    }
  })

  /** The reads of API-key mode: top, me, around, players, periods, boards, seasons, live. */
  function byKey (): void {
    apiKeyAction('top', rankSchemas.top, ['api_key', 'game_id'], async (fields, { game, boards, limits }) => {
      const limit = parseLimit(optional(fields, 'limit'))
      const offset = parseOffset(optional(fields, 'offset'))
      const chosen = chosenBoard(fields, game, boards)
      const { total, items, board } = await leaderboard.top(game, chosen, offset, limit, limits)
      return ok({ game_id: game.game_id, total, items, ...await boardFields(leaderboard, game, board) })
    }, { limitsInStore: true })

    apiKeyAction('me', rankSchemas.me, ['api_key', 'game_id', 'player_name'], async (fields, { game, boards, limits }) => {
      const player = parsePlayerName(param(fields, 'player_name'))
      const chosen = chosenBoard(fields, game, boards)
      const standing = await leaderboard.standing(game, chosen, player, limits)
      return ok({ player_name: player, best_score: standing.bestScore, rank: standing.rank, ...await boardFields(leaderboard, game, standing.board) })
    }, { limitsInStore: true })

    apiKeyAction('around', rankSchemas.around, ['api_key', 'game_id', 'player_name'], (fields, { game, boards, limits }) =>
      aroundOf(fields, game, boards, parsePlayerName(param(fields, 'player_name')), limits), { limitsInStore: true })

    apiKeyAction('players', rankSchemas.players, ['api_key', 'game_id', 'player_names'], (fields, { game, boards, limits }) =>
      playersOf(fields, game, boards, parsePlayerNames(param(fields, 'player_names')), limits), { ...playersBodyLimit, limitsInStore: true })

    // Game facts without a board script: the limits are counted on their own, first.
    // A named board's periods are its own (docs/decisions/0070-named-boards-one-game-many-boards-in-its.md); its seasons are the game's, from the one it was made in.
    apiKeyAction('periods', rankSchemas.periods, ['api_key', 'game_id'], async (fields, { game, boards }) => {
      const named = namedBoardOf(fields, boards)
      const view = boardOf(game, named).rules
      const at = now()
      // Past periods that ended before the board began keeping their kind never held its entries: not listed.
      const items = view.periods.flatMap(kind => keptPeriodsOf(view, kind, at).filter(period => keptDuring(period, view.periods_since)).map((period, index) => ({
        period: kind, period_id: period.id, starts_at: iso(period.startsAt), resets_at: iso(period.resetsAt), current: index === 0
      })))
      return ok({ game_id: game.game_id, timezone: game.timezone, keep_periods: game.keep_periods, items, ...answeredBoard(named) })
    })

    // The boards a page may show, and how (docs/interface.md#score-formats): nothing of them is secret to players.
    apiKeyAction('boards', rankSchemas.boards, ['api_key', 'game_id'], async (_fields, { game }) => {
      // All of them (a request's own `boards` holds them only when it names one).
      const boards = await fastify.namedBoards.boards(game.game_id)
      const own = { board_id: DEFAULT_BOARD, name: game.name, order: game.order, operator: 'best' as const, periods: game.periods, format: scoreFormatOf(game), archived: false }
      // The store reads them in id order.
      const named = [...boards.values()].map(board => ({
        board_id: board.board_id, name: board.name, order: board.order, operator: board.operator, periods: board.periods, format: scoreFormatOf(board), archived: board.archived
      }))
      return ok({ game_id: game.game_id, items: [own, ...named] })
    })

    apiKeyAction('seasons', rankSchemas.seasons, ['api_key', 'game_id'], async (fields, { game, boards }) => {
      const named = namedBoardOf(fields, boards)
      const { season_id: current, items } = await leaderboard.seasons(game.game_id)
      if (named === undefined) return ok({ game_id: game.game_id, season_id: current, items })
      return ok({ game_id: game.game_id, season_id: current, items: items.filter(season => season.season_id >= named.first_season), board: named.board_id })
    })

    // A live board: the top at once, then again whenever it changes (Server-Sent Events).
    // Opening counts once against the rate limits, in the first read; the stream opens once they are answered.
    apiKeyAction('live', rankSchemas.live, ['api_key', 'game_id'], async (fields, { game, boards, key, limits }, reply) => {
      const limit = parseLimit(optional(fields, 'limit'))
      const chosen = chosenBoard(fields, game, boards)
      const apiKey = key.api_key
      const { liveStreamsPerKey, liveStreamsPerAddress } = fastify.config
      const { total, items, board } = await leaderboard.top(game, chosen, 0, limit, limits)
      // HEAD asks what a stream would be, without one.
      if (reply.request.method === 'HEAD') return ok({ game_id: game.game_id, total, items, ...await boardFields(leaderboard, game, board) })
      return {
        open: async () => await fastify.live.open(reply, {
          game,
          choice: chosen.choice,
          limit,
          places: livePlaces.apiKey(apiKey, clientAddress(reply.request), liveStreamsPerKey, liveStreamsPerAddress),
          guard: keyGuard(apiKey, game.game_id),
          first: { total, items },
          board
        })
      } satisfies Stream
    }, { sse: 'manual', limitsInStore: true })
  }

  /** The reads of session mode: me-self, around-self, players-self. */
  function bySession (): void {
    sessionAction('me-self', rankSchemas.meSelf, [], async (fields, { game, boards, user }) => {
      const chosen = chosenBoard(fields, game, boards)
      const standing = await leaderboard.standing(game, chosen, user.username)
      return ok({
        player_name: user.username,
        best_score: standing.bestScore,
        rank: standing.rank,
        total_players: standing.totalPlayers,
        is_dev_record: game.developer === user.username,
        is_admin_record: user.is_admin,
        ...await boardFields(leaderboard, game, standing.board)
      })
    })

    sessionAction('around-self', rankSchemas.aroundSelf, [], (fields, { game, boards, user }) => aroundOf(fields, game, boards, user.username))

    sessionAction('players-self', rankSchemas.playersSelf, [], (fields, { game, boards, user }) => {
      const friends = parsePlayerNames(optional(fields, 'player_names'))
      return playersOf(fields, game, boards, [...new Set([user.username, ...friends])])
    }, playersBodyLimit)
  }

  return { byKey, bySession }
}
