import { Type, type Static, type TObject, type TProperties, type TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { fail } from '../errors.js'
import { AROUND_DEFAULT, AROUND_MAX, GAME_ID_PATTERN, USERNAME_PATTERN } from '../rules/fields.js'
import { DEFAULT_CAPS } from '../store/games-and-keys.js'
import { DEFAULT_FAIR_PLAY, DEFAULT_PERIODS, DEFAULT_RATINGS, GUEST_POLICIES, MAX_NOTIFY_TOP, MAX_RATING_PLAY_S, MAX_RUN_TTL_S, RUN_POLICIES, SUBMIT_RUN_POLICIES } from '../rules/games.js'
import { MAX_KEEP_PERIODS, PERIOD_KINDS } from '../rules/periods.js'
import { ENTRY_BUCKETS } from '../store/keys.js'
import { ACTIVITY_DAYS_KEPT, ACTIVITY_MINUTES_KEPT_S } from '../store/activity.js'
import { BOARD_ID_PATTERN, BOARD_OPERATORS, DEFAULT_BOARD, MAX_BOARDS } from '../rules/boards.js'
import { ACHIEVEMENT_ID_PATTERN, DIFFICULTIES, MAX_ACHIEVEMENTS } from '../rules/achievements.js'
import { EVENT_TYPES } from '../store/events.js'
import { MAX_URL_LENGTH } from '../webhooks/send.js'
import { DATA_LIMITS, DATA_LIMITS_MAX } from '../rules/gamejolt-data.js'
import { MAX_GAMEJOLT_ID } from '../rules/gamejolt-ids.js'
import { GAMEJOLT_KEY_PATTERN } from '../gamejolt/signature.js'
import { MAX_DECIMALS, MAX_UNIT_LENGTH, SCORE_FORMAT_TYPES } from '../../sdk/format.js'

/**
 * The operator operations' input: every field's TypeBox rule, the list cursors,
 * and readInput, which checks a body, a query or CLI flags against them in
 * the admin order (missing_param, then invalid_param).
 */

const GameId = Type.String({ pattern: GAME_ID_PATTERN.source, description: '1 to 64 characters from A-Z a-z 0-9 _ -' })
const Username = Type.String({ pattern: USERNAME_PATTERN.source, description: '1 to 30 characters from A-Z a-z 0-9 _ . -' })
const GameName = Type.String({ minLength: 1, maxLength: 200 })
const Password = Type.String({ minLength: 1, maxLength: 1024, description: '1 to 1024 characters' })
const MaxEntries = Type.Integer({ minimum: 1, maximum: 1_000_000_000, description: `an integer from 1 to 1000000000 (default ${DEFAULT_CAPS.max_entries})` })
const MaxMetaBytes = Type.Integer({ minimum: 0, maximum: 1_000_000_000_000, description: `an integer from 0 to 1000000000000 (default ${DEFAULT_CAPS.max_meta_bytes})` })

const Order = Type.Union([Type.Literal('desc'), Type.Literal('asc')], { description: 'desc (higher is better, the default) or asc (lower is better: times, strokes); cannot change once the game has entries' })
const PERIOD_LIST = `(${PERIOD_KINDS.join('|')})`
const Periods = Type.Union([
  Type.Array(Type.Union(PERIOD_KINDS.map(kind => Type.Literal(kind))), { maxItems: PERIOD_KINDS.length, uniqueItems: true }),
  Type.String({ pattern: `^(${PERIOD_LIST}(,${PERIOD_LIST})*)?$` })
], { description: 'the calendar boards beside the all-time one: any of daily, weekly, monthly, as a list or comma-separated text ("" or [] for none, the default)' })
const TimeZone = Type.String({ minLength: 1, maxLength: 64, description: 'an IANA time zone such as Europe/Paris (default UTC); periods reset at its midnights' })
const KeepPeriods = Type.Integer({ minimum: 0, maximum: MAX_KEEP_PERIODS, description: `how many past periods of each kind stay readable, 0 to ${MAX_KEEP_PERIODS} (default ${DEFAULT_PERIODS.keep_periods})` })
const periodSettings = {
  order: Type.Optional(Order),
  periods: Type.Optional(Periods),
  timezone: Type.Optional(TimeZone),
  keep_periods: Type.Optional(KeepPeriods)
}

// Fair play (docs/interface.md#fair-play). null (or "default" as text) clears a setting.
const ScoreSetting = (rule: string) => Type.Union([Type.Integer({ minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER }), Type.Null()], {
  description: `${rule}: an integer within plus or minus 9007199254740991; null (or "default" as text) for none, the default`
})
const fairPlaySettings = {
  score_min: Type.Optional(ScoreSetting('the lowest score accepted; lower is score_out_of_range')),
  score_max: Type.Optional(ScoreSetting('the highest score accepted; higher is score_out_of_range')),
  review_above: Type.Optional(ScoreSetting('a score above this is held for review')),
  review_below: Type.Optional(ScoreSetting('a score below this is held for review')),
  review_factor: Type.Optional(Type.Union([Type.Number({ minimum: 1, maximum: 1_000_000 }), Type.Null()], {
    description: 'a score better than this many times the player\'s previous best, or the first place, is held for review: a number above 1 and up to 1000000; null (or "default" as text) for none, the default'
  })),
  notify_top: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_NOTIFY_TOP, description: `how deep into the board board.overtaken events reach, 1 to ${MAX_NOTIFY_TOP} (default ${DEFAULT_FAIR_PLAY.notify_top})` }))
}

