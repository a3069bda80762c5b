import { Type } from '@sinclair/typebox'
import { schemas as adminBodies } from '../../operations/input.js'
import type { ErrorCode } from '../../errors.js'
import { OUTBOX_MAX } from '../../store/events.js'
import { Empty, IntegerText, Nullable, Text, envelope, fileAnswer, gameParams } from '../schemas.js'
import { UserDataSchema } from '../auth/schemas.js'
import { Around, Board, BoardChoice, BoardFields, Season, Sides } from '../board-schemas.js'
import { AuditEntrySchema, DeliverySchema, EntrySchema, GameActivitySchema, GameSchema, GameEventSchema, GameWithFiguresSchema, HeldScoreSchema, KeySchema, NamedBoardSchema, AchievementSchema, KeyRateLimitSchema, ListedEntrySchema, OperatorSchema, ScoreSpreadSchema, UserSchema, WebhookSchema, ListedWebhookSchema } from './records.js'

/** The operator API's route schemas (/admin): what each answers, for the OpenAPI document. */

const DataLimitsSchema = Type.Object({
  item_bytes: Type.Integer({ description: "the most bytes of one item's data" }),
  items_per_user: Type.Integer({ description: "the most items of one user's store (and of the global store)" }),
  items_per_game: Type.Integer({ description: 'the most items of the game, every store together' }),
  game_bytes: Type.Integer({ description: 'the most bytes of the game (keys and data)' })
})
const GamejoltSchema = Type.Object({
  game_id: Type.String(),
  gamejolt_game_id: Type.Integer({ description: "the game_id Game Jolt's clients send" }),
  private_key: Type.String({ description: 'the key their signatures end with: a secret' }),
  primary_table_id: Type.Integer({ description: "the table id of the game's own board (docs/gamejolt.md#ids)" }),
  data_limits: DataLimitsSchema
})
const DataOwner = Nullable(Type.String({ description: "the user whose store it is; null for the game's global store" }))

const heldParams = Type.Object({ game_id: Type.String(), held_id: Type.String() })
const webhookParams = Type.Object({ game_id: Type.String(), webhook_id: Type.String() })
const boardParams = Type.Object({ game_id: Type.String(), board_id: Type.String() })
const listingQuery = { limit: Type.Optional(IntegerText('1 to 100, default 50')), offset: Type.Optional(IntegerText('default 0')) }
const ADMIN: ErrorCode[] = ['unauthorized', 'missing_param', 'invalid_param', 'not_found']
/** A write: a viewer token's is forbidden. */
const WRITE: ErrorCode[] = ['unauthorized', 'forbidden', 'missing_param', 'invalid_param', 'not_found']
const adminSecurity = { security: [{ adminToken: [] }], tags: ['admin'] }
const playerParams = Type.Object({ game_id: Type.String(), player_name: Type.String() })
const achievementParams = Type.Object({ game_id: Type.String(), achievement_id: Type.String() })
const Page = {
  cursor: Type.Optional(Text('the next_cursor of the page before, unchanged')),
  limit: Type.Optional(IntegerText('1 to 100, default 50'))
}
const nextCursor = { next_cursor: Nullable(Type.String({ description: 'pass it as cursor for the next page; null after the last' })) }
const Flag = (description: string) => Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')], { description }))
const Erased = {
  games: Type.Integer({ description: 'games that held something of the person\'s' }),
  entries: Type.Integer({ description: 'board entries removed, one per season or period board' }),
  metas: Type.Integer(),
  held: Type.Integer({ description: 'held scores removed, pending or decided' }),
  achievements: Type.Integer({ description: 'achievements the person had unlocked' })
}
const playerQuery = Type.Object({ player_name: Type.String({ description: 'the name exactly as stored; clients rewrite "." and ".." in paths, never in a query' }) })
const entryBoard = { board: BoardChoice.board }

