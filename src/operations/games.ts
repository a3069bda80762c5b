import { fail } from '../errors.js'
import type { Season } from '../../sdk/answers.js'
import { DEFAULT_CAPS, periodsOf } from '../store/games-and-keys.js'
import { type GameStats, DEFAULT_FAIR_PLAY, DEFAULT_PERIODS, DEFAULT_RATINGS, DEFAULT_RUNS, FAIR_PLAY_SETTINGS, RATING_SETTINGS, RUN_SETTINGS, TIME_FLOOR_NEEDED, lacksTimeFloor, type FairPlaySetting, type GameChanges, type GameRecord, type RatingSetting, type RunSetting } from '../rules/games.js'
import type { NamedBoard } from '../rules/boards.js'
import { canonicalTimeZone, periodsSinceAfter } from '../rules/periods.js'
import { decodeCursor, encodeCursor } from '../lib/cursor.js'
import { keys } from '../store/keys.js'
import { type ActivityDay, type ActivityMinute, type ScoreBucket } from '../store/activity.js'
import { boardFields } from '../store/board-fields.js'
import { ListPage, namePage } from './answers.js'
import { OperationContext } from './context.js'
import type { RatingDay } from '../store/ratings.js'
import { cursors, readInput, schemas } from './input.js'
import { boardView } from '../store/board-choice.js'
import { DEFAULT_DISPLAY, displayChanges } from '../rules/score-format.js'

/** Games: listing, creating and changing them (periods, fair play), seasons, activity. */

export function now (): string {
  return new Date().toISOString()
}

/**
 * The period settings of a create or update body, in their stored form:
 * periods as a list in PERIOD_KINDS order, the zone's canonical name. An
 * unknown zone is refused here, when it is set.
 */
function periodSettingsOf (body: { order?: 'desc' | 'asc', periods?: string | string[], timezone?: string, keep_periods?: number }): Pick<GameChanges, 'order' | 'periods' | 'timezone' | 'keep_periods'> {
  const settings: Pick<GameChanges, 'order' | 'periods' | 'timezone' | 'keep_periods'> = {}
  if (body.order !== undefined) settings.order = body.order
  if (body.periods !== undefined) settings.periods = periodsOf(body.periods)
  if (body.timezone !== undefined) {
    settings.timezone = canonicalTimeZone(body.timezone) ?? fail('invalid_param', 'Parameter "timezone" is not valid: an IANA time zone such as Europe/Paris or UTC.')
  }
  if (body.keep_periods !== undefined) settings.keep_periods = body.keep_periods
  return settings
}

/**
 * The fair-play settings of a create or update body, as stored, checked
 * against the game's other bound (`current`, for an update): score_min may
 * not be above score_max.
 */
function fairPlayOf (body: Partial<Record<FairPlaySetting, number | null>>, current: Pick<GameRecord, 'score_min' | 'score_max'> = DEFAULT_FAIR_PLAY): Pick<GameChanges, FairPlaySetting> {
  const settings: Pick<GameChanges, FairPlaySetting> = {}
  for (const name of FAIR_PLAY_SETTINGS) {
    const value = body[name]
    if (value === undefined) continue
    // A factor is kept to 6 decimals, as it is stored; 1 would hold every better score.
    const kept = name === 'review_factor' && value !== null ? Math.round(value * 1e6) / 1e6 : value
    if (name === 'review_factor' && kept !== null && kept <= 1) fail('invalid_param', 'Parameter "review_factor" is not valid: a number above 1.')
    ;(settings as Record<string, number | null>)[name] = kept
  }
  const min = settings.score_min === undefined ? current.score_min : settings.score_min
  const max = settings.score_max === undefined ? current.score_max : settings.score_max
  if (min !== null && max !== null && min > max) fail('invalid_param', `Parameter "${settings.score_min === undefined ? 'score_max' : 'score_min'}" is not valid: score_min (${min}) must not be above score_max (${max}).`)
  return settings
}

/** The rating settings of a create or update body (docs/ratings.md): each as given. */
function ratingSettingsOf (body: Partial<Pick<GameRecord, RatingSetting>>): Pick<GameChanges, RatingSetting> {
  const settings: Pick<GameChanges, RatingSetting> = {}
  for (const name of RATING_SETTINGS) {
    if (body[name] !== undefined) (settings as Record<string, unknown>)[name] = body[name]
  }
  return settings
}

/**
 * The run settings of a create or update body, as stored: a rate kept to 6
 * decimals, as it is stored. submit_run on needs runs and a rate, with the
 * game's other settings (`current`, for an update): a browser game's unsigned
 * scores have nothing else to check them (docs/interface.md#submit-run).
 */
