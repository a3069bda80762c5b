import { Type } from '@sinclair/typebox'
import { IntegerText, Nullable, Text } from './schemas.js'

/*
 * The board reads: what they answer (a board, a player among their
 * neighbours, a season) and the parameters that choose the board. The rank
 * actions, the play page and the operator API share them.
 */

export const PERIOD = Type.Union([Type.Literal('daily'), Type.Literal('weekly'), Type.Literal('monthly')])
/** What an answer adds about the board it read: a period, or a season read by its id. */
export const BoardFields = {
  board: Type.Optional(Type.String({ description: 'with board: the named board read (docs/decisions/0070-named-boards-one-game-many-boards-in-its.md)' })),
  period: Type.Optional(PERIOD),
  period_id: Type.Optional(Type.String({ description: 'with a period: 2026-11-23, 2026-W48 or 2026-11' })),
  starts_at: Type.Optional(Type.String({ format: 'date-time', description: "with a period: its first instant (the game's local midnight), ISO 8601 UTC" })),
  resets_at: Type.Optional(Type.String({ format: 'date-time', description: 'with a period: the first instant of the next one' })),
  season_id: Type.Optional(Type.Integer({ minimum: 1, description: 'with season_id: the season read' })),
  started_at: Type.Optional(Type.String({ format: 'date-time' })),
  ended_at: Type.Optional(Nullable(Type.String({ format: 'date-time', description: 'null for the current season' })))
}
/** The parameters that pick a board. */
export const BoardChoice = {
  board: Type.Optional(Text('a named board of the game (operators make them); default, or none, for the game\'s own board')),
  period: Type.Optional(Type.Union([Type.Literal('all'), PERIOD], { description: 'all (default: the all-time board) or a period the game keeps: its current board' })),
  period_id: Type.Optional(Text('a kept period, current or past: 2026-11-23, 2026-W48 or 2026-11 (the kind follows from the form)')),
  season_id: Type.Optional(IntegerText('a season of the all-time board, closed or current (action=seasons lists them)'))
}

export const BoardItem = Type.Object({
  rank: Type.Integer({ minimum: 1 }),
  player_name: Type.String(),
  score: Type.Integer(),
  created_at: Type.String({ format: 'date-time', description: 'when the best score was reached, ISO 8601 UTC with milliseconds' })
})

export const Standing = {
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
export const Season = Type.Object({ season_id: Type.Integer({ minimum: 1 }), started_at: Type.String({ format: 'date-time' }), ended_at: Nullable(Type.String({ format: 'date-time', description: 'null for the current season' })) })