export const adminSchemas = {
  createGame: envelope(GameSchema, [...WRITE, 'already_exists'], 'Create a game', { ...adminSecurity, body: adminBodies.createGame }),
  updateGame: envelope(GameSchema, WRITE, 'Change a game', { ...adminSecurity, params: gameParams, body: adminBodies.updateGame }),
  closeSeason: envelope(Season, WRITE, "Close the current season of the game's all-time board: it is kept as an archive and an empty season begins", { ...adminSecurity, params: gameParams }),
  listSeasons: envelope(Type.Object({ game_id: Type.String(), season_id: Type.Integer({ description: 'the current season' }), items: Type.Array(Season) }), ADMIN, "The seasons of the game's all-time board, oldest first", { ...adminSecurity, params: gameParams }),
  createKey: envelope(Type.Object({ api_key: Type.String(), api_secret: Type.String({ description: 'shown this once' }), game_id: Type.String(), revoked: Type.Literal(false), created_at: Type.String({ format: 'date-time' }), rate_limit: KeyRateLimitSchema }), [...WRITE, 'invalid_game'], 'Issue an API key for a game', { ...adminSecurity, body: adminBodies.createKey }),
  updateKey: envelope(KeySchema, WRITE, "Change an API key's settings (rate_limit)", { ...adminSecurity, params: Type.Object({ api_key: Type.String() }), body: adminBodies.updateKey }),
  revokeKey: envelope(KeySchema, WRITE, 'Revoke an API key', { ...adminSecurity, params: Type.Object({ api_key: Type.String() }) }),
  createUser: envelope(UserSchema, [...WRITE, 'already_exists'], 'Create a user', { ...adminSecurity, body: adminBodies.createUser }),
  updateUser: envelope(UserSchema, WRITE, 'Change a user (password, admin flag, hidden on every board); a new password ends all their sessions', { ...adminSecurity, params: Type.Object({ username: Type.String() }), body: adminBodies.updateUser }),
  createSession: envelope(Type.Object({ session_id: Type.String(), cookie_name: Type.String(), expires_at: Type.String({ format: 'date-time' }) }), WRITE, 'Create a login session for a user', { ...adminSecurity, body: adminBodies.createSession }),
  deleteSession: envelope(Empty, WRITE, 'End a login session', { ...adminSecurity, params: Type.Object({ session_id: Type.String() }) }),
  userSessions: envelope(Type.Object({ username: Type.String(), sessions: Type.Array(Type.Object({ expires_at: Type.String({ format: 'date-time' }) })), ...nextCursor }), ADMIN, "A user's live sessions, soonest to expire first (their ids stay secret)", { ...adminSecurity, params: Type.Object({ username: Type.String() }), querystring: Type.Object(Page) }),
  listGames: envelope(Type.Object({ items: Type.Array(GameWithFiguresSchema), ...nextCursor }), ADMIN, 'The games in id order, with their figures', {
    ...adminSecurity, querystring: Type.Object({ ...Page, prefix: Type.Optional(Text('only game ids beginning with it')), approved: Flag('only approved games (true) or only the others (false)') })
  }),
  getGame: envelope(GameWithFiguresSchema, ADMIN, 'A game, with its figures', { ...adminSecurity, params: gameParams }),
  listKeys: envelope(Type.Object({ game_id: Type.String(), items: Type.Array(KeySchema), ...nextCursor }), ADMIN, "A game's API keys in key order (never their secrets)", {
    ...adminSecurity, params: gameParams, querystring: Type.Object({ ...Page, revoked: Flag('only revoked keys (true) or only live ones (false)') })
  }),
  gameStats: envelope(GameActivitySchema, ADMIN, "A game's activity for charts: submissions per minute (kept two days), submissions, active players and play time per UTC day (kept 90 days), and how its ratings spread", {
    ...adminSecurity, params: gameParams, querystring: Type.Object({ minutes: Type.Optional(IntegerText('1 to 2880, default 60')), days: Type.Optional(IntegerText('1 to 91, default 30')) })
  }),
  scoreStats: envelope(ScoreSpreadSchema, ADMIN, 'How the scores of a board spread: equal ranges from its lowest visible score to its highest', {
    ...adminSecurity, params: gameParams, querystring: Type.Object({ buckets: Type.Optional(IntegerText('1 to 100, default 20')), ...BoardChoice })
  }),
  whoami: envelope(OperatorSchema, ADMIN, 'The operator token the request carries: its name and role (a viewer reads and changes nothing)', { ...adminSecurity }),
  adminAround: envelope(Around, [...ADMIN, 'invalid_player_name'], 'A player and the players around them, as action=around answers', {
    ...adminSecurity, params: gameParams, querystring: Type.Object({ player_name: Text('the player'), ...Sides, ...BoardChoice })
  }),
  adminLive: envelope(Board, [...ADMIN, 'rate_limited'], "A board's top, live (Server-Sent Events) for the console: as action=live, with the operator token", {
    ...adminSecurity, params: gameParams, querystring: Type.Object({ limit: Type.Optional(IntegerText('1 to 100, default 20')), ...BoardChoice })
  }),
  getKey: envelope(KeySchema, ADMIN, 'An API key (never its secret)', { ...adminSecurity, params: Type.Object({ api_key: Type.String() }) }),
  listUsers: envelope(Type.Object({ items: Type.Array(UserSchema), ...nextCursor }), ADMIN, 'The users in name order', {
    ...adminSecurity, querystring: Type.Object({ ...Page, prefix: Type.Optional(Text('only usernames beginning with it')), hidden: Flag('only hidden users (true) or only the others'), is_admin: Flag('only administrators (true) or only the others'), guest: Flag('only guests (true) or only the others') })
  }),
  getUser: envelope(UserSchema, ADMIN, 'A user (never the password hash)', { ...adminSecurity, params: Type.Object({ username: Type.String() }) }),
  listEntries: envelope(Type.Object({ game_id: Type.String(), total: Type.Integer({ description: 'visible players on the board (with or without prefix)' }), items: Type.Array(ListedEntrySchema), ...nextCursor, ...BoardFields }), ADMIN, "A board's entries, hidden ones included (rank null), with their meta: the whole board in board order, or the players whose names begin with prefix (sorted within each page of the walk, each with its rank)", {
    ...adminSecurity, params: gameParams, querystring: Type.Object({ ...Page, prefix: Type.Optional(Text('only players whose names begin with it, ASCII letters either case')), ...BoardChoice })
  }),
  listAudit: envelope(Type.Object({ items: Type.Array(AuditEntrySchema), ...nextCursor }), ADMIN, 'The audit log of operator writes, newest first', {
    ...adminSecurity, querystring: Type.Object({ ...Page, game_id: Type.Optional(Text("only this game's records")), action: Type.Optional(Text('an action (game.update) or a kind of record (game.)')), actor: Type.Optional(Text("a token's name, or cli:<user>")) })
  }),
  gameAudit: envelope(Type.Object({ items: Type.Array(AuditEntrySchema), ...nextCursor }), ADMIN, "The audit log of one game's records, newest first", {
    ...adminSecurity, params: gameParams, querystring: Type.Object({ ...Page, action: Type.Optional(Text('an action (game.update) or a kind of record (game.)')), actor: Type.Optional(Text("a token's name, or cli:<user>")) })
  }),
  endUserSessions: envelope(Type.Object({ ended: Type.Integer({ description: 'how many sessions ended' }) }), WRITE, 'Log a user out everywhere: end all their sessions', { ...adminSecurity, params: Type.Object({ username: Type.String() }) }),
  reviewList: envelope(Type.Object({ game_id: Type.String(), status: Type.String(), total: Type.Integer(), items: Type.Array(HeldScoreSchema) }), ADMIN, "The game's scores held for review: pending (oldest first) or decided (newest first)", {
    ...adminSecurity, params: gameParams, querystring: Type.Object({ status: Type.Optional(Type.String({ description: 'pending (default) or decided' })), limit: Type.Optional(IntegerText('1 to 100, default 50')), offset: Type.Optional(IntegerText('default 0')) })
  }),
  approveHeld: envelope(Type.Object({
    held: HeldScoreSchema,
    improved: Type.Boolean({ description: "the score became the player's best" }),
    best_score: Nullable(Type.Integer()),
    rank: Nullable(Type.Integer({ minimum: 1 }))
  }), [...WRITE, 'quota_exceeded'], 'Approve a held score: it goes on the boards as of when it was submitted', { ...adminSecurity, params: heldParams, body: adminBodies.approveHeld }),
  rejectHeld: envelope(HeldScoreSchema, WRITE, 'Reject a held score (and optionally hide the player on every board of the game)', { ...adminSecurity, params: heldParams, body: adminBodies.rejectHeld }),
  listBoards: envelope(Type.Object({ game_id: Type.String(), total: Type.Integer(), items: Type.Array(NamedBoardSchema) }), ADMIN, "The game's named boards, in id order", { ...adminSecurity, params: gameParams }),
  getBoard: envelope(NamedBoardSchema, ADMIN, 'A named board', { ...adminSecurity, params: boardParams }),
  createBoard: envelope(NamedBoardSchema, [...WRITE, 'already_exists'], 'Add a named board to the game', { ...adminSecurity, params: gameParams, body: adminBodies.createBoard }),
  updateBoard: envelope(NamedBoardSchema, WRITE, "Change a named board's settings (its order and operator only while it is empty), or archive it", { ...adminSecurity, params: boardParams, body: adminBodies.updateBoard }),
  deleteBoard: envelope(Empty, WRITE, 'Delete a named board and every entry of it, on every season and period', { ...adminSecurity, params: boardParams }),
  listAchievements: envelope(Type.Object({
    game_id: Type.String(),
    total: Type.Integer(),
    players: Type.Integer({ description: "the game's players its achievements know: rarity's denominator" }),
    items: Type.Array(Type.Object({ ...AchievementSchema.properties, unlocked: Type.Integer({ description: 'players who unlocked it' }), rarity: Type.Number({ description: 'their share of the players, in percent (2 decimals)' }) }))
  }), ADMIN, "The game's achievements, in id order, each with how many players unlocked it and its rarity", { ...adminSecurity, params: gameParams }),
  getAchievement: envelope(AchievementSchema, ADMIN, 'An achievement', { ...adminSecurity, params: achievementParams }),
  createAchievement: envelope(AchievementSchema, [...WRITE, 'already_exists'], 'Add an achievement to the game', { ...adminSecurity, params: gameParams, body: adminBodies.createAchievement }),
  updateAchievement: envelope(AchievementSchema, WRITE, "Change an achievement's settings", { ...adminSecurity, params: achievementParams, body: adminBodies.updateAchievement }),
  deleteAchievement: envelope(Empty, WRITE, 'Delete an achievement, its icon and its count (its unlocks no longer count)', { ...adminSecurity, params: achievementParams }),
  setAchievementIcon: envelope(AchievementSchema, [...WRITE, 'invalid_body', 'payload_too_large'], "Set an achievement's icon: the image's bytes as the body (PNG, JPEG, GIF or WebP, at most 64 KiB)", { ...adminSecurity, params: achievementParams }),
  deleteAchievementIcon: envelope(AchievementSchema, WRITE, "Remove an achievement's icon", { ...adminSecurity, params: achievementParams }),
  exportUnlocks: fileAnswer(envelope(Type.Null(), [...ADMIN, 'invalid_player_name'], "The game's achievement unlocks as a file (NDJSON or CSV): streamed as it is read, in no particular order", {
    ...adminSecurity,
    params: gameParams,
    querystring: Type.Object({
      format: Type.Optional(Type.Union([Type.Literal('ndjson'), Type.Literal('csv')], { description: 'ndjson (default) or csv' })),
      player_name: Type.Optional(Type.String({ description: "only this player's unlocks" })),
      achievement_id: Type.Optional(Type.String({ description: 'only the unlocks of this achievement' }))
    })
  }), 'The file, as an attachment: one unlock per line with player_name, achievement_id, unlocked_at. A failure before the first byte is the envelope.'),
  createWebhook: envelope(Type.Object({ ...WebhookSchema.properties, secret: Type.String({ description: 'the signing secret (whsec_…), shown this once' }) }), WRITE, "Add a webhook for the game's events (Standard Webhooks: signed, retried)", { ...adminSecurity, params: gameParams, body: adminBodies.createWebhook }),
  listWebhooks: envelope(Type.Object({ game_id: Type.String(), items: Type.Array(ListedWebhookSchema) }), ADMIN, "The game's webhooks, oldest first, each with its receiver's health", { ...adminSecurity, params: gameParams }),
  exportUser: envelope(UserDataSchema, ADMIN, 'Everything kept about a user (what the user reads at GET /auth/account): the record, and each game where they have a best score, a rating, play time or saved items', { ...adminSecurity, params: Type.Object({ username: Type.String() }) }),
  newGameToken: envelope(Type.Object({ username: Type.String(), game_token: Type.String({ description: "what Game Jolt's clients send as user_token: a secret" }) }), WRITE, "A new game token for the user, for Game Jolt's clients (docs/gamejolt.md): the previous one stops working at once", { ...adminSecurity, params: Type.Object({ username: Type.String() }) }),
  getGamejolt: envelope(GamejoltSchema, [...ADMIN, 'forbidden'], "The game's Game Jolt API settings, its private key included (docs/gamejolt.md): admin tokens only (a viewer's is forbidden); not_found while it is off", { ...adminSecurity, params: gameParams }),
  setGamejolt: envelope(GamejoltSchema, WRITE, "Turn the game's Game Jolt API on, or change its id or private key: what is given is taken, what is omitted is made (the game's id or a free one; a new key); the old key stops working at once", { ...adminSecurity, params: gameParams, body: adminBodies.setGamejolt }),
  gamejoltData: envelope(Type.Object({
    usage: Type.Object({ items: Type.Integer(), bytes: Type.Integer({ description: 'every key and data together' }) }),
    limits: DataLimitsSchema,
    owners: Type.Array(Type.Object({ owner: DataOwner, items: Type.Integer() }), { description: 'the global store first, then each user whose store holds items, in name order' })
  }), ADMIN, "What the game's Game Jolt data store holds (docs/gamejolt.md#data-store)", { ...adminSecurity, params: gameParams }),
  gamejoltDataItems: envelope(Type.Object({ owner: DataOwner, items: Type.Array(Type.Object({ key: Type.String(), bytes: Type.Integer() })), ...nextCursor }), ADMIN, "A page of one data store's items in key order, each with its data's size", {
    ...adminSecurity, params: gameParams, querystring: Type.Object({ ...Page, owner: Type.Optional(Type.String({ description: "a user's name (default: the global store)" })) })
  }),
  gamejoltDataItem: envelope(Type.Object({ owner: DataOwner, key: Type.String(), data: Type.String(), bytes: Type.Integer() }), ADMIN, 'One data store item with its data', {
    ...adminSecurity, params: gameParams, querystring: Type.Object({ key: Type.String(), owner: Type.Optional(Type.String({ description: "a user's name (default: the global store)" })) })
  }),
  deleteGamejoltDataItem: envelope(Type.Object({ owner: DataOwner, key: Type.String(), removed: Type.Literal(true) }), WRITE, 'Remove one data store item (audited, without its data)', {
    ...adminSecurity, params: gameParams, querystring: Type.Object({ key: Type.String(), owner: Type.Optional(Type.String({ description: "a user's name (default: the global store)" })) })
  }),
  listRatings: envelope(Type.Object({
    game_id: Type.String(),
    items: Type.Array(Type.Object({
      username: Type.String(),
      stars: Type.Integer({ minimum: 1, maximum: 10 }),
      play_at_rating_seconds: Nullable(Type.Integer({ description: "the rater's play in the game when they rated; null for a rating from before it was kept" })),
      playtime_seconds: Type.Integer({ description: 'their play in the game now' }),
      rated_at: Nullable(Type.String({ format: 'date-time', description: 'when they rated or last changed it; null for a rating from before it was kept' }))
    })),
    ...nextCursor
  }), ADMIN, "A page of the game's ratings, newest first, with each rater's play (docs/ratings.md)", {
    ...adminSecurity,
    params: gameParams,
    querystring: Type.Object({
      ...Page,
      stars: Type.Optional(Type.String({ description: 'only ratings of these stars (1 to 10)' })),
      max_playtime_seconds: Type.Optional(Type.String({ description: 'only raters with at most this much play now (seconds)' }))
    })
  }),
  exportRatings: fileAnswer(envelope(Type.Null(), ADMIN, "The game's ratings as a file (NDJSON or CSV), newest first: streamed as it is read", {
    ...adminSecurity,
    params: gameParams,
    querystring: Type.Object({
      format: Type.Optional(Type.Union([Type.Literal('ndjson'), Type.Literal('csv')], { description: 'ndjson (default) or csv' })),
      stars: Type.Optional(Type.String({ description: 'only ratings of these stars (1 to 10)' })),
      max_playtime_seconds: Type.Optional(Type.String({ description: 'only raters with at most this much play now (seconds)' }))
    })
  }), 'The file, as an attachment: one rating per line with username, stars, play_at_rating_seconds, playtime_seconds, rated_at. A failure before the first byte is the envelope.'),
  removeRating: envelope(Type.Object({
    game_id: Type.String(),
    username: Type.String(),
    stars: Type.Integer({ description: 'the stars the rating had' }),
    avg: Type.Number(),
    count: Type.Integer(),
    weighted: Nullable(Type.Number()),
    distribution: Type.Array(Type.Integer())
  }), WRITE, "Remove a user's rating of the game, every figure following (audited as rating.remove)", { ...adminSecurity, params: Type.Object({ game_id: Type.String(), username: Type.String() }) }),
  deleteGamejolt: envelope(Type.Object({ game_id: Type.String() }), WRITE, "Turn the game's Game Jolt API off: its id and key stop working at once", { ...adminSecurity, params: gameParams }),
  getWebhook: envelope(ListedWebhookSchema, ADMIN, "A webhook, with its receiver's health", { ...adminSecurity, params: webhookParams }),
  deleteWebhook: envelope(Empty, WRITE, 'Remove a webhook and its pending deliveries', { ...adminSecurity, params: webhookParams }),
  testWebhook: envelope(DeliverySchema, WRITE, 'Send a webhook.test event to this webhook only', { ...adminSecurity, params: webhookParams }),
  webhookDeliveries: envelope(Type.Object({ game_id: Type.String(), webhook_id: Type.String(), status: Type.String(), total: Type.Integer(), items: Type.Array(DeliverySchema) }), ADMIN, "A webhook's delivery log: finished deliveries (delivered or dead) newest first, or pending ones by when next due", {
    ...adminSecurity, params: webhookParams, querystring: Type.Object({ status: Type.Optional(Type.String({ description: 'done (default) or pending' })), ...listingQuery })
  }),
  redeliver: envelope(DeliverySchema, WRITE, 'Send a finished delivery again (the same webhook-id), from now', { ...adminSecurity, params: Type.Object({ ...webhookParams.properties, delivery_id: Type.String() }) }),
  listEvents: envelope(Type.Object({ game_id: Type.String(), items: Type.Array(GameEventSchema), dropped: Type.Integer({ minimum: 0, description: `Events the outbox could not take, ever: it held ${OUTBOX_MAX} events no process had read (docs/guide.md#webhooks)` }) }), ADMIN, "The newest events of the game's outbox (written while it has webhooks), newest first", { ...adminSecurity, params: gameParams, querystring: Type.Object(listingQuery) }),
  getPlayer: envelope(EntrySchema, ADMIN, 'A board entry with its meta (board: a named board\'s)', { ...adminSecurity, params: playerParams, querystring: Type.Object(entryBoard) }),
  setPlayer: envelope(EntrySchema, WRITE, 'Hide or show a board entry on this board', { ...adminSecurity, params: playerParams, body: adminBodies.setPlayer }),
  deletePlayer: envelope(Empty, WRITE, 'Delete a board entry', { ...adminSecurity, params: playerParams }),
  exportBoard: fileAnswer(envelope(Type.Null(), ADMIN, 'A whole board as a file (NDJSON or CSV), in board order, hidden entries marked: streamed as it is read (an NDJSON export is an import)', {
    ...adminSecurity,
    params: gameParams,
    querystring: Type.Object({ format: Type.Optional(Type.Union([Type.Literal('ndjson'), Type.Literal('csv')], { description: 'ndjson (default) or csv' })), ...BoardChoice })
  }), 'The file, as an attachment: one entry per line with rank (null while hidden), player_name, score, achieved_at, hidden, hidden_user, meta. A failure before the first byte is the envelope.'),
  importBoard: envelope(Type.Object({
    game_id: Type.String(),
    board: Type.Optional(Type.String({ description: 'with board: the named board the entries went to' })),
    season_id: Type.Integer({ description: 'the season the entries went to: the current one' }),
    lines: Type.Integer({ description: 'lines read, blank ones left out' }),
    imported: Type.Integer({ description: 'new players' }),
    improved: Type.Integer({ description: 'stored bests the line beat (or equalled, earlier)' }),
    unchanged: Type.Integer({ description: 'lines no better than what is stored' }),
    refused: Type.Integer(),
    errors: Type.Array(Type.Object({ line: Type.Integer(), error: Type.String(), message: Type.String() }), { description: 'the first 100 lines refused, with why' })
  }), [...WRITE, 'invalid_body', 'payload_too_large'], 'Move a board in from another system: NDJSON (application/x-ndjson), one {player_name, score, achieved_at, meta} per line, into the current season, best-only with the times kept (a latest or sum board: the later value); idempotent', {
    ...adminSecurity, params: gameParams, querystring: Type.Object({ board: BoardChoice.board })
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
  getPlayerByQuery: envelope(EntrySchema, ADMIN, 'A board entry with its meta (any name, given in the query)', { ...adminSecurity, params: gameParams, querystring: Type.Object({ ...playerQuery.properties, ...entryBoard }) }),
  setPlayerByQuery: envelope(EntrySchema, WRITE, 'Hide or show a board entry (any name, given in the query)', { ...adminSecurity, params: gameParams, querystring: playerQuery, body: adminBodies.setPlayer }),
  deletePlayerByQuery: envelope(Empty, WRITE, 'Delete a board entry (any name, given in the query)', { ...adminSecurity, params: gameParams, querystring: playerQuery })
}
