import type { RedisClient as Redis } from './redis-client.js'
import { readPipeline } from './redis-client.js'
import { ApiError, fail } from '../errors.js'
import { TIME_DIGITS, boardScopes, keys, reviewKeys } from './keys.js'
import { TS_TOLERANCE_S } from '../rules/fields.js'
import { defineScript, luaScript, scriptSender } from './script-loader.js'
import { defineLimitedScript, packedLimits } from './limits.js'
import { plainSubmitCall, seenUntil, type PlainSubmit } from './submit-call.js'
import type { Limits } from './limits.js'
import { child, metrics } from '../lib/metrics.js'
import { chooseAnyBoard, currentPeriod, everyScopeOf, periodExpiry, type BoardRef, type ChosenBoard } from './board-choice.js'
import { DEFAULT_BOARD, NO_BOARDS, gameWithBoard, noSuchBoard, type BoardOperator, type Boards, type NamedBoard } from '../rules/boards.js'
import { boardCheck } from './named-boards.js'
import { type BoardChoice } from '../rules/fields.js'
import type { Period } from '../rules/periods.js'
import { OUTBOX_MAX } from './events.js'
import { invalidRun } from './runs.js'
import type { Activity } from './activity.js'
import { createBoardListing } from './board-listing.js'
import { TopCache } from './top-cache.js'
import { Cluster } from 'ioredis'
import { boardScoreOf, isoFromMs, rankOrNull, scoreOf, topPercent, type BoardEntry, type ErasedFromGame, type ImportedEntry, type ImportOutcome, type Neighbourhood, type PlayerStanding, type Signed, type SubmitResult } from './board-format.js'
import { type BoardItem, type Season, type PeriodStanding } from '../../sdk/answers.js'
import type { BoardOrder, GameRecord } from '../rules/games.js'
import type { PeriodKind } from '../rules/periods.js'

/** The most entries a live board shows: a change below it tells no live board. */
export const LIVE_TOP = 100

/** Most scores a game holds for review at once; a score to hold past it is quota_exceeded. */
export const REVIEW_QUEUE_MAX = 10_000
/** The largest total a `sum` board keeps (2^53 - 1): a submit past it is refused, a guest's claim clamps to it. */
const MAX_TOTAL = Number.MAX_SAFE_INTEGER
/** How many decided held scores a game remembers (the oldest are forgotten). */
export const REVIEW_DECIDED_KEPT = 10_000
const SUBMIT_CONSTANTS = { TIME_DIGITS, REVIEW_QUEUE_MAX, REVIEW_DECIDED_KEPT, OUTBOX_MAX, LIVE_TOP, MAX_TOTAL }
const SUBMIT = luaScript('submit', SUBMIT_CONSTANTS)
const SUBMIT_PLAIN = luaScript('submit-plain', { TIME_DIGITS, LIVE_TOP })
/** Several boards' scores in one call: submit.lua's work once per board (lua/includes/submit-board.lua). */
const SUBMIT_MANY = luaScript('submit-many', SUBMIT_CONSTANTS)
const ME = luaScript('me')
const TOP = luaScript('top')
const AROUND = luaScript('around')
const PLAYERS = luaScript('players')
const SET_VISIBILITY = luaScript('set-visibility', { TIME_DIGITS, OUTBOX_MAX })
const ENTRY = luaScript('entry')
const DELETE_ENTRY = luaScript('delete-entry')
const ERASE_PLAYER = luaScript('erase-player')
const PLAYER_KNOWN = luaScript('player-known')
const SEASONS = luaScript('seasons')
const IMPORT_ENTRIES = luaScript('import-entries')
const CLAIM_PLAYER = luaScript('claim-player', { REVIEW_DECIDED_KEPT, MAX_TOTAL })

/** How often a call is chosen again after its script found the game's settings moved on. */
const ATTEMPTS = 3
/** About how many keys a call that walks named boards sends at most (one board with more is sent alone). */
const KEYS_PER_CALL = 2000
const MOVED = 'moved'
/** The plain submit's answer for a game that needs the full one (lua/submit.lua). */
const FULL = 'full'
/**
 * How long a game whose plain submit answered FULL is sent the full script
 * straight away: its webhooks are not in its cached record, and a review
 * rule or runs set on another instance reach this one's cache within
 * MAX_AGE_MS (store/cache.ts), sooner by its invalidation.
 */
const FULL_SCRIPT_FOR_MS = 60_000

