import { Type, type TSchema } from '@sinclair/typebox'
import type { FastifySchema } from 'fastify'
import type {} from '@fastify/swagger' // adds summary, tags and security to FastifySchema
import type { ErrorCode } from '../errors.js'
import { ICON_TYPES } from '../rules/achievements.js'
import { SCORE_FORMAT_TYPES } from '../../sdk/format.js'

/*
 * The route schemas, in one place. They document the API (the OpenAPI
 * document at /docs) and serialize success answers. They do not validate
 * requests: the check order (docs/interface.md#check-order) interleaves
 * authentication with field checks (a bad `limit` must not be reported before
 * a bad key), so field rules live in src/rules/ and src/operations/index.ts.
 */

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()])
export const Text = (description: string) => Type.String({ description })
export const IntegerText = (description: string) => Type.String({ pattern: '^-?[0-9]+$', description })

/** Every request can also end in one of these. */
const ALWAYS: ErrorCode[] = ['invalid_param', 'invalid_body', 'payload_too_large', 'method_not_allowed', 'not_found', 'unavailable', 'internal_error']

export function envelope (data: TSchema, codes: ErrorCode[], summary: string, extra: Partial<FastifySchema> = {}): FastifySchema {
  const all = [...new Set([...codes, ...ALWAYS])]
  return {
    summary,
    description: `${summary}\n\nAlways HTTP 200. Success: \`{"ok": true, "data": ...}\`. Failure: \`{"ok": false, "error": "<code>", "message": "<sentence>"}\` with one of these codes, checked in this order: ${all.map(code => `\`${code}\``).join(', ')}.`,
    response: {
      200: Type.Object({ ok: Type.Literal(true), data }, { description: 'Success envelope (HTTP 200)' }),
      default: Type.Object({
        ok: Type.Literal(false),
        error: Type.Union(all.map(code => Type.Literal(code))),
        message: Type.String()
      }, { description: `Failure envelope, also sent with HTTP 200. Codes: ${all.join(', ')}.` })
    },
    ...extra
  } as FastifySchema
}

/** A route whose success is a file, not the envelope (its failures before the first byte still are). */
export function fileAnswer (schema: FastifySchema, description: string, types: readonly string[] = ['application/x-ndjson', 'text/csv']): FastifySchema {
  const file = Type.String({ description })
  return { ...schema, response: { ...(schema.response as object), 200: { description, content: Object.fromEntries(types.map(type => [type, { schema: file }])) } } }
}

/** What run-start answers (docs/interface.md#runs). */
const RunStarted = Type.Object({
  run_id: Type.String({ description: '128 random bits, base64url: send it with the play-time reports and the submit of this game session' }),
  started_at: Type.String({ format: 'date-time' }),
  expires_at: Type.String({ format: 'date-time', description: 'after this the run takes no score (the game\'s run_ttl_s)' })
})

/** What run-report answers (docs/interface.md#runs). */
const RunReported = Type.Object({
  run_id: Type.String(),
  run_verified_seconds: Type.Integer({ description: "the run's verified play so far" }),
  credited_seconds: Type.Integer({ description: 'what this report added to it' })
})

/** A route whose success is a redirect (the browser's part of a sign-in); its failures before it are the envelope. */
function redirectAnswer (schema: FastifySchema, status: 302 | 303, description: string): FastifySchema {
  const { 200: _success, ...failures } = schema.response as Record<string, unknown>
  return { ...schema, response: { ...failures, [status]: { description, type: 'null' } } }
}

export const action = (name: string) => Type.Object({ action: Type.Literal(name, { description: 'selects the endpoint' }) })

const PeriodStanding = Type.Object({
  best_score: Nullable(Type.Integer({ description: "the player's best in the current period" })),
  rank: Nullable(Type.Integer({ minimum: 1, description: 'null while the player is hidden' })),
  improved: Type.Boolean({ description: "this score improved the period's best" })
})

const SubmitResult = Type.Object({
  score: Type.Integer({ description: 'the submitted score' }),
  improved: Type.Boolean({ description: 'the stored best was updated' }),
  best_score: Nullable(Type.Integer({ description: 'the current best; null only when a held score was the player\'s first' })),
  rank: Nullable(Type.Integer({ minimum: 1, description: 'null while the player is hidden (or has no entry yet)' })),
  board: Type.Optional(Type.String({ description: 'with board: the named board the score went to; best_score is its stored value (the total of a sum board, the last score of a latest one)' })),
  held: Type.Optional(Type.Literal(true, { description: 'only when the score was held for review (fair play): it is on no board until an operator approves it, and the standing above is unchanged' })),
  unlocked: Type.Optional(Type.Array(Type.String(), { description: 'only when the score unlocked achievements (their thresholds): their ids' })),
  periods: Type.Optional(Type.Object({
    daily: Type.Optional(PeriodStanding),
    weekly: Type.Optional(PeriodStanding),
    monthly: Type.Optional(PeriodStanding)
  }, { description: 'only for a game that keeps periods: the current board of each' }))
})

/**
 * One board's part of a submit of several boards' scores
 * (docs/interface.md#one-submit-several-boards): the answer a submit to it
 * alone would give, or its refusal (error and message); the others are
 * stored all the same.
 */
const BoardSubmitted = Type.Object({
  board: Type.String({ description: 'the board, as named in the request (default: the game\'s own)' }),
  score: Type.Integer({ description: 'the score submitted to it' }),
  improved: Type.Optional(SubmitResult.properties.improved),
  best_score: Type.Optional(SubmitResult.properties.best_score),
  rank: Type.Optional(SubmitResult.properties.rank),
  total_players: Type.Optional(Type.Integer({ description: 'session mode: visible players on the board' })),
  held: SubmitResult.properties.held,
  unlocked: SubmitResult.properties.unlocked,
  periods: SubmitResult.properties.periods,
  error: Type.Optional(Type.String({ description: 'only when this board refused its score: the error code a submit to it alone would get' })),
  message: Type.Optional(Type.String({ description: 'with error: why' }))
})
const ManySubmitted = {
  boards: Type.Array(BoardSubmitted, { description: 'one per board, in the order of the request' })
}

/** An achievement as a player sees it: a hidden one not yet unlocked is masked (every field null but hidden). */
const PlayerAchievement = Type.Object({
  achievement_id: Nullable(Type.String()),
  name: Nullable(Type.String()),
  description: Nullable(Type.String()),
  points: Nullable(Type.Integer()),
  hidden: Type.Boolean({ description: 'a hidden achievement: masked until unlocked' }),
  icon_url: Nullable(Type.String({ description: 'the icon (a path on this service), or null' })),
  unlocked_at: Nullable(Type.String({ format: 'date-time', description: 'when the player unlocked it; null when not' })),
  rarity: Nullable(Type.Number({ description: 'the share of the game\'s players who have it, in percent (2 decimals)' }))
})
const AchievementList = Type.Object({
  game_id: Type.String(),
  player_name: Type.Optional(Type.String()),
  players: Type.Integer({ description: 'the game\'s players the achievements know: rarity\'s denominator' }),
  unlocked: Type.Integer({ description: 'how many the player unlocked' }),
  points: Type.Integer({ description: 'the points of those' }),
  items: Type.Array(PlayerAchievement, { description: 'in id order, hidden ones that are still locked last' })
})
const Unlocked = Type.Object({
  achievement_id: Type.String(),
  player_name: Type.String(),
  unlocked: Type.Boolean({ description: 'true when this request unlocked it; false when it was unlocked before' }),
  unlocked_at: Type.String({ format: 'date-time' })
})

export const PERIOD = Type.Union([Type.Literal('daily'), Type.Literal('weekly'), Type.Literal('monthly')])
/** What an answer adds about the board it read: a period, or a season read by its id. */
export const BoardFields = {
  board: Type.Optional(Type.String({ description: 'with board: the named board read (docs/decisions/0070-named-boards-one-game-many-boards-in-its.md)' })),
  period: Type.Optional(PERIOD),
  period_id: Type.Optional(Type.String({ description: 'with a period: 2026-11-23, 2026-W48 or 2026-11' })),
  starts_at: Type.Optional(Type.String({ format: 'date-time', description: "with a period: its first instant (the game's local midnight), ISO 8601 UTC" })),
  resets_at: Type.Optional(Type.String({ format: 'date-time', description: 'with a period: the first instant of the next one' })),
  season_id: Type.Optional(Type.Integer({ minimum: 1, description: 'with season_id: the season read' })),
  started_at: Type.Optional(Nullable(Type.String({ format: 'date-time' }))),
  ended_at: Type.Optional(Nullable(Type.String({ format: 'date-time', description: 'null for the current season' })))
}
/** The parameters that pick a board. */
export const BoardChoice = {
  board: Type.Optional(Text('a named board of the game (operators make them); default, or none, for the game\'s own board')),
  period: Type.Optional(Type.Union([Type.Literal('all'), PERIOD], { description: 'all (default: the all-time board) or a period the game keeps: its current board' })),
  period_id: Type.Optional(Text('a kept period, current or past: 2026-11-23, 2026-W48 or 2026-11 (the kind follows from the form)')),
  season_id: Type.Optional(IntegerText('a season of the all-time board, closed or current (action=seasons lists them)'))
}

const BoardItem = Type.Object({
  rank: Type.Integer({ minimum: 1 }),
  player_name: Type.String(),
  score: Type.Integer(),
  created_at: Type.String({ format: 'date-time', description: 'when the best score was reached, ISO 8601 UTC with milliseconds' })
})

const Standing = {
  player_name: Type.String(),
  best_score: Nullable(Type.Integer()),
  rank: Nullable(Type.Integer({ minimum: 1 }))
}

export const Board = Type.Object({ game_id: Type.String(), total: Type.Integer({ description: 'visible players on the board' }), items: Type.Array(BoardItem), ...BoardFields })
export const Around = Type.Object({
  game_id: Type.String(),
  total: Type.Integer({ description: 'visible players on the board' }),
  player: Type.Object({
    ...Standing,
    top_percent: Nullable(Type.Number({ description: 'rank as a percentage of total, 2 decimals' }))
  }, { description: 'nulls (best_score too when there is no entry) when the player is not on the board' }),
  items: Type.Array(BoardItem, { description: 'the entries around the player, the player among them; [] when the player is not on the board' }),
  ...BoardFields
})
export const Sides = {
  before: Type.Optional(IntegerText('entries above the player, 0 to 50 (default 5)')),
  after: Type.Optional(IntegerText('entries below the player, 0 to 50 (default 5)'))
}
const PlayerNames = (description: string) => Text(`a JSON array of up to 100 player names${description}; a list too long for a URL goes in a form body with POST (up to 64 KiB), where any of the parameters may come`)
export const Season = Type.Object({ season_id: Type.Integer({ minimum: 1 }), started_at: Type.String({ format: 'date-time' }), ended_at: Nullable(Type.String({ format: 'date-time', description: 'null for the current season' })) })

const SessionFlags = {
  total_players: Type.Integer({ description: 'visible players on the board' }),
  is_dev_record: Type.Boolean({ description: "the user is the game's developer" }),
  is_admin_record: Type.Boolean({ description: 'the user is an administrator' })
}

const Rating = Type.Object({
  avg: Type.Number({ description: 'average stars in half-star units (1..10), 2 decimals, 0 when none' }),
  count: Type.Integer(),
  mine: Nullable(Type.Integer({ minimum: 1, maximum: 10, description: "the caller's stars, null when none" }))
})

const API_KEY: ErrorCode[] = ['missing_param', 'rate_limited', 'invalid_key', 'key_revoked', 'invalid_game', 'key_game_mismatch']
const SESSION: ErrorCode[] = ['not_logged_in', 'forbidden_origin', 'rate_limited', 'missing_param', 'invalid_game']
const apiKeyFields = { api_key: Text('the issued key'), game_id: Text('game identifier') }

export const Empty = Type.Object({})
export const gameParams = Type.Object({ game_id: Type.String() })
export const routeSchemas = {
  submit: envelope(Type.Union([SubmitResult, Type.Object(ManySubmitted)]), [...API_KEY, 'expired_ts', 'invalid_signature', 'invalid_player_name', 'invalid_score', 'score_out_of_range', 'invalid_meta', 'run_required', 'invalid_run', 'implausible_score', 'quota_exceeded'], 'Submit a score (API key, signed)', {
    tags: ['api-key'],
    querystring: action('submit'),
    body: Type.Object({
      ...apiKeyFields,
      player_name: Text('1 to 30 characters'),
      score: IntegerText('base-10 integer within ±9007199254740991; with several boards, one per board, comma-separated in their order'),
      ts: IntegerText('UNIX time in seconds, within ±300 s of the server clock'),
      sign: Text('lowercase hex HMAC-SHA256 of api_key|game_id|player_name|score|ts keyed with api_secret (|board after ts, exactly as sent, when board names a named board or several)'),
      board: Type.Optional(Text('a named board (default, or none: the game\'s own); or 2 to 10 boards, comma-separated, for one score each')),
      meta: Type.Optional(Text('JSON text, at most 2048 bytes')),
      run_id: Type.Optional(Text('the run that earned the score (run-start); not signed'))
    })
  }),
  runStart: envelope(RunStarted, [...API_KEY, 'expired_ts', 'invalid_signature', 'invalid_player_name', 'forbidden'], "Start a run of a player: the game session a score is tied to (API key, signed with the text run-start in the score's place; unsigned for a game that allows submit-run)", {
    tags: ['api-key'],
    querystring: action('run-start'),
    body: Type.Object({
      ...apiKeyFields,
      player_name: Text('1 to 30 characters'),
      ts: Type.Optional(IntegerText('UNIX time in seconds, within ±300 s of the server clock; with sign, left out only where the game allows submit-run')),
      sign: Type.Optional(Text('lowercase hex HMAC-SHA256 of api_key|game_id|player_name|run-start|ts keyed with api_secret'))
    })
  }),
  runReport: envelope(RunReported, [...API_KEY, 'invalid_player_name', 'invalid_run', 'invalid_seconds', 'forbidden'], 'Report the play of a run started with this API key: its verified play, under the wall-clock rule (API key, unsigned: the run_id vouches)', {
    tags: ['api-key'],
    querystring: action('run-report'),
    body: Type.Object({
      ...apiKeyFields,
      player_name: Text('the player the run was started for'),
      run_id: Text('the run (run-start)'),
      seconds: IntegerText('1 to 300: the play since the last report')
    })
  }),
  submitRun: envelope(SubmitResult, [...API_KEY, 'forbidden', 'invalid_player_name', 'invalid_score', 'score_out_of_range', 'invalid_meta', 'invalid_run', 'implausible_score', 'quota_exceeded'], 'Submit the score of a run from a browser game without a server: the public api_key and a run started with it, no secret (API key, for games that allow submit-run)', {
    tags: ['api-key'],
    querystring: action('submit-run'),
    body: Type.Object({
      ...apiKeyFields,
      player_name: Text('the player the run was started for'),
      score: IntegerText('base-10 integer within ±9007199254740991'),
      run_id: Text('the run that earned the score (run-start with this api_key)'),
      meta: Type.Optional(Text('JSON text, at most 2048 bytes'))
    })
  }),
  achievements: envelope(AchievementList, [...API_KEY, 'invalid_player_name'], "The game's achievements, each with its rarity, and what a player unlocked (API key)", {
    tags: ['api-key'],
    querystring: Type.Object({
      ...action('achievements').properties,
      ...apiKeyFields,
      player_name: Type.Optional(Text('1 to 30 characters: whose unlocks; without it, every achievement as a player with none sees it')),
      ts: Type.Optional(IntegerText('with sign: UNIX time in seconds, within ±300 s of the server clock')),
      sign: Type.Optional(Text('optional: HMAC-SHA256 of api_key|game_id|player_name|achievements|ts keyed with api_secret; signed, the list shows the hidden achievements the player unlocked'))
    })
  }),
  achievementsSelf: envelope(AchievementList, [...SESSION], "The game's achievements and what the logged-in user unlocked (session)", {
    tags: ['session'],
    querystring: Type.Object({ ...action('achievements-self').properties, game_id: Text('game identifier') })
  }),
  unlock: envelope(Unlocked, [...API_KEY, 'expired_ts', 'invalid_signature', 'invalid_player_name', 'invalid_param', 'run_required', 'invalid_run', 'play_required'], 'Unlock an achievement for a player (API key, signed with unlock:<achievement_id> in the score\'s place); unlocking it again changes nothing', {
    tags: ['api-key'],
    querystring: action('unlock'),
    body: Type.Object({ ...apiKeyFields, player_name: Text('1 to 30 characters'), achievement_id: Text('the achievement'), run_id: Type.Optional(Text('the run it was earned in (run-start), where the game keeps runs; not signed')), ts: IntegerText('UNIX time in seconds, within ±300 s of the server clock'), sign: Text('lowercase hex HMAC-SHA256 of api_key|game_id|player_name|unlock:<achievement_id>|ts keyed with api_secret') })
  }),
  unlockSelf: envelope(Unlocked, [...SESSION, 'invalid_param', 'run_required', 'invalid_run', 'play_required'], 'Unlock an achievement for the logged-in user (session: a hosted game); unlocking it again changes nothing', {
    tags: ['session'],
    querystring: action('unlock-self'),
    body: Type.Object({ game_id: Text('game identifier'), achievement_id: Text('the achievement'), run_id: Type.Optional(Text('the run it was earned in (run-start-self), where the game keeps runs')) })
  }),
  runStartSelf: envelope(RunStarted, [...SESSION, 'forbidden'], 'Start a run of the logged-in user: the game session a score is tied to (session)', {
    tags: ['session'],
    querystring: action('run-start-self'),
    body: Type.Object({ game_id: Text('game identifier') })
  }),
  top: envelope(Board, [...API_KEY], 'The board, best first (API key)', {
    tags: ['api-key'],
    querystring: Type.Object({ ...action('top').properties, ...apiKeyFields, limit: Type.Optional(IntegerText('default 20, at most 100')), offset: Type.Optional(IntegerText('default 0')), ...BoardChoice })
  }),
  me: envelope(Type.Object({ ...Standing, ...BoardFields }), [...API_KEY, 'invalid_player_name'], "A player's best score and rank (API key)", {
    tags: ['api-key'],
    querystring: Type.Object({ ...action('me').properties, ...apiKeyFields, player_name: Text('1 to 30 characters'), ...BoardChoice })
  }),
  around: envelope(Around, [...API_KEY, 'invalid_player_name'], 'A player and the players around them (API key)', {
    tags: ['api-key'],
    querystring: Type.Object({ ...action('around').properties, ...apiKeyFields, player_name: Text('1 to 30 characters'), ...Sides, ...BoardChoice })
  }),
  players: envelope(Board, [...API_KEY], 'Named players (friends) ranked among themselves, each with their rank on the board (API key)', {
    tags: ['api-key'],
    querystring: Type.Object({ ...action('players').properties, ...apiKeyFields, player_names: PlayerNames(''), ...BoardChoice })
  }),
  periods: envelope(Type.Object({
    game_id: Type.String(),
    timezone: Type.String(),
    keep_periods: Type.Integer(),
    items: Type.Array(Type.Object({ period: PERIOD, period_id: Type.String(), starts_at: Type.String({ format: 'date-time' }), resets_at: Type.String({ format: 'date-time' }), current: Type.Boolean() }), { description: 'by kind, newest first' }),
    board: BoardFields.board
  }), [...API_KEY], 'The periods kept for the game (or the named board), with their bounds (API key)', {
    tags: ['api-key'],
    querystring: Type.Object({ ...action('periods').properties, ...apiKeyFields, board: BoardChoice.board })
  }),
  boards: envelope(Type.Object({
    game_id: Type.String(),
    items: Type.Array(Type.Object({
      board_id: Type.String({ description: 'default for the game\'s own board (first), then the named boards in id order' }),
      name: Type.String({ description: 'what players see: the game\'s name for its own board' }),
      order: Type.Union([Type.Literal('desc'), Type.Literal('asc')]),
      operator: Type.Union([Type.Literal('best'), Type.Literal('latest'), Type.Literal('sum')]),
      periods: Type.Array(PERIOD),
      format: Type.Object({
        type: Type.Union(SCORE_FORMAT_TYPES.map(type => Type.Literal(type))),
        decimals: Type.Integer({ minimum: 0 }),
        unit: Type.String()
      }, { description: 'how pages show its scores (sdk/format.ts formatScore): the scores themselves stay raw integers' }),
      archived: Type.Boolean()
    }))
  }), [...API_KEY], 'The game\'s boards: its own and its named ones, each with how its scores are shown (API key)', {
    tags: ['api-key'],
    querystring: Type.Object({ ...action('boards').properties, ...apiKeyFields })
  }),
  seasons: envelope(Type.Object({ game_id: Type.String(), season_id: Type.Integer({ description: 'the current season' }), items: Type.Array(Season, { description: 'oldest first, the current one last (a named board\'s from the season it was made in)' }), board: BoardFields.board }), [...API_KEY], 'The seasons of the all-time board (API key)', {
    tags: ['api-key'],
    querystring: Type.Object({ ...action('seasons').properties, ...apiKeyFields, board: BoardChoice.board })
  }),
  // The 200 is a text/event-stream whose frames' data is this object (HEAD answers it as JSON); failures are the envelope.
  live: envelope(Board, [...API_KEY], 'A live board (Server-Sent Events): the top at once, then again whenever it changes, each frame\'s data the board as top answers it (API key)', {
    tags: ['api-key'],
    querystring: Type.Object({ ...action('live').properties, ...apiKeyFields, limit: Type.Optional(IntegerText('default 20, at most 100')), ...BoardChoice })
  }),
  submitSelf: envelope(Type.Union([Type.Object({ ...SubmitResult.properties, ...SessionFlags }), Type.Object({ ...ManySubmitted, is_dev_record: SessionFlags.is_dev_record, is_admin_record: SessionFlags.is_admin_record })]), [...SESSION, 'invalid_score', 'score_out_of_range', 'invalid_meta', 'run_required', 'invalid_run', 'implausible_score', 'quota_exceeded'], 'Submit a score as the logged-in user (session)', {
    tags: ['session'],
    querystring: action('submit-self'),
    body: Type.Object({ game_id: Text('game identifier'), score: IntegerText('base-10 integer'), meta: Type.Optional(Text('JSON text, at most 2048 bytes')), run_id: Type.Optional(Text('the run that earned the score (run-start-self)')) })
  }),
  meSelf: envelope(Type.Object({ ...Standing, ...SessionFlags, ...BoardFields }), [...SESSION], "The logged-in user's best score and rank (session)", {
    tags: ['session'],
    querystring: Type.Object({ ...action('me-self').properties, game_id: Text('game identifier'), ...BoardChoice })
  }),
  aroundSelf: envelope(Around, [...SESSION], 'The logged-in user and the players around them (session)', {
    tags: ['session'],
    querystring: Type.Object({ ...action('around-self').properties, game_id: Text('game identifier'), ...Sides, ...BoardChoice })
  }),
  playersSelf: envelope(Board, [...SESSION], 'The logged-in user and the named players (friends), ranked among themselves (session)', {
    tags: ['session'],
    querystring: Type.Object({ ...action('players-self').properties, game_id: Text('game identifier'), player_names: Type.Optional(PlayerNames('; the user is added')), ...BoardChoice })
  }),
  rateRead: envelope(Rating, [...SESSION], "The logged-in user's rating and the game's average (session)", {
    tags: ['session'],
    querystring: Type.Object({ game_id: Text('game identifier') })
  }),
  rate: envelope(Rating, [...SESSION, 'invalid_stars', 'play_required'], "Set (POST stars) or remove (DELETE, or POST _method=DELETE) the logged-in user's rating (session)", {
    tags: ['session'],
    querystring: Type.Object({ game_id: Text('game identifier') }),
    body: Type.Object({ stars: Type.Optional(IntegerText('1..10, half-star units')), _method: Type.Optional(Type.Literal('DELETE')) })
  }),
  playtime: envelope(Type.Object({
    total_playtime_seconds: Type.Integer({ description: "the game's total over all players" }),
    user_playtime_seconds: Type.Integer({ description: "the caller's total for this game" }),
    credited_seconds: Type.Integer({ description: 'what this report added' }),
    run_verified_seconds: Type.Optional(Type.Integer({ description: "with run_id: the run's verified play so far" }))
  }), [...SESSION, 'invalid_seconds', 'invalid_run'], 'Report play time (session)', {
    tags: ['session'],
    body: Type.Object({ game_id: Text('game identifier'), seconds: IntegerText('1..300'), run_id: Type.Optional(Text('the run being played: its verified play grows too')) })
  }),
  login: envelope(Type.Object({ username: Type.String(), is_admin: Type.Boolean() }), ['forbidden_origin', 'missing_param', 'rate_limited', 'invalid_credentials'], 'Log in; sets the session cookie', {
    tags: ['session'],
    body: Type.Object({ username: Type.String(), password: Type.String() })
  }),
  logout: envelope(Empty, ['forbidden_origin'], 'Log out; ends the session', { tags: ['session'] }),
  account: envelope(Type.Object({
    username: Type.String(),
    is_admin: Type.Boolean(),
    hidden: Type.Boolean(),
    created_at: Type.String({ format: 'date-time' }),
    guest: Type.Boolean(),
    guest_until: Nullable(Type.String({ format: 'date-time' })),
    sign_in: Type.Array(Type.Object({ method: Type.String(), issuer: Type.Optional(Type.String()), subject: Type.Optional(Type.String()) }), { description: 'how the player signs in: a password, and each identity at the platform' }),
    games: Type.Array(Type.Object({
      game_id: Type.String(),
      best_score: Nullable(Type.Integer({ description: "the player's best on the game's all-time board (its current season)" })),
      rank: Nullable(Type.Integer({ description: 'null while hidden or without a best' })),
      stars: Nullable(Type.Integer({ description: 'their rating, 1..10 half stars' })),
      playtime_seconds: Type.Integer()
    }), { description: 'each game where they have a best score, a rating or play time, in game id order' })
  }), ['not_logged_in', 'rate_limited'], 'Everything kept about the logged-in player', { tags: ['session'] }),
  changePassword: envelope(Type.Object({ username: Type.String(), is_admin: Type.Boolean() }), ['not_logged_in', 'forbidden_origin', 'rate_limited', 'missing_param', 'invalid_credentials', 'weak_password'], "Change the logged-in player's password: every other session ends, this one goes on with a new cookie", {
    tags: ['session'], body: Type.Object({ password: Type.String({ description: 'the current password' }), new_password: Type.String() })
  }),
  deleteAccount: envelope(Type.Object({}, { additionalProperties: Type.Integer(), description: 'what was erased, counted' }), ['not_logged_in', 'forbidden_origin', 'rate_limited', 'invalid_param', 'missing_param', 'invalid_credentials'], "Delete the logged-in player's account: everything kept about them is erased, everywhere (POST needs _method=DELETE)", {
    tags: ['session'], body: Type.Object({ password: Type.Optional(Type.String({ description: 'the current password' })), username: Type.Optional(Type.String({ description: 'for a player without a password here (signed in through the platform, or a guest): their username, typed to confirm' })), _method: Type.Optional(Type.Literal('DELETE')) })
  }),
  signupChallenge: envelope(Type.Object({
    challenge: Type.Object({
      parameters: Type.Object({}, { additionalProperties: true, description: 'what to solve (ALTCHA): the key derivation, its cost, the prefix to find, the expiry' }),
      signature: Type.String()
    }, { description: "solve it with the ALTCHA widget or altcha-lib's solveChallenge, and send the payload they make as altcha" })
  }), ['forbidden', 'rate_limited'], 'A proof-of-work challenge for a sign-up (ALTCHA, self-hosted)', { tags: ['session'] }),
  signup: envelope(Type.Object({ username: Type.String(), is_admin: Type.Boolean() }), ['forbidden_origin', 'forbidden', 'missing_param', 'rate_limited', 'weak_password', 'already_exists', 'invalid_challenge'], 'Create an account and log in as it; sets the session cookie (SIGNUP=open)', {
    tags: ['session'],
    body: Type.Object({
      username: Type.String({ description: '1 to 30 characters from A-Z a-z 0-9 _ . -' }),
      password: Type.String({ description: 'at least 8 characters, hard to guess (zxcvbn score 3 of 4)' }),
      altcha: Type.String({ description: 'the solved challenge of GET /auth/challenge, as the ALTCHA widget sends it (base64 JSON)' })
    })
  }),
  tokenSignin: envelope(Type.Object({ username: Type.String(), is_admin: Type.Boolean() }), ['forbidden_origin', 'forbidden', 'missing_param', 'rate_limited', 'invalid_param', 'invalid_token', 'unavailable'], 'Sign in with a JWT the platform signed for its player; sets the session cookie (TOKEN_SIGNIN_*)', {
    tags: ['session'],
    body: Type.Object({ token: Type.String({ description: 'the JWT: sub, exp, iss and aud as the service is set up, at most 8192 characters' }) })
  }),
  openIdStart: redirectAnswer(envelope(Type.Null(), ['forbidden', 'rate_limited'], 'Sign in with the OpenID Connect provider (OIDC_*): redirects the browser to it (to /login?signin=unavailable when it cannot be reached)', {
    tags: ['session'],
    querystring: Type.Object({ next: Type.Optional(Type.String({ description: 'a path on this site to go to once signed in (default /login)' })) })
  }), 302, 'to the provider, or to the login page that says it cannot be reached'),
  openIdCallback: redirectAnswer(envelope(Type.Null(), ['forbidden', 'rate_limited', 'invalid_param'], 'Where the OpenID Connect provider sends the browser back: signs the player in, then redirects to where they began (or to /login?signin=expired|refused|unavailable)', {
    tags: ['session'],
    querystring: Type.Object({ code: Type.Optional(Type.String()), state: Type.Optional(Type.String()), error: Type.Optional(Type.String()) }, { additionalProperties: true })
  }), 303, 'to the page the sign-in began from, or to the login page that says why it failed'),
  guest: envelope(Type.Object({
    username: Type.String({ description: 'the generated name, guest- and six digits' }),
    is_admin: Type.Boolean(),
    guest: Type.Boolean({ description: 'false when a user was logged in already: nothing was made' }),
    guest_until: Nullable(Type.String({ format: 'date-time', description: 'when the guest and its play are erased, unless it signs up or logs in first' }))
  }), ['forbidden_origin', 'missing_param', 'rate_limited', 'invalid_game', 'forbidden'], 'Play as a guest of a game that takes guests; sets the session cookie', {
    tags: ['session'],
    body: Type.Object({ game_id: Type.String({ description: 'a game whose guests setting is listed or unlisted' }) })
  }),
  health: envelope(Type.Object({
    redis: Type.Literal('up'),
    memory: Type.Optional(Type.Object({
      redis_used_bytes: Type.Integer(),
      redis_max_bytes: Type.Integer({ description: 'maxmemory; 0 when Redis has none' }),
      redis_used_ratio: Nullable(Type.Number({ description: 'used / max, 3 decimals; null without maxmemory' })),
      redis_policy: Type.String({ description: 'maxmemory-policy; noeviction keeps every score' }),
      process_rss_bytes: Type.Integer(),
      process_heap_used_bytes: Type.Integer()
    }, { description: 'only with ?detail=true and the admin token' }))
  }), ['unauthorized', 'rate_limited'], 'Health: up when Redis answers; ?detail=true with the admin token adds memory use', {
    tags: ['operations'],
    querystring: Type.Object({ detail: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')])) })
  }),
  achievementIcon: fileAnswer(envelope(Type.Null(), ['invalid_game', 'not_found', 'rate_limited'], "An achievement's icon, as its image type (a hidden one's only with v, its version, which a player's list gives once it is unlocked)", {
    tags: ['platform'],
    params: Type.Object({ game_id: Type.String(), achievement_id: Type.String() }),
    querystring: Type.Object({ v: Type.Optional(Text('the icon\'s version (icon_url has it): cached for a year')) })
  }), 'The image (PNG, JPEG, GIF or WebP)', ICON_TYPES),
  playBoard: envelope(Board, ['invalid_game'], 'The top 10 shown on the play page; period or period_id pick a period board', { tags: ['platform'], params: gameParams, querystring: Type.Object(BoardChoice) }),
  playLive: envelope(Board, ['invalid_game', 'rate_limited'], 'The play page\'s board, live (Server-Sent Events): the top 10 at once, then again whenever it changes', { tags: ['platform'], params: gameParams, querystring: Type.Object(BoardChoice) }),
  playPage: { summary: 'The play page of a hosted game (HTML)', tags: ['platform'], params: gameParams } as FastifySchema,
  playUnavailable: { summary: 'What the play page frames instead of a game that is unknown, not approved or not installed (HTML)', tags: ['platform'], params: gameParams } as FastifySchema,
  embedPage: { summary: 'The page of examples of <ranking-board>, the board any web page can show (HTML); ?game=&api_key= fills them in', tags: ['platform'] } as FastifySchema,
  home: { summary: 'The front door (HTML): what the service is, its games, the API reference and health', tags: ['platform'] } as FastifySchema,
  signupPage: { summary: 'The sign-up page (HTML, SIGNUP=open); after signing up it goes to `next`, a path on this site', tags: ['platform'], querystring: Type.Object({ next: Type.Optional(Type.String()) }) } as FastifySchema,
  loginPage: { summary: 'The login page (HTML); after logging in it goes to `next`, a path on this site', tags: ['platform'], querystring: Type.Object({ next: Type.Optional(Type.String()) }) } as FastifySchema,

}
