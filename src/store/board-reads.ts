import { Cluster } from 'ioredis'
import { TIME_DIGITS, boardScopes, keys } from './keys.js'
import { defineScript, luaScript } from './script-loader.js'
import { defineLimitedScript, type Limits } from './limits.js'
import { chooseAnyBoard, type BoardRef, type ChosenBoard } from './board-choice.js'
import { NO_BOARDS, answeredBoard, boardOf, type Boards, type NamedBoard } from '../rules/boards.js'
import { boardChosenBy } from './named-boards.js'
import { type BoardChoice } from '../rules/fields.js'
import { TopCache } from './top-cache.js'
import { isoFromMs, rankOrNull, scoreOf, topPercent, type BoardEntry, type Neighbourhood, type PlayerStanding } from './board-format.js'
import { type BoardItem, type Season } from '../../sdk/answers.js'
import type { BoardOrder, GameRecord } from '../rules/games.js'
import { AGAIN, MOVED, untilSettled, type BoardContext } from './board-context.js'

const ME = luaScript('me')
const TOP = luaScript('top')
const AROUND = luaScript('around')
const PLAYERS = luaScript('players')
const ENTRY = luaScript('entry')
const SEASONS = luaScript('seasons')

/**
 * A game's boards read: the board a request chooses, a player's standing,
 * a top page (kept in the process while the boards are unchanged), the
 * players around one, named players, an entry as operators see it, the
 * seasons. Each read is one script call (with the request's rate limits
 * when it has them), chosen again when the script finds the board moved.
 */
