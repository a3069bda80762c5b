/**
 * The one place that defines the error codes of the envelope
 * (docs/interface.md#error-codes).
 * Every failure the service answers carries one of these codes.
 */
export const ERROR_MESSAGES = {
  missing_param: 'A required parameter is missing.',
  invalid_key: 'The API key is not valid.',
  key_revoked: 'The API key has been revoked.',
  key_game_mismatch: 'The API key is not tied to this game.',
  invalid_game: 'The game does not exist or is not approved.',
  invalid_signature: 'The signature does not match.',
  expired_ts: 'The timestamp is outside plus or minus 5 minutes of server time.',
  rate_limited: 'Too many requests; retry later.',
  not_logged_in: 'This endpoint needs a login session.',
  invalid_stars: 'stars must be an integer from 1 to 10.',
  invalid_score: 'score must be a base-10 integer within plus or minus 9007199254740991.',
  invalid_player_name: 'player_name must be 1 to 30 characters, at least one of them visible, without control, bidirectional or stray invisible characters.',
  invalid_meta: 'meta must be JSON text of at most 2048 bytes.',
  invalid_seconds: 'seconds must be an integer from 1 to 300.',
  invalid_param: 'A parameter has the wrong form.',
  unknown_action: 'No such action.',
  method_not_allowed: 'This method is not allowed here.',
  not_found: 'No such route.',
  invalid_body: 'The request body cannot be parsed.',
  payload_too_large: 'The request body is too large.',
  forbidden_origin: 'Requests from this origin are not allowed.',
  unauthorized: 'This route needs the admin token.',
  forbidden: 'This operator token may read, not change.',
  already_exists: 'That record already exists.',
  invalid_credentials: 'Unknown username or wrong password.',
  quota_exceeded: "The game's storage cap would be passed; nothing was stored.",
  score_out_of_range: "The score is outside the game's score_min to score_max; nothing was stored.",
  weak_password: 'The password is too easy to guess.',
  invalid_challenge: 'The proof of work is missing, wrong, expired or already used; solve a new challenge.',
  invalid_token: 'The sign-in token is not valid.',
  run_required: 'This game takes a score only with the run_id of the run that earned it.',
  invalid_run: 'The run_id names no open run of this player in this game.',
  implausible_score: 'The score is more than the run\'s verified play time allows; nothing was stored.',
  play_required: 'This needs more verified play in the game first; the message says how much.',
  unavailable: 'The service is temporarily unavailable; retry shortly.',
  internal_error: 'An unexpected error occurred.'
} as const

export type ErrorCode = keyof typeof ERROR_MESSAGES

export const ERROR_CODES = Object.keys(ERROR_MESSAGES) as ErrorCode[]

/** Every error code with its meaning, for the OpenAPI document's introduction. */
export const errorCodeTable = Object.entries(ERROR_MESSAGES).map(([code, message]) => `| \`${code}\` | ${message} |`).join('\n')

/** A failure that is answered as `{ok:false, error: code, message}`. */
export class ApiError extends Error {
  readonly code: ErrorCode
  /** Never sent (every answer is HTTP 200); @fastify/rate-limit's error builder must carry one. */
  readonly statusCode: number

  constructor (code: ErrorCode, message: string = ERROR_MESSAGES[code], statusCode = 400) {
    super(message)
    this.name = 'ApiError'
    this.code = code
    this.statusCode = statusCode
  }
}

export function fail (code: ErrorCode, message?: string): never {
  throw new ApiError(code, message)
}

/** The success envelope. */
export function ok<T> (data: T): { ok: true, data: T } {
  return { ok: true, data }
}
