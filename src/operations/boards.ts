import { fail } from '../errors.js'
import { AROUND_DEFAULT } from '../rules/fields.js'
import { parsePlayerName } from '../rules/player-name.js'
import type { Leaderboard } from '../store/leaderboard.js'
import type { BoardEntry, ImportedEntry, ListPlace, ListedEntry } from '../store/board-format.js'
import { ImportTooLarge, exportHeader, exportLines, importEntryOf, type ImportLine, type RefusedLine } from './import-export.js'
import { decodeCursor, encodeCursor } from '../lib/cursor.js'
import { boardFields } from '../store/board-fields.js'
import { answeredBoard } from '../rules/boards.js'
import { BoardExport, EXPORT_PAGE, ErasureCounts, IMPORT_BATCH, IMPORT_ERRORS_LISTED, ImportReport, ListPage } from './answers.js'
import { OperationContext } from './context.js'
import { cursors, readInput, schemas } from './input.js'

/** Board entries: listing, around, live top, hiding and deleting, erasing a player name, export and import. */

export function boardsOperations ({ leaderboard, audit, eraseFromEveryGame, chooseBoard, existingGame }: OperationContext) {
  return {
    /**
   * A board's entries, hidden ones included and marked (rank null), with
   * their meta: the whole board in board order, or the players whose names
   * begin with `prefix`.
   */
    async listEntries (gameId: string, input?: unknown): Promise<ListPage<ListedEntry> & { game_id: string, total: number }> {
      const query = readInput(schemas.listEntries, input)
      const game = await existingGame(gameId)
      const { board } = await chooseBoard(game, query)
      const fields = await boardFields(leaderboard, game, board)
      const sameBoard = (scope: string): void => {
        if (scope !== board.scope) fail('invalid_param', 'Parameter "cursor" is not valid: the board it was made on has changed since (a season closed or a period ended); list it again from the top, or name the board (season_id, period_id).')
      }
      const limit = query.limit ?? 50
      if (query.prefix !== undefined) {
        const place = query.cursor === undefined ? null : decodeCursor(cursors.search, query.cursor)
        if (place !== null) sameBoard(place.b)
        const { total, items, next } = await leaderboard.entriesMatching(game, board, query.prefix, place === null ? null : { bucket: place.n, after: place.a }, limit)
        return { game_id: game.game_id, ...fields, total, items, next_cursor: next === null ? null : encodeCursor({ k: 'search', b: board.scope, n: next.bucket, a: next.after }) }
      }
      const place = query.cursor === undefined ? null : decodeCursor(cursors.board, query.cursor)
      if (place !== null) sameBoard(place.b)
      const { total, items, next } = await leaderboard.entriesPage(game, board, place === null ? null : { visibleFrom: place.v, lastVisible: place.a, lastScore: place.s, lastMember: place.m }, limit)
      return {
        game_id: game.game_id,
        ...fields,
        total,
        items,
        next_cursor: next === null ? null : encodeCursor({ k: 'board', b: board.scope, v: next.visibleFrom, a: next.lastVisible, s: next.lastScore, m: next.lastMember })
      }
    },

    /** A player and the entries around them on a board, as action=around answers. */
    async around (gameId: string, input?: unknown) {
      const query = readInput(schemas.around, input)
      const game = await existingGame(gameId)
      const player = parsePlayerName(query.player_name)
      const chosen = await chooseBoard(game, query)
      const { player: standing, total, items, board } = await leaderboard.around(game, chosen, player, query.before ?? AROUND_DEFAULT, query.after ?? AROUND_DEFAULT)
      return { game_id: game.game_id, total, player: standing, items, ...await boardFields(leaderboard, game, board) }
    },

    /** What a live stream of a board's top begins with (the route streams it: plugins/app/live.ts). */
    async liveTop (gameId: string, input?: unknown) {
      const query = readInput(schemas.liveTop, input)
      const game = await existingGame(gameId)
      const chosen = await chooseBoard(game, query)
      const limit = query.limit ?? 20
      const { total, items, board } = await leaderboard.top(game, chosen, 0, limit)
      return { game, chosen, limit, first: { total, items }, board, fields: await boardFields(leaderboard, game, board) }
    },

    /** The player's entry on a board: the game's own, or the named board `board`. */
    async player (gameId: string, player: string, input?: unknown): Promise<BoardEntry> {
      const query = readInput(schemas.playerEntry, input ?? {})
      const game = await existingGame(gameId)
      const { board } = await chooseBoard(game, query)
      return await leaderboard.entry(game, player, board.named) ?? fail('not_found', 'No such player on this board.')
    },

    /** Hides or shows the player on every board of the game (named ones too); the answer is their entry on the board named (`board`: the game's own by default), which they must have. */
    async setPlayer (gameId: string, player: string, input: unknown): Promise<BoardEntry> {
      const body = readInput(schemas.setPlayer, input)
      const game = await existingGame(gameId)
      const { board } = await chooseBoard(game, body)
      const before = await leaderboard.entry(game, player, board.named) ?? fail('not_found', 'No such player on this board.')
      await leaderboard.setVisibility(game, player, { boardHidden: body.hidden })
      const after = await leaderboard.entry(game, player, board.named) ?? fail('not_found', 'No such player on this board.')
      await audit({ action: body.hidden ? 'player.hide' : 'player.show', game_id: game.game_id, target: player, before, after })
      return after
    },

    async deletePlayer (gameId: string, player: string, input?: unknown): Promise<Record<string, never>> {
      readInput(schemas.none, input)
      const game = await existingGame(gameId)
      const before = await leaderboard.entry(game, player)
      if (!await leaderboard.deleteEntry(game, player)) fail('not_found', 'No such player on this game\'s boards.')
      await audit({ action: 'player.delete', game_id: game.game_id, target: player, before, after: null })
      return {}
    },

    /** Erases a player name (an API-key player) from every game: entries on every board, meta, held scores. Idempotent; audited without the name. */
    async erasePlayer (player: string, input?: unknown): Promise<ErasureCounts> {
      readInput(schemas.none, input)
      try {
        parsePlayerName(player)
      } catch {
        fail('invalid_param', 'Parameter "player_name" is not valid: 1 to 30 characters, as a submit takes them.')
      }
      const erased = await eraseFromEveryGame(player, false)
      const counts = { games: erased.games, entries: erased.entries, metas: erased.metas, held: erased.held, achievements: erased.achievements }
      await audit({ action: 'player.erase', game_id: null, target: null, before: null, after: counts })
      return counts
    },

    /**
   * A whole board as a file, in board order, hidden entries marked: the
   * answer's checks are done here (so a bad request is an envelope), and
   * `body` then reads the board EXPORT_PAGE entries at a time as it is
   * sent: memory stays flat and the first bytes leave at once.
   */
    async exportBoard (gameId: string, input?: unknown): Promise<BoardExport> {
      const query = readInput(schemas.exportBoard, input)
      const game = await existingGame(gameId)
      const { board } = await chooseBoard(game, query)
      const format = query.format ?? 'ndjson'
      const label = (board.named === undefined ? '' : `${board.named.board_id}-`) + (board.period !== undefined ? `${board.period.kind}-${board.period.id}` : `season-${board.seasonId ?? game.season}`)
      async function * body (): AsyncGenerator<string> {
        yield exportHeader(format)
        let place: ListPlace | null = null
        do {
          const page: Awaited<ReturnType<Leaderboard['entriesPage']>> = await leaderboard.entriesPage(game, board, place, EXPORT_PAGE)
          yield exportLines(format, page.items)
          place = page.next
        } while (place !== null)
      }
      return {
        contentType: format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8',
        filename: `${game.game_id}-${label}.${format === 'csv' ? 'csv' : 'ndjson'}`,
        body: body()
      }
    },

    /**
   * Moves a board in from another system: NDJSON lines (player_name,
   * score, achieved_at, meta) read as they arrive, IMPORT_BATCH at a time,
   * each batch one script call on the current season, best-only with the
   * times kept (store/lua/import-entries.lua). Idempotent: the same file
   * again changes nothing. Lines refused are counted, the first
   * IMPORT_ERRORS_LISTED listed with why.
   */
    async importBoard (gameId: string, lines: AsyncIterable<ImportLine>, input?: unknown): Promise<ImportReport> {
      const query = readInput(schemas.importBoard, input ?? {})
      const game = await existingGame(gameId)
      // A named board (board=): its own score bounds and operator; its current season is the game's.
      const { board: { named } } = await chooseBoard(game, { board: query.board })
      const bounds = named ?? game
      const now = Date.now()
      const report: ImportReport = { game_id: game.game_id, ...answeredBoard(named), season_id: game.season, lines: 0, imported: 0, improved: 0, unchanged: 0, refused: 0, errors: [] }
      const refuse = (refused: RefusedLine): void => {
        report.refused++
        if (report.errors.length < IMPORT_ERRORS_LISTED) report.errors.push(refused)
      }
      // Recorded whatever happens once a line was read: an import that breaks off (the client
      // went, Redis failed) has still stored what it flushed, and says so (`complete: false`).
      const recordImport = async (complete: boolean): Promise<void> => {
        const { errors: _errors, ...counts } = report
        await audit({ action: 'board.import', game_id: game.game_id, target: `${named === undefined ? '' : `board ${named.board_id} `}season ${report.season_id}`, before: null, after: { ...counts, complete } })
      }
      let batch: Array<{ line: number, entry: ImportedEntry }> = []
      const flush = async (): Promise<void> => {
        if (batch.length === 0) return
        const { season, outcomes } = await leaderboard.importEntries(game, batch.map(one => one.entry), named)
        report.season_id = season
        outcomes.forEach((outcome, i) => {
          const line = batch[i]?.line ?? 0
          if (outcome === 'new') report.imported++
          else if (outcome === 'improved') report.improved++
          else if (outcome === 'unchanged') report.unchanged++
          else refuse({ line, error: 'quota_exceeded', message: `Line ${line}: ${outcome === 'full_entries' ? `the board is full (max_entries ${game.max_entries})` : `the meta storage is full (max_meta_bytes ${game.max_meta_bytes})`}.` })
        })
        batch = []
      }
      let complete = false
      try {
        for await (const line of lines) {
          if (!line.tooLong && line.notUtf8 !== true && line.text.trim() === '') continue
          report.lines++
          const entry = importEntryOf(line, now)
          if ('error' in entry) { refuse(entry); continue }
          const outside = (bounds.score_min !== null && entry.score < bounds.score_min) || (bounds.score_max !== null && entry.score > bounds.score_max)
          if (outside) { refuse({ line: line.number, error: 'score_out_of_range', message: `Line ${line.number}: the score is outside the ${named === undefined ? 'game' : 'board'}'s score_min to score_max.` }); continue }
          batch.push({ line: line.number, entry })
          if (batch.length === IMPORT_BATCH) await flush()
        }
        await flush()
        complete = true
      } catch (error) {
        // What was stored before the body broke off is reported in the message; the same file again finishes it.
        if (error instanceof ImportTooLarge) {
          await flush()
          fail('payload_too_large', `The import passed IMPORT_MAX_BYTES after line ${error.lines}; the lines before it were applied (${report.imported} new, ${report.improved} improved, ${report.unchanged} unchanged, ${report.refused} refused). Split the file: importing the same lines again changes nothing.`)
        }
        throw error
      } finally {
        if (report.lines > 0) {
          // On a failure the request's own error is the one answered; the record is still tried.
          await recordImport(complete).catch((auditError: unknown) => { if (complete) throw auditError })
        }
      }
      return report
    }
  }
}
