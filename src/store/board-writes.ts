import { ApiError, fail } from '../errors.js'
import { TIME_DIGITS, boardScopes, keys } from './keys.js'
import { luaScript, defineScript } from './script-loader.js'
import { definePackedScript, type Limits } from './limits.js'
import { fullSubmitCall, manySubmitCall, plainSubmitCall, submitResultOf, type GamejoltText, type ScoreRun } from './submit-call.js'
import { child, metrics } from '../lib/metrics.js'
import { currentPeriod, periodExpiry } from './board-choice.js'
import { NO_BOARDS, boardOf, noSuchBoard, type NamedBoard } from '../rules/boards.js'
import { boardChosenBy } from './named-boards.js'
import type { Period } from '../rules/periods.js'
import { OUTBOX_MAX } from './events.js'
import { boardScoreOf, type ImportedEntry, type ImportOutcome, type Signed, type SubmitResult } from './board-format.js'
import type { GameRecord } from '../rules/games.js'
import { AGAIN, LIVE_TOP, MAX_TOTAL, MOVED, REVIEW_DECIDED_KEPT, REVIEW_QUEUE_MAX, untilSettled, type BoardContext } from './board-context.js'

const SUBMIT_CONSTANTS = { TIME_DIGITS, REVIEW_QUEUE_MAX, REVIEW_DECIDED_KEPT, OUTBOX_MAX, LIVE_TOP, MAX_TOTAL }
const SUBMIT = luaScript('submit', SUBMIT_CONSTANTS)
const SUBMIT_PLAIN = luaScript('submit-plain', { TIME_DIGITS, LIVE_TOP })
/** Several boards' scores in one call: submit.lua's work once per board (lua/includes/submit-board.lua). */
const SUBMIT_MANY = luaScript('submit-many', SUBMIT_CONSTANTS)
const IMPORT_ENTRIES = luaScript('import-entries')
/** The plain submit's answer for a game that needs the full one (lua/submit.lua). */
const FULL = 'full'
/**
 * How long a game whose plain submit answered FULL is sent the full script
 * straight away: its webhooks are not in its cached record, and a review
 * rule or runs set on another instance reach this one's cache within
 * MAX_AGE_MS (store/cache.ts), sooner by its invalidation.
 */
const FULL_SCRIPT_FOR_MS = 60_000

/**
 * Scores stored: a submit (one board, or several in one call), the
 * approval of a held score, an import. Each is one script call, chosen
 * again when the script finds the game's settings moved.
 */
