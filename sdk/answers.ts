/*
 * The shapes of the service's public answers, written once: the SDK's
 * client returns them, and the service (src/) and the console import them.
 * Types only: nothing here runs.
 */

/**
 * Every error code the service answers with (docs/interface.md#error-codes;
 * the service defines them in src/errors.ts, and
 * test/system/sdk-package.test.ts checks this list against the service's OpenAPI
 * document), plus `network_error`: the request did not get a JSON envelope
 * back. Written out here so the published package stands on its own.
 */
export type ErrorCode =
  | 'missing_param'
  | 'invalid_key'
  | 'key_revoked'
  | 'key_game_mismatch'
  | 'invalid_game'
  | 'invalid_signature'
  | 'expired_ts'
  | 'rate_limited'
  | 'not_logged_in'
  | 'invalid_stars'
  | 'invalid_score'
  | 'invalid_player_name'
  | 'invalid_meta'
  | 'invalid_seconds'
  | 'invalid_param'
  | 'unknown_action'
  | 'method_not_allowed'
  | 'not_found'
  | 'invalid_body'
  | 'payload_too_large'
  | 'forbidden_origin'
  | 'unauthorized'
  | 'forbidden'
  | 'already_exists'
  | 'invalid_credentials'
  | 'quota_exceeded'
  | 'score_out_of_range'
  | 'weak_password'
  | 'invalid_challenge'
  | 'invalid_token'
  | 'run_required'
  | 'invalid_run'
  | 'implausible_score'
  | 'play_required'
  | 'unavailable'
  | 'internal_error'
  | 'network_error'

/** The calendar boards a game may keep beside the all-time one. */
export type Period = 'daily' | 'weekly' | 'monthly'

/** A submit's outcome on the current board of one period. */
export interface PeriodStanding {
  /** The player's best in the current period; null when nothing is stored there (a replayed submit after the period changed). */
  best_score: number | null
  /** null while the player is hidden. */
  rank: number | null
  improved: boolean
}

export interface SubmitResult {
  score: number
  improved: boolean
  /** null only when a held score was the player's first. */
  best_score: number | null
  /** null while the player is hidden (or has no entry yet). */
  rank: number | null
  /** With a named board: the board the score went to (best_score is its stored value: a sum's total, a latest board's last score). */
  board?: string
  /** Only when the score was held for review (fair play): it is on no board until an operator approves it. */
  held?: true
  /** Only for a game that keeps periods: the current board of each period it keeps. */
  periods?: {
    daily?: PeriodStanding
    weekly?: PeriodStanding
    monthly?: PeriodStanding
  }
  /** Only when this submit unlocked achievements (their thresholds): their ids. */
  unlocked?: string[]
}

/**
 * One board's part of a submit of several boards' scores (submitBoards): its
 * standing as a submit to it alone answers, or its refusal (error, message);
 * the other boards are stored all the same.
 */
export interface BoardSubmitted {
  board: string
  score: number
  improved?: boolean
  best_score?: number | null
  rank?: number | null
  held?: true
  periods?: SubmitResult['periods']
  unlocked?: string[]
  error?: ErrorCode
  message?: string
}

/**
 * Which board to read (default: the all-time board, its current season).
 * `period` reads a period's current board; `periodId` a kept one, current or
 * past ('2026-11-23', '2026-W48', '2026-11'; the form says which period);
 * `seasonId` a season of the all-time board, closed or current.
 */
export interface BoardChoice {
  /** A named board of the game (operators make them); none, or 'default', for the game's own. */
  board?: string
  period?: 'all' | Period
  periodId?: string
  seasonId?: number
}

/**
 * What an answer adds about the board it read. With a period (period or
 * periodId): period, period_id, starts_at and resets_at. With seasonId:
 * season_id, started_at and ended_at. Nothing for the all-time board's
 * current season read without seasonId.
 */
export interface BoardFields {
  /** With board: the named board read. */
  board?: string
  period?: Period
  period_id?: string
  /** ISO 8601 UTC: the period's first instant (midnight in the game's time zone). */
  starts_at?: string
  /** ISO 8601 UTC: the first instant of the next period. */
  resets_at?: string
  season_id?: number
  /** ISO 8601 UTC. */
  started_at?: string
  /** ISO 8601 UTC; null for the current season. */
  ended_at?: string | null
}

