import { Type } from '@sinclair/typebox'
import { schemas as adminBodies } from '../../operations/input.js'
import type { ErrorCode } from '../../errors.js'
import { OUTBOX_MAX } from '../../store/events.js'
import { Around, Board, BoardChoice, BoardFields, Empty, IntegerText, Nullable, PERIOD, Season, Sides, Text, envelope, fileAnswer, gameParams } from '../schemas.js'

/** The operator API's route schemas (/admin): what each answers, for the OpenAPI document. */

const Game = Type.Object({
  game_id: Type.String(),
  name: Type.String(),
  developer: Nullable(Type.String()),
  approved: Type.Boolean(),
  created_at: Type.String({ format: 'date-time' }),
  max_entries: Type.Integer({ description: 'most players the board keeps; a new player past it is quota_exceeded' }),
  max_meta_bytes: Type.Integer({ description: 'most bytes of meta kept over all entries' }),
  order: Type.Union([Type.Literal('desc'), Type.Literal('asc')], { description: 'desc: higher is better; asc: lower is better' }),
  periods: Type.Array(PERIOD, { description: 'the calendar boards kept beside the all-time one' }),
  timezone: Type.String({ description: 'the IANA zone whose midnights start the periods' }),
  keep_periods: Type.Integer({ description: 'past periods of each kind kept readable' }),
  season: Type.Integer({ minimum: 1, description: "the all-time board's current season" }),
  season_started_at: Type.String({ format: 'date-time' }),
  score_min: Nullable(Type.Integer({ description: 'lower scores are score_out_of_range; null: no bound' })),
  score_max: Nullable(Type.Integer({ description: 'higher scores are score_out_of_range; null: no bound' })),
  review_above: Nullable(Type.Integer({ description: 'a score above this is held for review' })),
  review_below: Nullable(Type.Integer({ description: 'a score below this is held for review' })),
  review_factor: Nullable(Type.Number({ description: "a score better than this many times the player's previous best, or the first place, is held for review" })),
  notify_top: Type.Integer({ description: 'how deep into the board board.overtaken events reach' })
})
const KeyRateLimit = Type.Optional(Type.Integer({ minimum: 1, description: 'requests per window from one address with this key; absent: the global RATE_LIMIT_MAX' }))
const Key = Type.Object({ api_key: Type.String(), game_id: Type.String(), revoked: Type.Boolean(), created_at: Type.String({ format: 'date-time' }), rate_limit: KeyRateLimit })
const User = Type.Object({ username: Type.String(), is_admin: Type.Boolean(), hidden: Type.Boolean(), created_at: Type.String({ format: 'date-time' }) })
const Entry = Type.Object({
  player_name: Type.String(),
  best_score: Type.Integer(),
  created_at: Type.String({ format: 'date-time' }),
  meta: Nullable(Type.String()),
  hidden: Type.Boolean(),
  rank: Nullable(Type.Integer()),
  season_id: Type.Integer({ minimum: 1, description: 'the season the entry is in: the current one, or the newest closed one that holds it' })
})
const HeldScore = Type.Object({
  held_id: Type.String({ description: 'the held score, in this game' }),
  player_name: Type.String(),
  score: Type.Integer(),
  meta: Nullable(Type.String()),
  submitted_at: Type.String({ format: 'date-time', description: 'approved, the score takes this time on the boards (ties go to whoever was first)' }),
  season_id: Type.Integer({ minimum: 1, description: 'the season it was submitted in, where it lands when approved' }),
  rule: Type.Union([Type.Literal('review_above'), Type.Literal('review_below'), Type.Literal('review_factor')], { description: 'the review rule that held it' }),
  status: Type.Union([Type.Literal('pending'), Type.Literal('approved'), Type.Literal('rejected'), Type.Literal('superseded')], { description: 'superseded: a better score of the player was held instead' }),
  decided_at: Nullable(Type.String({ format: 'date-time' })),
  note: Nullable(Type.String({ description: "the operator's note on the decision" }))
})
const heldParams = Type.Object({ game_id: Type.String(), held_id: Type.String() })
const Webhook = Type.Object({
  webhook_id: Type.String(),
  url: Type.String(),
  events: Type.Array(Type.String(), { description: 'the event types delivered; ["*"] for every one' }),
  description: Nullable(Type.String()),
  created_at: Type.String({ format: 'date-time' })
})
const GameEvent = Type.Object({
  event_id: Type.String({ description: 'the outbox entry: its first part is when it happened (ms)' }),
  type: Type.String(),
  timestamp: Type.String({ format: 'date-time' }),
  data: Type.Object({ game_id: Type.String() }, { additionalProperties: true, description: 'what happened: see docs/interface.md#events' })
})
const Delivery = Type.Object({
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
const webhookParams = Type.Object({ game_id: Type.String(), webhook_id: Type.String() })
const listingQuery = { limit: Type.Optional(IntegerText('1 to 100, default 50')), offset: Type.Optional(IntegerText('default 0')) }
const ADMIN: ErrorCode[] = ['unauthorized', 'missing_param', 'invalid_param', 'not_found']
/** A write: a viewer token's is forbidden. */
const WRITE: ErrorCode[] = ['unauthorized', 'forbidden', 'missing_param', 'invalid_param', 'not_found']
const adminSecurity = { security: [{ adminToken: [] }], tags: ['admin'] }
const playerParams = Type.Object({ game_id: Type.String(), player_name: Type.String() })
const Page = {
  cursor: Type.Optional(Text('the next_cursor of the page before, unchanged')),
  limit: Type.Optional(IntegerText('1 to 100, default 50'))
}
const nextCursor = { next_cursor: Nullable(Type.String({ description: 'pass it as cursor for the next page; null after the last' })) }
const Flag = (description: string) => Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')], { description }))
const GameFigures = {
  entries: Type.Integer({ description: 'entries stored in the current season, hidden ones included' }),
  players: Type.Integer({ description: "visible players on the current season's board" }),
  rating_avg: Type.Number({ description: 'average stars (1..10), 2 decimals; 0 when nobody rated' }),
  rating_count: Type.Integer(),
  playtime_seconds: Type.Integer({ description: 'play time reported for the game' })
}
const ListedEntry = Type.Object({
  rank: Nullable(Type.Integer({ minimum: 1, description: 'null while hidden' })),
  player_name: Type.String(),
  best_score: Type.Integer(),
  created_at: Type.String({ format: 'date-time', description: 'when the best was reached' }),
  meta: Nullable(Type.String({ description: 'the meta sent with the best (seasons only)' })),
  hidden: Type.Boolean({ description: "hidden on this game's boards" }),
  hidden_user: Type.Boolean({ description: "hidden as a user, on every game's boards" })
})
const AuditEntry = Type.Object({
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
const Erased = {
  games: Type.Integer({ description: 'games that held something of the person\'s' }),
  entries: Type.Integer({ description: 'board entries removed, one per season or period board' }),
  metas: Type.Integer(),
  held: Type.Integer({ description: 'held scores removed, pending or decided' })
}
const playerQuery = Type.Object({ player_name: Type.String({ description: 'the name exactly as stored; clients rewrite "." and ".." in paths, never in a query' }) })

export const adminSchemas = {
  createGame: envelope(Game, [...WRITE, 'already_exists'], 'Create a game', { ...adminSecurity, body: adminBodies.createGame }),
  updateGame: envelope(Game, WRITE, 'Change a game', { ...adminSecurity, params: gameParams, body: adminBodies.updateGame }),
  closeSeason: envelope(Season, WRITE, "Close the current season of the game's all-time board: it is kept as an archive and an empty season begins", { ...adminSecurity, params: gameParams }),
  listSeasons: envelope(Type.Object({ game_id: Type.String(), season_id: Type.Integer({ description: 'the current season' }), items: Type.Array(Season) }), ADMIN, "The seasons of the game's all-time board, oldest first", { ...adminSecurity, params: gameParams }),
  createKey: envelope(Type.Object({ api_key: Type.String(), api_secret: Type.String({ description: 'shown this once' }), game_id: Type.String(), revoked: Type.Literal(false), created_at: Type.String({ format: 'date-time' }), rate_limit: KeyRateLimit }), [...WRITE, 'invalid_game'], 'Issue an API key for a game', { ...adminSecurity, body: adminBodies.createKey }),
  updateKey: envelope(Key, WRITE, "Change an API key's settings (rate_limit)", { ...adminSecurity, params: Type.Object({ api_key: Type.String() }), body: adminBodies.updateKey }),
  revokeKey: envelope(Key, WRITE, 'Revoke an API key', { ...adminSecurity, params: Type.Object({ api_key: Type.String() }) }),
  createUser: envelope(User, [...WRITE, 'already_exists'], 'Create a user', { ...adminSecurity, body: adminBodies.createUser }),
  updateUser: envelope(User, WRITE, 'Change a user (password, admin flag, hidden on every board); a new password ends all their sessions', { ...adminSecurity, params: Type.Object({ username: Type.String() }), body: adminBodies.updateUser }),
  createSession: envelope(Type.Object({ session_id: Type.String(), cookie_name: Type.String(), expires_at: Type.String({ format: 'date-time' }) }), WRITE, 'Create a login session for a user', { ...adminSecurity, body: adminBodies.createSession }),
  deleteSession: envelope(Empty, WRITE, 'End a login session', { ...adminSecurity, params: Type.Object({ session_id: Type.String() }) }),
  userSessions: envelope(Type.Object({ username: Type.String(), sessions: Type.Array(Type.Object({ expires_at: Type.String({ format: 'date-time' }) })), ...nextCursor }), ADMIN, "A user's live sessions, soonest to expire first (their ids stay secret)", { ...adminSecurity, params: Type.Object({ username: Type.String() }), querystring: Type.Object(Page) }),
  listGames: envelope(Type.Object({ items: Type.Array(Type.Object({ ...Game.properties, ...GameFigures })), ...nextCursor }), ADMIN, 'The games in id order, with their figures', {
    ...adminSecurity, querystring: Type.Object({ ...Page, prefix: Type.Optional(Text('only game ids beginning with it')), approved: Flag('only approved games (true) or only the others (false)') })
  }),
  getGame: envelope(Type.Object({ ...Game.properties, ...GameFigures }), ADMIN, 'A game, with its figures', { ...adminSecurity, params: gameParams }),
  listKeys: envelope(Type.Object({ game_id: Type.String(), items: Type.Array(Key), ...nextCursor }), ADMIN, "A game's API keys in key order (never their secrets)", {
    ...adminSecurity, params: gameParams, querystring: Type.Object({ ...Page, revoked: Flag('only revoked keys (true) or only live ones (false)') })
  }),
  gameStats: envelope(Type.Object({
    game_id: Type.String(),
    minutes: Type.Array(Type.Object({ at: Type.String({ format: 'date-time', description: 'the minute (UTC)' }), submissions: Type.Integer() }), { description: 'submissions per minute, the current minute last' }),
    days: Type.Array(Type.Object({
      day: Type.String({ description: 'a UTC day, YYYY-MM-DD' }),
      submissions: Type.Integer(),
      active_players: Type.Integer({ description: 'players who submitted or were credited play time (a HyperLogLog estimate: ±1%)' }),
      playtime_seconds: Type.Integer()
    }), { description: 'per UTC day, today last' }),
    ratings: Type.Object({ count: Type.Integer(), items: Type.Array(Type.Object({ stars: Type.Integer({ description: '1..10, half-star units' }), count: Type.Integer() })) })
  }), ADMIN, "A game's activity for charts: submissions per minute (kept two days), submissions, active players and play time per UTC day (kept 90 days), and how its ratings spread", {
    ...adminSecurity, params: gameParams, querystring: Type.Object({ minutes: Type.Optional(IntegerText('1 to 2880, default 60')), days: Type.Optional(IntegerText('1 to 91, default 30')) })
  }),
  scoreStats: envelope(Type.Object({
    game_id: Type.String(),
    total: Type.Integer({ description: 'visible entries counted' }),
    min: Nullable(Type.Number()),
    max: Nullable(Type.Number()),
    items: Type.Array(Type.Object({ from: Type.Number(), to: Type.Number(), count: Type.Integer() }), { description: 'equal ranges, lowest first; each holds its lower bound, the last its upper bound too' }),
    ...BoardFields
  }), ADMIN, 'How the scores of a board spread: equal ranges from its lowest visible score to its highest', {
    ...adminSecurity, params: gameParams, querystring: Type.Object({ buckets: Type.Optional(IntegerText('1 to 100, default 20')), ...BoardChoice })
  }),
  whoami: envelope(Type.Object({ name: Type.String({ description: "the token's name (ADMIN_TOKENS; admin for ADMIN_TOKEN)" }), role: Type.Union([Type.Literal('admin'), Type.Literal('viewer')]) }), ADMIN, 'The operator token the request carries: its name and role (a viewer reads and changes nothing)', { ...adminSecurity }),
  adminAround: envelope(Around, [...ADMIN, 'invalid_player_name'], 'A player and the players around them, as action=around answers', {
    ...adminSecurity, params: gameParams, querystring: Type.Object({ player_name: Text('the player'), ...Sides, ...BoardChoice })
  }),
  adminLive: envelope(Board, [...ADMIN, 'rate_limited'], "A board's top, live (Server-Sent Events) for the console: as action=live, with the operator token", {
    ...adminSecurity, params: gameParams, querystring: Type.Object({ limit: Type.Optional(IntegerText('1 to 100, default 20')), ...BoardChoice })
  }),
  getKey: envelope(Key, ADMIN, 'An API key (never its secret)', { ...adminSecurity, params: Type.Object({ api_key: Type.String() }) }),
  listUsers: envelope(Type.Object({ items: Type.Array(User), ...nextCursor }), ADMIN, 'The users in name order', {
    ...adminSecurity, querystring: Type.Object({ ...Page, prefix: Type.Optional(Text('only usernames beginning with it')), hidden: Flag('only hidden users (true) or only the others'), is_admin: Flag('only administrators (true) or only the others') })
  }),
  getUser: envelope(User, ADMIN, 'A user (never the password hash)', { ...adminSecurity, params: Type.Object({ username: Type.String() }) }),
  listEntries: envelope(Type.Object({ game_id: Type.String(), total: Type.Integer({ description: 'visible players on the board (with or without prefix)' }), items: Type.Array(ListedEntry), ...nextCursor, ...BoardFields }), ADMIN, "A board's entries, hidden ones included (rank null), with their meta: the whole board in board order, or the players whose names begin with prefix (sorted within each page of the walk, each with its rank)", {
    ...adminSecurity, params: gameParams, querystring: Type.Object({ ...Page, prefix: Type.Optional(Text('only players whose names begin with it, ASCII letters either case')), ...BoardChoice })
  }),
  listAudit: envelope(Type.Object({ items: Type.Array(AuditEntry), ...nextCursor }), ADMIN, 'The audit log of operator writes, newest first', {
    ...adminSecurity, querystring: Type.Object({ ...Page, game_id: Type.Optional(Text("only this game's records")), action: Type.Optional(Text('an action (game.update) or a kind of record (game.)')), actor: Type.Optional(Text("a token's name, or cli:<user>")) })
  }),
  gameAudit: envelope(Type.Object({ items: Type.Array(AuditEntry), ...nextCursor }), ADMIN, "The audit log of one game's records, newest first", {
    ...adminSecurity, params: gameParams, querystring: Type.Object({ ...Page, action: Type.Optional(Text('an action (game.update) or a kind of record (game.)')), actor: Type.Optional(Text("a token's name, or cli:<user>")) })
  }),
  endUserSessions: envelope(Type.Object({ ended: Type.Integer({ description: 'how many sessions ended' }) }), WRITE, 'Log a user out everywhere: end all their sessions', { ...adminSecurity, params: Type.Object({ username: Type.String() }) }),
  reviewList: envelope(Type.Object({ game_id: Type.String(), status: Type.String(), total: Type.Integer(), items: Type.Array(HeldScore) }), ADMIN, "The game's scores held for review: pending (oldest first) or decided (newest first)", {
    ...adminSecurity, params: gameParams, querystring: Type.Object({ status: Type.Optional(Type.String({ description: 'pending (default) or decided' })), limit: Type.Optional(IntegerText('1 to 100, default 50')), offset: Type.Optional(IntegerText('default 0')) })
  }),
  approveHeld: envelope(Type.Object({
    held: HeldScore,
    improved: Type.Boolean({ description: "the score became the player's best" }),
    best_score: Nullable(Type.Integer()),
    rank: Nullable(Type.Integer({ minimum: 1 }))
  }), [...WRITE, 'quota_exceeded'], 'Approve a held score: it goes on the boards as of when it was submitted', { ...adminSecurity, params: heldParams, body: adminBodies.approveHeld }),
  rejectHeld: envelope(HeldScore, WRITE, 'Reject a held score (and optionally hide the player on every board of the game)', { ...adminSecurity, params: heldParams, body: adminBodies.rejectHeld }),
  createWebhook: envelope(Type.Object({ ...Webhook.properties, secret: Type.String({ description: 'the signing secret (whsec_…), shown this once' }) }), WRITE, "Add a webhook for the game's events (Standard Webhooks: signed, retried)", { ...adminSecurity, params: gameParams, body: adminBodies.createWebhook }),
  listWebhooks: envelope(Type.Object({ game_id: Type.String(), items: Type.Array(Webhook) }), ADMIN, "The game's webhooks, oldest first", { ...adminSecurity, params: gameParams }),
  getWebhook: envelope(Webhook, ADMIN, 'A webhook', { ...adminSecurity, params: webhookParams }),
  deleteWebhook: envelope(Empty, WRITE, 'Remove a webhook and its pending deliveries', { ...adminSecurity, params: webhookParams }),
  testWebhook: envelope(Delivery, WRITE, 'Send a webhook.test event to this webhook only', { ...adminSecurity, params: webhookParams }),
  webhookDeliveries: envelope(Type.Object({ game_id: Type.String(), webhook_id: Type.String(), status: Type.String(), total: Type.Integer(), items: Type.Array(Delivery) }), ADMIN, "A webhook's delivery log: finished deliveries (delivered or dead) newest first, or pending ones by when next due", {
    ...adminSecurity, params: webhookParams, querystring: Type.Object({ status: Type.Optional(Type.String({ description: 'done (default) or pending' })), ...listingQuery })
  }),
  redeliver: envelope(Delivery, WRITE, 'Send a finished delivery again (the same webhook-id), from now', { ...adminSecurity, params: Type.Object({ ...webhookParams.properties, delivery_id: Type.String() }) }),
  listEvents: envelope(Type.Object({ game_id: Type.String(), items: Type.Array(GameEvent), dropped: Type.Integer({ minimum: 0, description: `Events the outbox could not take, ever: it held ${OUTBOX_MAX} events no process had read (docs/guide.md#webhooks)` }) }), ADMIN, "The newest events of the game's outbox (written while it has webhooks), newest first", { ...adminSecurity, params: gameParams, querystring: Type.Object(listingQuery) }),
  getPlayer: envelope(Entry, ADMIN, 'A board entry with its meta', { ...adminSecurity, params: playerParams }),
  setPlayer: envelope(Entry, WRITE, 'Hide or show a board entry on this board', { ...adminSecurity, params: playerParams, body: adminBodies.setPlayer }),
  deletePlayer: envelope(Empty, WRITE, 'Delete a board entry', { ...adminSecurity, params: playerParams }),
  exportBoard: fileAnswer(envelope(Type.Null(), ADMIN, 'A whole board as a file (NDJSON or CSV), in board order, hidden entries marked: streamed as it is read (an NDJSON export is an import)', {
    ...adminSecurity,
    params: gameParams,
    querystring: Type.Object({ format: Type.Optional(Type.Union([Type.Literal('ndjson'), Type.Literal('csv')], { description: 'ndjson (default) or csv' })), ...BoardChoice })
  }), 'The file, as an attachment: one entry per line with rank (null while hidden), player_name, score, achieved_at, hidden, hidden_user, meta. A failure before the first byte is the envelope.'),
  importBoard: envelope(Type.Object({
    game_id: Type.String(),
    season_id: Type.Integer({ description: 'the season the entries went to: the current one' }),
    lines: Type.Integer({ description: 'lines read, blank ones left out' }),
    imported: Type.Integer({ description: 'new players' }),
    improved: Type.Integer({ description: 'stored bests the line beat (or equalled, earlier)' }),
    unchanged: Type.Integer({ description: 'lines no better than what is stored' }),
    refused: Type.Integer(),
    errors: Type.Array(Type.Object({ line: Type.Integer(), error: Type.String(), message: Type.String() }), { description: 'the first 100 lines refused, with why' })
  }), [...WRITE, 'invalid_body', 'payload_too_large'], 'Move a board in from another system: NDJSON (application/x-ndjson), one {player_name, score, achieved_at, meta} per line, into the current season, best-only with the times kept; idempotent', {
    ...adminSecurity, params: gameParams
  }),
  eraseUser: envelope(Type.Object({
    user: Type.Integer({ description: '1 when the user record was there' }),
    sessions: Type.Integer({ description: 'sessions ended' }),
    ...Erased,
    ratings: Type.Integer({ description: 'ratings removed (the averages follow)' }),
    playtime_seconds: Type.Integer({ description: "play time removed (the games' totals follow)" })
  }), WRITE, 'Erase a user everywhere (erase=true): their record, sessions, entries on every board of every game (seasons, periods), meta, held scores, ratings and play time; idempotent, audited without the name', {
    ...adminSecurity, params: Type.Object({ username: Type.String() }), querystring: Type.Object({ erase: Type.Literal('true', { description: 'required: deleting a user erases them' }) })
  }),
  erasePlayer: envelope(Type.Object(Erased), WRITE, 'Erase an API-key player name from every game: entries on every board, meta, held scores; idempotent, audited without the name', { ...adminSecurity, params: Type.Object({ player_name: Type.String() }) }),
  erasePlayerByQuery: envelope(Type.Object(Erased), WRITE, 'Erase a player name from every game (any name, given in the query)', { ...adminSecurity, querystring: Type.Object({ player_name: Type.String() }) }),
  // The same three with the name in the query: a name such as "." or ".." cannot be a path segment.
  getPlayerByQuery: envelope(Entry, ADMIN, 'A board entry with its meta (any name, given in the query)', { ...adminSecurity, params: gameParams, querystring: playerQuery }),
  setPlayerByQuery: envelope(Entry, WRITE, 'Hide or show a board entry (any name, given in the query)', { ...adminSecurity, params: gameParams, querystring: playerQuery, body: adminBodies.setPlayer }),
  deletePlayerByQuery: envelope(Empty, WRITE, 'Delete a board entry (any name, given in the query)', { ...adminSecurity, params: gameParams, querystring: playerQuery })
}
