import type { GameRecord } from '../store/records.js'
import { fail } from './envelope.js'

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