export function createBoardWrites ({ redis, now, clock, refreshed, freshBoards, activity }: BoardContext) {
  // A submit counts its rate limits in the same call, packed with the rest (store/limits.ts).
  const submitScript = definePackedScript<Array<string | number>>(redis, 'rankSubmit', SUBMIT, { writes: true })
  const manyScript = definePackedScript<Array<string | number | Array<string | number>>>(redis, 'rankSubmitMany', SUBMIT_MANY, { writes: true })
  const plainSubmitScript = definePackedScript<Array<string | number>>(redis, 'rankSubmitPlain', SUBMIT_PLAIN, { writes: true })
  const importScript = defineScript<string[]>(redis, 'rankImportEntries', IMPORT_ENTRIES, { writes: true })

  interface Storing {
    player: string
    score: number
    meta: string | undefined
    signed?: Signed
    limits?: Limits
    /** A held score to approve: its id, the decision's note, when it was submitted (ms) and in which season. */
    approve?: { id: string, note: string, at: number, season: number }
    /** The run the score comes from (docs/interface.md#runs), and for submit-run the API key it must have been started with. */
    run?: ScoreRun
    /** A named board (docs/decisions/0070-named-boards-one-game-many-boards-in-its.md): its settings as the request found them; none: the game's own board. */
    board?: NamedBoard
    /** Whether the standing needs the board's visible total (submit-self answers it); the plain script counts it only then. */
    total?: boolean
    /** Game Jolt's text fields, kept beside the best (either script writes them). */
    text?: GamejoltText
  }

  /** Games sent the full submit script until the time kept (FULL_SCRIPT_FOR_MS). */
  const fullScriptUntil = new Map<string, number>()
  /**
   * Whether a submit can take the plain script (lua/submit-plain.lua): a score
   * with no run and no approval, to a game with no periods, review rules or
   * runs as far as its record cached here says. The script checks the rest.
   */
  function takesPlainScript (game: GameRecord, { approve, run, board }: Storing): boolean {
    if (approve !== undefined || run !== undefined || board !== undefined || game.periods.length > 0 || game.runs !== 'off') return false
    if (game.review_above !== null || game.review_below !== null || game.review_factor !== null) return false
    const until = fullScriptUntil.get(game.game_id)
    if (until === undefined) return true
    if (until > Date.now()) return false
    fullScriptUntil.delete(game.game_id)
    return true
  }

  /** The submit script: a submit, or the approval of a held score (see submit and approveHeld). */
  async function storeScore (game: GameRecord, storing: Storing): Promise<SubmitResult> {
    const { player, score, meta, signed, approve, run, text } = storing
    let named = storing.board
    let instant = approve?.at
    let periods: Period[] = []
    // Counted by the first call only (store/limits.ts: limits counted are not counted again).
    const limits = storing.limits
    const reply = await untilSettled(game.game_id, async () => {
      const at = instant ?? now()
      // A named board is stored by its own rules, under its own scope.
      const board = boardOf(game, named)
      const view = board.rules
      // An approved score goes only to the period boards of its moment that are still kept.
      periods = view.periods.map(kind => currentPeriod(view, kind, at)).filter(period => approve === undefined || periodExpiry(view, period) > now())
      const season = approve?.season ?? game.season
      const gameId = game.game_id
      // lua/submit.lua's call, built only for a submit the plain script does not take.
      const full = async (): Promise<Array<string | number>> => {
        const submit = { player, score, meta, signed, season, at: clock === undefined && approve === undefined ? '' as const : at, periods, approve, run, text }
        return await submitScript(counters => fullSubmitCall(game, board, submit, counters), limits)
      }
      let reply = takesPlainScript(game, storing)
        ? await plainSubmitScript(counters => plainSubmitCall(game, { player, score, meta, signed, at: clock === undefined ? undefined : at, total: storing.total ?? true, text }, counters), limits)
        : await full()
      if (reply[0] === FULL) {
        fullScriptUntil.set(gameId, Date.now() + FULL_SCRIPT_FOR_MS)
        reply = await full()
      }
      if (reply[0] !== MOVED && reply[0] !== 'period') return reply
      // The game's order or season changed, or the Redis clock is in other periods than ours: choose again.
      if (reply[0] === MOVED) {
        game = await refreshed(game.game_id)
        if (named !== undefined) {
          const boardId = named.board_id
          named = (await freshBoards(game.game_id)).get(boardId)
          if (named === undefined) throw noSuchBoard(boardId)
        }
      } else {
        instant = Number(reply[1])
      }
      return AGAIN
    })
    if (approve === undefined) countSubmit(game, player, signed, reply)
    return submitResultOf(game, reply, periods)
  }

  /**
   * A submit's score counted in the metrics (one per board) and, when it was
   * taken or held, in the game's activity (once per request: `activityToo`);
   * a replay or an approval is not. Returns whether it counted in the activity.
   */
  function countSubmit (game: GameRecord, player: string, signed: Signed | undefined, reply: Array<string | number>, activityToo = true): boolean {
    const [answered, improved] = reply
    const outcome = answered === 'held-again' ? 'held' : answered
    if (!['ok', 'replay', 'held'].includes(outcome as string)) return false
    child(metrics.submits, signed === undefined ? 'session' : 'api_key', answered === 'replay' || answered === 'held-again' ? 'replay' : outcome === 'held' ? 'held' : improved === 1 ? 'improved' : 'unchanged').inc()
    const counts = answered === 'ok' || answered === 'held'
    if (counts && activityToo) activity.count(game.game_id, player, 'submissions', 1, now())
    return counts
  }

  return {
    /** Forgets which games this process sends the full submit script, one or every game (their record changed). */
    forgetScriptChoice (gameId?: string): void {
      if (gameId === undefined) fullScriptUntil.clear()
      else fullScriptUntil.delete(gameId)
    },

    /**
     * One atomic script call: replay and deletion checks (signed submits),
     * the game's review rules, its caps, compare, store, rank, count, on the
     * current season and on each current period board. A replay answers the
     * current standing with improved false, and so does a held score, with
     * `held`; a refusal is expired_ts or quota_exceeded, and stores nothing.
     * `limits` are counted first, in the same call: over one, nothing is
     * stored, their counts are left in them and LimitReached is thrown (the
     * handler answers rate_limited).
     */
    async submit (game: GameRecord, player: string, score: number, meta: string | undefined, { signed, limits, run, board, total, text }: { signed?: Signed, limits?: Limits, run?: ScoreRun, board?: NamedBoard, total?: boolean, text?: GamejoltText } = {}): Promise<SubmitResult> {
      return await storeScore(game, { player, score, meta, signed, limits, run, board, total, text })
    },

    /**
     * One request's scores for several boards (the game's own: board
     * undefined), in one script call (lua/submit-many.lua): nothing is
     * written unless every board is still as chosen; then each board takes
     * or refuses its score on its own, as a submit to it alone would. Each
     * board's answer is its standing or its refusal (an ApiError), in the
     * order given. A board deleted while the request was on its way is
     * refused (invalid_param); the others are stored.
     */
    async submitMany (game: GameRecord, player: string, scores: Array<{ board: NamedBoard | undefined, score: number }>, meta: string | undefined, { signed, limits }: { signed?: Signed, limits?: Limits } = {}): Promise<Array<SubmitResult | ApiError>> {
      const answers: Array<SubmitResult | ApiError | undefined> = scores.map(() => undefined)
      let pending = scores.map((score, index) => ({ ...score, index }))
      let instant: number | undefined
      await untilSettled(game.game_id, async () => {
        const at = instant ?? now()
        const boards = pending.map(({ board, score, index }) => {
          const chosen = boardOf(game, board)
          return { board: chosen, score, index, periods: chosen.periods.map(kind => currentPeriod(chosen.rules, kind, at)) }
        })
        const submit = { player, meta, signed, at: clock === undefined && instant === undefined ? '' as const : at }
        const reply = await manyScript(counters => manySubmitCall(game, boards, submit, counters), limits)
        if (reply[0] === 'boards') {
          let counted = false
          boards.forEach(({ index, periods }, i) => {
            const boardReply = reply[i + 1] as Array<string | number>
            counted = countSubmit(game, player, signed, boardReply, !counted) || counted
            try {
              answers[index] = submitResultOf(game, boardReply, periods)
            } catch (error) {
              if (!(error instanceof ApiError)) throw error
              answers[index] = error
            }
          })
          return true
        }
        if (reply[0] === MOVED) {
          // The game's or a board's settings changed: choose again; a board gone since is refused, the others go on.
          game = await refreshed(game.game_id)
          const fresh = pending.some(({ board }) => board !== undefined) ? await freshBoards(game.game_id) : NO_BOARDS
          pending = pending.flatMap(item => {
            if (item.board === undefined) return [item]
            const board = fresh.get(item.board.board_id)
            if (board === undefined) {
              answers[item.index] = noSuchBoard(item.board.board_id)
              return []
            }
            return [{ ...item, board }]
          })
        } else {
          instant = Number(reply[1])
        }
        // Every board left was deleted since: nothing more to send.
        return pending.length === 0 || AGAIN
      })
      return answers as Array<SubmitResult | ApiError>
    },

    /**
     * Applies a held score as of the moment it was submitted (its time
     * breaks ties): on the season it was submitted in and on the period
     * boards of that moment still kept, and marks it approved, in one
     * script call. not_found when it is no longer pending.
     */
    async approveHeld (game: GameRecord, held: { id: string, player: string, score: number, meta: string | undefined, submittedAt: number, season: number, boardId: string | null }, note: string): Promise<SubmitResult> {
      // A named board's held score lands on that board, with its settings of now (an archived one takes it no more).
      const board = held.boardId === null ? undefined : (await freshBoards(game.game_id)).get(held.boardId) ?? fail('not_found', `The board it was held on ("${held.boardId}") was deleted: the score can only be rejected.`)
      return await storeScore(game, { player: held.player, score: held.score, meta: held.meta, approve: { id: held.id, note, at: held.submittedAt, season: held.season }, board })
    },

    /**
     * Stores a batch of entries from another system in the current season,
     * in one script call: best-only, each with the time it was achieved (so
     * ties break as they did there), within the game's caps. Returns each
     * entry's outcome, and the season they went to.
     */
    async importEntries (game: GameRecord, batch: ImportedEntry[], named?: NamedBoard): Promise<{ season: number, outcomes: ImportOutcome[] }> {
      return await untilSettled(game.game_id, async () => {
        const gameId = game.game_id
        // A named board's entries go under its scope, in its order, checked by its settings (lua/import-entries.lua).
        const board = boardOf(game, named)
        const order = board.order
        const scope = boardScopes.of(board) + boardScopes.season(game.season)
        const reply = await importScript(
          [keys.game(gameId), keys.board(gameId, scope), keys.hiddenPlayers(gameId), keys.boardHiddenUsers(gameId), keys.usage(gameId, scope), keys.live(gameId), keys.boardsVersion(gameId),
            ...batch.flatMap(({ player }) => [keys.entries(gameId, player, scope), keys.meta(gameId, player, scope)])],
          [boardChosenBy(board), String(game.season), game.max_entries, game.max_meta_bytes,
            ...batch.flatMap(({ player, score, ms, meta }) => [player, String(score), boardScoreOf(score, order), String(ms).padStart(TIME_DIGITS, '0'), meta ?? '', meta === undefined ? '0' : '1'])])
        if (reply[0] !== MOVED) return { season: game.season, outcomes: reply as ImportOutcome[] }
        game = await refreshed(game.game_id)
        if (named !== undefined) named = (await freshBoards(game.game_id)).get(named.board_id) ?? fail('not_found', `The board "${named.board_id}" was deleted during the import.`)
        return AGAIN
      })
    }
  }
}