const Guests = Type.Optional(Type.Union(GUEST_POLICIES.map(policy => Type.Literal(policy)), {
  description: 'whether visitors may play as guests on the play page: off (the default), listed (their scores appear on the boards) or unlisted (kept, shown once they sign up)'
}))

// Proof of play (docs/interface.md#runs). null (or "default" as text) clears max_score_rate.
const runSettings = {
  runs: Type.Optional(Type.Union(RUN_POLICIES.map(policy => Type.Literal(policy)), { description: 'proof of play: off (the default: no runs), optional (a submit may carry a run_id), required (a submit without one is run_required)' })),
  min_run_seconds: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_RUN_TTL_S, description: `the verified play a run needs before its score counts, 0 to ${MAX_RUN_TTL_S} seconds (default 0)` })),
  max_score_rate: Type.Optional(Type.Union([Type.Number({ minimum: 0.000001, maximum: 1e12 }), Type.Null()], { description: 'the most points per verified second of a run (for a lower-is-better board: score units per second, so a score cannot exceed the time played); null (or "default" as text) for no such rule, the default' })),
  implausible: Type.Optional(Type.Union([Type.Literal('hold'), Type.Literal('refuse')], { description: 'a score past max_score_rate or short of min_run_seconds: hold (for review, the default) or refuse (implausible_score)' })),
  run_ttl_s: Type.Optional(Type.Integer({ minimum: 60, maximum: MAX_RUN_TTL_S, description: `how long a run may be played, 60 to ${MAX_RUN_TTL_S} seconds (default 3600)` })),
  submit_run: Type.Optional(Type.Union(SUBMIT_RUN_POLICIES.map(policy => Type.Literal(policy)), { description: 'on: a browser game without a server may start runs and submit with the public api_key alone (submit-run), guarded only by the run rules and the review queue; off (the default)' }))
}

// Ratings weighted by play, and the games list (docs/ratings.md).
const ratingSettings = {
  rating_full_weight_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_RATING_PLAY_S, description: `the rater's verified play in the game at which a rating weighs fully in the weighted score, 1 to ${MAX_RATING_PLAY_S} seconds (default ${DEFAULT_RATINGS.rating_full_weight_seconds})` })),
  rating_min_play_seconds: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_RATING_PLAY_S, description: `the verified play a user needs in the game to rate it (play_required), 0 to ${MAX_RATING_PLAY_S} seconds (default 0: anyone logged in)` })),
  listed: Type.Optional(Type.Boolean({ description: 'false leaves the game out of the public games list (GET /api/games) and the front page (default true)' }))
}

