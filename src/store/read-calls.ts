import { TIME_DIGITS, boardScopes, keys } from './keys.js'
import type { BoardRef } from './board-choice.js'
import { boardChosenBy } from './named-boards.js'
import { answeredBoard, boardOf, type Board, type NamedBoard } from '../rules/boards.js'
import { isoFromMs, rankOrNull, scoreOf, topPercent, type BoardEntry, type Neighbourhood, type PlayerStanding } from './board-format.js'
import type { TopPage } from './top-cache.js'
import type { BoardItem, Season } from '../../sdk/answers.js'
import type { BoardOrder, GameRecord } from '../rules/games.js'
import { MOVED } from './board-context.js'

/**
 * The calls of the read scripts, each built in one place, and their
 * replies, each decoded in one place: the scripts answer by position, so
 * what each position means is written once, beside the lua file's header
 * that it follows. board-reads.ts sends the calls and makes them again
 * when a script answers MOVED.
 */

/** A page of a board in board order, with the board it was read from (top, players). */
export type BoardPage = TopPage & { board: BoardRef }

/** A script's keys and arguments, in the order its lua file reads them. */
export interface ReadCall { keys: string[], args: Array<string | number> }

/** A board script's answer when the board moved since its keys were chosen (lua/includes/board-prelude.lua). */
type Moved = [typeof MOVED]

const isMoved = (reply: readonly unknown[]): reply is Moved => reply[0] === MOVED

/** Each member (the 13-digit ms, then the player) and its board score, as ZRANGE WITHSCORES answers them. */
type Members = string[]

/**
 * What a board script checks the board by (moved(), board-prelude.lua),
 * its first two arguments: the game's order, or a named board's settings
 * and id; then the season it must still be.
 */
const guard = (game: GameRecord, board: BoardRef): string[] => [boardChosenBy(boardOf(game, board.named)), board.season]