function runSettingsOf (body: Partial<Pick<GameRecord, RunSetting>>, current: Pick<GameRecord, RunSetting> = DEFAULT_RUNS): Pick<GameChanges, RunSetting> {
  const settings: Pick<GameChanges, RunSetting> = {}
  for (const name of RUN_SETTINGS) {
    const value = body[name]
    if (value === undefined) continue
    ;(settings as Record<string, unknown>)[name] = name === 'max_score_rate' && typeof value === 'number' ? Math.round(value * 1e6) / 1e6 : value
  }
  if (settings.max_score_rate === 0) fail('invalid_param', 'Parameter "max_score_rate" is not valid: a number above 0.')
  const after = { ...current, ...settings }
  if (after.submit_run === 'on' && (after.runs === 'off' || after.max_score_rate === null)) {
    const blamed = settings.submit_run === 'on' ? 'submit_run' : settings.runs === 'off' ? 'runs' : 'max_score_rate'
    fail('invalid_param', `Parameter "${blamed}" is not valid: submit_run on needs runs (optional or required) and a max_score_rate, since nothing else checks a browser game's unsigned scores.`)
  }
  return settings
}

/**
 * submit_run on needs a floor on every lower-is-better board a submit-run
 * reaches (lacksTimeFloor): the game's own, and its named boards that take
 * scores. The blame goes to the setting the body changed. Named boards are
 * looked at (`boards`) when the body turns submit_run on; their own changes
 * are checked where they are made (named-boards.ts).
 */
async function checkTimeFloors (after: Pick<GameRecord, 'submit_run' | 'order' | 'score_min' | 'review_below'>, body: Record<string, unknown>, boards: () => Promise<Iterable<NamedBoard>>): Promise<void> {
  if (after.submit_run !== 'on') return
  if (lacksTimeFloor(after)) {
    const blamed = ['submit_run', 'order', 'score_min', 'review_below'].find(name => body[name] !== undefined) ?? 'submit_run'
    fail('invalid_param', `Parameter "${blamed}" is not valid: ${TIME_FLOOR_NEEDED}.`)
  }
  if (body.submit_run !== 'on') return
  for (const board of await boards()) {
    if (!board.archived && lacksTimeFloor(board)) fail('invalid_param', `Parameter "submit_run" is not valid: ${TIME_FLOOR_NEEDED}, and the board "${board.board_id}" has none.`)
  }
}

