import cors from '@fastify/cors'
import type { FastifyInstance, FastifyReply, FastifySchema, RouteHandlerMethod } from 'fastify'
import { ApiError, fail, ok } from '../../errors.js'
import { optional, param, type Params } from '../../lib/params.js'
import { parseBoardChoice, parseBoardScores, parseLimit, parseMeta, parseNeighbours, parseOffset, parsePlayerNames, parseRunId, parseScore, parseSeconds } from '../../rules/fields.js'
import { parsePlayerName } from '../../rules/player-name.js'
import { API_KEY_ACTIONS, RANK_ACTIONS, actionConstraint, actionOf, explainRankMiss, type RankAction } from './action.js'
import { rankSchemas } from './schemas.js'
import { HELMET } from '../../../plugins/external/security-headers.js'
import { keptPeriodsOf, type ChosenBoard } from '../../store/board-choice.js'
import type { Signed, SubmitResult } from '../../store/board-format.js'
import type { Limits } from '../../store/limits.js'
import { apiKeyHandler, sessionHandler, type Action, type ApiKeyActionSpec, type KeyCaller, type SessionCaller, type Stream } from '../public-action.js'
import { clientAddress } from '../../../plugins/app/rate-limit.js'
import { livePlaces, type LiveGuard } from '../../live/streams.js'
import { boardFields, iso } from '../../store/board-fields.js'
import { TIME_FLOOR_NEEDED, checkScoreRange, keyAcceptedFor, lacksTimeFloor, runsKept, type GameRecord } from '../../rules/games.js'
import { DEFAULT_BOARD, answeredBoard, boardOf, noSuchBoard, type Boards, type NamedBoard } from '../../rules/boards.js'
import { ACHIEVEMENT_ID_PATTERN, MASKED_ACHIEVEMENT, achievementFacts } from '../../rules/achievements.js'
import { scoreFormatOf } from '../../rules/score-format.js'

/** The body limit of players and players-self (64 KiB). */
export const PLAYERS_BODY_LIMIT = 65_536

/**
 * What a submit's answer adds to v1's: `held` for a score held for review
 * only, each current period board for a game that keeps periods only.
 */
function submitExtras (game: GameRecord, result: SubmitResult, board?: NamedBoard): Record<string, unknown> {
  const periods = board?.periods ?? game.periods
  return { ...answeredBoard(board), ...(result.held ? { held: true } : {}), ...(result.unlocked === undefined ? {} : { unlocked: result.unlocked }), ...(periods.length === 0 ? {} : { periods: result.periods }) }
}

/** What submit and submit-run answer (v1's fields, then submitExtras). */
function submitAnswer (game: GameRecord, score: number, result: SubmitResult, board?: NamedBoard) {
  return ok({ score, improved: result.improved, best_score: result.bestScore, rank: result.rank, ...submitExtras(game, result, board) })
}

/**
 * The actions of /api/rank (docs/interface.md#api-key-mode): submit, top, me,
 * around, players, periods and seasons in API-key mode; submit-self,
 * me-self, around-self and players-self in session mode. Registered under
 * the prefix RANK_PATH, so CORS and its preflight route stay on this path.
 */