const EVENT_LIST = `(${EVENT_TYPES.map(type => type.replace('.', '\\.')).join('|')})`
const WebhookEvents = Type.Union([
  Type.Array(Type.Union([...EVENT_TYPES, '*'].map(type => Type.Literal(type))), { minItems: 1, maxItems: EVENT_TYPES.length + 1, uniqueItems: true }),
  Type.String({ pattern: `^(\\*|${EVENT_LIST}(,${EVENT_LIST})*)$` })
], { description: `the events to deliver: any of ${EVENT_TYPES.join(', ')}, as a list or comma-separated text; "*" (the default) for every one` })
const Listing = (defaultLimit: number) => ({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: `an integer from 1 to 100 (default ${defaultLimit})` })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000_000, description: 'an integer from 0 (the default)' }))
})

/** The query of a listing with cursors (docs/interface.md#listings). */
const Page = (defaultLimit: number) => ({
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 2048, description: 'the next_cursor of the page before, unchanged' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: `an integer from 1 to 100 (default ${defaultLimit})` }))
})
/** A data store limit an operator sets: from 1 to its most, the default when never set. */
const DataLimit = (name: keyof typeof DATA_LIMITS, description: string) => Type.Optional(Type.Integer({ minimum: 1, maximum: DATA_LIMITS_MAX[name], description: `${description}: 1 to ${DATA_LIMITS_MAX[name]} (default ${DATA_LIMITS[name]})` }))
const Flag = (description: string) => Type.Optional(Type.Boolean({ description: `true or false: ${description}` }))
export const BoardQuery = {
  board: Type.Optional(Type.String({ pattern: BOARD_ID_PATTERN.source, description: `a named board's id (docs/interface.md#named-boards), or ${DEFAULT_BOARD} (the game's own board, the default)` })),
  period: Type.Optional(Type.Union([Type.Literal('all'), ...PERIOD_KINDS.map(kind => Type.Literal(kind))], { description: 'all (the all-time board, the default) or a period the game keeps: its current board' })),
  period_id: Type.Optional(Type.String({ minLength: 1, maxLength: 20, description: 'a kept period: 2026-11-23, 2026-W48 or 2026-11' })),
  season_id: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000_000, description: 'a season of the all-time board (a positive integer)' }))
}

/** What an audit listing may be narrowed to. */
const AuditFilters = {
  action: Type.Optional(Type.String({ pattern: '^[a-z_]{1,30}\\.([a-z_]{1,30})?$', description: 'an action such as game.update, or every action on a kind of record: game.' })),
  actor: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'a token\'s name, or cli:<user>' }))
}

/** What each listing's cursor holds (src/lib/cursor.ts); `k` names the listing, so one listing's cursor is refused by another. */
export const cursors = {
  names: (kind: string) => Type.Object({ k: Type.Literal(kind), after: Type.String({ maxLength: 200 }) }),
  board: Type.Object({
    k: Type.Literal('board'),
    b: Type.String({ maxLength: 100 }),
    v: Type.Integer({ minimum: 0, maximum: 1_000_000_000 }),
    a: Type.String({ maxLength: 200 }),
    s: Type.String({ pattern: '^-?[0-9][0-9.e+]{0,29}$' }),
    m: Type.String({ maxLength: 200 })
  }),
  search: Type.Object({ k: Type.Literal('search'), b: Type.String({ maxLength: 100 }), n: Type.Integer({ minimum: 0, maximum: ENTRY_BUCKETS }), a: Type.String({ maxLength: 200 }) }),
  audit: Type.Object({ k: Type.Literal('audit'), id: Type.String({ pattern: '^[0-9]{1,15}-[0-9]{1,15}$' }) }),
  dataItems: Type.Object({ k: Type.Literal('data-items'), after: Type.String({ maxLength: 1024 }) }),
  ratings: Type.Object({ k: Type.Literal('ratings'), at: Type.Integer({ minimum: 0, maximum: 9_999_999_999_999 }), user: Type.String({ maxLength: 200 }) }),
  sessions: Type.Object({ k: Type.Literal('sessions'), e: Type.Integer({ minimum: 0, maximum: 9_999_999_999_999 }), n: Type.Integer({ minimum: 0, maximum: 1_000_000 }) })
}

