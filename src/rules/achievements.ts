/*
 * Achievements (docs/decisions/0071-achievements-settings-in-the-games-slot-unlocks-in.md): what a game defines, and the rules of
 * their fields. An achievement is unlocked by a board's stored score reaching
 * a threshold (its rule) or by the game itself (action=unlock); each player
 * unlocks each once.
 */

/** How many achievements a game may have. */
export const MAX_ACHIEVEMENTS = 500

/** 1 to 32 of a-z 0-9 _ -, beginning with a letter or digit (as a board id: part of key names and URL paths). */
export const ACHIEVEMENT_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,31}$/

/** The largest icon an operator may upload (bytes). */
export const MAX_ICON_BYTES = 65_536

/** The image types an icon may be, each known by its first bytes (never by what the upload says it is). */
export const ICON_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const
export type IconType = typeof ICON_TYPES[number]

/** The type of an image by its first bytes; null for anything else (an SVG too: it can carry script). */
export function iconTypeOf (bytes: Uint8Array): IconType | null {
  const starts = (...prefix: number[]): boolean => prefix.every((byte, i) => bytes[i] === byte)
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png'
  if (starts(0xff, 0xd8, 0xff)) return 'image/jpeg'
  if (starts(0x47, 0x49, 0x46, 0x38) && (bytes[4] === 0x37 || bytes[4] === 0x39) && bytes[5] === 0x61) return 'image/gif'
  if (starts(0x52, 0x49, 0x46, 0x46) && bytes[8] === 0x57 && bytes[9] === 0x45 && bytes[10] === 0x42 && bytes[11] === 0x50) return 'image/webp'
  return null
}

/**
 * The threshold that unlocks an achievement: a board's stored score (the
 * game's own board, or a named board's) at least or at most a value.
 */
export interface AchievementRule {
  /** default for the game's own board, or a named board's id. */
  board: string
  at_least: number | null
  at_most: number | null
}

/** An icon's facts: the bytes are stored beside the achievement, served at its icon URL. */
export interface AchievementIcon {
  content_type: IconType
  bytes: number
  /** A hash of the bytes: the icon URL's version and its ETag. */
  etag: string
}

/** An achievement as operators see it and as stored (JSON in keys.achievements). */
export interface Achievement {
  achievement_id: string
  /** 1 to 64 characters. */
  name: string
  /** Up to 500 characters ('' for none). */
  description: string
  /** 0 to 1000. */
  points: number
  /** Shown to players only once unlocked (masked before: no name, description or icon). */
  hidden: boolean
  /** The threshold that unlocks it, or null: only the game unlocks it. */
  rule: AchievementRule | null
  /**
   * The verified play (seconds) of the run an unlock by the game (unlock,
   * unlock-self) must carry; 0: any run the game's runs setting allows, or
   * none. A threshold is reached by a stored score, which the game's own
   * run rules guard.
   */
  min_run_seconds: number
  /** Game Jolt's trophy material (docs/gamejolt.md#trophies): how hard it is to get. */
  difficulty: Difficulty
  /** Its trophy id in Game Jolt's API: made from its id (rules/gamejolt-ids.ts), never stored. */
  gamejolt_id: number
  icon: AchievementIcon | null
  created_at: string
}

/** An achievement's difficulty, as Game Jolt's trophies have it: bronze (the default, easy) to platinum (very hard). */
export const DIFFICULTIES = ['bronze', 'silver', 'gold', 'platinum'] as const
export type Difficulty = typeof DIFFICULTIES[number]

/** The field of the achievements' counts that counts the game's players (an id never begins with #). */
export const PLAYERS_FIELD = '#players'

/** What players see of an achievement (its list, the live stream), once it is not masked. */
export function achievementFacts (gameId: string, achievement: Achievement) {
  return {
    achievement_id: achievement.achievement_id,
    name: achievement.name,
    description: achievement.description,
    points: achievement.points,
    hidden: achievement.hidden,
    icon_url: achievement.icon === null ? null : `/play/${encodeURIComponent(gameId)}/achievements/${achievement.achievement_id}/icon?v=${achievement.icon.etag}`
  }
}

/** A hidden achievement as players see it until it is theirs: every field null, its id too (an id can give it away). */
export const MASKED_ACHIEVEMENT = { achievement_id: null, name: null, description: null, points: null, hidden: true, icon_url: null } as const