export interface BoardItem {
  rank: number
  player_name: string
  score: number
  /** ISO 8601 UTC with milliseconds: when the best score was reached. */
  created_at: string
}

/** The answer of top, and of players (the named players only). */
export interface TopResult extends BoardFields {
  game_id: string
  /** Visible players on the board. */
  total: number
  items: BoardItem[]
}

export interface Standing {
  player_name: string
  best_score: number | null
  rank: number | null
}

/** The answer of me: the player's standing on the board read. */
export interface MeResult extends Standing, BoardFields {}

export interface AroundResult extends BoardFields {
  game_id: string
  /** Visible players on the board. */
  total: number
  /** nulls when the player is not on the board (best_score stays while the player is hidden). */
  player: Standing & {
    /** rank as a percentage of total, 2 decimals. */
    top_percent: number | null
  }
  /** The entries around the player, the player among them; [] when the player is not on the board. */
  items: BoardItem[]
}

export interface PeriodInfo {
  period: Period
  period_id: string
  /** ISO 8601 UTC. */
  starts_at: string
  /** ISO 8601 UTC. */
  resets_at: string
  /** The period now running (the others are kept past ones). */
  current: boolean
}

export interface PeriodsResult {
  game_id: string
  /** With board: the named board whose periods these are. */
  board?: string
  /** The IANA zone whose midnights start the periods. */
  timezone: string
  /** Past periods of each kind kept readable. */
  keep_periods: number
  /** By period, newest first; [] for a game that keeps none. */
  items: PeriodInfo[]
}

export interface Season {
  season_id: number
  /** ISO 8601 UTC. */
  started_at: string
  /** ISO 8601 UTC; null for the current season. */
  ended_at: string | null
}

export interface SeasonsResult {
  game_id: string
  /** With board: the named board. */
  board?: string
  /** The current season. */
  season_id: number
  /** Oldest first, the current one last. */
  items: Season[]
}

/** What a run's play report answers (run-report). */
export interface RunReported {
  run_id: string
  /** The run's verified play so far. */
  run_verified_seconds: number
  /** What this report added to it. */
  credited_seconds: number
}

/** What run-start answers (docs/interface.md#runs). */
export interface RunStarted {
  /** 128 random bits, base64url: send it with the submit (and the play-time reports) of this game session. */
  run_id: string
  started_at: string
  /** After this the run takes no score. */
  expires_at: string
}

/**
 * An achievement in a player's list (docs/interface.md#achievements). A
 * hidden one that is not shown (not the player's, or an unsigned read) has
 * every field null but `hidden`.
 */
export interface AchievementItem {
  achievement_id: string | null
  name: string | null
  description: string | null
  points: number | null
  hidden: boolean
  /** Relative to the service (/play/<game>/achievements/<id>/icon?v=…); null without an icon. */
  icon_url: string | null
  /** When the player unlocked it; null when they have not (or without a player). */
  unlocked_at: string | null
  /** The share of the game's players who have it, in percent. */
  rarity: number | null
}

/** What `achievements` answers: the game's achievements, in id order, the hidden ones not shown last. */
export interface AchievementsResult {
  game_id: string
  player_name?: string
  /** The game's players since its first achievement (rarity's denominator). */
  players: number
  /** The player's unlocked achievements and their points. */
  unlocked: number
  points: number
  items: AchievementItem[]
}

/** What `unlock` answers: `unlocked` false when the player had it already (`unlocked_at` stays the first time). */
export interface Unlocked {
  achievement_id: string
  player_name: string
  unlocked: boolean
  unlocked_at: string
}

/** A live board's `achievement.unlocked` frame: the unlocks of a quarter second, `more` counting those left out past 20. */
export interface AchievementUnlocks {
  game_id: string
  items: Array<Omit<AchievementItem, 'rarity' | 'unlocked_at'> & { player_name: string, unlocked_at: string }>
  more: number
}
