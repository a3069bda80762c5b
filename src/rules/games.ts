import type { GameRecord } from '../store/games-and-keys.js'
import { fail } from '../errors.js'

/**
 * "The game exists and is approved": the one rule every request that reads
 * or writes a game's boards, ratings or play time passes (API-key and
 * session actions, the play page's board). Anything else is invalid_game.
 */
export function isPlayable (game: GameRecord | null): game is GameRecord {
  return game !== null && game.approved
}

/** The game when it is playable, else the request ends with invalid_game. */
export function playableGame (game: GameRecord | null): GameRecord {
  if (!isPlayable(game)) fail('invalid_game')
  return game
}

/**
 * The game's score bounds (score_min, score_max): a score outside is
 * score_out_of_range and touches nothing. Checked with the field values,
 * after the signature.
 */
export function checkScoreRange (game: GameRecord, score: number): void {
  const { score_min: min, score_max: max } = game
  if ((min !== null && score < min) || (max !== null && score > max)) {
    fail('score_out_of_range', `score must be from ${min ?? -Number.MAX_SAFE_INTEGER} to ${max ?? Number.MAX_SAFE_INTEGER} for this game.`)
  }
}
