import type { RedisClient as Redis } from './redis-client.js'
import { readPipeline } from './redis-client.js'
import { defineScript, luaScript } from './script-loader.js'
import { ENTRY_BUCKETS, boardScopes, keys } from './keys.js'
import { changeRecord, type RecordCache } from './cache.js'
import { periodsOf } from './games-and-keys.js'
import { periodsSinceOf } from '../rules/periods.js'
import { BOARD_OPERATORS, MAX_BOARDS, type Board, type NamedBoard } from '../rules/boards.js'
import { displayFromStored } from '../rules/score-format.js'
import { gamejoltIdOf, storedGamejoltId } from '../rules/gamejolt-ids.js'

/*
 * A game's named boards (docs/decisions/0070-named-boards-one-game-many-boards-in-its.md): their settings, one JSON
 * value per board in keys.boards, read into the record cache with the game
 * (kind 'boards', invalidated on every instance by each write here). Their
 * entries live under the board's scope (boardScopes.named), in the game's
 * slot, and are written by the board scripts like the default board's.
 */

const CREATE_BOARD = luaScript('create-board')
const UPDATE_BOARD = luaScript('update-board')
const DELETE_BOARD = luaScript('delete-board')

const safeScore = (value: unknown): number | null => typeof value === 'number' && Number.isSafeInteger(value) ? value : null

/** A stored board's settings, read as the operations write them; a value that is not theirs (written by hand) reads as its default. */
export function boardFromStored (boardId: string, text: string): NamedBoard {
  let parsed: unknown
  try { parsed = JSON.parse(text) } catch { parsed = {} }
  const stored = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, unknown>
  const factor = typeof stored.review_factor === 'number' && stored.review_factor > 1 && stored.review_factor <= 1_000_000 ? stored.review_factor : null
  const firstSeason = stored.first_season
  const periods = periodsOf(Array.isArray(stored.periods) ? stored.periods.filter((kind): kind is string => typeof kind === 'string') : [])
  return {
    board_id: boardId,
    name: typeof stored.name === 'string' && stored.name !== '' ? stored.name : boardId,
    order: stored.order === 'asc' ? 'asc' : 'desc',
    operator: BOARD_OPERATORS.find(operator => operator === stored.operator) ?? 'best',
    periods,
    periods_since: periodsSinceOf(stored.periods_since, periods),
    score_min: safeScore(stored.score_min),
    score_max: safeScore(stored.score_max),
    review_above: safeScore(stored.review_above),
    review_below: safeScore(stored.review_below),
    review_factor: factor,
    ...displayFromStored(stored),
    archived: stored.archived === true,
    gamejolt_id: storedGamejoltId(stored.gamejolt_id, boardId),
    created_at: typeof stored.created_at === 'string' ? stored.created_at : '',
    first_season: typeof firstSeason === 'number' && Number.isSafeInteger(firstSeason) && firstSeason >= 1 ? firstSeason : 1
  }
}

/** A board's settings as stored: the id is the field's name. */
export function storedBoard ({ board_id: id, gamejolt_id: gamejoltId, ...settings }: NamedBoard): string {
  // The table id is kept only when an operator set one: the made one follows from the id.
  return JSON.stringify(gamejoltId === gamejoltIdOf(id) ? settings : { ...settings, gamejolt_id: gamejoltId })
}

/**
 * What the board scripts check a named board by (the field `board:<id>` of
 * the game's record, docs/decisions/0070-named-boards-one-game-many-boards-in-its.md): its order, operator and state.
 */
export function boardCheck (board: Pick<NamedBoard, 'order' | 'operator' | 'archived'>): string {
  return `${board.order} ${board.operator} ${board.archived ? 'archived' : 'live'}`
}

/**
 * What a board script checks the board its keys were chosen by against
 * (moved(), lua/includes/board-prelude.lua): the game's order for its own
 * board; '<order> <operator> <state> <board id>' for a named one.
 */
export function boardChosenBy (board: Board): string {
  return board.named === undefined ? board.order : `${boardCheck(board)} ${board.board_id}`
}

/** What create and update answer besides success: the game or board is gone, the id is taken, the cap is reached, the board has entries. */
export type BoardWriteRefusal = 'no_game' | 'no_board' | 'exists' | 'full' | 'has_entries'

/** How often a write is made again after the game's season or the board changed under it. */
const ATTEMPTS = 3