const ReviewNote = Type.String({ maxLength: 500, description: 'why, recorded with the decision: up to 500 characters' })

// Named boards (docs/decisions/0070-named-boards-one-game-many-boards-in-its.md).
const BoardId = Type.String({ pattern: BOARD_ID_PATTERN.source, description: `1 to 32 of a-z 0-9 _ -, beginning with a letter or digit; not "${DEFAULT_BOARD}" (the game's own board); up to ${MAX_BOARDS} boards a game` })
// How a board's scores are shown (docs/decisions/0072-score-formats-raw-in-the-api-shown-by.md): checked together by rules/score-format.ts displayChanges.
const displaySettings = {
  score_format: Type.Optional(Type.Union(SCORE_FORMAT_TYPES.map(type => Type.Literal(type)), { description: 'how pages show the scores: integer (1,234, the default), decimal (the score in 10^-score_decimals units: 12.34) or time (the score in ms: 1:02.345)' })),
  score_decimals: Type.Optional(Type.Integer({ minimum: 0, maximum: Math.max(...Object.values(MAX_DECIMALS)), description: `decimal: digits after the separator, 1 to ${MAX_DECIMALS.decimal} (default 2); time: digits of the seconds' fraction, 0 to ${MAX_DECIMALS.time} (default 3); integer: 0` })),
  score_unit: Type.Optional(Type.String({ maxLength: MAX_UNIT_LENGTH, description: `shown after each score ("coins", "m"): up to ${MAX_UNIT_LENGTH} characters; '' for none, the default` }))
}

/** A table's or trophy's id in Game Jolt's API, as an operator sets it: the one a moved game's builds carry. */
const GamejoltId = (what: string) => Type.Integer({ minimum: 1, maximum: MAX_GAMEJOLT_ID, description: `${what}, 1 to ${MAX_GAMEJOLT_ID}: the one the game's builds carry (default: made of the record's id); one record of the game each` })

const boardSettings = {
  gamejolt_id: Type.Optional(GamejoltId('its table id in Game Jolt\'s API')),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'what players see, 1 to 64 characters (default: the id)' })),
  order: Type.Optional(Type.Union([Type.Literal('desc'), Type.Literal('asc')], { description: 'desc (higher is better, the default) or asc (lower is better); changes only while the board is empty' })),
  operator: Type.Optional(Type.Union(BOARD_OPERATORS.map(operator => Type.Literal(operator)), { description: 'best (the better score is kept, the default), latest (the last score is kept) or sum (each score adds to a ranked total); changes only while the board is empty' })),
  periods: Type.Optional(Periods),
  score_min: fairPlaySettings.score_min,
  score_max: fairPlaySettings.score_max,
  review_above: fairPlaySettings.review_above,
  review_below: fairPlaySettings.review_below,
  review_factor: fairPlaySettings.review_factor,
  ...displaySettings
}