/** The page's members from position `from` on, ranked from `firstRank` (0-based) on. */
function itemsOf (page: ReadonlyArray<string | number>, from: number, firstRank: number, order: BoardOrder): BoardItem[] {
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

/** lua/me.lua's reply: the player's best ('' for none), its ms, its rank (-1: none), the visible total. */
export type MeReply = Moved | [best: string, ms: string, rank: number, total: number]

/** lua/me.lua's call: the game's record, the board, the player's entries; the guard, the player. */
export function meCall (game: GameRecord, board: BoardRef, player: string): ReadCall {
  const gameId = game.game_id
  return {
    keys: [keys.game(gameId), keys.board(gameId, board.scope), keys.entries(gameId, player, board.scope)],
    args: [...guard(game, board), player]
  }
}

/** The player's standing on `board` that lua/me.lua answered. */
export function standingOf (reply: MeReply, board: BoardRef): PlayerStanding | typeof MOVED {
  if (isMoved(reply)) return MOVED
  const [best, , rank, total] = reply
  return { bestScore: best === '' ? null : Number(best), rank: rankOrNull(rank), totalPlayers: total, board }
}

/** lua/top.lua's answer when the boards version is still the one the caller's cached page was read at. */
export const SAME = 'same'

/**
 * lua/top.lua's reply with a page: the boards version it was read at, the
 * ms the board lives (-1: no expiry; -2: no board), the visible total, then
 * the page's members.
 */
type TopPageReply = [version: string, ttl: number, total: number, ...page: Members]

/** lua/top.lua's reply: SAME, MOVED, or a page. */
export type TopReply = [typeof SAME] | Moved | TopPageReply

/**
 * lua/top.lua's call: the game's record, the board, the boards version;
 * the guard, the first and last rank (0-based), and the version the
 * caller's cached page was read at ('' for none: the script then never
 * answers SAME).
 */
export function topCall (game: GameRecord, board: BoardRef, offset: number, limit: number, cachedVersion: string | undefined): ReadCall {
  const gameId = game.game_id
  return {
    keys: [keys.game(gameId), keys.board(gameId, board.scope), keys.boardsVersion(gameId)],
    args: [...guard(game, board), offset, offset + limit - 1, cachedVersion ?? '']
  }
}

/**
 * The page lua/top.lua answered from rank `offset` on, with the version and
 * ttl to keep it by (store/top-cache.ts). SAME is the caller's to answer
 * from its cached page, before this.
 */
export function topPageOf (reply: TopReply, offset: number, order: BoardOrder): { version: string, ttl: number, page: TopPage } | typeof MOVED {
  if (isMoved(reply)) return MOVED
  const [version, ttl, total] = reply as TopPageReply
  return { version, ttl, page: { total, items: itemsOf(reply, 3, offset, order) } }
}

/**
 * lua/around.lua's reply: the player's best ('' for none), their rank (-1:
 * none or hidden), the visible total, the page's first rank, then its
 * members (none when the player is not on the board).
 */
export type AroundReply = Moved | [best: string, rank: number, total: number, first: number, ...page: Members]

/** lua/around.lua's call: the game's record, the board, the player's entries; the guard, the player, how many before and after. */
export function aroundCall (game: GameRecord, board: BoardRef, player: string, before: number, after: number): ReadCall {
  const gameId = game.game_id
  return {
    keys: [keys.game(gameId), keys.board(gameId, board.scope), keys.entries(gameId, player, board.scope)],
    args: [...guard(game, board), player, before, after]
  }
}

/** The player and the entries around them on `board` that lua/around.lua answered. */
export function neighbourhoodOf (reply: AroundReply, player: string, order: BoardOrder, board: BoardRef): Neighbourhood | typeof MOVED {
  if (isMoved(reply)) return MOVED
  const [best, rank, total, first] = reply
  const place = rankOrNull(rank)
  return {
    player: { player_name: player, best_score: best === '' ? null : Number(best), rank: place, top_percent: topPercent(place, total) },
    total,
    items: itemsOf(reply, 4, first, order),
    board
  }
}

/** lua/players.lua's reply: the visible total, then per player their rank (-1: none or hidden) and entry ("best|ms", '' for none). */
export type PlayersReply = Moved | [total: number, ...perPlayer: Array<number | string>]

/**
 * lua/players.lua's call: the game's record, the board, each player's
 * entries; the guard, how many players, the players in the same order.
 */
export function playersCall (game: GameRecord, board: BoardRef, players: string[]): ReadCall {
  const gameId = game.game_id
  return {
    keys: [keys.game(gameId), keys.board(gameId, board.scope), ...players.map(player => keys.entries(gameId, player, board.scope))],
    args: [...guard(game, board), players.length, ...players]
  }
}

/** The `players` on `board` that lua/players.lua answered, in board order; those without a visible entry left out. */
export function playersPageOf (reply: PlayersReply, players: string[], board: BoardRef): BoardPage | typeof MOVED {
  if (isMoved(reply)) return MOVED
  const items: BoardItem[] = []
  players.forEach((player, i) => {
    const rank = reply[1 + 2 * i] as number
    const entry = reply[2 + 2 * i] as string
    if (rank < 0) return
    // The entries hash keeps the best itself, not its board score.
    const bar = entry.indexOf('|')
    items.push({ rank: rank + 1, player_name: player, score: Number(entry.slice(0, bar)), created_at: isoFromMs(entry.slice(bar + 1)) })
  })
  items.sort((a, b) => a.rank - b.rank)
  return { total: reply[0], items, board }
}

/**
 * lua/entry.lua's reply: the best, its ms, the meta ('' for none), whether
 * the entry is hidden (0/1), its rank (-1: none), whether it has a meta
 * (0/1); empty when the player has no entry.
 */
export type EntryReply = [] | [best: string, ms: string, meta: string, hidden: number, rank: number, hasMeta: number]

/** lua/entry.lua's call for one season of `board`: its board, the player's entries and meta, the hidden players; the player. */
export function entryCall (gameId: string, board: Board, season: number, player: string): ReadCall {
  const scope = boardScopes.of(board) + boardScopes.season(season)
  return {
    keys: [keys.board(gameId, scope), keys.entries(gameId, player, scope), keys.meta(gameId, player, scope), keys.hiddenPlayers(gameId)],
    args: [player]
  }
}

/** The entry lua/entry.lua answered for `season` of the game's own board or `named`; null when it holds none. */
export function entryOf (reply: EntryReply, player: string, season: number, named: NamedBoard | undefined): BoardEntry | null {
  if (reply.length === 0) return null
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

/** lua/seasons.lua's reply: the current season, when it started, then each closed season and its "started_at|ended_at". */
export type SeasonsReply = [season: number, startedAt: string, closed: string[]]

/** lua/seasons.lua's call: the game's record and its closed seasons; no arguments. */
export function seasonsCall (gameId: string): ReadCall {
  return { keys: [keys.game(gameId), keys.seasons(gameId)], args: [] }
}

/** The seasons lua/seasons.lua answered: the closed ones oldest first, then the current one. */
export function seasonsOf ([season, startedAt, closed]: SeasonsReply): { season_id: number, items: Season[] } {
  const items: Season[] = []
  for (let i = 0; i < closed.length; i += 2) {
    const [started = '', ended = ''] = (closed[i + 1] as string).split('|')
    items.push({ season_id: Number(closed[i]), started_at: started, ended_at: ended })
  }
  items.sort((a, b) => a.season_id - b.season_id)
  items.push({ season_id: season, started_at: startedAt, ended_at: null })
  return { season_id: season, items }
}