export function createBoardReads ({ redis, now, refreshed, freshBoards }: BoardContext) {
  const meScript = defineLimitedScript<[string, string, number, number] | ['moved']>(redis, 'rankMe', ME)
  const topScript = defineLimitedScript<Array<string | number>>(redis, 'rankTop', TOP)
  const aroundScript = defineLimitedScript<Array<string | number>>(redis, 'rankAround', AROUND)
  const playersScript = defineLimitedScript<Array<string | number>>(redis, 'rankPlayers', PLAYERS)
  const entryScript = defineScript<[string, string, string, number, number, number] | []>(redis, 'rankEntry', ENTRY)
  const seasonsScript = defineScript<[number, string, string[]]>(redis, 'rankSeasons', SEASONS)
  // Top pages kept in this process (store/top-cache.ts): all of them go when
  // the connection to Redis is lost or the cluster's nodes change (a restart
  // or a failover may bring back an older boards version).
  const tops = new TopCache()
  const forgetTops = (): void => { tops.forget() }
  for (const event of redis instanceof Cluster ? ['+node', '-node', 'node error', 'close', 'reconnecting'] : ['close', 'reconnecting', 'end']) redis.on(event, forgetTops)

  /**
   * One board read: the script of the board the request chose (with the
   * request's limits, counted by the first call only), and the board chosen again
   * from the record read afresh when the script found it moved.
   */
  async function onBoard<T> (game: GameRecord, { choice, board }: ChosenBoard, limits: Limits | undefined, read: (game: GameRecord, board: BoardRef, limits: Limits | undefined) => Promise<T | typeof MOVED>): Promise<T> {
    return await untilSettled(game.game_id, async () => {
      const result = await read(boardOf(game, board.named).rules, board, limits)
      if (result !== MOVED) return result
      game = await refreshed(game.game_id)
      board = chooseAnyBoard(game, choice, now(), choice.board === undefined ? undefined : (await freshBoards(game.game_id)).get(choice.board))
      return AGAIN
    })
  }

  /** What a board script checks the board by (moved(), board-prelude.lua): the game's order, or a named board's settings and id. */
  const guard = (game: GameRecord, board: BoardRef): string[] => [boardChosenBy(boardOf(game, board.named)), board.season]

  function itemsOf (page: Array<string | number>, from: number, firstRank: number, order: BoardOrder): BoardItem[] {
    const items: BoardItem[] = []
    for (let i = from; i < page.length; i += 2) {
      const member = page[i] as string
      items.push({
        rank: firstRank + (i - from) / 2 + 1,
        player_name: member.slice(TIME_DIGITS),
        score: scoreOf(page[i + 1] as string, order),
        created_at: isoFromMs(member.slice(0, TIME_DIGITS))
      })
    }
    return items
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
        const reply = await meScript([keys.game(game.game_id), keys.board(game.game_id, board.scope), keys.entries(game.game_id, player, board.scope)], [...guard(game, board), player], limits)
        if (reply[0] === MOVED) return MOVED
        const [best, , rank, total] = reply as [string, string, number, number]
        return { bestScore: best === '' ? null : Number(best), rank: rankOrNull(rank), totalPlayers: total, board }
      })
    },

    async top (game: GameRecord, chosen: ChosenBoard, offset: number, limit: number, limits?: Limits): Promise<{ total: number, items: BoardItem[], board: BoardRef }> {
      return await onBoard(game, chosen, limits, async (game, board, limits) => {
        const gameId = game.game_id
        const cached = tops.get(gameId, board.scope, offset, limit)
        const page = await topScript([keys.game(gameId), keys.board(gameId, board.scope), keys.boardsVersion(gameId)], [...guard(game, board), offset, offset + limit - 1, cached?.version ?? ''], limits)
        if (page[0] === 'same' && cached !== undefined) return { ...cached.page, board }
        if (page[0] === MOVED) return MOVED
        const [version, ttl, total] = page as [string, number, number]
        const read = { total, items: itemsOf(page, 3, offset, game.order) }
        tops.set(gameId, board.scope, offset, limit, version, ttl, read)
        return { ...read, board }
      })
    },

    /** A player and up to `before` entries above and `after` below them on a board. */
    async around (game: GameRecord, chosen: ChosenBoard, player: string, before: number, after: number, limits?: Limits): Promise<Neighbourhood> {
      return await onBoard(game, chosen, limits, async (game, board, limits) => {
        const reply = await aroundScript([keys.game(game.game_id), keys.board(game.game_id, board.scope), keys.entries(game.game_id, player, board.scope)], [...guard(game, board), player, before, after], limits)
        if (reply[0] === MOVED) return MOVED
        const [best, rank, total, first] = reply as [string, number, number, number]
        const place = rankOrNull(rank)
        return {
          player: { player_name: player, best_score: best === '' ? null : Number(best), rank: place, top_percent: topPercent(place, total) },
          total,
          items: itemsOf(reply, 4, first, game.order),
          board
        }
      })
    },

    /** The named players on a board, in board order (those without a visible entry left out). */
    async players (game: GameRecord, chosen: ChosenBoard, players: string[], limits?: Limits): Promise<{ total: number, items: BoardItem[], board: BoardRef }> {
      return await onBoard(game, chosen, limits, async (game, board, limits) => {
        const gameId = game.game_id
        const reply = await playersScript([keys.game(gameId), keys.board(gameId, board.scope), ...players.map(player => keys.entries(gameId, player, board.scope))],
          [...guard(game, board), players.length, ...players], limits)
        if (reply[0] === MOVED) return MOVED
        const items: BoardItem[] = []
        players.forEach((player, i) => {
          const rank = reply[1 + 2 * i] as number
          const entry = reply[2 + 2 * i] as string
          if (rank < 0) return
          const bar = entry.indexOf('|')
          items.push({ rank: rank + 1, player_name: player, score: Number(entry.slice(0, bar)), created_at: isoFromMs(entry.slice(bar + 1)) })
        })
        items.sort((a, b) => a.rank - b.rank)
        return { total: reply[0] as number, items, board }
      })
    },

    /**
     * The player's entry on a board (the game's own, or `named`) as operators see it: in the current season, or else
     * in the newest closed season that holds one (a player may have played
     * only before a close); null when no season does.
     */
    async entry (game: GameRecord, player: string, named?: NamedBoard): Promise<BoardEntry | null> {
      const gameId = game.game_id
      const prefix = boardScopes.of(boardOf(game, named))
      for (let season = game.season; season >= (named?.first_season ?? 1); season--) {
        const scope = prefix + boardScopes.season(season)
        const reply = await entryScript([keys.board(gameId, scope), keys.entries(gameId, player, scope), keys.meta(gameId, player, scope), keys.hiddenPlayers(gameId)], [player])
        if (reply.length === 0) continue
        const [best, ms, meta, boardHidden, rank, hasMeta] = reply
        return {
          player_name: player,
          best_score: Number(best),
          created_at: isoFromMs(ms),
          meta: hasMeta === 1 ? meta : null,
          hidden: boardHidden === 1,
          rank: rankOrNull(rank),
          season_id: season,
          ...answeredBoard(named)
        }
      }
      return null
    },

    /**
     * The current season and every season of the game, oldest first, read
     * afresh (not from a cached record: a season may have closed a moment
     * ago). One script call, in the game's slot.
     */
    async seasons (gameId: string): Promise<{ season_id: number, items: Season[] }> {
      const [season, startedAt, closed] = await seasonsScript([keys.game(gameId), keys.seasons(gameId)], [])
      const items: Season[] = []
      for (let i = 0; i < closed.length; i += 2) {
        const [started = '', ended = ''] = (closed[i + 1] as string).split('|')
        items.push({ season_id: Number(closed[i]), started_at: started, ended_at: ended })
      }
      items.sort((a, b) => a.season_id - b.season_id)
      items.push({ season_id: season, started_at: startedAt, ended_at: null })
      return { season_id: season, items }
    }
  }
}