export function createBoardStore (redis: Redis, cache?: RecordCache) {
  const createScript = defineScript<number>(redis, 'boardCreate', CREATE_BOARD, { writes: true })
  const updateScript = defineScript<number>(redis, 'boardUpdate', UPDATE_BOARD, { writes: true })
  const deleteScript = defineScript<number>(redis, 'boardDelete', DELETE_BOARD, { writes: true })

  /** The game's current season, read afresh (the board scripts check it is still the one). */
  async function seasonOf (gameId: string): Promise<number> {
    const text = await redis.hget(keys.game(gameId), 'season')
    return /^[1-9]\d{0,8}$/.test(text ?? '') ? Number(text) : 1
  }

  const usageOf = (gameId: string, boardId: string, season: number): string => keys.usage(gameId, boardScopes.named(boardId) + boardScopes.season(season))

  return {
    /** The game's named boards by id (from the cache unless `fresh`), in id order. */
    async boards (gameId: string, { fresh = false } = {}): Promise<Map<string, NamedBoard>> {
      const cached = fresh ? undefined : cache?.get<Map<string, NamedBoard>>('boards', gameId)
      if (cached !== undefined) return cached
      const stamp = cache?.stamp() ?? 0
      const stored = await redis.hgetall(keys.boards(gameId))
      const boards = new Map(Object.keys(stored).sort().map(boardId => [boardId, boardFromStored(boardId, stored[boardId] as string)]))
      cache?.set('boards', gameId, boards, stamp)
      return boards
    },

    /** One board and its stored text, read afresh (what an update is made from). */
    async board (gameId: string, boardId: string): Promise<{ board: NamedBoard, stored: string } | null> {
      const stored = await redis.hget(keys.boards(gameId), boardId)
      return stored === null ? null : { board: boardFromStored(boardId, stored), stored }
    },

    /** Adds the board, its first season the game's current one; the stored board, or why not. */
    async create (gameId: string, board: Omit<NamedBoard, 'first_season'>): Promise<NamedBoard | BoardWriteRefusal> {
      for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
        const made = { ...board, first_season: await seasonOf(gameId) }
        const created = await changeRecord(redis, cache, 'boards', gameId, async () =>
          await createScript([keys.game(gameId), keys.boards(gameId), usageOf(gameId, board.board_id, made.first_season)], [board.board_id, storedBoard(made), MAX_BOARDS, made.first_season, boardCheck(made)]))
        if (created === 1) return made
        if (created === 0) return 'no_game'
        if (created === -1) return 'exists'
        if (created === -2) return 'full'
      }
      throw new Error(`the season of game ${gameId} kept changing`)
    },

    /**
     * Replaces the board's settings with `change(board)`'s, made from the
     * stored ones; a change of order or operator only while the board is
     * empty. Made again from fresh settings when another write came between.
     */
    async update (gameId: string, boardId: string, change: (board: NamedBoard) => NamedBoard): Promise<{ before: NamedBoard, after: NamedBoard } | BoardWriteRefusal> {
      for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
        const current = await this.board(gameId, boardId)
        if (current === null) return 'no_board'
        const after = change(current.board)
        const ruleChanged = after.order !== current.board.order || after.operator !== current.board.operator
        const season = await seasonOf(gameId)
        const updated = await changeRecord(redis, cache, 'boards', gameId, async () =>
          await updateScript([keys.game(gameId), keys.boards(gameId), usageOf(gameId, boardId, season)], [boardId, current.stored, storedBoard(after), ruleChanged ? '1' : '0', season, boardCheck(after)]))
        if (updated === 1) return { before: current.board, after }
        if (updated === 0) return 'no_board'
        if (updated === -1) return 'has_entries'
      }
      throw new Error(`board ${boardId} of game ${gameId} kept changing`)
    },

    /**
     * Removes the board from the game's boards (no request finds it after
     * this), then its keys under every scope given (its seasons and period
     * boards), a pipeline per scope. False when there was no such board.
     */
    async remove (gameId: string, boardId: string, scopes: string[]): Promise<boolean> {
      const removed = await changeRecord(redis, cache, 'boards', gameId, async () => await deleteScript([keys.game(gameId), keys.boards(gameId), keys.boardsVersion(gameId)], [boardId]))
      if (removed === 0) return false
      for (const scope of scopes) {
        await readPipeline(redis, pipeline => {
          pipeline.unlink(keys.board(gameId, scope), keys.usage(gameId, scope))
          for (let bucket = 0; bucket < ENTRY_BUCKETS; bucket++) {
            pipeline.unlink(keys.entriesBucket(gameId, bucket, scope), keys.metaBucket(gameId, bucket, scope), keys.entryRunBucket(gameId, bucket, scope), keys.gamejoltTextBucket(gameId, bucket, scope))
          }
        })
      }
      return true
    }
  }
}

export type BoardStore = ReturnType<typeof createBoardStore>
