import { randomBytes } from 'node:crypto'
import { Type, type Static, type TObject, type TProperties, type TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { fail } from '../http/envelope.js'
import { GAME_ID_PATTERN, USERNAME_PATTERN, isGameId } from '../http/params.js'
import { hashPassword } from '../store/passwords.js'
import type { BoardEntry, Leaderboard, Season } from '../store/leaderboard.js'
import { DEFAULT_CAPS, DEFAULT_FAIR_PLAY, DEFAULT_PERIODS, FAIR_PLAY_SETTINGS, MAX_NOTIFY_TOP, gameInTheMaking, periodsOf, type FairPlaySetting, type GameChanges, type GameRecord, type KeyRecord, type RecordStore } from '../store/records.js'
import { MAX_KEEP_PERIODS, PERIOD_KINDS, canonicalTimeZone } from '../store/periods.js'
import { publicUser, type UserRecord, type UserStore } from '../store/users.js'
import type { HeldScore, ReviewList, ReviewQueue } from '../store/review.js'
import { type StoredDelivery, type StoredWebhook, type WebhookStore } from '../store/webhooks.js'
import { EVENT_TYPES, TEST_EVENT, type Events, type GameEvent } from '../store/events.js'
import { MAX_URL_LENGTH, newWebhookSecret, receiverUrlProblem } from '../webhooks/send.js'
import { bodyOf } from '../webhooks/dispatcher.js'

/**
 * The operator operations (docs/interface.md#operator-api), shared by the /admin
 * routes and the command-line tool, so each rule is written once. Input comes
 * from JSON, form fields or command-line flags and is checked in the admin
 * order: missing_param, then invalid_param, then not_found, then already_exists.
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

const EVENT_LIST = `(${EVENT_TYPES.map(type => type.replace('.', '\\.')).join('|')})`
const WebhookEvents = Type.Union([
  Type.Array(Type.Union([...EVENT_TYPES, '*'].map(type => Type.Literal(type))), { minItems: 1, maxItems: EVENT_TYPES.length + 1, uniqueItems: true }),
  Type.String({ pattern: `^(\\*|${EVENT_LIST}(,${EVENT_LIST})*)$` })
], { description: `the events to deliver: any of ${EVENT_TYPES.join(', ')}, as a list or comma-separated text; "*" (the default) for every one` })
const Listing = (defaultLimit: number) => ({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: `an integer from 1 to 100 (default ${defaultLimit})` })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000_000, description: 'an integer from 0 (the default)' }))
})

const ReviewNote = Type.String({ maxLength: 500, description: 'why, recorded with the decision: up to 500 characters' })

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
    ...fairPlaySettings
  }, { additionalProperties: false }),
  updateGame: Type.Object({
    name: Type.Optional(GameName),
    developer: Type.Optional(Username),
    approved: Type.Optional(Type.Boolean()),
    max_entries: Type.Optional(MaxEntries),
    max_meta_bytes: Type.Optional(MaxMetaBytes),
    ...periodSettings,
    ...fairPlaySettings
  }, { additionalProperties: false }),
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
  setPlayer: Type.Object({ hidden: Type.Boolean() }, { additionalProperties: false }),
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

function now (): string {
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

/** A webhook as operators see it: never its secret (shown once, when it is made). */
export type PublicWebhook = Omit<StoredWebhook, 'secret'>

function publicWebhook ({ secret: _secret, ...webhook }: StoredWebhook): PublicWebhook {
  return webhook
}

/** A delivery as operators see it: times in ISO, the payload as sent. */
export interface PublicDelivery {
  delivery_id: string
  webhook_id: string
  message_id: string
  type: string
  status: StoredDelivery['status']
  attempts: number
  created_at: string
  last_attempt_at: string | null
  next_attempt_at: string | null
  finished_at: string | null
  last_status: number | null
  last_error: string | null
  last_duration_ms: number | null
  payload: unknown
}

function publicDelivery (delivery: StoredDelivery): PublicDelivery {
  const iso = (ms: number | undefined): string | null => ms === undefined ? null : new Date(ms).toISOString()
  return {
    delivery_id: delivery.delivery_id,
    webhook_id: delivery.webhook_id,
    message_id: delivery.message_id,
    type: delivery.type,
    status: delivery.status,
    attempts: delivery.attempts,
    created_at: iso(delivery.created_at) as string,
    last_attempt_at: iso(delivery.last_attempt_at),
    next_attempt_at: delivery.status === 'pending' ? iso(delivery.next_attempt_at) : null,
    finished_at: iso(delivery.finished_at),
    last_status: delivery.last_status ?? null,
    last_error: delivery.last_error ?? null,
    last_duration_ms: delivery.last_duration_ms ?? null,
    payload: JSON.parse(delivery.body)
  }
}

/** What a webhook id looks like. */
const WEBHOOK_ID_PATTERN = /^wh_[0-9a-f]{24}$/

/** An API key as operators see it: never the secret; `rate_limit` only when the key has its own (v1 answers stay as they were). */
export type PublicKey = Omit<KeyRecord, 'secret' | 'rate_limit'> & { rate_limit?: number }

/** The key record as operators may see it after creation. */
export function publicKey ({ secret: _secret, rate_limit: rateLimit, ...key }: KeyRecord): PublicKey {
  return rateLimit === null ? key : { ...key, rate_limit: rateLimit }
}

export interface AdminDeps {
  records: RecordStore
  review: ReviewQueue
  webhooks: WebhookStore
  events: Events
  /** WEBHOOK_ALLOW_PRIVATE: receivers on loopback and private addresses are allowed. */
  webhookAllowPrivate: boolean
  users: UserStore
  leaderboard: Leaderboard
  sessionTtlS: number
  sessionCookie: string
}

/** How many board scripts run at once while a user's hidden flag is applied to every game. */
const BOARD_BATCH = 200

export function createAdmin ({ records, review, webhooks, events, webhookAllowPrivate, users, leaderboard, sessionTtlS, sessionCookie }: AdminDeps) {
  /**
   * A user's flag applies to every board: each board keeps its own copy of
   * the hidden users (one small script per game), so submits decide
   * visibility atomically in the game's slot. Games made later copy the
   * global set when they are created.
   */
  async function applyUserHidden (username: string, hidden: boolean): Promise<void> {
    await users.setHiddenUser(username, hidden)
    const games = await records.gameIds()
    for (let i = 0; i < games.length; i += BOARD_BATCH) {
      await Promise.all(games.slice(i, i + BOARD_BATCH).map(async gameId => {
        // A game whose record is still being made has only its copy of the hidden users to set.
        const game = await records.game(gameId, { fresh: true }) ?? gameInTheMaking(gameId)
        await leaderboard.setVisibility(game, username, { userHidden: hidden })
      }))
    }
  }

  function notPending (status: string): never {
    fail('not_found', status === 'unknown' ? 'No such held score.' : `That held score is no longer pending: it was ${status}.`)
  }

  async function pendingHeld (gameId: string, heldId: string): Promise<HeldScore> {
    const held = await review.held(gameId, heldId)
    if (held === null) notPending('unknown')
    if (held.status !== 'pending') notPending(held.status)
    return held
  }

  async function existingWebhook (gameId: string, webhookId: string): Promise<StoredWebhook> {
    return (WEBHOOK_ID_PATTERN.test(webhookId) ? await webhooks.get(gameId, webhookId) : null) ?? fail('not_found', 'No such webhook for this game.')
  }

  /** The game read afresh: an operator's change must start from the stored record, not a cached one. */
  async function existingGame (gameId: string): Promise<GameRecord> {
    return await records.game(gameId, { fresh: true }) ?? fail('not_found', 'No such game.')
  }

  return {
    async createGame (input: unknown): Promise<GameRecord> {
      const body = readInput(schemas.createGame, input)
      const createdAt = now()
      const game = await records.createGame({
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
        season: 1,
        season_started_at: createdAt
      })
      return game ?? fail('already_exists', `Game "${body.game_id}" already exists.`)
    },

    async updateGame (gameId: string, input: unknown): Promise<GameRecord> {
      const body = readInput(schemas.updateGame, input)
      const { periods: _periods, ...plain } = body
      const bounds = body.score_min === undefined && body.score_max === undefined ? undefined : await records.game(gameId, { fresh: true })
      const changes = { ...plain, ...periodSettingsOf(body), ...fairPlayOf(body, bounds ?? undefined) }
      const game = isGameId(gameId) ? await records.updateGame(gameId, changes) : null
      if (game === 'has_entries') fail('invalid_param', 'Parameter "order" cannot change: the game has stored entries (or closed a season), and a board keeps its scores in its order.')
      return game ?? fail('not_found', 'No such game.')
    },

    /**
     * Closes the current season of the game's all-time board: it stays
     * readable by its season_id, and an empty season begins, atomically.
     */
    async closeSeason (gameId: string, input?: unknown): Promise<Season> {
      readInput(schemas.none, input)
      const closed = await records.closeSeason(await existingGame(gameId)) ?? fail('not_found', 'No such game.')
      // The closed season's dates, as the script recorded them.
      return (await leaderboard.seasons(gameId)).items.find(season => season.season_id === closed) as Season
    },

    async seasons (gameId: string): Promise<{ game_id: string, season_id: number, items: Season[] }> {
      const game = await existingGame(gameId)
      return { game_id: game.game_id, ...await leaderboard.seasons(game.game_id) }
    },

    /** A new key and its secret; the secret is shown this once. */
    async createKey (input: unknown): Promise<PublicKey & { api_secret: string }> {
      const body = readInput(schemas.createKey, input)
      if (await records.game(body.game_id) === null) fail('invalid_game', 'No such game.')
      const key: KeyRecord = {
        api_key: `rk_${randomBytes(16).toString('hex')}`,
        game_id: body.game_id,
        secret: randomBytes(32).toString('hex'),
        revoked: false,
        created_at: now(),
        rate_limit: body.rate_limit ?? null
      }
      if (await records.createKey(key) === null) fail('internal_error', 'The new key collided with an existing one; try again.')
      const { api_key: apiKey, ...rest } = publicKey(key)
      return { api_key: apiKey, api_secret: key.secret, ...rest }
    },

    async updateKey (apiKey: string, input: unknown): Promise<PublicKey> {
      const body = readInput(schemas.updateKey, input)
      const key = await records.updateKey(apiKey, body)
      return key === null ? fail('not_found', 'No such API key.') : publicKey(key)
    },

    async revokeKey (apiKey: string, input?: unknown): Promise<PublicKey> {
      readInput(schemas.none, input)
      const key = await records.revokeKey(apiKey)
      return key === null ? fail('not_found', 'No such API key.') : publicKey(key)
    },

    async createUser (input: unknown): Promise<UserRecord> {
      const body = readInput(schemas.createUser, input)
      const user = await users.createUser({
        username: body.username,
        passwordHash: body.password === undefined ? undefined : await hashPassword(body.password),
        is_admin: body.is_admin ?? false,
        hidden: body.hidden ?? false,
        created_at: now()
      })
      if (user === null) fail('already_exists', `User "${body.username}" already exists.`)
      // Scores submitted under this name before the user existed leave the boards too.
      if (user.hidden) await applyUserHidden(user.username, true)
      return publicUser(user)
    },

    async updateUser (username: string, input: unknown): Promise<UserRecord> {
      const body = readInput(schemas.updateUser, input)
      const user = await users.updateUser(username, {
        passwordHash: body.password === undefined ? undefined : await hashPassword(body.password),
        is_admin: body.is_admin,
        hidden: body.hidden
      })
      if (user === null) fail('not_found', 'No such user.')
      if (body.hidden !== undefined) await applyUserHidden(username, body.hidden)
      // Whoever knew the old password may hold a session: a new password ends them all.
      if (body.password !== undefined) await users.endSessions(username)
      return publicUser(user)
    },

    /** When each of a user's live sessions expires; the session ids stay secret. */
    async userSessions (username: string): Promise<{ username: string, sessions: Array<{ expires_at: string }> }> {
      if (await users.user(username) === null) fail('not_found', 'No such user.')
      return { username, sessions: await users.sessionsOf(username) }
    },

    /** Logs a user out everywhere. */
    async endUserSessions (username: string, input?: unknown): Promise<{ ended: number }> {
      readInput(schemas.none, input)
      if (await users.user(username) === null) fail('not_found', 'No such user.')
      return { ended: await users.endSessions(username) }
    },

    /** For a platform with its own login: a session for an existing user. */
    async createSession (input: unknown): Promise<{ session_id: string, cookie_name: string, expires_at: string }> {
      const body = readInput(schemas.createSession, input)
      const user = await users.user(body.username) ?? fail('not_found', 'No such user.')
      const session = await users.createSession(user, sessionTtlS)
      return { session_id: session.sessionId, cookie_name: sessionCookie, expires_at: session.expiresAt }
    },

    async deleteSession (sessionId: string, input?: unknown): Promise<Record<string, never>> {
      readInput(schemas.none, input)
      if (!await users.deleteSession(sessionId)) fail('not_found', 'No such session.')
      return {}
    },

    async player (gameId: string, player: string): Promise<BoardEntry> {
      const entry = await leaderboard.entry(await existingGame(gameId), player)
      return entry ?? fail('not_found', 'No such player on this board.')
    },

    async setPlayer (gameId: string, player: string, input: unknown): Promise<BoardEntry> {
      const body = readInput(schemas.setPlayer, input)
      const game = await existingGame(gameId)
      if (await leaderboard.entry(game, player) === null) fail('not_found', 'No such player on this board.')
      await leaderboard.setVisibility(game, player, { boardHidden: body.hidden })
      return await this.player(gameId, player)
    },

    /** The game's held scores: pending ones oldest first, or decided ones newest first. */
    async reviewList (gameId: string, input?: unknown): Promise<{ game_id: string, status: ReviewList, total: number, items: HeldScore[] }> {
      const query = readInput(schemas.reviewList, input)
      const game = await existingGame(gameId)
      const status = query.status ?? 'pending'
      return { game_id: game.game_id, status, ...await review.list(game.game_id, status, query.offset ?? 0, query.limit ?? 50) }
    },

    /**
     * Puts a held score on the boards as of the moment it was submitted (so
     * ties go to whoever was first) and records the decision; the answer is
     * the decided record and the player's standing on the all-time board.
     */
    async approveHeld (gameId: string, heldId: string, input?: unknown): Promise<{ held: HeldScore, improved: boolean, best_score: number | null, rank: number | null }> {
      const body = readInput(schemas.approveHeld, input)
      const game = await existingGame(gameId)
      const held = await pendingHeld(game.game_id, heldId)
      const result = await leaderboard.approveHeld(game, {
        id: held.held_id, player: held.player_name, score: held.score, meta: held.meta ?? undefined, submittedAt: Date.parse(held.submitted_at), season: held.season_id
      }, body.note ?? '')
      return { held: await review.held(game.game_id, heldId) as HeldScore, improved: result.improved, best_score: result.bestScore, rank: result.rank }
    },

    /** Records that a held score stays off the boards; `hide` also hides the player on every board of the game. */
    async rejectHeld (gameId: string, heldId: string, input?: unknown): Promise<HeldScore> {
      const body = readInput(schemas.rejectHeld, input)
      const game = await existingGame(gameId)
      const rejected = await review.reject(game.game_id, heldId, body.note ?? '')
      if ('decided' in rejected) notPending(rejected.decided)
      if (body.hide === true) await leaderboard.setVisibility(game, rejected.player_name, { boardHidden: true })
      return rejected
    },

    /** A webhook for the game's events; the answer shows its signing secret, this once. */
    async createWebhook (gameId: string, input: unknown): Promise<PublicWebhook & { secret: string }> {
      const body = readInput(schemas.createWebhook, input)
      const problem = await receiverUrlProblem(body.url, webhookAllowPrivate)
      if (problem !== undefined) fail('invalid_param', `Parameter "url" is not valid: ${problem}.`)
      const named = typeof body.events === 'string' ? body.events.split(',') : body.events ?? ['*']
      const webhook: StoredWebhook = {
        webhook_id: `wh_${randomBytes(12).toString('hex')}`,
        url: new URL(body.url).href,
        events: named.includes('*') ? ['*'] : EVENT_TYPES.filter(type => named.includes(type)),
        description: body.description ?? null,
        created_at: now(),
        secret: newWebhookSecret()
      }
      const game = await existingGame(gameId)
      if (!await webhooks.create(game.game_id, webhook)) fail('not_found', 'No such game.')
      const { secret, ...shown } = webhook
      return { ...shown, secret }
    },

    async webhooks (gameId: string): Promise<{ game_id: string, items: PublicWebhook[] }> {
      const game = await existingGame(gameId)
      return { game_id: game.game_id, items: (await webhooks.list(game.game_id)).map(publicWebhook) }
    },

    async webhook (gameId: string, webhookId: string): Promise<PublicWebhook> {
      return publicWebhook(await existingWebhook((await existingGame(gameId)).game_id, webhookId))
    },

    /** Removes the webhook; its pending deliveries are dropped. */
    async deleteWebhook (gameId: string, webhookId: string, input?: unknown): Promise<Record<string, never>> {
      readInput(schemas.none, input)
      const game = await existingGame(gameId)
      if (!WEBHOOK_ID_PATTERN.test(webhookId) || !await webhooks.delete(game.game_id, webhookId)) fail('not_found', 'No such webhook for this game.')
      return {}
    },

    /** A webhook.test delivery to this webhook only, sent like any other (signed, retried). */
    async testWebhook (gameId: string, webhookId: string, input?: unknown): Promise<PublicDelivery> {
      readInput(schemas.none, input)
      const game = await existingGame(gameId)
      const webhook = await existingWebhook(game.game_id, webhookId)
      const at = Date.now()
      const body = bodyOf({ type: TEST_EVENT, timestamp: new Date(at).toISOString(), data: { game_id: game.game_id, webhook_id: webhook.webhook_id } })
      const { made: [id] } = await webhooks.enqueue(game.game_id, at, [], [{ webhookId: webhook.webhook_id, messageId: `test_${randomBytes(12).toString('hex')}`, type: TEST_EVENT, body }])
      const delivery = id === undefined ? null : await webhooks.delivery(game.game_id, id)
      return publicDelivery(delivery ?? fail('not_found', 'No such webhook for this game.'))
    },

    /** A webhook's delivery log: finished deliveries newest first, or pending ones by when next due. */
    async webhookDeliveries (gameId: string, webhookId: string, input?: unknown): Promise<{ game_id: string, webhook_id: string, status: 'pending' | 'done', total: number, items: PublicDelivery[] }> {
      const query = readInput(schemas.deliveries, input)
      const game = await existingGame(gameId)
      const webhook = await existingWebhook(game.game_id, webhookId)
      const status = query.status ?? 'done'
      const { total, items } = await webhooks.deliveries(game.game_id, webhook.webhook_id, status, query.offset ?? 0, query.limit ?? 50)
      return { game_id: game.game_id, webhook_id: webhook.webhook_id, status, total, items: items.map(publicDelivery) }
    },

    /** Sends a finished delivery again, with its webhook-id, from now, with a fresh retry window. */
    async redeliver (gameId: string, webhookId: string, deliveryId: string, input?: unknown): Promise<PublicDelivery> {
      readInput(schemas.none, input)
      const game = await existingGame(gameId)
      const webhook = await existingWebhook(game.game_id, webhookId)
      const delivery = /^[1-9][0-9]{0,15}$/.test(deliveryId) ? await webhooks.redeliver(game.game_id, webhook.webhook_id, deliveryId, Date.now()) : null
      if (delivery === 'pending') fail('invalid_param', 'That delivery is pending already: it is being tried.')
      return publicDelivery(delivery ?? fail('not_found', 'No such delivery for this webhook.'))
    },

    /** The newest events of the game's outbox (written while it has webhooks), newest first, and how many it could not take ever (it was full). */
    async events (gameId: string, input?: unknown): Promise<{ game_id: string, items: GameEvent[], dropped: number }> {
      const query = readInput(schemas.events, input)
      const game = await existingGame(gameId)
      const { items, dropped } = await events.recent(game.game_id, (query.offset ?? 0) + (query.limit ?? 50))
      return { game_id: game.game_id, items: items.slice(query.offset ?? 0), dropped }
    },

    async deletePlayer (gameId: string, player: string, input?: unknown): Promise<Record<string, never>> {
      readInput(schemas.none, input)
      if (!await leaderboard.deleteEntry(await existingGame(gameId), player)) fail('not_found', 'No such player on this game\'s boards.')
      return {}
    }
  }
}

export type Admin = ReturnType<typeof createAdmin>
