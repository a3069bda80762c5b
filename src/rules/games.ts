import { fail } from '../errors.js'
import type { PeriodKind, PeriodsSince } from './periods.js'
import type { DisplaySettings } from './score-format.js'

/** Which end of a board is best: `desc`, higher scores (v1), or `asc`, lower ones (times, strokes). */
export type BoardOrder = 'desc' | 'asc'

/** A game as operators see it (docs/interface.md#operator-api), with its storage caps; its display settings (score_format, score_decimals, score_unit) are its own board's. */
export interface GameRecord extends DisplaySettings {
  game_id: string
  name: string
  developer: string | null
  approved: boolean
  created_at: string
  /** Most players the board keeps; a new player past it is quota_exceeded. */
  max_entries: number
  /** Most bytes of meta the game keeps over all its entries. */
  max_meta_bytes: number
  order: BoardOrder
  /** The calendar boards kept beside the all-time one, in PERIOD_KINDS order. */
  periods: PeriodKind[]
  /** When the game's own board began keeping each of them (rules/periods.ts keptDuring). */
  periods_since: PeriodsSince
  /** The IANA zone whose midnights start the periods. */
  timezone: string
  /** How many past periods of each kind stay readable. */
  keep_periods: number
  /** The all-time board's current season: 1 until an operator closes one. */
  season: number
  season_started_at: string
  /** Fair play (docs/interface.md#fair-play): scores outside [score_min, score_max] are refused; null is no bound. */
  score_min: number | null
  score_max: number | null
  /** A score above review_above, or below review_below, is held for review; null: no such rule. */
  review_above: number | null
  review_below: number | null
  /** A score better than this many times the player's previous best, or the first place, is held; null: no such rule. */
  review_factor: number | null
  /** How deep into the board `board.overtaken` events reach. */
  notify_top: number
  /** Whether visitors may play as guests on the play page, and whether their scores are shown (docs/guide.md#guests). */
  guests: GuestPolicy
  /** Proof of play (docs/interface.md#runs): off (v1), optional (a submit may carry a run), required (a submit must). */
  runs: RunPolicy
  /** A submit's run must have this much verified play (seconds). */
  min_run_seconds: number
  /** Points per verified second a run's score may reach (for asc boards: score units per second); null: no such rule. */
  max_score_rate: number | null
  /** What a score past max_score_rate or short of min_run_seconds gets: held for review, or refused. */
  implausible: 'hold' | 'refuse'
  /** How long a run may be played, from its start (seconds). */
  run_ttl_s: number
  /** Whether a browser game without a server may start runs and submit with the public api_key alone (submit-run). */
  submit_run: SubmitRunPolicy
  /** The rater's verified play (seconds) at which a rating weighs fully in the weighted score (docs/ratings.md). */
  rating_full_weight_seconds: number
  /** The verified play (seconds) a rating needs at all; 0: none (v1). */
  rating_min_play_seconds: number
  /** Whether the public games list (GET /api/games, the front page) shows the game. */
  listed: boolean
}

export const RUN_POLICIES = ['off', 'optional', 'required'] as const
export type RunPolicy = typeof RUN_POLICIES[number]
/** submit_run: off, or on (browser games submit with a run and the public key alone). */
export const SUBMIT_RUN_POLICIES = ['off', 'on'] as const
export type SubmitRunPolicy = typeof SUBMIT_RUN_POLICIES[number]

/** The run settings of a game that sets none: no runs, so every v1 answer stays as it was. */
export const DEFAULT_RUNS = { runs: 'off', min_run_seconds: 0, max_score_rate: null, implausible: 'hold', run_ttl_s: 3600, submit_run: 'off' } as const satisfies Partial<GameRecord>
/** The longest a run may last (a day), and the most verified seconds a run may ask for. */
export const MAX_RUN_TTL_S = 86_400

/**
 * Whether a board would take submit-run scores with nothing to stop a fast
 * time (docs/interface.md#what-each-setting-bounds): on a lower-is-better
 * board a score is a time, which a run bounds only from above (max_score_rate:
 * no longer than the play), so a cheater's 1 ms would rank first. Such a
 * board needs a floor of its own: score_min (faster is refused) or
 * review_below (faster is held for review).
 */
export function lacksTimeFloor (board: Pick<GameRecord, 'order' | 'score_min' | 'review_below'>): boolean {
  return board.order === 'asc' && board.score_min === null && board.review_below === null
}

/** Why submit_run cannot be on over a board that lacksTimeFloor: the sentence of invalid_param and of a refused submit-run. */
export const TIME_FLOOR_NEEDED = 'a lower-is-better board takes submit-run scores only with a floor for its times (score_min: faster ones are refused, or review_below: held for review), since a run bounds a time only from above'

/** off: no guests (the default); listed: guests play and appear on the boards; unlisted: guests play, their scores are kept but shown to no one until they sign up. */
export const GUEST_POLICIES = ['off', 'listed', 'unlisted'] as const
export type GuestPolicy = typeof GUEST_POLICIES[number]

