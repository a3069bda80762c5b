import { Type, type TSchema } from '@sinclair/typebox'
import { SCORE_FORMAT_TYPES } from '../../../sdk/format.js'
import { Nullable } from '../schemas.js'
import { BoardFields, PERIOD, Season, Standing } from '../board-schemas.js'

/*
 * What the rank actions answer (the data in the envelope), beside the board
 * reads of ../board-schemas.ts: a submit, a run, the achievements, a
 * player's standing, the periods, boards and seasons of a game.
 */

/** What run-start answers (docs/interface.md#runs). */
export const RunStarted = Type.Object({
  run_id: Type.String({ description: '128 random bits, base64url: send it with the play-time reports and the submit of this game session' }),
  started_at: Type.String({ format: 'date-time' }),
  expires_at: Type.String({ format: 'date-time', description: 'after this the run takes no score (the game\'s run_ttl_s)' })
})

/** What run-report answers (docs/interface.md#runs). */
export const RunReported = Type.Object({
  run_id: Type.String(),
  run_verified_seconds: Type.Integer({ description: "the run's verified play so far" }),
  credited_seconds: Type.Integer({ description: 'what this report added to it' })
})

export const PeriodStanding = Type.Object({
  best_score: Nullable(Type.Integer({ description: "the player's best in the current period" })),
  rank: Nullable(Type.Integer({ minimum: 1, description: 'null while the player is hidden' })),
  improved: Type.Boolean({ description: "this score improved the period's best" })
})

export const SubmitResult = Type.Object({
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

/** A board's part of a submit of several: the board and the score, its standing... */
const boardPart = {
  board: Type.String({ description: 'the board, as named in the request (default: the game\'s own)' }),
  score: Type.Integer({ description: 'the score submitted to it' }),
  improved: Type.Optional(SubmitResult.properties.improved),
  best_score: Type.Optional(SubmitResult.properties.best_score),
  rank: Type.Optional(SubmitResult.properties.rank)
}
/** ...and what else it says, or its refusal. */
const boardOutcome = {
  held: SubmitResult.properties.held,
  unlocked: SubmitResult.properties.unlocked,
  periods: SubmitResult.properties.periods,
  error: Type.Optional(Type.String({ description: 'only when this board refused its score: the error code a submit to it alone would get' })),
  message: Type.Optional(Type.String({ description: 'with error: why' }))
}
/**
 * One board's part of a submit of several boards' scores
 * (docs/interface.md#one-submit-several-boards): the answer a submit to it
 * alone would give, or its refusal (error and message); the others are
 * stored all the same.
 */
export const BoardSubmitted = Type.Object({ ...boardPart, ...boardOutcome })
/** The same in session mode (submit-self): a part that took its score adds total_players, as a submit to that board alone does; an API-key submit's parts have none. */
export const BoardSubmittedSelf = Type.Object({ ...boardPart, total_players: Type.Optional(Type.Integer({ description: 'session mode: visible players on the board' })), ...boardOutcome })
const boardsOf = <Part extends TSchema>(part: Part) => ({ boards: Type.Array(part, { description: 'one per board, in the order of the request' }) })

/** An achievement as a player sees it: a hidden one not yet unlocked is masked (every field null but hidden). */
export const PlayerAchievement = Type.Object({
  achievement_id: Nullable(Type.String()),
  name: Nullable(Type.String()),
  description: Nullable(Type.String()),
  points: Nullable(Type.Integer()),
  hidden: Type.Boolean({ description: 'a hidden achievement: masked until unlocked' }),
  icon_url: Nullable(Type.String({ description: 'the icon (a path on this service), or null' })),
  unlocked_at: Nullable(Type.String({ format: 'date-time', description: 'when the player unlocked it; null when not' })),
  rarity: Nullable(Type.Number({ description: 'the share of the game\'s players who have it, in percent (2 decimals)' }))
})
export const AchievementList = Type.Object({
  game_id: Type.String(),
  player_name: Type.Optional(Type.String()),
  players: Type.Integer({ description: 'the game\'s players the achievements know: rarity\'s denominator' }),
  unlocked: Type.Integer({ description: 'how many the player unlocked' }),
  points: Type.Integer({ description: 'the points of those' }),
  items: Type.Array(PlayerAchievement, { description: 'in id order, hidden ones that are still locked last' })
})
export const Unlocked = Type.Object({
  achievement_id: Type.String(),
  player_name: Type.String(),
  unlocked: Type.Boolean({ description: 'true when this request unlocked it; false when it was unlocked before' }),
  unlocked_at: Type.String({ format: 'date-time' })
})

export const SessionFlags = {
  total_players: Type.Integer({ description: 'visible players on the board' }),
  is_dev_record: Type.Boolean({ description: "the user is the game's developer" }),
  is_admin_record: Type.Boolean({ description: 'the user is an administrator' })
}

/** What submit answers: one board's standing, or each board's part of a submit of several. */
export const Submitted = Type.Union([SubmitResult, Type.Object(boardsOf(BoardSubmitted))])
/** What submit-self answers: the same, with the session's flags. */
export const SubmittedSelf = Type.Union([
  Type.Object({ ...SubmitResult.properties, ...SessionFlags }),
  Type.Object({ ...boardsOf(BoardSubmittedSelf), is_dev_record: SessionFlags.is_dev_record, is_admin_record: SessionFlags.is_admin_record })
])

/** What me answers: the player's standing on the board read; me-self adds the session's flags. */
export const Me = Type.Object({ ...Standing, ...BoardFields })
export const MeSelf = Type.Object({ ...Standing, ...SessionFlags, ...BoardFields })

/** What periods answers. */
export const Periods = Type.Object({
  game_id: Type.String(),
  timezone: Type.String(),
  keep_periods: Type.Integer(),
  items: Type.Array(Type.Object({ period: PERIOD, period_id: Type.String(), starts_at: Type.String({ format: 'date-time' }), resets_at: Type.String({ format: 'date-time' }), current: Type.Boolean() }), { description: 'by kind, newest first' }),
  board: BoardFields.board
})

/** What boards answers. */
export const BoardList = Type.Object({
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
})

/** What seasons answers. */
export const Seasons = Type.Object({ game_id: Type.String(), season_id: Type.Integer({ description: 'the current season' }), items: Type.Array(Season, { description: 'oldest first, the current one last (a named board\'s from the season it was made in)' }), board: BoardFields.board })
