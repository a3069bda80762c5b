import { randomBytes } from 'node:crypto'
import { Type, type Static, type TObject, type TProperties, type TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { fail } from '../errors.js'
import { AROUND_DEFAULT, AROUND_MAX, GAME_ID_PATTERN, USERNAME_PATTERN, parsePlayerName } from '../rules/fields.js'
import { hashPassword } from '../store/passwords.js'
import type { BoardEntry, ErasedFromGame, ImportedEntry, Leaderboard, ListPlace, ListedEntry, Season } from '../store/leaderboard.js'
import { ImportTooLarge, exportHeader, exportLines, importEntryOf, type ImportLine, type RefusedLine } from './import-export.js'
import { DEFAULT_CAPS, gameInTheMaking, periodsOf, type RecordStore } from '../store/games-and-keys.js'
import { type GameStats } from '../rules/games.js'
import { DEFAULT_FAIR_PLAY, DEFAULT_PERIODS, FAIR_PLAY_SETTINGS, MAX_NOTIFY_TOP, type FairPlaySetting, type GameChanges, type GameRecord, type KeyRecord } from '../rules/games.js'
import { MAX_KEEP_PERIODS, PERIOD_KINDS, canonicalTimeZone } from '../rules/periods.js'
import { publicUser, type StoredUser, type UserRecord, type UserStore } from '../store/users.js'
import { MASKED, type Actor, type AuditChange, type AuditEntry, type AuditLog } from '../store/audit.js'
import { decodeCursor, encodeCursor } from '../lib/cursor.js'
import { ENTRY_BUCKETS, keys } from '../store/keys.js'
import { ACTIVITY_DAYS_KEPT, ACTIVITY_MINUTES_KEPT_S, type Activity, type ActivityDay, type ActivityMinute, type ScoreBucket } from '../store/activity.js'
import type { Ratings } from '../store/ratings.js'
import { boardFields } from '../store/board-fields.js'
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

/** The query of a listing with cursors (docs/interface.md#listings). */
const Page = (defaultLimit: number) => ({
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 2048, description: 'the next_cursor of the page before, unchanged' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: `an integer from 1 to 100 (default ${defaultLimit})` }))
})
const Flag = (description: string) => Type.Optional(Type.Boolean({ description: `true or false: ${description}` }))
const BoardQuery = {
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
const cursors = {
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
  sessions: Type.Object({ k: Type.Literal('sessions'), e: Type.Integer({ minimum: 0, maximum: 9_999_999_999_999 }), n: Type.Integer({ minimum: 0, maximum: 1_000_000 }) })
}

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
    is_admin: Flag('only administrators, or only the others')
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

/** A board export, ready to send: its body is read as it is sent. */
export interface BoardExport {
  contentType: string
  filename: string
  body: AsyncGenerator<string>
}

/** What an import did, line by line counted. */
export interface ImportReport {
  game_id: string
  season_id: number
  /** Lines read (blank lines left out). */
  lines: number
  /** New players. */
  imported: number
  /** Players whose stored best the line beat (or equalled, earlier). */
  improved: number
  /** Lines no better than what is stored (an import sent again). */
  unchanged: number
  refused: number
  /** The first IMPORT_ERRORS_LISTED lines refused, with why. */
  errors: RefusedLine[]
}

/** Entries an export reads per page. */
const EXPORT_PAGE = 1000
/** Import lines per script call. */
const IMPORT_BATCH = 500
const IMPORT_ERRORS_LISTED = 100

/** What an erasure removed, summed over every game. */
export interface ErasureCounts {
  /** Games that held something of the person's. */
  games: number
  /** Board entries (one per season or period board that held one). */
  entries: number
  metas: number
  /** Held scores, pending or decided. */
  held: number
}

/** A page of a listing: its items, and the cursor of the next page (null after the last). */
export interface ListPage<T> {
  items: T[]
  next_cursor: string | null
}

/** How many ids a filtered listing reads at most for one page: a rare filter then ends the page early, with a cursor. */
const FILTER_BUDGET = 2000
const FILTER_CHUNK = 100

/**
 * A page of records listed by id: ids in order from `list`, their records
 * from `read` (null: gone since), those `keep` takes, up to `limit`. `next`
 * is the last id the page looked at when more may follow.
 */
async function namePage<T> (list: (after: string, count: number) => Promise<string[]>, read: (ids: string[]) => Promise<Array<T | null>>, keep: (record: T) => boolean, after: string, limit: number, filtered: boolean): Promise<{ items: T[], next: string | null }> {
  const items: T[] = []
  let position = after
  let looked = 0
  for (;;) {
    const chunk = filtered ? FILTER_CHUNK : limit + 1 - items.length
    const ids = await list(position, chunk)
    const records = await read(ids)
    for (const [i, id] of ids.entries()) {
      const record = records[i]
      if (record !== null && record !== undefined && keep(record)) {
        if (items.length === limit) return { items, next: position }
        items.push(record)
      }
      position = id
    }
    looked += ids.length
    if (ids.length < chunk) return { items, next: null }
    if (looked >= FILTER_BUDGET) return { items, next: position }
  }
}

/** Records one change in the audit log, for the operations' actor. */
type Auditor = (change: AuditChange, unmasked?: { before?: unknown, after?: unknown }) => Promise<void>

/**
 * A user as the audit log keeps them: the public record and whether a
 * password is set, masked; `unmasked`, the hash itself, so the audit's list
 * of changed fields notices a new password (the hash never leaves the module).
 */
function auditedUser (user: StoredUser, unmasked = false): Record<string, unknown> {
  return { ...publicUser(user), password: unmasked ? user.passwordHash ?? null : user.passwordHash === undefined ? null : MASKED }
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
  audit: AuditLog
  ratings: Ratings
  activity: Activity
}

/** How many board scripts run at once while a user's hidden flag is applied to every game. */
const BOARD_BATCH = 200

export function createAdmin ({ records, review, webhooks, events, webhookAllowPrivate, users, leaderboard, sessionTtlS, sessionCookie, audit: auditLog, ratings, activity }: AdminDeps) {
  /**
   * A user's flag applies to every board: each board keeps its own copy of
   * the hidden users (one small script per game), so submits decide
   * visibility atomically in the game's slot. Games made later copy the
   * global set when they are created.
   */
  async function applyUserHidden (username: string, hidden: boolean): Promise<void> {
    await users.setHiddenUser(username, hidden)
    await forEveryGame(async game => { await leaderboard.setVisibility(game, username, { userHidden: hidden }) })
  }

  /**
   * Runs `step` on every game, BOARD_BATCH at once, each game read afresh; a
   * game whose record is still being made is taken as it will be (its keys
   * exist: its copy of the hidden users). Returns what each step returned.
   */
  async function forEveryGame<T> (step: (game: GameRecord) => Promise<T>): Promise<T[]> {
    const games = await records.gameIds()
    const results: T[] = []
    for (let i = 0; i < games.length; i += BOARD_BATCH) {
      results.push(...await Promise.all(games.slice(i, i + BOARD_BATCH).map(async gameId => await step(await records.game(gameId, { fresh: true }) ?? gameInTheMaking(gameId)))))
    }
    return results
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

  /**
   * Erases a person from every game: one script per game (in its slot),
   * BOARD_BATCH games at once. Returns the sums, and how many games held
   * something of theirs.
   */
  async function eraseFromEveryGame (player: string, user: boolean): Promise<ErasedFromGame & { games: number }> {
    const total = { entries: 0, metas: 0, held: 0, ratings: 0, playtimeSeconds: 0, games: 0 }
    for (const one of await forEveryGame(async game => await leaderboard.erasePlayer(game, player, { user }))) {
      total.entries += one.entries
      total.metas += one.metas
      total.held += one.held
      total.ratings += one.ratings
      total.playtimeSeconds += one.playtimeSeconds
      if (one.entries + one.held + one.ratings + one.playtimeSeconds > 0) total.games++
    }
    return total
  }

  /** A page of the audit log (a game's, or with null everyone's) from a query already checked. */
  async function auditPage (gameId: string | null, query: Static<typeof schemas.gameAudit>): Promise<ListPage<AuditEntry>> {
    const from = query.cursor === undefined ? null : decodeCursor(cursors.audit, query.cursor).id
    const { items, next } = await auditLog.list(gameId, from, query.limit ?? 50, { action: query.action, actor: query.actor })
    return { items, next_cursor: next === null ? null : encodeCursor({ k: 'audit', id: next }) }
  }

  /** A key's change, recorded with the key before and after; not_found for no such key. */
  async function changeKey (action: string, apiKey: string, changes: Partial<Pick<KeyRecord, 'revoked' | 'rate_limit'>>, audit: Auditor): Promise<PublicKey> {
    const before = await records.key(apiKey) ?? fail('not_found', 'No such API key.')
    const key = await records.updateKey(apiKey, changes) ?? fail('not_found', 'No such API key.')
    await audit({ action, game_id: key.game_id, target: apiKey, before: publicKey(before), after: publicKey(key) })
    return publicKey(key)
  }

  /** The board a listing's query names (BoardQuery), or invalid_param. */
  function chooseBoard (game: GameRecord, query: { period?: Static<typeof BoardQuery.period>, period_id?: string, season_id?: number }): ReturnType<Leaderboard['choose']> {
    return leaderboard.choose(game, { period: query.period, periodId: query.period_id, seasonId: query.season_id })
  }

  /** The game read afresh: an operator's change must start from the stored record, not a cached one. */
  async function existingGame (gameId: string): Promise<GameRecord> {
    return await records.game(gameId, { fresh: true }) ?? fail('not_found', 'No such game.')
  }

  /**
   * The operations as `actor` makes them: every write is recorded in the
   * audit log (store/audit.ts) once it is done, with the record before and
   * after, secrets masked.
   */
  function operationsOf (actor: Actor) {
    const audit = async (change: AuditChange, unmasked?: { before?: unknown, after?: unknown }): Promise<void> => { await auditLog.record(actor, change, unmasked) }

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

      /** A game's API keys in key order, never their secrets; revoked or not. */
      async listKeys (gameId: string, input?: unknown): Promise<ListPage<PublicKey> & { game_id: string }> {
        const query = readInput(schemas.listKeys, input)
        const game = await existingGame(gameId)
        const from = query.cursor === undefined ? '' : decodeCursor(cursors.names('keys'), query.cursor).after
        const all = (await records.gameKeys(game.game_id)).sort()
        const { items, next } = await namePage(
          async (after, count) => all.filter(key => key > after).slice(0, count),
          async ids => await Promise.all(ids.map(async id => await records.key(id))),
          key => query.revoked === undefined || key.revoked === query.revoked,
          from, query.limit ?? 50, query.revoked !== undefined)
        return { game_id: game.game_id, items: items.map(publicKey), next_cursor: next === null ? null : encodeCursor({ k: 'keys', after: next }) }
      },

      /** One API key, never its secret. */
      async key (apiKey: string): Promise<PublicKey> {
        return publicKey(await records.key(apiKey) ?? fail('not_found', 'No such API key.'))
      },

      /** Users in name order; by name prefix, hidden or not, administrators or not. */
      async listUsers (input?: unknown): Promise<ListPage<UserRecord>> {
        const query = readInput(schemas.listUsers, input)
        const from = query.cursor === undefined ? '' : decodeCursor(cursors.names('users'), query.cursor).after
        const { items, next } = await namePage(
          async (after, count) => await users.usernamesPage(after, query.prefix ?? '', count),
          async names => await Promise.all(names.map(async name => await users.user(name))),
          user => (query.hidden === undefined || user.hidden === query.hidden) && (query.is_admin === undefined || user.is_admin === query.is_admin),
          from, query.limit ?? 50, query.hidden !== undefined || query.is_admin !== undefined)
        return { items: items.map(publicUser), next_cursor: next === null ? null : encodeCursor({ k: 'users', after: next }) }
      },

      /** One user, never the password hash. */
      async user (username: string): Promise<UserRecord> {
        return publicUser(await users.user(username) ?? fail('not_found', 'No such user.'))
      },

      /**
     * A board's entries, hidden ones included and marked (rank null), with
     * their meta: the whole board in board order, or the players whose names
     * begin with `prefix`.
     */
      async listEntries (gameId: string, input?: unknown): Promise<ListPage<ListedEntry> & { game_id: string, total: number }> {
        const query = readInput(schemas.listEntries, input)
        const game = await existingGame(gameId)
        const { board } = chooseBoard(game, query)
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

      /**
       * A game's activity (store/activity.ts): submissions per minute, and per
       * UTC day submissions, active players and play time; with how its
       * ratings spread over the ten values.
       */
      async stats (gameId: string, input?: unknown): Promise<{ game_id: string, minutes: ActivityMinute[], days: ActivityDay[], ratings: { count: number, items: Array<{ stars: number, count: number }> } }> {
        const query = readInput(schemas.stats, input)
        const game = await existingGame(gameId)
        const [figures, spread] = await Promise.all([
          activity.read(game.game_id, { minutes: query.minutes ?? 60, days: query.days ?? 30, now: Date.now() }),
          ratings.distribution(game.game_id)
        ])
        return { game_id: game.game_id, ...figures, ratings: { count: spread.count, items: spread.counts.map((count, i) => ({ stars: i + 1, count })) } }
      },

      /** A player and the entries around them on a board, as action=around answers. */
      async around (gameId: string, input?: unknown) {
        const query = readInput(schemas.around, input)
        const game = await existingGame(gameId)
        const player = parsePlayerName(query.player_name)
        const chosen = chooseBoard(game, query)
        const { player: standing, total, items, board } = await leaderboard.around(game, chosen, player, query.before ?? AROUND_DEFAULT, query.after ?? AROUND_DEFAULT)
        return { game_id: game.game_id, total, player: standing, items, ...await boardFields(leaderboard, game, board) }
      },

      /** What a live stream of a board's top begins with (the route streams it: plugins/app/live.ts). */
      async liveTop (gameId: string, input?: unknown) {
        const query = readInput(schemas.liveTop, input)
        const game = await existingGame(gameId)
        const chosen = chooseBoard(game, query)
        const limit = query.limit ?? 20
        const { total, items, board } = await leaderboard.top(game, chosen, 0, limit)
        return { game, chosen, limit, first: { total, items }, board, fields: await boardFields(leaderboard, game, board) }
      },

      /** How the scores of a board spread: equal ranges from its lowest score to its highest, its visible entries counted in each. */
      async scoreStats (gameId: string, input?: unknown): Promise<{ game_id: string, total: number, min: number | null, max: number | null, items: ScoreBucket[] }> {
        const query = readInput(schemas.scoreStats, input)
        const game = await existingGame(gameId)
        const { board } = chooseBoard(game, query)
        const spread = await activity.scoreBuckets(keys.board(game.game_id, board.scope), game.order, query.buckets ?? 20)
        return { game_id: game.game_id, ...await boardFields(leaderboard, game, board), total: spread.items.reduce((sum, bucket) => sum + bucket.count, 0), ...spread }
      },

      /** The audit log, newest first: every game's and the users', or one game's (game_id); by action and actor. */
      async listAudit (input?: unknown): Promise<ListPage<AuditEntry>> {
        const query = readInput(schemas.listAudit, input)
        return await auditPage(query.game_id === undefined ? null : (await existingGame(query.game_id)).game_id, query)
      },

      /** One game's audit log (its records' changes), newest first. */
      async gameAudit (gameId: string, input?: unknown): Promise<ListPage<AuditEntry>> {
        const query = readInput(schemas.gameAudit, input)
        return await auditPage((await existingGame(gameId)).game_id, query)
      },

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
        if (game === null) fail('already_exists', `Game "${body.game_id}" already exists.`)
        await audit({ action: 'game.create', game_id: game.game_id, target: game.game_id, before: null, after: game })
        return game
      },

      async updateGame (gameId: string, input: unknown): Promise<GameRecord> {
        const body = readInput(schemas.updateGame, input)
        const { periods: _periods, ...plain } = body
        const bounds = body.score_min === undefined && body.score_max === undefined ? undefined : await records.game(gameId, { fresh: true })
        const changes = { ...plain, ...periodSettingsOf(body), ...fairPlayOf(body, bounds ?? undefined) }
        const before = await records.game(gameId, { fresh: true })
        const game = before === null ? null : await records.updateGame(gameId, changes)
        if (game === 'has_entries') fail('invalid_param', 'Parameter "order" cannot change: the game has stored entries (or closed a season), and a board keeps its scores in its order.')
        if (game === null) fail('not_found', 'No such game.')
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
        await audit({ action: 'key.create', game_id: key.game_id, target: apiKey, before: null, after: { api_key: apiKey, api_secret: key.secret, ...rest } })
        return { api_key: apiKey, api_secret: key.secret, ...rest }
      },

      async updateKey (apiKey: string, input: unknown): Promise<PublicKey> {
        const body = readInput(schemas.updateKey, input)
        return await changeKey('key.update', apiKey, body, audit)
      },

      async revokeKey (apiKey: string, input?: unknown): Promise<PublicKey> {
        readInput(schemas.none, input)
        return await changeKey('key.revoke', apiKey, { revoked: true }, audit)
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
        await audit({ action: 'user.create', game_id: null, target: user.username, before: null, after: auditedUser(user) })
        return publicUser(user)
      },

      async updateUser (username: string, input: unknown): Promise<UserRecord> {
        const body = readInput(schemas.updateUser, input)
        const before = await users.user(username)
        const user = before === null
          ? null
          : await users.updateUser(username, {
            passwordHash: body.password === undefined ? undefined : await hashPassword(body.password),
            is_admin: body.is_admin,
            hidden: body.hidden
          })
        if (user === null) fail('not_found', 'No such user.')
        if (body.hidden !== undefined) await applyUserHidden(username, body.hidden)
        // Whoever knew the old password may hold a session: a new password ends them all.
        if (body.password !== undefined) await users.endSessions(username)
        await audit({ action: 'user.update', game_id: null, target: username, before: before === null ? null : auditedUser(before), after: auditedUser(user) },
          { before: before === null ? null : auditedUser(before, true), after: auditedUser(user, true) })
        return publicUser(user)
      },

      /** When each of a user's live sessions expires, soonest first; the session ids stay secret. */
      async userSessions (username: string, input?: unknown): Promise<{ username: string, sessions: Array<{ expires_at: string }>, next_cursor: string | null }> {
        const query = readInput(schemas.listSessions, input)
        if (await users.user(username) === null) fail('not_found', 'No such user.')
        const after = query.cursor === undefined ? null : decodeCursor(cursors.sessions, query.cursor)
        const { sessions, next } = await users.sessionsOf(username, after === null ? null : { expiry: after.e, seen: after.n }, query.limit ?? 50)
        return { username, sessions, next_cursor: next === null ? null : encodeCursor({ k: 'sessions', e: next.expiry, n: next.seen }) }
      },

      /** Logs a user out everywhere. */
      async endUserSessions (username: string, input?: unknown): Promise<{ ended: number }> {
        readInput(schemas.none, input)
        if (await users.user(username) === null) fail('not_found', 'No such user.')
        const ended = await users.endSessions(username)
        await audit({ action: 'user.sessions_end', game_id: null, target: username, before: null, after: { ended } })
        return { ended }
      },

      /** For a platform with its own login: a session for an existing user. */
      async createSession (input: unknown): Promise<{ session_id: string, cookie_name: string, expires_at: string }> {
        const body = readInput(schemas.createSession, input)
        const user = await users.user(body.username) ?? fail('not_found', 'No such user.')
        const session = await users.createSession(user, sessionTtlS)
        const made = { session_id: session.sessionId, cookie_name: sessionCookie, expires_at: session.expiresAt }
        await audit({ action: 'session.create', game_id: null, target: user.username, before: null, after: made })
        return made
      },

      async deleteSession (sessionId: string, input?: unknown): Promise<Record<string, never>> {
        readInput(schemas.none, input)
        const owner = await users.session(sessionId)
        if (!await users.deleteSession(sessionId)) fail('not_found', 'No such session.')
        await audit({ action: 'session.delete', game_id: null, target: owner?.username ?? null, before: { session_id: sessionId }, after: null })
        return {}
      },

      async player (gameId: string, player: string): Promise<BoardEntry> {
        const entry = await leaderboard.entry(await existingGame(gameId), player)
        return entry ?? fail('not_found', 'No such player on this board.')
      },

      async setPlayer (gameId: string, player: string, input: unknown): Promise<BoardEntry> {
        const body = readInput(schemas.setPlayer, input)
        const game = await existingGame(gameId)
        const before = await leaderboard.entry(game, player) ?? fail('not_found', 'No such player on this board.')
        await leaderboard.setVisibility(game, player, { boardHidden: body.hidden })
        const after = await this.player(gameId, player)
        await audit({ action: body.hidden ? 'player.hide' : 'player.show', game_id: game.game_id, target: player, before, after })
        return after
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
        const decided = await review.held(game.game_id, heldId) as HeldScore
        await audit({ action: 'review.approve', game_id: game.game_id, target: heldId, before: held, after: decided })
        return { held: decided, improved: result.improved, best_score: result.bestScore, rank: result.rank }
      },

      /** Records that a held score stays off the boards; `hide` also hides the player on every board of the game. */
      async rejectHeld (gameId: string, heldId: string, input?: unknown): Promise<HeldScore> {
        const body = readInput(schemas.rejectHeld, input)
        const game = await existingGame(gameId)
        const before = await review.held(game.game_id, heldId)
        const rejected = await review.reject(game.game_id, heldId, body.note ?? '')
        if ('decided' in rejected) notPending(rejected.decided)
        if (body.hide === true) await leaderboard.setVisibility(game, rejected.player_name, { boardHidden: true })
        await audit({ action: 'review.reject', game_id: game.game_id, target: heldId, before, after: { ...rejected, player_hidden: body.hide === true } })
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
        await audit({ action: 'webhook.create', game_id: game.game_id, target: webhook.webhook_id, before: null, after: webhook })
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
        const before = await existingWebhook(game.game_id, webhookId)
        if (!await webhooks.delete(game.game_id, webhookId)) fail('not_found', 'No such webhook for this game.')
        await audit({ action: 'webhook.delete', game_id: game.game_id, target: webhookId, before, after: null })
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
        const delivery = publicDelivery((id === undefined ? null : await webhooks.delivery(game.game_id, id)) ?? fail('not_found', 'No such webhook for this game.'))
        await audit({ action: 'webhook.test', game_id: game.game_id, target: webhook.webhook_id, before: null, after: { delivery_id: delivery.delivery_id, message_id: delivery.message_id } })
        return delivery
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
        const before = /^[1-9][0-9]{0,15}$/.test(deliveryId) ? await webhooks.delivery(game.game_id, deliveryId) : null
        const delivery = before !== null && before.webhook_id === webhook.webhook_id ? await webhooks.redeliver(game.game_id, webhook.webhook_id, deliveryId, Date.now()) : null
        if (delivery === 'pending') fail('invalid_param', 'That delivery is pending already: it is being tried.')
        const after = publicDelivery(delivery ?? fail('not_found', 'No such delivery for this webhook.'))
        const summary = (one: PublicDelivery) => ({ status: one.status, attempts: one.attempts, last_status: one.last_status, last_error: one.last_error })
        await audit({ action: 'delivery.redeliver', game_id: game.game_id, target: deliveryId, before: summary(publicDelivery(before as StoredDelivery)), after: summary(after) })
        return after
      },

      /** The newest events of the game's outbox (written while it has webhooks), newest first, and how many it could not take ever (it was full). */
      async events (gameId: string, input?: unknown): Promise<{ game_id: string, items: GameEvent[], dropped: number }> {
        const query = readInput(schemas.events, input)
        const game = await existingGame(gameId)
        const { items, dropped } = await events.recent(game.game_id, (query.offset ?? 0) + (query.limit ?? 50))
        return { game_id: game.game_id, items: items.slice(query.offset ?? 0), dropped }
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
        const { board } = chooseBoard(game, query)
        const format = query.format ?? 'ndjson'
        const label = board.period !== undefined ? `${board.period.kind}-${board.period.id}` : `season-${board.seasonId ?? game.season}`
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
      async importBoard (gameId: string, lines: AsyncIterable<ImportLine>): Promise<ImportReport> {
        const game = await existingGame(gameId)
        const now = Date.now()
        const report: ImportReport = { game_id: game.game_id, season_id: game.season, lines: 0, imported: 0, improved: 0, unchanged: 0, refused: 0, errors: [] }
        const refuse = (refused: RefusedLine): void => {
          report.refused++
          if (report.errors.length < IMPORT_ERRORS_LISTED) report.errors.push(refused)
        }
        // Recorded whatever happens once a line was read: an import that breaks off (the client
        // went, Redis failed) has still stored what it flushed, and says so (`complete: false`).
        const recordImport = async (complete: boolean): Promise<void> => {
          const { errors: _errors, ...counts } = report
          await audit({ action: 'board.import', game_id: game.game_id, target: `season ${report.season_id}`, before: null, after: { ...counts, complete } })
        }
        let batch: Array<{ line: number, entry: ImportedEntry }> = []
        const flush = async (): Promise<void> => {
          if (batch.length === 0) return
          const { season, outcomes } = await leaderboard.importEntries(game, batch.map(one => one.entry))
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
            const outside = (game.score_min !== null && entry.score < game.score_min) || (game.score_max !== null && entry.score > game.score_max)
            if (outside) { refuse({ line: line.number, error: 'score_out_of_range', message: `Line ${line.number}: the score is outside the game's score_min to score_max.` }); continue }
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
      },

      /**
     * Erases a user everywhere (docs/guide.md#erasure): their sessions and
     * record first (so they make nothing new), then, in every game, their
     * entries on every board, meta, held scores, rating and play time, with
     * the games' sums corrected. Idempotent: a second call counts zeros. The
     * audit entry keeps the counts, not the name.
     */
      async eraseUser (username: string, input?: unknown): Promise<ErasureCounts & { user: number, sessions: number, ratings: number, playtime_seconds: number }> {
        const body = readInput(schemas.eraseUser, input)
        if (!body.erase) fail('invalid_param', 'Parameter "erase" must be true: deleting a user erases them everywhere (entries, ratings, play time, sessions) and cannot be undone.')
        if (!USERNAME_PATTERN.test(username)) fail('invalid_param', 'Parameter "username" is not valid: 1 to 30 characters from A-Z a-z 0-9 _ . -.')
        const account = await users.eraseUser(username)
        const erased = await eraseFromEveryGame(username, true)
        const counts = { user: account.user ? 1 : 0, sessions: account.sessions, games: erased.games, entries: erased.entries, metas: erased.metas, held: erased.held, ratings: erased.ratings, playtime_seconds: erased.playtimeSeconds }
        await audit({ action: 'user.erase', game_id: null, target: null, before: null, after: counts })
        return counts
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
        const counts = { games: erased.games, entries: erased.entries, metas: erased.metas, held: erased.held }
        await audit({ action: 'player.erase', game_id: null, target: null, before: null, after: counts })
        return counts
      },

      async deletePlayer (gameId: string, player: string, input?: unknown): Promise<Record<string, never>> {
        readInput(schemas.none, input)
        const game = await existingGame(gameId)
        const before = await leaderboard.entry(game, player)
        if (!await leaderboard.deleteEntry(game, player)) fail('not_found', 'No such player on this game\'s boards.')
        await audit({ action: 'player.delete', game_id: game.game_id, target: player, before, after: null })
        return {}
      }
    }
  }

  return {
    /** The operations made by `actor` (a token over HTTP, the CLI's user, the service itself). */
    as: operationsOf
  }
}

export type Admin = ReturnType<typeof createAdmin>
/** The operations of one actor. */
export type AdminOperations = ReturnType<Admin['as']>