// Achievements (docs/decisions/0071-achievements-settings-in-the-games-slot-unlocks-in.md).
const AchievementRuleSchema = Type.Object({
  board: Type.String({ pattern: BOARD_ID_PATTERN.source, description: `the board whose stored score unlocks it: ${DEFAULT_BOARD} (the game's own) or a named board's id` }),
  at_least: Type.Optional(Type.Integer({ minimum: -9007199254740991, maximum: 9007199254740991, description: 'unlocked when the stored score is at least this' })),
  at_most: Type.Optional(Type.Integer({ minimum: -9007199254740991, maximum: 9007199254740991, description: 'unlocked when the stored score is at most this (one of at_least, at_most)' }))
}, { additionalProperties: false })
const achievementSettings = {
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'what players see, 1 to 64 characters (default: the id)' })),
  description: Type.Optional(Type.String({ maxLength: 500, description: 'up to 500 characters' })),
  points: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000, description: '0 to 1000 (default 0)' })),
  hidden: Type.Optional(Type.Boolean({ description: 'shown to players only once unlocked (default false)' })),
  min_run_seconds: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_RUN_TTL_S, description: 'the verified play (seconds) of the run an unlock by the game (unlock, unlock-self) must carry; 0 (the default): no minimum. Needs the game\'s runs' })),
  gamejolt_id: Type.Optional(GamejoltId('its trophy id in Game Jolt\'s API')),
  difficulty: Type.Optional(Type.Union(DIFFICULTIES.map(one => Type.Literal(one)), { description: 'bronze (the default), silver, gold or platinum: how hard it is to get, as Game Jolt\'s trophies say it' })),
  rule: Type.Optional(Type.Union([AchievementRuleSchema, Type.Null()], { description: 'the threshold that unlocks it; null (the default): only the game unlocks it (action=unlock)' }))
}

const KeyRateLimit = Type.Union([Type.Integer({ minimum: 1, maximum: 1_000_000_000 }), Type.Null()], {
  description: 'requests per window from one address with this key, 1 to 1000000000; null (or "default" as text) for the global RATE_LIMIT_MAX'
})

