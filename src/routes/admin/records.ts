import { Type, type Static } from '@sinclair/typebox'
import { DIFFICULTIES } from '../../rules/achievements.js'
import { Nullable } from '../schemas.js'
import { BoardFields, PERIOD } from '../board-schemas.js'
import { GUEST_POLICIES, RUN_POLICIES, SUBMIT_RUN_POLICIES } from '../../rules/games.js'
import { SCORE_FORMAT_TYPES } from '../../../sdk/format.js'

/*
 * The records the operator API answers with, as TypeBox schemas (for the
 * OpenAPI document and the answers' serialization) and, under the same
 * names, their TypeScript types: the console imports those, so a record is
 * written once.
 */

/** How a board's scores are shown (docs/decisions/0072-score-formats-raw-in-the-api-shown-by.md): raw integers stay raw in the API and the exports. */
const displayFields = {
  score_format: Type.Union(SCORE_FORMAT_TYPES.map(type => Type.Literal(type)), { description: 'integer (1,234), decimal (the score in 10^-score_decimals units) or time (the score in ms: 1:02.345)' }),
  score_decimals: Type.Integer({ minimum: 0, description: 'decimal: digits after the separator; time: digits of the seconds\' fraction' }),
  score_unit: Type.String({ description: 'shown after each score; \'\' for none' })
}

/** When a board began keeping each of its period kinds (docs/decisions/0075-a-period-kept-since-when.md). */
const PeriodsSinceSchema = Type.Object({
  daily: Type.Optional(Type.Integer()),
  weekly: Type.Optional(Type.Integer()),
  monthly: Type.Optional(Type.Integer())
}, { description: 'when the board began keeping each of its periods (ms since 1970, the calendar\'s clock); a kind kept from before this was recorded has none. Past periods that ended before it are not listed and are not told closed' })

/** A named board (docs/decisions/0070-named-boards-one-game-many-boards-in-its.md). */
export const NamedBoardSchema = Type.Object({
  board_id: Type.String(),
  name: Type.String({ description: 'what players see' }),
  order: Type.Union([Type.Literal('desc'), Type.Literal('asc')], { description: 'desc: higher is better; asc: lower is better' }),
  operator: Type.Union([Type.Literal('best'), Type.Literal('latest'), Type.Literal('sum')], { description: 'best: the better score is kept; latest: the last one; sum: each score adds to a ranked total' }),
  periods: Type.Array(PERIOD, { description: "the calendar boards kept beside its all-time one (the game's time zone and keep_periods)" }),
  periods_since: PeriodsSinceSchema,
  score_min: Nullable(Type.Integer()),
  score_max: Nullable(Type.Integer()),
  review_above: Nullable(Type.Integer()),
  review_below: Nullable(Type.Integer()),
  review_factor: Nullable(Type.Number()),
  ...displayFields,
  archived: Type.Boolean({ description: 'read as before, takes no new scores' }),
  gamejolt_id: Type.Integer({ description: 'its table id in Game Jolt\'s API (docs/gamejolt.md#ids)' }),
  created_at: Type.String({ format: 'date-time' }),
  first_season: Type.Integer({ minimum: 1, description: "the game's season when the board was made" })
})

export const AchievementSchema = Type.Object({
  achievement_id: Type.String(),
  name: Type.String({ description: 'what players see' }),
  description: Type.String(),
  points: Type.Integer({ minimum: 0, maximum: 1000 }),
  hidden: Type.Boolean({ description: 'shown to players only once unlocked' }),
  min_run_seconds: Type.Integer({ minimum: 0, description: 'the verified play (seconds) of the run an unlock by the game must carry; 0: no minimum' }),
  difficulty: Type.Union(DIFFICULTIES.map(one => Type.Literal(one)), { description: 'bronze, silver, gold or platinum: Game Jolt\'s trophy material' }),
  gamejolt_id: Type.Integer({ description: 'its trophy id in Game Jolt\'s API (docs/gamejolt.md#ids)' }),
  rule: Nullable(Type.Object({
    board: Type.String({ description: 'default (the game\'s own) or a named board' }),
    at_least: Nullable(Type.Integer()),
    at_most: Nullable(Type.Integer())
  }, { description: 'the threshold of a board\'s stored score that unlocks it; null: only the game unlocks it' })),
  icon: Nullable(Type.Object({
    content_type: Type.String(),
    bytes: Type.Integer(),
    etag: Type.String({ description: 'a hash of the image: the icon URL\'s version' })
  })),
  created_at: Type.String({ format: 'date-time' })
})

