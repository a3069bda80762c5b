import { Type } from '@sinclair/typebox'
import { API_KEY, IntegerText, SESSION, Text, action, envelope } from '../schemas.js'
import { Around, Board, BoardChoice, Sides } from '../board-schemas.js'
import { AchievementList, BoardList, Me, MeSelf, Periods, RunReported, RunStarted, Seasons, SubmitResult, Submitted, SubmittedSelf, Unlocked } from './answers.js'

/** The rank actions' route schemas (/api/rank?action=…), in both modes: what each takes and answers, for the OpenAPI document. */

const apiKeyFields = { api_key: Text('the issued key'), game_id: Text('game identifier') }
const PlayerNames = (description: string) => Text(`a JSON array of up to 100 player names${description}; a list too long for a URL goes in a form body with POST (up to 64 KiB), where any of the parameters may come`)

export const rankSchemas = {
  submit: envelope(Submitted, [...API_KEY, 'expired_ts', 'invalid_signature', 'invalid_player_name', 'invalid_score', 'score_out_of_range', 'invalid_meta', 'run_required', 'invalid_run', 'implausible_score', 'quota_exceeded'], 'Submit a score (API key, signed)', {
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
  me: envelope(Me, [...API_KEY, 'invalid_player_name'], "A player's best score and rank (API key)", {
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
  periods: envelope(Periods, [...API_KEY], 'The periods kept for the game (or the named board), with their bounds (API key)', {
    tags: ['api-key'],
    querystring: Type.Object({ ...action('periods').properties, ...apiKeyFields, board: BoardChoice.board })
  }),
  boards: envelope(BoardList, [...API_KEY], 'The game\'s boards: its own and its named ones, each with how its scores are shown (API key)', {
    tags: ['api-key'],
    querystring: Type.Object({ ...action('boards').properties, ...apiKeyFields })
  }),
  seasons: envelope(Seasons, [...API_KEY], 'The seasons of the all-time board (API key)', {
    tags: ['api-key'],
    querystring: Type.Object({ ...action('seasons').properties, ...apiKeyFields, board: BoardChoice.board })
  }),
  // The 200 is a text/event-stream whose frames' data is this object (HEAD answers it as JSON); failures are the envelope.
  live: envelope(Board, [...API_KEY], 'A live board (Server-Sent Events): the top at once, then again whenever it changes, each frame\'s data the board as top answers it (API key)', {
    tags: ['api-key'],
    querystring: Type.Object({ ...action('live').properties, ...apiKeyFields, limit: Type.Optional(IntegerText('default 20, at most 100')), ...BoardChoice })
  }),
  submitSelf: envelope(SubmittedSelf, [...SESSION, 'invalid_score', 'score_out_of_range', 'invalid_meta', 'run_required', 'invalid_run', 'implausible_score', 'quota_exceeded'], 'Submit a score as the logged-in user (session)', {
    tags: ['session'],
    querystring: action('submit-self'),
    body: Type.Object({ game_id: Text('game identifier'), score: IntegerText('base-10 integer'), meta: Type.Optional(Text('JSON text, at most 2048 bytes')), run_id: Type.Optional(Text('the run that earned the score (run-start-self)')) })
  }),
  meSelf: envelope(MeSelf, [...SESSION], "The logged-in user's best score and rank (session)", {
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
  })
}