export const schemas = {
  createGame: Type.Object({
    game_id: GameId,
    name: Type.Optional(GameName),
    developer: Type.Optional(Username),
    approved: Type.Optional(Type.Boolean({ default: false })),
    max_entries: Type.Optional(MaxEntries),
    max_meta_bytes: Type.Optional(MaxMetaBytes),
    ...periodSettings,
    ...fairPlaySettings,
    ...runSettings,
    ...ratingSettings,
    ...displaySettings,
    guests: Guests
  }, { additionalProperties: false }),
  updateGame: Type.Object({
    name: Type.Optional(GameName),
    developer: Type.Optional(Username),
    approved: Type.Optional(Type.Boolean()),
    max_entries: Type.Optional(MaxEntries),
    max_meta_bytes: Type.Optional(MaxMetaBytes),
    ...periodSettings,
    ...fairPlaySettings,
    ...runSettings,
    ...ratingSettings,
    ...displaySettings,
    guests: Guests
  }, { additionalProperties: false }),
  createBoard: Type.Object({ board_id: BoardId, ...boardSettings }, { additionalProperties: false }),
  updateBoard: Type.Object({ ...boardSettings, archived: Type.Optional(Type.Boolean({ description: 'true: the board is read as before and takes no new scores' })) }, { additionalProperties: false }),
  createAchievement: Type.Object({ achievement_id: Type.String({ pattern: ACHIEVEMENT_ID_PATTERN.source, description: `1 to 32 of a-z 0-9 _ -, beginning with a letter or digit; up to ${MAX_ACHIEVEMENTS} a game` }), ...achievementSettings }, { additionalProperties: false }),
  updateAchievement: Type.Object(achievementSettings, { additionalProperties: false }),
  createKey: Type.Object({ game_id: Type.String(), rate_limit: Type.Optional(KeyRateLimit) }, { additionalProperties: false }),
  updateKey: Type.Object({ rate_limit: Type.Optional(KeyRateLimit) }, { additionalProperties: false }),
  createUser: Type.Object({
    username: Username,
    password: Type.Optional(Password),
    is_admin: Type.Optional(Type.Boolean({ default: false })),
    hidden: Type.Optional(Type.Boolean({ default: false }))
  }, { additionalProperties: false }),
  updateUser: Type.Object({
    password: Type.Optional(Password),
    is_admin: Type.Optional(Type.Boolean()),
    hidden: Type.Optional(Type.Boolean())
  }, { additionalProperties: false }),
  createSession: Type.Object({ username: Type.String() }, { additionalProperties: false }),
  setPlayer: Type.Object({ hidden: Type.Boolean(), board: Type.Optional(BoardQuery.board) }, { additionalProperties: false }),
  /** Which board's entry an operator reads (the hide reaches every board; the answer is this board's entry). */
  playerEntry: Type.Object({ board: Type.Optional(BoardQuery.board) }, { additionalProperties: false }),
  reviewList: Type.Object({
    status: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('decided')], { description: 'pending (the default, oldest first) or decided (newest first)' })),
    ...Listing(50)
  }, { additionalProperties: false }),
  approveHeld: Type.Object({ note: Type.Optional(ReviewNote) }, { additionalProperties: false }),
  createWebhook: Type.Object({
    url: Type.String({ minLength: 1, maxLength: MAX_URL_LENGTH, description: `the receiver: an http:// or https:// URL, up to ${MAX_URL_LENGTH} characters, on a public address (unless WEBHOOK_ALLOW_PRIVATE=true)` }),
    events: Type.Optional(WebhookEvents),
    description: Type.Optional(Type.String({ maxLength: 200, description: 'what it is for: up to 200 characters' }))
  }, { additionalProperties: false }),
  deliveries: Type.Object({
    status: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('done')], { description: 'done (the default: delivered or dead, newest first) or pending (by when next due)' })),
    ...Listing(50)
  }, { additionalProperties: false }),
  events: Type.Object(Listing(50), { additionalProperties: false }),
  rejectHeld: Type.Object({
    note: Type.Optional(ReviewNote),
    hide: Type.Optional(Type.Boolean({ description: 'also hide the player on every board of the game (default false)' }))
  }, { additionalProperties: false }),
  listGames: Type.Object({
    ...Page(50),
    prefix: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$', description: 'only game ids beginning with it' })),
    approved: Flag('only approved games, or only those not approved')
  }, { additionalProperties: false }),
  listKeys: Type.Object({ ...Page(50), revoked: Flag('only revoked keys, or only live ones') }, { additionalProperties: false }),
  listUsers: Type.Object({
    ...Page(50),
    prefix: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_.-]{1,30}$', description: 'only usernames beginning with it' })),
    hidden: Flag('only hidden users, or only visible ones'),
    is_admin: Flag('only administrators, or only the others'),
    guest: Flag('only guests, or only the others')
  }, { additionalProperties: false }),
  listEntries: Type.Object({
    ...Page(50),
    prefix: Type.Optional(Type.String({ minLength: 1, maxLength: 30, description: 'only players whose names begin with it (ASCII letters either case); without it, the whole board in board order' })),
    ...BoardQuery
  }, { additionalProperties: false }),
  listSessions: Type.Object(Page(50), { additionalProperties: false }),
  exportBoard: Type.Object({
    format: Type.Optional(Type.Union([Type.Literal('csv'), Type.Literal('ndjson')], { description: 'csv or ndjson (the default)' })),
    ...BoardQuery
  }, { additionalProperties: false }),
  /** Which board an import goes to (its current season: the game's). */
  importBoard: Type.Object({ board: Type.Optional(BoardQuery.board) }, { additionalProperties: false }),
  exportUnlocks: Type.Object({
    format: Type.Optional(Type.Union([Type.Literal('csv'), Type.Literal('ndjson')], { description: 'csv or ndjson (the default)' })),
    player_name: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'only this player\'s unlocks' })),
    achievement_id: Type.Optional(Type.String({ pattern: ACHIEVEMENT_ID_PATTERN.source, description: 'only the unlocks of this achievement' }))
  }, { additionalProperties: false }),
  eraseUser: Type.Object({ erase: Type.Boolean({ description: 'true: deleting a user erases them everywhere' }) }, { additionalProperties: false }),
  gameAudit: Type.Object({ ...Page(50), ...AuditFilters }, { additionalProperties: false }),
  listAudit: Type.Object({ ...Page(50), game_id: Type.Optional(GameId), ...AuditFilters }, { additionalProperties: false }),
  stats: Type.Object({
    minutes: Type.Optional(Type.Integer({ minimum: 1, maximum: ACTIVITY_MINUTES_KEPT_S / 60, description: `how many minutes of submissions per minute, the current one last: 1 to ${ACTIVITY_MINUTES_KEPT_S / 60} (60 by default)` })),
    days: Type.Optional(Type.Integer({ minimum: 1, maximum: ACTIVITY_DAYS_KEPT + 1, description: `how many UTC days, today last: 1 to ${ACTIVITY_DAYS_KEPT + 1} (30 by default)` }))
  }, { additionalProperties: false }),
  around: Type.Object({
    player_name: Type.String({ minLength: 1, maxLength: 64, description: 'the player' }),
    before: Type.Optional(Type.Integer({ minimum: 0, maximum: AROUND_MAX, description: `entries above the player: 0 to ${AROUND_MAX} (${AROUND_DEFAULT} by default)` })),
    after: Type.Optional(Type.Integer({ minimum: 0, maximum: AROUND_MAX, description: `entries below the player: 0 to ${AROUND_MAX} (${AROUND_DEFAULT} by default)` })),
    ...BoardQuery
  }, { additionalProperties: false }),
  liveTop: Type.Object({
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: '1 to 100 (20 by default)' })),
    ...BoardQuery
  }, { additionalProperties: false }),
  scoreStats: Type.Object({
    buckets: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'how many equal ranges from the lowest score to the highest: 1 to 100 (20 by default)' })),
    ...BoardQuery
  }, { additionalProperties: false }),
  setGamejolt: Type.Object({
    gamejolt_game_id: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_GAMEJOLT_ID, description: `the game's id in Game Jolt's API, 1 to ${MAX_GAMEJOLT_ID}: the one its builds carry (default: the game's own, or a free one)` })),
    private_key: Type.Optional(Type.String({ pattern: GAMEJOLT_KEY_PATTERN.source, description: 'the private key its builds carry: 8 to 128 visible ASCII characters (default: a new random key)' })),
    primary_table_id: Type.Optional(GamejoltId('the table id of the game\'s own board (the primary table)')),
    data_limits: Type.Optional(Type.Object({
      item_bytes: DataLimit('item_bytes', "the most bytes of one item's data"),
      items_per_user: DataLimit('items_per_user', "the most items of one user's store (and of the game's global store)"),
      items_per_game: DataLimit('items_per_game', 'the most items of the whole game, every store together'),
      game_bytes: DataLimit('game_bytes', 'the most bytes of the whole game (keys and data)')
    }, { additionalProperties: false, description: "the data store's limits; each omitted one is kept (the default at first)" }))
  }, { additionalProperties: false }),
  dataOwner: Type.Object({
    owner: Type.Optional(Type.String({ pattern: USERNAME_PATTERN.source, description: "a user's name: their store (default: the game's global store)" }))
  }, { additionalProperties: false }),
  ratings: Type.Object({
    ...Page(50),
    stars: Type.Optional(Type.Integer({ minimum: 1, maximum: 10, description: 'only ratings of these stars, 1 to 10 (half stars)' })),
    max_playtime_seconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000_000, description: 'only raters with at most this much play in the game now (seconds): 0 lists those who never played' }))
  }, { additionalProperties: false }),
  exportRatings: Type.Object({
    format: Type.Optional(Type.Union([Type.Literal('csv'), Type.Literal('ndjson')], { description: 'csv or ndjson (the default)' })),
    stars: Type.Optional(Type.Integer({ minimum: 1, maximum: 10, description: 'only ratings of these stars, 1 to 10 (half stars)' })),
    max_playtime_seconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000_000, description: 'only raters with at most this much play in the game now (seconds): 0 lists those who never played' }))
  }, { additionalProperties: false }),
  dataItems: Type.Object({
    ...Page(50),
    owner: Type.Optional(Type.String({ pattern: USERNAME_PATTERN.source, description: "a user's name: their store (default: the game's global store)" }))
  }, { additionalProperties: false }),
  dataItem: Type.Object({
    owner: Type.Optional(Type.String({ pattern: USERNAME_PATTERN.source, description: "a user's name: their store (default: the game's global store)" })),
    key: Type.String({ minLength: 1, maxLength: 1024, description: "the item's key" })
  }, { additionalProperties: false }),
  none: Type.Object({}, { additionalProperties: false })
}