export const GameSchema = Type.Object({
  game_id: Type.String(),
  name: Type.String(),
  developer: Nullable(Type.String()),
  approved: Type.Boolean(),
  created_at: Type.String({ format: 'date-time' }),
  max_entries: Type.Integer({ description: 'most players the board keeps; a new player past it is quota_exceeded' }),
  max_meta_bytes: Type.Integer({ description: 'most bytes of meta kept over all entries' }),
  order: Type.Union([Type.Literal('desc'), Type.Literal('asc')], { description: 'desc: higher is better; asc: lower is better' }),
  periods: Type.Array(PERIOD, { description: 'the calendar boards kept beside the all-time one' }),
  periods_since: PeriodsSinceSchema,
  timezone: Type.String({ description: 'the IANA zone whose midnights start the periods' }),
  keep_periods: Type.Integer({ description: 'past periods of each kind kept readable' }),
  season: Type.Integer({ minimum: 1, description: "the all-time board's current season" }),
  season_started_at: Type.String({ format: 'date-time' }),
  score_min: Nullable(Type.Integer({ description: 'lower scores are score_out_of_range; null: no bound' })),
  score_max: Nullable(Type.Integer({ description: 'higher scores are score_out_of_range; null: no bound' })),
  review_above: Nullable(Type.Integer({ description: 'a score above this is held for review' })),
  review_below: Nullable(Type.Integer({ description: 'a score below this is held for review' })),
  review_factor: Nullable(Type.Number({ description: "a score better than this many times the player's previous best, or the first place, is held for review" })),
  notify_top: Type.Integer({ description: 'how deep into the board board.overtaken events reach' }),
  guests: Type.Union(GUEST_POLICIES.map(policy => Type.Literal(policy)), { description: 'off: no guests; listed: guests play and appear on the boards; unlisted: guests play, shown once they sign up' }),
  runs: Type.Union(RUN_POLICIES.map(policy => Type.Literal(policy)), { description: 'proof of play: off, optional or required' }),
  min_run_seconds: Type.Integer({ description: 'the verified play a run needs before its score counts (seconds)' }),
  max_score_rate: Nullable(Type.Number({ description: 'the most points per verified second of a run; null: no such rule' })),
  implausible: Type.Union([Type.Literal('hold'), Type.Literal('refuse')], { description: 'what a score past the run rules gets' }),
  run_ttl_s: Type.Integer({ description: 'how long a run may be played (seconds)' }),
  submit_run: Type.Union(SUBMIT_RUN_POLICIES.map(policy => Type.Literal(policy)), { description: 'on: browser games submit with a run and the public api_key alone (submit-run)' }),
  rating_full_weight_seconds: Type.Integer({ description: "the rater's verified play (seconds) at which a rating weighs fully in the weighted score" }),
  rating_min_play_seconds: Type.Integer({ description: 'the verified play (seconds) a user needs in the game to rate it; 0: none' }),
  listed: Type.Boolean({ description: 'whether the public games list and the front page show the game' }),
  ...displayFields
})
export type Game = Static<typeof GameSchema>

export const KeyRateLimitSchema = Type.Optional(Type.Integer({ minimum: 1, description: 'requests per window from one address with this key; absent: the global RATE_LIMIT_MAX' }))

export const KeySchema = Type.Object({ api_key: Type.String(), game_id: Type.String(), revoked: Type.Boolean(), created_at: Type.String({ format: 'date-time' }), rate_limit: KeyRateLimitSchema })
export type Key = Static<typeof KeySchema>

export const UserSchema = Type.Object({
  username: Type.String(),
  is_admin: Type.Boolean(),
  hidden: Type.Boolean(),
  created_at: Type.String({ format: 'date-time' }),
  guest: Type.Boolean({ description: 'a guest of the play page: erased at guest_until unless it signs up or logs in first' }),
  guest_until: Nullable(Type.String({ format: 'date-time' })),
  sign_in: Type.Array(Type.Union([
    Type.Object({ method: Type.Literal('password') }),
    Type.Object({ method: Type.Union([Type.Literal('token'), Type.Literal('oidc')]), issuer: Type.String(), subject: Type.String() })
  ]), { description: "how the user signs in: a password, and each platform identity (a signed token's or OpenID Connect's issuer and subject); empty: only sessions an operator makes (and guests)" })
})
export type User = Static<typeof UserSchema>

export const EntrySchema = Type.Object({
  player_name: Type.String(),
  best_score: Type.Integer(),
  created_at: Type.String({ format: 'date-time' }),
  meta: Nullable(Type.String()),
  hidden: Type.Boolean(),
  rank: Nullable(Type.Integer()),
  season_id: Type.Integer({ minimum: 1, description: 'the season the entry is in: the current one, or the newest closed one that holds it' }),
  board: Type.Optional(Type.String({ description: 'the named board the entry is on (docs/interface.md#named-boards); absent for the game\'s own board' }))
})
export type Entry = Static<typeof EntrySchema>

