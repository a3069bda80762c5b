import { defineScript, luaScript } from './script-loader.js'
import { onConnectionLost } from './redis-client.js'
import { defineLimitedScript, type Limits } from './limits.js'
import { chooseAnyBoard, type BoardRef, type ChosenBoard } from './board-choice.js'
import { NO_BOARDS, boardOf, type Boards, type NamedBoard } from '../rules/boards.js'
import { type BoardChoice } from '../rules/fields.js'
import { TopCache } from './top-cache.js'
import type { BoardEntry, Neighbourhood, PlayerStanding } from './board-format.js'
import type { Season } from '../../sdk/answers.js'
import type { GameRecord } from '../rules/games.js'
import { AGAIN, MOVED, untilSettled, type BoardContext } from './board-context.js'
import {
  SAME, aroundCall, entryCall, entryOf, meCall, neighbourhoodOf, playersCall, playersPageOf, seasonsCall, seasonsOf, standingOf, topCall, topPageOf,
  type AroundReply, type BoardPage, type EntryReply, type MeReply, type PlayersReply, type SeasonsReply, type TopReply
} from './read-calls.js'

const ME = luaScript('me')
const TOP = luaScript('top')
const AROUND = luaScript('around')
const PLAYERS = luaScript('players')
const ENTRY = luaScript('entry')
const SEASONS = luaScript('seasons')

/** A read of the board chosen, by the game's rules for that board; MOVED to choose again. */
type BoardRead<T> = (game: GameRecord, board: BoardRef, limits: Limits | undefined) => Promise<T | typeof MOVED>

/**
 * A game's boards read: the board a request chooses, a player's standing,
 * a top page (kept in the process while the boards are unchanged), the
 * players around one, named players, an entry as operators see it, the
 * seasons. Each read is one script call (with the request's rate limits
 * when it has them), chosen again when the script finds the board moved;
 * each call is built, and its reply decoded, by store/read-calls.ts.
 */
export function createBoardReads ({ redis, now, refreshed, freshBoards }: BoardContext) {
  const meScript = defineLimitedScript<MeReply>(redis, 'rankMe', ME)
  const topScript = defineLimitedScript<TopReply>(redis, 'rankTop', TOP)
  const aroundScript = defineLimitedScript<AroundReply>(redis, 'rankAround', AROUND)
  const playersScript = defineLimitedScript<PlayersReply>(redis, 'rankPlayers', PLAYERS)
  const entryScript = defineScript<EntryReply>(redis, 'rankEntry', ENTRY)
  const seasonsScript = defineScript<SeasonsReply>(redis, 'rankSeasons', SEASONS)
  // Top pages kept in this process (store/top-cache.ts): all of them go when
  // the connection to Redis is lost or the cluster's nodes change (a restart
  // or a failover may bring back an older boards version).
  const tops = new TopCache()
  const forgetTops = (): void => { tops.forget() }
  onConnectionLost(redis, forgetTops)

  /**
   * One board read: the script of the board the request chose (with the
   * request's limits, counted by the first call only), and the board chosen again
   * from the record read afresh when the script found it moved.
   */
  async function onBoard<T> (game: GameRecord, { choice, board }: ChosenBoard, limits: Limits | undefined, read: BoardRead<T>): Promise<T> {
    return await untilSettled(game.game_id, async () => {
      const result = await read(boardOf(game, board.named).rules, board, limits)
      if (result !== MOVED) return result
      game = await refreshed(game.game_id)
      board = chooseAnyBoard(game, choice, now(), choice.board === undefined ? undefined : (await freshBoards(game.game_id)).get(choice.board))
      return AGAIN
    })
  }

  return {
    /** Forgets the top pages kept of a game, or of every game. */
    forgetTops (gameId?: string): void {
      tops.forget(gameId)
    },

    /**
     * The board a request asks for, at this moment; invalid_param for one
     * the game does not have. Reads take what it returns.
     */
    choose (game: GameRecord, choice: BoardChoice, boards: Boards = NO_BOARDS): ChosenBoard {
      return { choice, board: chooseAnyBoard(game, choice, now(), choice.board === undefined ? undefined : boards.get(choice.board)) }
    },

    async standing (game: GameRecord, chosen: ChosenBoard, player: string, limits?: Limits): Promise<PlayerStanding> {
      return await onBoard(game, chosen, limits, async (game, board, limits) => {
        const call = meCall(game, board, player)
        return standingOf(await meScript(call.keys, call.args, limits), board)
      })
    },

    async top (game: GameRecord, chosen: ChosenBoard, offset: number, limit: number, limits?: Limits): Promise<BoardPage> {
      return await onBoard(game, chosen, limits, async (game, board, limits) => {
        const gameId = game.game_id
        const cached = tops.get(gameId, board.scope, offset, limit)
        const call = topCall(game, board, offset, limit, cached?.version)
        const reply = await topScript(call.keys, call.args, limits)
        // The boards are as they were when the kept page was read: the script read no page.
        // (Each answer written out: a spread and a property after it costs V8 about a µs.)
        if (reply[0] === SAME && cached !== undefined) return { total: cached.page.total, items: cached.page.items, board }
        const read = topPageOf(reply, offset, game.order)
        if (read === MOVED) return MOVED
        tops.set(gameId, board.scope, offset, limit, read.version, read.ttl, read.page)
        return { total: read.page.total, items: read.page.items, board }
      })
    },

    /** A player and up to `before` entries above and `after` below them on a board. */
    async around (game: GameRecord, chosen: ChosenBoard, player: string, before: number, after: number, limits?: Limits): Promise<Neighbourhood> {
      return await onBoard(game, chosen, limits, async (game, board, limits) => {
        const call = aroundCall(game, board, player, before, after)
        return neighbourhoodOf(await aroundScript(call.keys, call.args, limits), player, game.order, board)
      })
    },

    /** The named players on a board, in board order (those without a visible entry left out). */
    async players (game: GameRecord, chosen: ChosenBoard, players: string[], limits?: Limits): Promise<BoardPage> {
      return await onBoard(game, chosen, limits, async (game, board, limits) => {
        const call = playersCall(game, board, players)
        return playersPageOf(await playersScript(call.keys, call.args, limits), players, board)
      })
    },

    /**
     * The player's entry on a board (the game's own, or `named`) as operators see it: in the current season, or else
     * in the newest closed season that holds one (a player may have played
     * only before a close); null when no season does.
     */
    async entry (game: GameRecord, player: string, named?: NamedBoard): Promise<BoardEntry | null> {
      const board = boardOf(game, named)
      for (let season = game.season; season >= (named?.first_season ?? 1); season--) {
        const call = entryCall(game.game_id, board, season, player)
        const entry = entryOf(await entryScript(call.keys, call.args), player, season, named)
        if (entry !== null) return entry
      }
      return null
    },

    /**
     * The current season and every season of the game, oldest first, read
     * afresh (not from a cached record: a season may have closed a moment
     * ago). One script call, in the game's slot.
     */
    async seasons (gameId: string): Promise<{ season_id: number, items: Season[] }> {
      const call = seasonsCall(gameId)
      return seasonsOf(await seasonsScript(call.keys, call.args))
    }
  }
}