const BOOLEAN_TEXT: Record<string, boolean> = { true: true, false: false, 1: true, 0: false }
// Form fields and command-line flags are text: "true"/"1" are booleans, digits are integers.
const TEXT_FIELDS = Symbol('fields that arrived as text')

/**
 * Marks fields that arrived as text (form bodies, command-line flags), where
 * "true"/"false"/"1"/"0" are booleans (docs/interface.md#operator-api). JSON keeps
 * its types: `{"approved": "true"}` is invalid_param like `{"game_id": 5}`.
 */
export function textFields (fields: unknown): unknown {
  return fields !== null && typeof fields === 'object' ? { ...fields, [TEXT_FIELDS]: true } : fields
}

/** Checks `input` against an object schema in the admin order. */
export function readInput<T extends TObject<TProperties>> (schema: T, input: unknown): Static<T> {
  if (input === undefined || input === null || input === '') input = {}
  if (typeof input !== 'object' || input === null || Array.isArray(input) || Buffer.isBuffer(input)) fail('invalid_body', 'The body must be an object of fields.')
  const asText = (input as { [TEXT_FIELDS]?: boolean })[TEXT_FIELDS] === true
  const fields: Record<string, unknown> = Object.create(null)
  for (const name of Object.keys(input)) fields[name] = (input as Record<string, unknown>)[name]
  for (const name of schema.required ?? []) {
    if (fields[name] === undefined || fields[name] === null || fields[name] === '') fail('missing_param', `Parameter "${name}" is required.`)
  }
  for (const name of Object.keys(fields)) {
    const property = schema.properties[name]
    if (property === undefined) fail('invalid_param', `Unknown parameter "${name.slice(0, 40)}".`)
    const value = fields[name]
    const types = (property.anyOf as TSchema[] | undefined)?.map(one => one.type as unknown) ?? [property.type]
    // A list is a value in JSON (periods); among text fields it is a field sent twice.
    if (Array.isArray(value) && (asText || !types.includes('array'))) fail('invalid_param', `Parameter "${name}" was sent more than once.`)
    if (!asText || typeof value !== 'string') continue
    if (types.includes('boolean') && Object.hasOwn(BOOLEAN_TEXT, value)) fields[name] = BOOLEAN_TEXT[value]
    if (types.includes('integer') && /^-?\d{1,16}$/.test(value)) fields[name] = Number(value)
    if (types.includes('number') && /^-?\d{1,16}(\.\d{1,16})?$/.test(value)) fields[name] = Number(value)
    if (types.includes('null') && value === 'default') fields[name] = null
  }
  const error = Value.Errors(schema, fields).First()
  if (error !== undefined) {
    const name = error.path.replace(/^\//, '')
    const rule = schema.properties[name]?.description ?? error.message.toLowerCase()
    fail('invalid_param', `Parameter "${name}" is not valid: ${rule}.`)
  }
  return fields as Static<T>
}