export const HeldScoreSchema = Type.Object({
  held_id: Type.String({ description: 'the held score, in this game' }),
  player_name: Type.String(),
  score: Type.Integer(),
  meta: Nullable(Type.String()),
  submitted_at: Type.String({ format: 'date-time', description: 'approved, the score takes this time on the boards (ties go to whoever was first)' }),
  season_id: Type.Integer({ minimum: 1, description: 'the season it was submitted in, where it lands when approved' }),
  board_id: Nullable(Type.String({ description: 'the named board it was submitted to, where it lands when approved (docs/interface.md#named-boards); null for the game\'s own board' })),
  rule: Type.Union([Type.Literal('review_above'), Type.Literal('review_below'), Type.Literal('review_factor'), Type.Literal('run_short'), Type.Literal('run_rate')], { description: 'the review rule that held it (run_short, run_rate: its run, docs/interface.md#runs)' }),
  parts: Type.Integer({ minimum: 1, description: 'how many submitted scores it is: 1, but on a sum board the scores held while one waits add up into one (score is their total)' }),
  run: Nullable(Type.Object({
    run_id: Type.String(),
    verified_seconds: Type.Integer({ description: 'its verified play when the score came' }),
    started_at: Nullable(Type.String({ format: 'date-time' })),
    reports: Type.Integer({ description: 'how many play reports credited it' }),
    timeline: Type.Array(Type.Object({ at: Type.String({ format: 'date-time', description: 'the end of what the report credited' }), credited_seconds: Type.Integer() }), { description: 'the last 20 reports, oldest first' })
  }, { description: 'the run the score came from: its verified play then, when it began and when its play was reported' })),
  status: Type.Union([Type.Literal('pending'), Type.Literal('approved'), Type.Literal('rejected'), Type.Literal('superseded')], { description: 'superseded: a better score of the player was held instead (on a latest board, a later one; on a sum board, one that adds both up)' }),
  decided_at: Nullable(Type.String({ format: 'date-time' })),
  note: Nullable(Type.String({ description: "the operator's note on the decision" }))
})
export type HeldScore = Static<typeof HeldScoreSchema>

export const WebhookSchema = Type.Object({
  webhook_id: Type.String(),
  url: Type.String(),
  events: Type.Array(Type.String(), { description: 'the event types delivered; ["*"] for every one' }),
  description: Nullable(Type.String()),
  created_at: Type.String({ format: 'date-time' })
})
export type Webhook = Static<typeof WebhookSchema>

export const WebhookHealthSchema = Type.Object({
  failing_since: Nullable(Type.String({ format: 'date-time', description: 'the first failed attempt since the last delivered one; null while the last attempt delivered' })),
  last_attempt_at: Nullable(Type.String({ format: 'date-time', description: 'when the last attempt ended; null before any' })),
  last_status: Nullable(Type.Integer({ description: "the receiver's HTTP status at the last attempt" })),
  last_error: Nullable(Type.String({ description: 'why the last attempt failed' }))
}, { description: "how the webhook's receiver answers, from the attempts' ends" })

export const ListedWebhookSchema = Type.Object({ ...WebhookSchema.properties, health: WebhookHealthSchema })
export type ListedWebhook = Static<typeof ListedWebhookSchema>

export const GameEventSchema = Type.Object({
  event_id: Type.String({ description: 'the outbox entry: its first part is when it happened (ms)' }),
  type: Type.String(),
  timestamp: Type.String({ format: 'date-time' }),
  data: Type.Object({ game_id: Type.String() }, { additionalProperties: true, description: 'what happened: see docs/interface.md#events' })
})
export type GameEvent = Static<typeof GameEventSchema>

export const DeliverySchema = Type.Object({
  delivery_id: Type.String(),
  webhook_id: Type.String(),
  message_id: Type.String({ description: 'the webhook-id header, the same on every attempt' }),
  type: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('dead')]),
  attempts: Type.Integer(),
  created_at: Type.String({ format: 'date-time' }),
  last_attempt_at: Nullable(Type.String({ format: 'date-time' })),
  next_attempt_at: Nullable(Type.String({ format: 'date-time', description: 'pending deliveries only' })),
  finished_at: Nullable(Type.String({ format: 'date-time' })),
  last_status: Nullable(Type.Integer({ description: "the receiver's HTTP status at the last attempt" })),
  last_error: Nullable(Type.String()),
  last_duration_ms: Nullable(Type.Integer()),
  payload: Type.Object({ type: Type.String(), timestamp: Type.String(), data: Type.Object({}, { additionalProperties: true }) }, { additionalProperties: true, description: 'the body sent' })
})
export type Delivery = Static<typeof DeliverySchema>