/**
 * The play (seconds, as play-time reports credited it under the wall clock)
 * a guest needs in a game before rating it: guests cost no proof of work,
 * so a rating must cost a guest real time in the game (docs/security.md).
 * An account rates at once.
 */
export const GUEST_RATING_PLAY_S = 60

/** The rating settings of a game that sets none (docs/ratings.md): full weight after 10 minutes of play, any rater may rate (v1), listed. */
export const DEFAULT_RATINGS = { rating_full_weight_seconds: 600, rating_min_play_seconds: 0, listed: true } as const satisfies Partial<GameRecord>
/** The most play (seconds) either rating setting may ask for: 100 hours. */
export const MAX_RATING_PLAY_S = 360_000
export type RatingSetting = keyof typeof DEFAULT_RATINGS
export const RATING_SETTINGS = Object.keys(DEFAULT_RATINGS) as RatingSetting[]

/** The period settings of a game that sets none: no periods, so every v1 answer stays as it was. */
export const DEFAULT_PERIODS = { order: 'desc', periods: [], periods_since: {}, timezone: 'UTC', keep_periods: 12 } as const satisfies Partial<GameRecord>

/** The fair-play settings of a game that sets none: nothing refused, nothing held, events for the top 10. */
export const DEFAULT_FAIR_PLAY = { score_min: null, score_max: null, review_above: null, review_below: null, review_factor: null, notify_top: 10 } as const satisfies Partial<GameRecord>

/** The highest notify_top: an overtaken event names at most this many players. */
export const MAX_NOTIFY_TOP = 100

/** A game's figures in the operators' listing. */
export interface GameStats {
  /** Entries stored in the current season, hidden ones included. */
  entries: number
  /** Visible players on the current season's board. */
  players: number
  /** Average stars (1..10), 2 decimals; 0 when nobody rated. */
  rating_avg: number
  rating_count: number
  /** Play time reported for the game, in seconds. */
  playtime_seconds: number
}

/** A game as the operator API and the console show it: its record and its figures. */
export type GameWithStats = GameRecord & GameStats

export interface KeyRecord {
  api_key: string
  game_id: string
  secret: string
  revoked: boolean
  created_at: string
  /**
   * This key's own limit per (key, address) and window, when an operator set
   * one (a game server that signs for all its players from one address);
   * null: the global RATE_LIMIT_MAX. The key's total is it times
   * RATE_LIMIT_KEY_MULTIPLE either way.
   */
  rate_limit: number | null
}

/** What an operator may change of a game (season through closing one). */
export type GameChanges = Partial<Pick<GameRecord, 'name' | 'developer' | 'approved' | 'max_entries' | 'max_meta_bytes' | 'order' | 'periods' | 'periods_since' | 'timezone' | 'keep_periods' | 'guests' | RunSetting | FairPlaySetting | RatingSetting | keyof DisplaySettings>>

/** The run settings, by name. */
export type RunSetting = keyof typeof DEFAULT_RUNS
export const RUN_SETTINGS = Object.keys(DEFAULT_RUNS) as RunSetting[]

/** The fair-play settings, by name. */
export type FairPlaySetting = keyof typeof DEFAULT_FAIR_PLAY
export const FAIR_PLAY_SETTINGS = Object.keys(DEFAULT_FAIR_PLAY) as FairPlaySetting[]

/**
 * "The game exists and is approved": the one rule every request that reads
 * or writes a game's boards, ratings or play time passes (API-key and
 * session actions, the play page's board). Anything else is invalid_game.
 */
export function isPlayable (game: GameRecord | null): game is GameRecord {
  return game !== null && game.approved
}

/** The refusal of a run action on a game that keeps no runs (run-start's script says it too). */
export const RUNS_OFF = 'This game keeps no runs (its runs setting is off).'

/** A game whose runs setting is off takes no run actions (docs/interface.md#runs). */
export function runsKept (game: GameRecord): void {
  if (game.runs === 'off') fail('forbidden', RUNS_OFF)
}

/** A game whose guests setting is off refuses guests: making one, and every session action of one. */
export function guestsWelcome (game: GameRecord): void {
  if (game.guests === 'off') fail('forbidden', 'This game does not take guests: log in or sign up to play it.')
}

/** The game when it is playable, else the request ends with invalid_game. */
export function playableGame (game: GameRecord | null): GameRecord {
  if (!isPlayable(game)) fail('invalid_game')
  return game
}

/**
 * The game of a key that passes the checks up to the signature, else the
 * check's ApiError: the key exists and is not revoked, its game is playable
 * and is the key's. (Also what keeps a live stream opened with the key going.)
 */
export function keyAcceptedFor (key: KeyRecord | null, game: GameRecord | null): GameRecord {
  if (key === null) fail('invalid_key')
  if (key.revoked) fail('key_revoked')
  const playable = playableGame(game)
  if (key.game_id !== playable.game_id) fail('key_game_mismatch')
  return playable
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