export default async function rankRoutes (fastify: FastifyInstance): Promise<void> {
  fastify.addConstraintStrategy(actionConstraint)
  fastify.explainNotFound(explainRankMiss)
  // Other sites' pages may call the API-key actions; the session actions stay
  // same-origin (their routes say `cors: false`). The preflight route of
  // @fastify/cors serves every action of the path, so an OPTIONS for any
  // other action is turned away first, as a route that is not there.
  // Static options, worked out once by the plugin, not per request (docs/decisions/0062-hot-path-choices-measured.md).
  // strictPreflight off: an OPTIONS that is not a preflight gets the 204, not a text/plain 400.
  // This hook must be added before cors is registered, so it runs before cors's own.
  fastify.addHook('onRequest', (request, reply, done) => {
    if (request.method === 'OPTIONS') {
      const action = actionOf(request.raw)
      if (typeof action !== 'string' || !API_KEY_ACTIONS.has(action)) {
        reply.callNotFound()
        return
      }
    }
    done()
  })
  await fastify.register(cors, { origin: '*', methods: 'GET, POST', exposedHeaders: 'Retry-After', maxAge: 86400, strictPreflight: false })
  const sameOrigin = { cors: false }

  const { leaderboard } = fastify
  const now = leaderboard.now

  /** The board a request asks for, chosen where the action's fields are read (a bad one is counted against the rate limit like any bad field). */
  const chosenBoard = (fields: Params, game: GameRecord, boards: Boards): ChosenBoard => leaderboard.choose(game, parseBoardChoice(fields), boards)
  /**
   * A body that holds 100 names of 30 four-byte characters, form-encoded
   * (about 37 KB), whatever BODY_LIMIT says for the other actions.
   */
  const playersBodyLimit = { bodyLimit: Math.max(fastify.config.bodyLimit, PLAYERS_BODY_LIMIT) }

  /** The route of one action on this path, by the methods it takes. */
  function actionRoute (action: RankAction, schema: FastifySchema, options: Record<string, unknown>, handler: RouteHandlerMethod): void {
    const methods = RANK_ACTIONS[action]
    fastify.route({ method: typeof methods === 'string' ? methods : [...methods], url: '', constraints: { action }, schema, ...options, handler })
  }

  /**
   * An API-key action (the request path: ../public-action.ts). Other sites'
   * pages read these answers (CORS), so they may be loaded cross-origin.
   */
  function apiKeyAction (name: RankAction, schema: FastifySchema, required: readonly string[], action: Action<KeyCaller>, { signed = false, signedAs, limitsInStore, ...options }: Pick<ApiKeyActionSpec, 'signed' | 'signedAs' | 'limitsInStore'> & { bodyLimit?: number, sse?: 'manual' } = {}): void {
    actionRoute(name, schema, { helmet: HELMET.crossOrigin, config: { rateLimitPolicy: 'apiKey' }, ...options }, apiKeyHandler(fastify, { required, signed, signedAs, limitsInStore, action }))
  }

  /** A run's start, answered as docs/interface.md#runs says; rate_limited past the player's starts of a minute. */
  async function runStarted (reply: FastifyReply, started: Awaited<ReturnType<typeof fastify.runs.start>>) {
    if ('retryAfterS' in started) {
      reply.header('retry-after', started.retryAfterS)
      fail('rate_limited', `Too many runs started in this game this minute; retry in ${started.retryAfterS} s.`)
    }
    return ok(started)
  }

  /** A session action: the player is the logged-in user, of a playable game. Same-origin only. */
  function sessionAction (name: RankAction, schema: FastifySchema, required: readonly string[], action: Action<SessionCaller>, options: { bodyLimit?: number } = {}): void {
    actionRoute(name, schema, { config: { rateLimitPolicy: 'session', ...sameOrigin }, ...options }, sessionHandler(fastify, { required, action }))
  }

  /** The named board a request names with `board` (none: the game's own); unknown is invalid_param. */
  function namedBoardOf (fields: Params, boards: Boards): NamedBoard | undefined {
    const { board } = parseBoardChoice({ board: fields.board } as Params)
    if (board === undefined) return undefined
    const named = boards.get(board)
    if (named === undefined) throw noSuchBoard(board)
    return named
  }

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

  /** A board's part of a submit of several: its id as named, the board, the score, and its refusal when it refuses before any write. */
  interface BoardScore { id: string, board: NamedBoard | undefined, score: number, refused?: ApiError }

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
  async function submitBoards (game: GameRecord, player: string, scores: BoardScore[], meta: string | undefined, options: { signed?: Signed, limits?: Limits }, extra: (result: SubmitResult) => Record<string, unknown> = () => ({})): Promise<Array<Record<string, unknown>>> {
    const taken = scores.filter(item => item.refused === undefined)
    const results = taken.length === 0 ? [] : await leaderboard.submitMany(game, player, taken.map(({ board, score }) => ({ board, score })), meta, options)
    let next = 0
    return scores.map(({ id, board, score, refused }) => {
      const result = refused ?? results[next++] as SubmitResult | ApiError
      if (result instanceof ApiError) return { board: id, score, error: result.code, message: result.message }
      const periods = board?.periods ?? game.periods
      return { board: id, score, improved: result.improved, best_score: result.bestScore, rank: result.rank, ...extra(result), ...(result.held ? { held: true } : {}), ...(result.unlocked === undefined ? {} : { unlocked: result.unlocked }), ...(periods.length === 0 ? {} : { periods: result.periods }) }
    })
  }

  apiKeyAction('submit', rankSchemas.submit, ['api_key', 'game_id', 'player_name', 'score', 'ts', 'sign'], (fields, { game, boards, limits }) => {
    const player = parsePlayerName(param(fields, 'player_name'))
    const many = parseBoardScores(fields)
    if (many !== undefined) {
      // A run's score goes to one board (docs/interface.md#runs).
      if (optional(fields, 'run_id') !== undefined) fail('invalid_param', 'Parameter "run_id" is not valid with several boards: a run\'s score goes to one board.')
      const scores = boardScoresOf(many, game, boards)
      const meta = parseMeta(optional(fields, 'meta'))
      const signed = { ts: param(fields, 'ts'), sign: param(fields, 'sign') }
      return async () => ok({ boards: await submitBoards(game, player, scores, meta, { signed, limits }) })
    }
    const score = parseScore(param(fields, 'score'))
    const board = scoreBoard(fields, game, boards, score)
    const meta = parseMeta(optional(fields, 'meta'))
    const runId = parseRunId(optional(fields, 'run_id'))
    const signed = { ts: param(fields, 'ts'), sign: param(fields, 'sign') }
    return async () => {
      const result = await leaderboard.submit(game, player, score, meta, { signed, limits, board, total: false, run: runId === undefined ? undefined : { id: runId, byKey: true } })
      return submitAnswer(game, score, result, board)
    }
  }, { signed: true, limitsInStore: true })

  apiKeyAction('top', rankSchemas.top, ['api_key', 'game_id'], (fields, { game, boards, limits }) => {
    const limit = parseLimit(optional(fields, 'limit'))
    const offset = parseOffset(optional(fields, 'offset'))
    const chosen = chosenBoard(fields, game, boards)
    return async () => {
      const { total, items, board } = await leaderboard.top(game, chosen, offset, limit, limits)
      return ok({ game_id: game.game_id, total, items, ...await boardFields(leaderboard, game, board) })
    }
  }, { limitsInStore: true })

  apiKeyAction('me', rankSchemas.me, ['api_key', 'game_id', 'player_name'], (fields, { game, boards, limits }) => {
    const player = parsePlayerName(param(fields, 'player_name'))
    const chosen = chosenBoard(fields, game, boards)
    return async () => {
      const standing = await leaderboard.standing(game, chosen, player, limits)
      return ok({ player_name: player, best_score: standing.bestScore, rank: standing.rank, ...await boardFields(leaderboard, game, standing.board) })
    }
  }, { limitsInStore: true })

  /** around and around-self: the player, then the request's board and sides. */
  function aroundOf (fields: Params, game: GameRecord, boards: Boards, player: string, limits?: Limits) {
    const chosen = chosenBoard(fields, game, boards)
    const before = parseNeighbours(fields, 'before')
    const after = parseNeighbours(fields, 'after')
    return async () => {
      const { player: standing, total, items, board } = await leaderboard.around(game, chosen, player, before, after, limits)
      return ok({ game_id: game.game_id, total, player: standing, items, ...await boardFields(leaderboard, game, board) })
    }
  }

  /** players and players-self: the named players on the request's board. */
  function playersOf (fields: Params, game: GameRecord, boards: Boards, players: string[], limits?: Limits) {
    const chosen = chosenBoard(fields, game, boards)
    return async () => {
      const { total, items, board } = await leaderboard.players(game, chosen, players, limits)
      return ok({ game_id: game.game_id, total, items, ...await boardFields(leaderboard, game, board) })
    }
  }

  apiKeyAction('around', rankSchemas.around, ['api_key', 'game_id', 'player_name'], (fields, { game, boards, limits }) =>
    aroundOf(fields, game, boards, parsePlayerName(param(fields, 'player_name')), limits), { limitsInStore: true })

  apiKeyAction('players', rankSchemas.players, ['api_key', 'game_id', 'player_names'], (fields, { game, boards, limits }) =>
    playersOf(fields, game, boards, parsePlayerNames(param(fields, 'player_names')), limits), { ...playersBodyLimit, limitsInStore: true })

  // Game facts without a board script: the limits are counted on their own, first.
  // A named board's periods are its own (docs/decisions/0070-named-boards-one-game-many-boards-in-its.md); its seasons are the game's, from the one it was made in.
  apiKeyAction('periods', rankSchemas.periods, ['api_key', 'game_id'], (fields, { game, boards }) => {
    const named = namedBoardOf(fields, boards)
    const view = boardOf(game, named).rules
    return async () => {
      const at = now()
      const items = view.periods.flatMap(kind => keptPeriodsOf(view, kind, at).map((period, index) => ({
        period: kind, period_id: period.id, starts_at: iso(period.startsAt), resets_at: iso(period.resetsAt), current: index === 0
      })))
      return ok({ game_id: game.game_id, timezone: game.timezone, keep_periods: game.keep_periods, items, ...answeredBoard(named) })
    }
  })

  // The boards a page may show, and how (docs/interface.md#score-formats): nothing of them is secret to players.
  apiKeyAction('boards', rankSchemas.boards, ['api_key', 'game_id'], (_fields, { game }) => async () => {
    // All of them (a request's own `boards` holds them only when it names one).
    const boards = await fastify.namedBoards.boards(game.game_id)
    const own = { board_id: DEFAULT_BOARD, name: game.name, order: game.order, operator: 'best' as const, periods: game.periods, format: scoreFormatOf(game), archived: false }
    // The store reads them in id order.
    const named = [...boards.values()].map(board => ({ board_id: board.board_id, name: board.name, order: board.order, operator: board.operator, periods: board.periods, format: scoreFormatOf(board), archived: board.archived }))
    return ok({ game_id: game.game_id, items: [own, ...named] })
  })

  apiKeyAction('seasons', rankSchemas.seasons, ['api_key', 'game_id'], (fields, { game, boards }) => {
    const named = namedBoardOf(fields, boards)
    return async () => {
      const { season_id: current, items } = await leaderboard.seasons(game.game_id)
      if (named === undefined) return ok({ game_id: game.game_id, season_id: current, items })
      return ok({ game_id: game.game_id, season_id: current, items: items.filter(season => season.season_id >= named.first_season), board: named.board_id })
    }
  })

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

  // A live board: the top at once, then again whenever it changes (Server-Sent Events).
  // Opening counts once against the rate limits, in the first read; the stream opens once they are answered.
  apiKeyAction('live', rankSchemas.live, ['api_key', 'game_id'], (fields, { game, boards, key, limits }, reply) => {
    const limit = parseLimit(optional(fields, 'limit'))
    const chosen = chosenBoard(fields, game, boards)
    const apiKey = key.api_key
    const { liveStreamsPerKey, liveStreamsPerAddress } = fastify.config
    return async () => {
      const { total, items, board } = await leaderboard.top(game, chosen, 0, limit, limits)
      // HEAD asks what a stream would be, without one.
      if (reply.request.method === 'HEAD') return ok({ game_id: game.game_id, total, items, ...await boardFields(leaderboard, game, board) })
      const stream: Stream = async () => {
        await fastify.live.open(reply, { game, choice: chosen.choice, limit, places: livePlaces.apiKey(apiKey, clientAddress(reply.request), liveStreamsPerKey, liveStreamsPerAddress), guard: keyGuard(apiKey, game.game_id), first: { total, items }, board })
      }
      return stream
    }
  }, { sse: 'manual', limitsInStore: true })

  // A run, started by the game's server for a player: signed like a submit, with `run-start` for the score;
  // by the browser game itself, unsigned, where the game allows submit-run.
  const unsignedRunStart = (game: GameRecord, fields: Params): boolean =>
    game.submit_run === 'on' && optional(fields, 'ts') === undefined && optional(fields, 'sign') === undefined
  apiKeyAction('run-start', rankSchemas.runStart, ['api_key', 'game_id', 'player_name'], (fields, { game, key }, reply) => {
    const player = parsePlayerName(param(fields, 'player_name'))
    return async () => await runStarted(reply, await fastify.runs.start(game.game_id, player, key.api_key))
  }, { signed: (game, fields) => !unsignedRunStart(game, fields), signedAs: 'run-start' })

  // The play of a run started with this key, reported by the game (unsigned: the run_id vouches, and the wall clock bounds it).
  apiKeyAction('run-report', rankSchemas.runReport, ['api_key', 'game_id', 'player_name', 'run_id', 'seconds'], (fields, { game, key, limits }) => {
    runsKept(game)
    const player = parsePlayerName(param(fields, 'player_name'))
    const runId = parseRunId(param(fields, 'run_id')) as string
    const seconds = parseSeconds(param(fields, 'seconds'))
    return async () => ok(await fastify.runs.report(game.game_id, player, runId, seconds, key.api_key, limits))
  }, { limitsInStore: true })

  // A browser game without a server: the score of a run started with this key, without the secret (docs/interface.md#submit-run).
  apiKeyAction('submit-run', rankSchemas.submitRun, ['api_key', 'game_id', 'player_name', 'score', 'run_id'], (fields, { game, boards, key, limits }) => {
    if (game.submit_run !== 'on') fail('forbidden', 'This game takes no submit-run: its scores are signed by its server (submit) or sent by session (submit-self). An operator can allow it (submit_run).')
    runsKept(game)
    const player = parsePlayerName(param(fields, 'player_name'))
    const score = parseScore(param(fields, 'score'))
    const board = scoreBoard(fields, game, boards, score)
    // A board kept from before this rule (or changed by hand) takes no unsigned time without a floor.
    if (lacksTimeFloor(boardOf(game, board).rules)) fail('forbidden', `This board takes no submit-run until an operator sets a floor: ${TIME_FLOOR_NEEDED}.`)
    const meta = parseMeta(optional(fields, 'meta'))
    const runId = parseRunId(param(fields, 'run_id')) as string
    return async () => {
      const result = await leaderboard.submit(game, player, score, meta, { limits, board, run: { id: runId, byKey: true, key: key.api_key } })
      return submitAnswer(game, score, result, board)
    }
  }, { limitsInStore: true })

  // Session mode: the player is the logged-in user, on the same boards.
  /**
   * The game's achievements as a player sees them (docs/interface.md#achievements):
   * each with its rarity and when the player unlocked it; a hidden one is
   * masked, every field null (its id too: an id can give it away), unless
   * the player unlocked it and the request is theirs (`own`: their session,
   * or signed by the game's server): an API key is public, and anyone could
   * read someone else's list with it. `unlocked` and `points` count what the
   * list shows, so a masked unlock is not told by the sums either.
   */
  async function achievementList (game: GameRecord, player: string | undefined, { own }: { own: boolean }) {
    const all = await fastify.achievements.achievements(game.game_id)
    const { unlocks, counts, players } = await fastify.achievements.progress(game.game_id, player, all)
    let points = 0
    let unlocked = 0
    const shown = []
    let masked = 0
    for (const achievement of all.values()) {
      const at = unlocks.get(achievement.achievement_id)
      if (achievement.hidden && (at === undefined || !own)) {
        masked++
        continue
      }
      if (at !== undefined) {
        unlocked++
        points += achievement.points
      }
      const count = counts.get(achievement.achievement_id) ?? 0
      shown.push({
        ...achievementFacts(game.game_id, achievement),
        unlocked_at: at === undefined ? null : iso(at),
        rarity: players === 0 ? 0 : Math.round(10_000 * Math.min(count, players) / players) / 100
      })
    }
    const hidden = Array.from({ length: masked }, () => ({ ...MASKED_ACHIEVEMENT, unlocked_at: null, rarity: null }))
    return { game_id: game.game_id, ...(player === undefined ? {} : { player_name: player }), players, unlocked, points, items: [...shown, ...hidden] }
  }

  /** An achievement id as a request gives it (unknown is invalid_param, by the store). */
  function achievementIdOf (fields: Params): string {
    const id = param(fields, 'achievement_id')
    if (!ACHIEVEMENT_ID_PATTERN.test(id)) fail('invalid_param', 'Parameter "achievement_id" is not valid: 1 to 32 of a-z 0-9 _ -, beginning with a letter or digit.')
    return id
  }

  /** The game unlocks an achievement for a player (with its run, where the game keeps runs): the answer says whether this request did, and when it was. */
  async function unlockFor (game: GameRecord, id: string, player: string, run: { run?: string, byKey: boolean }) {
    const done = await fastify.achievements.unlock(game.game_id, id, player, run) ?? fail('invalid_param', `Parameter "achievement_id" is not valid: this game has no achievement "${id}".`)
    return ok({ achievement_id: id, player_name: player, unlocked: done.unlocked, unlocked_at: iso(done.at) })
  }

  // Signed (optional: the text achievements in the score's place), a player's list shows the hidden ones they unlocked.
  apiKeyAction('achievements', rankSchemas.achievements, ['api_key', 'game_id'], (fields, { game }) => {
    const name = optional(fields, 'player_name')
    const player = name === undefined ? undefined : parsePlayerName(name)
    const signed = optional(fields, 'sign') !== undefined
    return async () => ok(await achievementList(game, player, { own: signed }))
  }, { signed: (_game, fields) => optional(fields, 'sign') !== undefined, signedAs: 'achievements' })

  sessionAction('achievements-self', rankSchemas.achievementsSelf, [], (_fields, { game, user }) => async () => ok(await achievementList(game, user.username, { own: true })))

  // Signed like a submit, with unlock:<achievement_id> where the score goes: a signature for one achievement unlocks no other.
  apiKeyAction('unlock', rankSchemas.unlock, ['api_key', 'game_id', 'player_name', 'achievement_id', 'ts', 'sign'], (fields, { game }) => {
    const player = parsePlayerName(param(fields, 'player_name'))
    const id = achievementIdOf(fields)
    const run = parseRunId(optional(fields, 'run_id'))
    return async () => await unlockFor(game, id, player, { run, byKey: true })
  }, { signed: true, signedAs: (fields: Params) => `unlock:${fields.achievement_id ?? ''}` })

  sessionAction('unlock-self', rankSchemas.unlockSelf, ['achievement_id'], (fields, { game, user }) => {
    const id = achievementIdOf(fields)
    const run = parseRunId(optional(fields, 'run_id'))
    return async () => await unlockFor(game, id, user.username, { run, byKey: false })
  })

  sessionAction('run-start-self', rankSchemas.runStartSelf, [], (_fields, { game, user }, reply) => async () =>
    await runStarted(reply, await fastify.runs.start(game.game_id, user.username)))

  sessionAction('submit-self', rankSchemas.submitSelf, ['score'], (fields, { game, boards, user }) => {
    const many = parseBoardScores(fields)
    if (many !== undefined) {
      if (optional(fields, 'run_id') !== undefined) fail('invalid_param', 'Parameter "run_id" is not valid with several boards: a run\'s score goes to one board.')
      const scores = boardScoresOf(many, game, boards)
      const meta = parseMeta(optional(fields, 'meta'))
      return async () => ok({
        boards: await submitBoards(game, user.username, scores, meta, {}, result => ({ total_players: result.totalPlayers })),
        is_dev_record: game.developer === user.username,
        is_admin_record: user.is_admin
      })
    }
    const score = parseScore(param(fields, 'score'))
    const board = scoreBoard(fields, game, boards, score)
    const meta = parseMeta(optional(fields, 'meta'))
    const runId = parseRunId(optional(fields, 'run_id'))
    return async () => {
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
    }
  })

  sessionAction('me-self', rankSchemas.meSelf, [], (fields, { game, boards, user }) => {
    const chosen = chosenBoard(fields, game, boards)
    return async () => {
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
    }
  })

  sessionAction('around-self', rankSchemas.aroundSelf, [], (fields, { game, boards, user }) => aroundOf(fields, game, boards, user.username))

  sessionAction('players-self', rankSchemas.playersSelf, [], (fields, { game, boards, user }) => {
    const friends = parsePlayerNames(optional(fields, 'player_names'))
    return playersOf(fields, game, boards, [...new Set([user.username, ...friends])])
  }, playersBodyLimit)
}