export function gamesOperations ({ records, leaderboard, ratings, activity, audit, chooseBoard, existingGame, namedBoards }: OperationContext) {
  return {
    /** Games in id order, with their figures; by id prefix, approved or not. */
    async listGames (input?: unknown): Promise<ListPage<GameRecord & GameStats>> {
      const query = readInput(schemas.listGames, input)
      const from = query.cursor === undefined ? '' : decodeCursor(cursors.names('games'), query.cursor).after
      const { items, next } = await namePage(
        async (after, count) => await records.gameIdsPage(after, query.prefix ?? '', count),
        async ids => await Promise.all(ids.map(async id => await records.game(id, { fresh: true }))),
        game => query.approved === undefined || game.approved === query.approved,
        from, query.limit ?? 50, query.approved !== undefined)
      return {
        items: await Promise.all(items.map(async game => ({ ...game, ...await records.gameStats(game) }))),
        next_cursor: next === null ? null : encodeCursor({ k: 'games', after: next })
      }
    },

    /** One game, with its figures. */
    async game (gameId: string): Promise<GameRecord & GameStats> {
      const game = await existingGame(gameId)
      return { ...game, ...await records.gameStats(game) }
    },

    async createGame (input: unknown): Promise<GameRecord> {
      const body = readInput(schemas.createGame, input)
      const createdAt = now()
      const record: GameRecord = {
        game_id: body.game_id,
        name: body.name ?? body.game_id,
        developer: body.developer ?? null,
        approved: body.approved ?? false,
        created_at: createdAt,
        max_entries: body.max_entries ?? DEFAULT_CAPS.max_entries,
        max_meta_bytes: body.max_meta_bytes ?? DEFAULT_CAPS.max_meta_bytes,
        ...DEFAULT_PERIODS,
        periods: [],
        ...periodSettingsOf(body),
        ...DEFAULT_FAIR_PLAY,
        ...fairPlayOf(body),
        guests: body.guests ?? 'off',
        ...DEFAULT_RUNS,
        ...runSettingsOf(body),
        ...DEFAULT_RATINGS,
        ...ratingSettingsOf(body),
        ...DEFAULT_DISPLAY,
        ...displayChanges(body),
        season: 1,
        season_started_at: createdAt
      }
      record.periods_since = periodsSinceAfter(undefined, record.periods, leaderboard.now())
      await checkTimeFloors(record, body, async () => [])
      const game = await records.createGame(record)
      if (game === null) fail('already_exists', `Game "${body.game_id}" already exists.`)
      await audit({ action: 'game.create', game_id: game.game_id, target: game.game_id, before: null, after: game })
      return game
    },

    async updateGame (gameId: string, input: unknown): Promise<GameRecord> {
      const body = readInput(schemas.updateGame, input)
      const { periods: _periods, ...plain } = body
      const before = await records.game(gameId, { fresh: true })
      const current = before ?? undefined
      const changes: GameChanges = { ...plain, ...periodSettingsOf(body), ...fairPlayOf(body, current), ...runSettingsOf(body, current), ...ratingSettingsOf(body), ...displayChanges(body, current) }
      // The calendar's clock (the boards'): a period kind begins to be kept now.
      if (changes.periods !== undefined) changes.periods_since = periodsSinceAfter(current, changes.periods, leaderboard.now())
      if (before !== null) await checkTimeFloors({ ...before, ...changes }, body, async () => (await namedBoards.boards(gameId, { fresh: true })).values())
      const game = before === null ? null : await records.updateGame(gameId, changes)
      if (game === 'has_entries') fail('invalid_param', 'Parameter "order" cannot change: the game has stored entries (or closed a season), and a board keeps its scores in its order.')
      if (game === null) fail('not_found', 'No such game.')
      // Every rating weighs against the full weight: setting it (a new value, or the same one after a
      // rolling upgrade beside an older version) counts them all again (docs/ratings.md#where-it-is-kept).
      if (body.rating_full_weight_seconds !== undefined) await ratings.recount(game)
      await audit({ action: 'game.update', game_id: game.game_id, target: game.game_id, before, after: game })
      return game
    },

    /**
   * Closes the current season of the game's all-time board: it stays
   * readable by its season_id, and an empty season begins, atomically.
   */
    async closeSeason (gameId: string, input?: unknown): Promise<Season> {
      readInput(schemas.none, input)
      const closed = await records.closeSeason(await existingGame(gameId)) ?? fail('not_found', 'No such game.')
      // The closed season's dates, as the script recorded them.
      const season = (await leaderboard.seasons(gameId)).items.find(season => season.season_id === closed) as Season
      await audit({ action: 'season.close', game_id: gameId, target: String(closed), before: { season: closed }, after: { season: closed + 1, closed: season } })
      return season
    },

    async seasons (gameId: string): Promise<{ game_id: string, season_id: number, items: Season[] }> {
      const game = await existingGame(gameId)
      return { game_id: game.game_id, ...await leaderboard.seasons(game.game_id) }
    },

    /**
     * A game's activity (store/activity.ts): submissions per minute, and per
     * UTC day submissions, active players and play time; with how its
     * ratings spread over the ten values.
     */
    async stats (gameId: string, input?: unknown): Promise<{ game_id: string, minutes: ActivityMinute[], days: ActivityDay[], ratings: { count: number, avg: number, weighted: number | null, items: Array<{ stars: number, count: number }> }, rating_days: RatingDay[] }> {
      const query = readInput(schemas.stats, input)
      const game = await existingGame(gameId)
      const [figures, now] = await Promise.all([
        activity.read(game.game_id, { minutes: query.minutes ?? 60, days: query.days ?? 30, now: Date.now() }),
        ratings.read(game, '')
      ])
      return {
        game_id: game.game_id,
        ...figures,
        ratings: { count: now.count, avg: now.avg, weighted: now.weighted, items: now.distribution.map((count, i) => ({ stars: i + 1, count })) },
        rating_days: await ratings.days(game.game_id, figures.days.map(day => day.day))
      }
    },

    /** How the scores of a board spread: equal ranges from its lowest score to its highest, its visible entries counted in each. */
    async scoreStats (gameId: string, input?: unknown): Promise<{ game_id: string, total: number, min: number | null, max: number | null, items: ScoreBucket[] }> {
      const query = readInput(schemas.scoreStats, input)
      const game = await existingGame(gameId)
      const { board } = await chooseBoard(game, query)
      const spread = await activity.scoreBuckets(keys.board(game.game_id, board.scope), boardView(game, board).order, query.buckets ?? 20)
      return { game_id: game.game_id, ...await boardFields(leaderboard, game, board), total: spread.items.reduce((sum, bucket) => sum + bucket.count, 0), ...spread }
    }
  }
}
