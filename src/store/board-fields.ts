import type { BoardRef } from './board-choice.js'
import type { Leaderboard } from './leaderboard.js'
import type { GameRecord } from '../rules/games.js'
import { answeredBoard } from '../rules/boards.js'

export const iso = (ms: number): string => new Date(ms).toISOString()

/**
 * What an answer adds about the board it read: a named board's id, a
 * period's id and bounds, or a season read by its id and its dates. Nothing
 * for the game's own board's current season, so a v1 request keeps its
 * exact answer.
 */
export async function boardFields (leaderboard: Leaderboard, game: GameRecord, board: BoardRef): Promise<Record<string, unknown>> {
  const { period, seasonId, named } = board
  // A named board's id comes first (docs/decisions/0070-named-boards-one-game-many-boards-in-its.md); the game's own board adds nothing.
  const which = answeredBoard(named)
  if (period !== undefined) return { ...which, period: period.kind, period_id: period.id, starts_at: iso(period.startsAt), resets_at: iso(period.resetsAt) }
  if (seasonId === undefined) return which
  const season = (await leaderboard.seasons(game.game_id)).items.find(one => one.season_id === seasonId)
  return { ...which, season_id: seasonId, started_at: season?.started_at ?? null, ended_at: season?.ended_at ?? null }
}