export const ListedEntrySchema = Type.Object({
  rank: Nullable(Type.Integer({ minimum: 1, description: 'null while hidden' })),
  player_name: Type.String(),
  best_score: Type.Integer(),
  created_at: Type.String({ format: 'date-time', description: 'when the best was reached' }),
  meta: Nullable(Type.String({ description: 'the meta sent with the best (seasons only)' })),
  hidden: Type.Boolean({ description: "hidden on this game's boards" }),
  hidden_user: Type.Boolean({ description: "hidden as a user, on every game's boards" }),
  run_verified_seconds: Nullable(Type.Integer({ description: 'for a best that came from a run, the verified play of the run then (while the game keeps runs); null otherwise' }))
})
export type ListedEntry = Static<typeof ListedEntrySchema>

export const AuditEntrySchema = Type.Object({
  audit_id: Type.String({ description: 'its place in the log read (a Stream id: ms-seq)' }),
  at: Type.String({ format: 'date-time' }),
  actor: Type.String({ description: "the operator token's name, cli:<OS user>, or demo" }),
  via: Type.Union([Type.Literal('http'), Type.Literal('cli'), Type.Literal('service')]),
  request_id: Nullable(Type.String({ description: 'over HTTP: the request id of the access log' })),
  action: Type.String({ description: 'what was done: game.create, key.revoke, user.erase…' }),
  game_id: Nullable(Type.String()),
  target: Nullable(Type.String({ description: 'the record changed; null when it is not kept (an erasure)' })),
  changed: Type.Array(Type.String(), { description: 'the fields whose values changed' }),
  before: Type.Unknown({ description: 'the record before (null: none), secrets masked' }),
  after: Type.Unknown({ description: 'the record after (null: none), secrets masked' })
})
export type AuditEntry = Static<typeof AuditEntrySchema>

const GameFiguresSchema = {
  entries: Type.Integer({ description: 'entries stored in the current season, hidden ones included' }),
  players: Type.Integer({ description: "visible players on the current season's board" }),
  rating_avg: Type.Number({ description: 'average stars (1..10), 2 decimals; 0 when nobody rated' }),
  rating_count: Type.Integer(),
  playtime_seconds: Type.Integer({ description: 'play time reported for the game' })
}
export const GameWithFiguresSchema = Type.Object({ ...GameSchema.properties, ...GameFiguresSchema })
export type GameWithFigures = Static<typeof GameWithFiguresSchema>

/** What GET /admin/games/:game_id/stats answers: the console's charts. */
export const GameActivitySchema = Type.Object({
  game_id: Type.String(),
  minutes: Type.Array(Type.Object({ at: Type.String({ format: 'date-time', description: 'the minute (UTC)' }), submissions: Type.Integer() }), { description: 'submissions per minute, the current minute last' }),
  days: Type.Array(Type.Object({
    day: Type.String({ description: 'a UTC day, YYYY-MM-DD' }),
    submissions: Type.Integer(),
    active_players: Type.Integer({ description: 'players who submitted or were credited play time (a HyperLogLog estimate: ±1%)' }),
    playtime_seconds: Type.Integer()
  }), { description: 'per UTC day, today last' }),
  ratings: Type.Object({
    count: Type.Integer(),
    avg: Type.Number({ description: 'the plain average, half-star units; 0 when none' }),
    weighted: Nullable(Type.Number({ description: 'the weighted score (docs/ratings.md), half-star units; null when none' })),
    items: Type.Array(Type.Object({ stars: Type.Integer({ description: '1..10, half-star units' }), count: Type.Integer() }))
  }),
  rating_days: Type.Array(Type.Object({
    day: Type.String({ description: 'a UTC day, YYYY-MM-DD' }),
    weighted: Nullable(Type.Number()),
    avg: Nullable(Type.Number()),
    count: Nullable(Type.Integer())
  }), { description: "the rating figures at each day's end as the games index noted them (null for a day they did not change), the days of `days`" })
})
export type GameActivity = Static<typeof GameActivitySchema>

/** How the scores of a board spread (GET /admin/games/:game_id/score-stats). */
export const ScoreSpreadSchema = Type.Object({
  game_id: Type.String(),
  total: Type.Integer({ description: 'visible entries counted' }),
  min: Nullable(Type.Number()),
  max: Nullable(Type.Number()),
  items: Type.Array(Type.Object({ from: Type.Number(), to: Type.Number(), count: Type.Integer() }), { description: 'equal ranges, lowest first; each holds its lower bound, the last its upper bound too' }),
  ...BoardFields
})
export type ScoreSpread = Static<typeof ScoreSpreadSchema>

/** The operator token a request carries. */
export const OperatorSchema = Type.Object({ name: Type.String({ description: "the token's name (ADMIN_TOKENS; admin for ADMIN_TOKEN)" }), role: Type.Union([Type.Literal('admin'), Type.Literal('viewer')]) })
export type Operator = Static<typeof OperatorSchema>