export interface LeaderboardOptions {
  /** The game's record read afresh, when a script found the cached one out of date. */
  freshGame: (gameId: string) => Promise<GameRecord | null>
  /** The game's named boards read afresh, when a script found a named board moved (none: no named boards are read). */
  freshBoards?: (gameId: string) => Promise<Boards>
  /** The clock of periods (ms). Given (tests), the scripts take it too, instead of the Redis clock. */
  clock?: () => number
  /** Where submits are counted (store/activity.ts). */
  activity: Pick<Activity, 'count'>
}

export function createLeaderboard (redis: Redis, { freshGame, freshBoards = async () => NO_BOARDS, clock, activity }: LeaderboardOptions) {
  // The high-traffic actions count their rate limits in the same call (store/limits.ts).
  const submitScript = defineLimitedScript<Array<string | number>>(redis, 'rankSubmit', SUBMIT, { writes: true })
  const manyScript = defineLimitedScript<Array<string | number | Array<string | number>>>(redis, 'rankSubmitMany', SUBMIT_MANY, { writes: true })
  const plainSubmitScript = scriptSender<[number[], Array<string | number>?]>(redis, 'rankSubmitPlain', SUBMIT_PLAIN, { writes: true })
  const meScript = defineLimitedScript<[string, string, number, number] | ['moved']>(redis, 'rankMe', ME)
  const topScript = defineLimitedScript<Array<string | number>>(redis, 'rankTop', TOP)
  const aroundScript = defineLimitedScript<Array<string | number>>(redis, 'rankAround', AROUND)
  const playersScript = defineLimitedScript<Array<string | number>>(redis, 'rankPlayers', PLAYERS)
  const visibilityScript = defineScript<number>(redis, 'rankSetVisibility', SET_VISIBILITY, { writes: true })
  const entryScript = defineScript<[string, string, string, number, number, number] | []>(redis, 'rankEntry', ENTRY)
  const deleteScript = defineScript<[number, number]>(redis, 'rankDeleteEntry', DELETE_ENTRY, { writes: true })
  const listing = createBoardListing(redis)
  const importScript = defineScript<string[]>(redis, 'rankImportEntries', IMPORT_ENTRIES, { writes: true })
  const eraseScript = defineScript<[number, number, number, number, number, number]>(redis, 'rankErasePlayer', ERASE_PLAYER, { writes: true })
  const knownScript = defineScript<number>(redis, 'rankPlayerKnown', PLAYER_KNOWN)
  const seasonsScript = defineScript<[number, string, string[]]>(redis, 'rankSeasons', SEASONS)
  const claimScript = defineScript<[number, number, number, number, number]>(redis, 'rankClaimPlayer', CLAIM_PLAYER, { writes: true })
  const now = clock ?? Date.now
  // Top pages kept in this process (store/top-cache.ts): all of them go when
  // the connection to Redis is lost or the cluster's nodes change (a restart
  // or a failover may bring back an older boards version).
  const tops = new TopCache()
  const forgetTops = (): void => { tops.forget() }
  for (const event of redis instanceof Cluster ? ['+node', '-node', 'node error', 'close', 'reconnecting'] : ['close', 'reconnecting', 'end']) redis.on(event, forgetTops)

  async function refreshed (gameId: string): Promise<GameRecord> {
    return await freshGame(gameId) ?? fail('invalid_game')
  }

  /**
   * One board read: the script of the board the request chose (with the
   * request's limits, the first time only), and the board chosen again
   * from the record read afresh when the script found it moved.
   */
  async function onBoard<T> (game: GameRecord, { choice, board }: ChosenBoard, limits: Limits | undefined, read: (game: GameRecord, board: BoardRef, limits: Limits | undefined) => Promise<T | typeof MOVED>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const result = await read(board.named === undefined ? game : gameWithBoard(game, board.named), board, attempt === 1 ? limits : undefined)
      if (result !== MOVED) return result
      if (attempt === ATTEMPTS) throw new Error(`the settings of game ${game.game_id} kept changing`)
      game = await refreshed(game.game_id)
      board = chooseAnyBoard(game, choice, now(), choice.board === undefined ? undefined : (await freshBoards(game.game_id)).get(choice.board))
    }
  }

  /** What a board script checks the board by (moved(), board-prelude.lua): the game's order, or a named board's settings and id. */
  const guard = (game: GameRecord, board: BoardRef): string[] => [board.named === undefined ? game.order : `${boardCheck(board.named)} ${board.named.board_id}`, board.season]

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

  /**
   * A board as the scripts that reach all of a game's boards take it (an
   * operator's hide or delete, an erasure, a guest's claim): its order and
   * operator, and the scopes of every season and period board that may
   * hold entries (everyScopeOf), with the season and the periods that would
   * begin next, in case one begins while the change is on its way.
   */
  interface EveryScope { order: BoardOrder, operator: BoardOperator, boardId: string | undefined, seasons: string[], periods: string[] }

  /** The game's own board, every season and period. */
  function everyBoard (game: GameRecord): EveryScope {
    return { order: game.order, operator: 'best', boardId: undefined, ...everyScopeOf(game, undefined, now()) }
  }

  /**
   * The game's named boards (read afresh), every season and period, in
   * groups of about KEYS_PER_CALL keys: one script call each, after the
   * default board's (docs/decisions/0070-named-boards-one-game-many-boards-in-its.md), so a game with a thousand
   * boards never blocks Redis with one call of a hundred thousand keys.
   */
  async function everyNamedBoard (game: GameRecord): Promise<EveryScope[][]> {
    const groups: EveryScope[][] = []
    let group: EveryScope[] = []
    let keyCount = 0
    for (const named of (await freshBoards(game.game_id)).values()) {
      const board = { order: named.order, operator: named.operator, boardId: named.board_id, ...everyScopeOf(game, named, now()) }
      const boardKeys = 6 * board.seasons.length + 3 * board.periods.length
      if (group.length > 0 && keyCount + boardKeys > KEYS_PER_CALL) {
        groups.push(group)
        group = []
        keyCount = 0
      }
      group.push(board)
      keyCount += boardKeys
    }
    if (group.length > 0) groups.push(group)
    return groups
  }

  /** What the full submit script checks a game's achievements with (lua/includes/achievements.lua): their thresholds, the player's unlocks, their counts. */
  const achievementKeys = (gameId: string, player: string): string[] => [keys.achievementRules(gameId), keys.achieved(gameId, player), keys.achievementCounts(gameId)]

  /** The keys removeEntries (lua/includes/remove-entries.lua) takes: every season's four, then every period's two, of the boards given. */
  function removalKeys (gameId: string, player: string, boards: EveryScope[]): string[] {
    return [
      ...boards.flatMap(board => board.seasons).flatMap(scope => [keys.board(gameId, scope), keys.entries(gameId, player, scope), keys.meta(gameId, player, scope), keys.usage(gameId, scope)]),
      ...boards.flatMap(board => board.periods).flatMap(scope => [keys.board(gameId, scope), keys.entries(gameId, player, scope)])
    ]
  }

  /** The season scopes of the boards given (an entry's run is kept per season). */
  const seasonsOf = (boards: EveryScope[]): string[] => boards.flatMap(board => board.seasons)

  /**
   * Removes the player's entries from the boards given (lua/delete-entry.lua),
   * remembering when, so signed submits made before cannot bring them back.
   * Returns how many boards held one, and how many metas went.
   */
  async function removeFrom (gameId: string, player: string, boards: EveryScope[]): Promise<[number, number]> {
    // Remembered as long as a submit signed before the deletion could still arrive.
    return await deleteScript([keys.hiddenPlayers(gameId), keys.deletedPlayer(gameId, player), keys.live(gameId), keys.game(gameId), keys.boardsVersion(gameId), ...removalKeys(gameId, player, boards)],
      [player, 2 * TS_TOLERANCE_S + 1, seasonsOf(boards).length])
  }

  /**
   * The run a score comes from: `byKey` for API-key mode (a run started with
   * a key), and `key` the API key it must have been started with (submit-run),
   * none for any of the game's keys.
   */
  interface ScoreRun { id: string, byKey: boolean, key?: string }

  /**
   * Forgets the runs the player's entries came from (keys.entryRun) on every
   * season, with whatever else `more` puts on the same pipeline: one round
   * trip, in the game's slot. After the entries' own script: a failure in
   * between leaves a run that names no entry (its ms and score match none).
   */
  async function forgetRuns (gameId: string, seasons: string[], player: string, more?: (pipeline: ReturnType<Redis['pipeline']>) => void): Promise<void> {
    await readPipeline(redis, pipeline => {
      for (const scope of seasons) pipeline.hdel(keys.entryRun(gameId, player, scope), player)
      more?.(pipeline)
    })
  }

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
  }

  /** Games sent the full submit script until the time kept (FULL_SCRIPT_FOR_MS). */
  const fullScriptUntil = new Map<string, number>()
  /**
   * Whether a submit can take the plain script (lua/submit.lua): a score
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

  /** A score by lua/submit-plain.lua: its rate-limit counters counted in the same call (rate_limited when over). */
  async function plainSubmit (game: GameRecord, submit: PlainSubmit, limits: Limits | undefined): Promise<Array<string | number>> {
    const counted = packedLimits(redis, limits)
    const call = plainSubmitCall(game, submit, counted.counters)
    const [counts, reply] = await plainSubmitScript([call.keys.length, ...call.keys, ...call.args])
    counted.settle(counts)
    return reply as Array<string | number>
  }

  /** The submit script: a submit, or the approval of a held score (see submit and approveHeld). */
  async function storeScore (game: GameRecord, storing: Storing): Promise<SubmitResult> {
    const { player, score, meta, signed, approve, run } = storing
    let named = storing.board
    let instant = approve?.at
    let reply: Array<string | number>
    let periods: Period[]
    // Counted by the first call only.
    let limits = storing.limits
    for (let attempt = 1; ;) {
      const at = instant ?? now()
      // A named board is stored as the game with the board's settings, under its own scope.
      const view = named === undefined ? game : gameWithBoard(game, named)
      const prefix = named === undefined ? '' : boardScopes.named(named.board_id)
      // An approved score goes only to the period boards of its moment that are still kept.
      periods = view.periods.map(kind => currentPeriod(view, kind, at)).filter(period => approve === undefined || periodExpiry(view, period) > now())
      const season = approve?.season ?? game.season
      const scope = prefix + boardScopes.season(season)
      const gameId = game.game_id
      const periodKeys = periods.flatMap(period => {
        const periodScope = prefix + boardScopes.period(period.kind, period.id)
        return [keys.board(gameId, periodScope), keys.entries(gameId, player, periodScope)]
      })
      const plainKeys = [keys.game(gameId), keys.board(gameId, scope), keys.entries(gameId, player, scope), keys.meta(gameId, player, scope),
        keys.hiddenPlayers(gameId), keys.boardHiddenUsers(gameId), keys.usage(gameId, scope),
        keys.seenSubmission(gameId, signed?.sign ?? ''), keys.deletedPlayer(gameId, player), keys.live(gameId), keys.boardsVersion(gameId)]
      // A held score of a season closed since goes to that season: '' tells the script it is not the current one.
      const chosenBy = named === undefined ? game.order : `${boardCheck(named)} ${named.board_id}`
      const plainArgs = [chosenBy, season === game.season ? String(season) : '', player, String(score), boardScoreOf(score, view.order), meta ?? '', meta === undefined ? '0' : '1',
        game.max_entries, game.max_meta_bytes, signed?.ts ?? '', seenUntil(signed), clock === undefined && approve === undefined ? '' : at]
      reply = takesPlainScript(game, storing)
        ? await plainSubmit(game, { player, score, meta, signed, at: clock === undefined ? undefined : at, total: storing.total ?? true }, limits)
        : await submitScript(
          [...plainKeys, ...reviewKeys(gameId), keys.reviewSequence(gameId), keys.events(gameId), keys.boards(gameId), ...achievementKeys(gameId, player), ...periodKeys,
            // A submit without a run (every v1 one) sends neither; an approval sends both (its held score may be a run's).
            ...(run === undefined && approve === undefined ? [] : [keys.playerRuns(gameId, player, run?.byKey), keys.entryRun(gameId, player, scope)])],
          [...plainArgs, periods.length, approve?.id ?? '', approve?.note ?? '', season,
            // The run is always sent ('' for none): the rate-limit counters follow the arguments.
            ...periods.flatMap(period => [period.startsAt, period.resetsAt, periodExpiry(view, period), period.kind, period.id]), run?.id ?? '', run?.key ?? ''],
          limits)
      limits = undefined
      if (reply[0] === FULL) {
        fullScriptUntil.set(gameId, Date.now() + FULL_SCRIPT_FOR_MS)
        continue
      }
      if (reply[0] !== MOVED && reply[0] !== 'period') break
      if (attempt++ === ATTEMPTS) throw new Error(`the settings of game ${game.game_id} kept changing`)
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
    }
    if (approve === undefined) countSubmit(game, player, signed, reply)
    return resultOf(game, reply, periods)
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

  /** What the submit script answered for one board: the standing (on it and its `periods`), or the refusal as an ApiError. */
  function resultOf (game: GameRecord, reply: Array<string | number>, periods: Period[]): SubmitResult {
    const [answered, improved, best, , rank, total] = reply
    // A replay of a held submit is answered as held, and counted as a replay.
    const outcome = answered === 'held-again' ? 'held' : answered
    if (outcome === 'stale') fail('expired_ts', 'This submission was signed before its entry was deleted (or accepted before it); sign a new one.')
    if (outcome === 'closed') fail('expired_ts', 'This submission was accepted in a season that has closed since; sign a new one to play in the new season.')
    if (outcome === 'archived') fail('invalid_param', 'Parameter "board" is not valid: that board is archived; it takes no new scores.')
    if (outcome === 'overflow') fail('invalid_score', `The board's total would pass ${MAX_TOTAL}: nothing was stored.`)
    if (outcome === 'full_entries') fail('quota_exceeded', `This game's board is full (max_entries ${game.max_entries}); an operator can raise it.`)
    if (outcome === 'full_meta') fail('quota_exceeded', `This game's meta storage is full (max_meta_bytes ${game.max_meta_bytes}); submit without meta, or ask an operator to raise it.`)
    if (outcome === 'full_review') fail('quota_exceeded', `This game holds ${REVIEW_QUEUE_MAX} scores for review already; an operator must decide some first.`)
    if (outcome === 'run_required') fail('run_required', 'This game takes a score only with the run_id of the run that earned it (action=run-start).')
    if (outcome === 'invalid_run') invalidRun(String(improved))
    if (outcome === 'implausible') {
      fail('implausible_score', improved === 'run_short'
        ? `The run has ${String(best)} s of verified play; this game needs ${game.min_run_seconds} s before a score counts. Nothing was stored.`
        : `The score is more than ${String(best)} s of verified play allow at this game's ${game.max_score_rate ?? 0} per second. Nothing was stored.`)
    }
    if (outcome === 'decided') fail('not_found', String(improved) === 'unknown' ? 'No such held score.' : `That held score is no longer pending: it was ${String(improved)}.`)
    const standings: Partial<Record<PeriodKind, PeriodStanding>> = {}
    periods.forEach((period, i) => {
      const [periodImproved, periodBest, periodRank] = reply.slice(6 + 3 * i, 9 + 3 * i)
      standings[period.kind] = { best_score: periodBest === '' ? null : Number(periodBest), rank: rankOrNull(periodRank as number), improved: periodImproved === 1 }
    })
    // A game with achievements answers the ones this submit unlocked after the periods.
    const unlocked = reply[6 + 3 * periods.length] as unknown as string[] | undefined
    return { improved: improved === 1, bestScore: best === '' ? null : Number(best), rank: rankOrNull(rank as number ?? -1), totalPlayers: total as number ?? 0, periods: standings, held: outcome === 'held', ...(unlocked === undefined || unlocked.length === 0 ? {} : { unlocked }) }
  }

  /**
   * Sets or keeps ('') the player's two hidden flags (`flags`: the game's
   * own, the copy of the user's), then puts the player's entries on the
   * boards given on or off by them (lua/set-visibility.lua).
   */
  async function visibilityCall (game: GameRecord, player: string, boards: EveryScope[], flags: [string, string] = ['', '']): Promise<number> {
    const gameId = game.game_id
    return await visibilityScript(
      [keys.hiddenPlayers(gameId), keys.boardHiddenUsers(gameId), keys.game(gameId), keys.events(gameId), keys.live(gameId), keys.boardsVersion(gameId),
        ...boards.flatMap(board => [...board.seasons, ...board.periods]).flatMap(scope => [keys.board(gameId, scope), keys.entries(gameId, player, scope)])],
      [player, ...flags, ...boards.flatMap(board => [...board.seasons, ...board.periods].map(() => board.order))])
  }

  /** Brings the player's entries on every named board of the game in line with their hidden flags, a group of boards a call. */
  async function namedBoardsFollow (game: GameRecord, player: string): Promise<void> {
    for (const group of await everyNamedBoard(game)) await visibilityCall(game, player, group)
  }

  return {
    /** The clock of periods (ms). */
    now,

    /** Forgets what this process kept of a game whose record changed (its top pages, its choice of submit script), or of every game. */
    gameChanged (gameId?: string): void {
      tops.forget(gameId)
      if (gameId === undefined) fullScriptUntil.clear()
      else fullScriptUntil.delete(gameId)
    },

    ...listing,

    /**
     * The board a request asks for, at this moment; invalid_param for one
     * the game does not have. Reads take what it returns.
     */
    choose (game: GameRecord, choice: BoardChoice, boards: Boards = NO_BOARDS): ChosenBoard {
      return { choice, board: chooseAnyBoard(game, choice, now(), choice.board === undefined ? undefined : boards.get(choice.board)) }
    },

    /**
     * One atomic script call: replay and deletion checks (signed submits),
     * the game's review rules, its caps, compare, store, rank, count, on the
     * current season and on each current period board. A replay answers the
     * current standing with improved false, and so does a held score, with
     * `held`; a refusal is expired_ts or quota_exceeded, and stores nothing.
     * `limits` are counted first, in the same call (rate_limited when over:
     * nothing stored).
     */
    async submit (game: GameRecord, player: string, score: number, meta: string | undefined, { signed, limits, run, board, total }: { signed?: Signed, limits?: Limits, run?: ScoreRun, board?: NamedBoard, total?: boolean } = {}): Promise<SubmitResult> {
      return await storeScore(game, { player, score, meta, signed, limits, run, board, total })
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
      // Counted by the first call only.
      let limitsLeft = limits
      for (let attempt = 1; pending.length > 0; attempt++) {
        const at = instant ?? now()
        const gameId = game.game_id
        const boards = pending.map(({ board, score, index }) => {
          const view = board === undefined ? game : gameWithBoard(game, board)
          const prefix = board === undefined ? '' : boardScopes.named(board.board_id)
          return { board, score, index, view, prefix, scope: prefix + boardScopes.season(game.season), periods: view.periods.map(kind => currentPeriod(view, kind, at)) }
        })
        const reply = await manyScript([
          keys.game(gameId), keys.hiddenPlayers(gameId), keys.boardHiddenUsers(gameId), keys.deletedPlayer(gameId, player), keys.live(gameId), keys.boardsVersion(gameId),
          ...reviewKeys(gameId), keys.reviewSequence(gameId), keys.events(gameId), keys.boards(gameId), ...achievementKeys(gameId, player),
          ...boards.flatMap(({ board, scope, prefix, periods }) => [
            keys.board(gameId, scope), keys.entries(gameId, player, scope), keys.meta(gameId, player, scope), keys.usage(gameId, scope), keys.seenSubmission(gameId, signed?.sign ?? '', board?.board_id ?? DEFAULT_BOARD),
            ...periods.flatMap(period => {
              const periodScope = prefix + boardScopes.period(period.kind, period.id)
              return [keys.board(gameId, periodScope), keys.entries(gameId, player, periodScope)]
            })
          ])
        ], [
          String(game.season), player, meta ?? '', meta === undefined ? '0' : '1', game.max_entries, game.max_meta_bytes,
          signed?.ts ?? '', seenUntil(signed), clock === undefined && instant === undefined ? '' : at, game.season, boards.length,
          ...boards.flatMap(({ board, score, view, periods }) => [
            board === undefined ? game.order : `${boardCheck(board)} ${board.board_id}`, String(score), boardScoreOf(score, view.order), periods.length,
            ...periods.flatMap(period => [period.startsAt, period.resetsAt, periodExpiry(view, period), period.kind, period.id])
          ])
        ], limitsLeft)
        limitsLeft = undefined
        if (reply[0] === 'boards') {
          let counted = false
          boards.forEach(({ index, periods }, i) => {
            const boardReply = reply[i + 1] as Array<string | number>
            counted = countSubmit(game, player, signed, boardReply, !counted) || counted
            try {
              answers[index] = resultOf(game, boardReply, periods)
            } catch (error) {
              if (!(error instanceof ApiError)) throw error
              answers[index] = error
            }
          })
          break
        }
        if (attempt === ATTEMPTS) throw new Error(`the settings of game ${game.game_id} kept changing`)
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
      }
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
     * Sets the game's own hidden flag of a player and/or the game's copy of
     * the user's flag (undefined keeps either), then puts the player's
     * entries on or off every board of the game. Returns false when the
     * player has no entry in the current season.
     */
    async setVisibility (game: GameRecord, player: string, flags: { boardHidden?: boolean, userHidden?: boolean }): Promise<boolean> {
      const flag = (value: boolean | undefined): string => value === undefined ? '' : value ? '1' : '0'
      // The flags change with the game's own board; each group of named boards then follows them (flags kept).
      const found = await visibilityCall(game, player, [everyBoard(game)], [flag(flags.boardHidden), flag(flags.userHidden)]) === 1
      await namedBoardsFollow(game, player)
      return found
    },

    /**
     * The player's entry on a board (the game's own, or `named`) as operators see it: in the current season, or else
     * in the newest closed season that holds one (a player may have played
     * only before a close); null when no season does.
     */
    async entry (game: GameRecord, player: string, named?: NamedBoard): Promise<BoardEntry | null> {
      const gameId = game.game_id
      const prefix = named === undefined ? '' : boardScopes.named(named.board_id)
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
          ...(named === undefined ? {} : { board: named.board_id })
        }
      }
      return null
    },

    /**
     * Stores a batch of entries from another system in the current season,
     * in one script call: best-only, each with the time it was achieved (so
     * ties break as they did there), within the game's caps. Returns each
     * entry's outcome, and the season they went to.
     */
    async importEntries (game: GameRecord, batch: ImportedEntry[], named?: NamedBoard): Promise<{ season: number, outcomes: ImportOutcome[] }> {
      for (let attempt = 1; ; attempt++) {
        const gameId = game.game_id
        // A named board's entries go under its scope, in its order, checked by its settings (lua/import-entries.lua).
        const order = named === undefined ? game.order : named.order
        const scope = (named === undefined ? '' : boardScopes.named(named.board_id)) + boardScopes.season(game.season)
        const reply = await importScript(
          [keys.game(gameId), keys.board(gameId, scope), keys.hiddenPlayers(gameId), keys.boardHiddenUsers(gameId), keys.usage(gameId, scope), keys.live(gameId), keys.boardsVersion(gameId),
            ...batch.flatMap(({ player }) => [keys.entries(gameId, player, scope), keys.meta(gameId, player, scope)])],
          [named === undefined ? game.order : `${boardCheck(named)} ${named.board_id}`, String(game.season), game.max_entries, game.max_meta_bytes,
            ...batch.flatMap(({ player, score, ms, meta }) => [player, String(score), boardScoreOf(score, order), String(ms).padStart(TIME_DIGITS, '0'), meta ?? '', meta === undefined ? '0' : '1'])])
        if (reply[0] !== MOVED) return { season: game.season, outcomes: reply as ImportOutcome[] }
        if (attempt === ATTEMPTS) throw new Error(`the settings of game ${game.game_id} kept changing`)
        game = await refreshed(game.game_id)
        if (named !== undefined) named = (await freshBoards(game.game_id)).get(named.board_id) ?? fail('not_found', `The board "${named.board_id}" was deleted during the import.`)
      }
    },

    /**
     * Erases a person from the game, in one script call: their entries on
     * every board (seasons, periods), meta, hidden flag and held scores; for a
     * user also their rating and play time, with the game's sums corrected.
     */
    async erasePlayer (game: GameRecord, player: string, { user }: { user: boolean }): Promise<ErasedFromGame> {
      const gameId = game.game_id
      const own = everyBoard(game)
      let [entries, metas, held, ratings, playtimeSeconds, achievements] = await eraseScript([
        keys.hiddenPlayers(gameId), keys.boardHiddenUsers(gameId), keys.deletedPlayer(gameId, player), keys.live(gameId), ...reviewKeys(gameId),
        keys.ratings(gameId), keys.ratingStats(gameId), keys.playtime(gameId), keys.game(gameId), keys.boardsVersion(gameId),
        keys.achievements(gameId), keys.achieved(gameId, player), keys.achievementCounts(gameId),
        ...removalKeys(gameId, player, [own])
      ], [player, 2 * TS_TOLERANCE_S + 1, own.seasons.length, user ? '1' : '0'])
      // The named boards' entries, a group at a time, as an operator's delete removes them.
      const named = await everyNamedBoard(game)
      for (const group of named) {
        const [removed, removedMetas] = await removeFrom(gameId, player, group)
        entries += removed
        metas += removedMetas
      }
      // The player's runs go too (docs/interface.md#runs), and their entries' runs: keys of the game's slot, one round trip.
      await forgetRuns(gameId, [...own.seasons, ...named.flatMap(seasonsOf)], player, (pipeline) => {
        pipeline.del(keys.playerRuns(gameId, player), keys.runStarts(gameId, player), keys.playerRuns(gameId, player, true), keys.runStarts(gameId, player, true))
      })
      return { entries, metas, held, ratings, playtimeSeconds, achievements }
    },

    /**
     * A guest's play in this game becomes `user`'s, in one script call
     * (lua/claim-player.lua): the better entry on each board, the rating
     * unless the user rated, the play time added, held scores renamed.
     */
    async claimPlayer (game: GameRecord, guest: string, user: string): Promise<{ boards: number, rated: number, playtimeSeconds: number, held: number }> {
      const gameId = game.game_id
      const claimKeys = [keys.hiddenPlayers(gameId), keys.boardHiddenUsers(gameId), keys.live(gameId), keys.ratings(gameId), keys.ratingStats(gameId), keys.playtime(gameId), ...reviewKeys(gameId), keys.boardsVersion(gameId),
        keys.achievements(gameId), keys.achieved(gameId, guest), keys.achieved(gameId, user), keys.achievementCounts(gameId)]
      const call = async (boards: EveryScope[], final: boolean): Promise<[number, number, number, number, number]> => await claimScript([...claimKeys,
        ...boards.flatMap(board => [
          ...board.seasons.flatMap(scope => [keys.board(gameId, scope), keys.entries(gameId, guest, scope), keys.entries(gameId, user, scope), keys.meta(gameId, guest, scope), keys.meta(gameId, user, scope), keys.usage(gameId, scope)]),
          ...board.periods.flatMap(scope => [keys.board(gameId, scope), keys.entries(gameId, guest, scope), keys.entries(gameId, user, scope)])
        ])
      ], [guest, user, now(), final ? '1' : '0', ...boards.flatMap(board => [board.order, board.operator, board.seasons.length, board.periods.length])])
      // The named boards first, while the guest's hide is still the guest's; the final call moves it, with the rest.
      const named = await everyNamedBoard(game)
      let namedBoards = 0
      for (const group of named) namedBoards += (await call(group, false))[0]
      const own = everyBoard(game)
      const [boards, rated, playtimeSeconds, held, hidden] = await call([own], true)
      // A hide of the guest that landed after the named boards were claimed moved to the user in the final call:
      // the named boards follow it now (the entries they took were shown then).
      if (hidden === 1 && named.length > 0) await namedBoardsFollow(game, user)
      // The guest's entries moved without their runs (an entry's run belongs to the name that played it).
      await forgetRuns(gameId, [...own.seasons, ...named.flatMap(seasonsOf)], guest)
      return { boards: boards + namedBoards, rated, playtimeSeconds, held }
    },

    /** Whether the name is a player's in this game: an entry on any board, hidden, or a held score (a script call per group of boards). */
    async playerKnown (game: GameRecord, player: string): Promise<boolean> {
      const gameId = game.game_id
      const own = everyBoard(game)
      if (await knownScript([keys.hiddenPlayers(gameId), keys.reviewPlayers(gameId), ...[...own.seasons, ...own.periods].map(scope => keys.entries(gameId, player, scope))], [player, '']) === 1) return true
      // The named boards' seasons only: an entry on a period board has one on its season's board too (a submit
      // and an approval write both; a delete, an erasure or a claim takes both). Anyone can make this walk
      // happen (a sign-up's name check), so it stays a key per board and season, KEYS_PER_CALL a call.
      const named = [...(await freshBoards(gameId)).values()]
      const scopes = named.flatMap(board => everyScopeOf(game, board, now()).seasons)
      for (let from = 0; from === 0 || from < scopes.length; from += KEYS_PER_CALL) {
        const known = await knownScript([keys.hiddenPlayers(gameId), keys.reviewPlayers(gameId), ...scopes.slice(from, from + KEYS_PER_CALL).map(scope => keys.entries(gameId, player, scope))],
          // A held score pending on a named board: its field names the board (lua/includes/pending-field.lua).
          from === 0 ? [player, ...named.map(board => board.board_id)] : [player])
        if (known === 1) return true
        if (scopes.length === 0) break
      }
      return false
    },

    /** Deletes the player's entries from every board of the game (named boards too); false when there were none. */
    async deleteEntry (game: GameRecord, player: string): Promise<boolean> {
      const gameId = game.game_id
      const own = everyBoard(game)
      const named = await everyNamedBoard(game)
      let deleted = 0
      for (const group of [[own], ...named]) deleted += (await removeFrom(gameId, player, group))[0]
      await forgetRuns(gameId, [...own.seasons, ...named.flatMap(seasonsOf)], player)
      return deleted > 0
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

export type Leaderboard = ReturnType<typeof createLeaderboard>
