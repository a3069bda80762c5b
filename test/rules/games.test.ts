import t from 'tap'
import { ApiError, ERROR_MESSAGES } from '../../src/errors.js'
import { DEFAULT_DISPLAY } from '../../src/rules/score-format.js'
import {
  DEFAULT_FAIR_PLAY, DEFAULT_RATINGS, DEFAULT_RUNS, DEFAULT_PERIODS, FAIR_PLAY_SETTINGS, MAX_NOTIFY_TOP, checkScoreRange, isPlayable, playableGame, type GameRecord
} from '../../src/rules/games.js'

/*
 * The game rules (src/rules/games.ts): the defaults of a game that sets
 * nothing, "exists and is approved" (invalid_game), and the score bounds of
 * fair play (docs/interface.md#score-bounds: the bounds themselves are
 * accepted, null is no bound, anything outside is score_out_of_range).
 */

/** The ApiError that `fn` throws, as code and message; 'none' when it returns. */
function failure (fn: () => unknown): { code: string, message: string } | 'none' {
  try {
    fn()
  } catch (error) {
    return error instanceof ApiError ? { code: error.code, message: error.message } : { code: 'not an ApiError', message: String(error) }
  }
  return 'none'
}

const codeOf = (fn: () => unknown): string => {
  const result = failure(fn)
  return result === 'none' ? result : result.code
}

/** A game record as the store keeps one, with the defaults of a game that sets nothing. */
function game (changes: Partial<GameRecord> = {}): GameRecord {
  return {
    game_id: 'demo',
    name: 'Demo',
    developer: null,
    approved: true,
    created_at: '2026-01-01T00:00:00.000Z',
    max_entries: 100_000,
    max_meta_bytes: 10_000_000,
    ...DEFAULT_PERIODS,
    periods: [],
    season: 1,
    season_started_at: '2026-01-01T00:00:00.000Z',
    ...DEFAULT_FAIR_PLAY,
    guests: 'off',
    ...DEFAULT_RUNS,
    ...DEFAULT_RATINGS,
    ...DEFAULT_DISPLAY,
    ...changes
  }
}

const MAX = Number.MAX_SAFE_INTEGER

t.test('the defaults of a game that sets nothing', async t => {
  t.same(DEFAULT_PERIODS, { order: 'desc', periods: [], periods_since: {}, timezone: 'UTC', keep_periods: 12 }, 'v1 boards: highest first, no periods')
  t.same(DEFAULT_FAIR_PLAY, { score_min: null, score_max: null, review_above: null, review_below: null, review_factor: null, notify_top: 10 },
    'nothing refused, nothing held, events for the top 10')
  t.same(FAIR_PLAY_SETTINGS, ['score_min', 'score_max', 'review_above', 'review_below', 'review_factor', 'notify_top'])
  t.equal(MAX_NOTIFY_TOP, 100)
})

t.test('isPlayable: the game exists and is approved', async t => {
  t.equal(isPlayable(null), false, 'no such game')
  t.equal(isPlayable(game({ approved: false })), false, 'not approved')
  t.equal(isPlayable(game()), true, 'approved')
  t.same([game({ game_id: 'a' }), null, game({ game_id: 'b', approved: false }), game({ game_id: 'c' })].filter(isPlayable).map(g => g.game_id), ['a', 'c'],
    'usable as a filter (the front page lists playable games)')
})

t.test('playableGame: the game itself, or invalid_game', async t => {
  const approved = game()
  t.equal(playableGame(approved), approved, 'the same record, not a copy')
  t.same(failure(() => playableGame(null)), { code: 'invalid_game', message: ERROR_MESSAGES.invalid_game })
  t.same(failure(() => playableGame(game({ approved: false }))), { code: 'invalid_game', message: ERROR_MESSAGES.invalid_game }, 'unapproved is the same answer as missing')
})

t.test('checkScoreRange: no bounds, every score', async t => {
  const open = game()
  for (const score of [-MAX, -1, 0, 1, MAX]) t.equal(codeOf(() => checkScoreRange(open, score)), 'none', `score ${score}`)
})

t.test('checkScoreRange: both bounds are accepted, one beyond is refused', async t => {
  const bounded = game({ score_min: 0, score_max: 100 })
  for (const score of [0, 1, 50, 99, 100]) t.equal(codeOf(() => checkScoreRange(bounded, score)), 'none', `score ${score}`)
  for (const score of [-1, 101, -MAX, MAX]) {
    t.same(failure(() => checkScoreRange(bounded, score)), { code: 'score_out_of_range', message: 'score must be from 0 to 100 for this game.' }, `score ${score}`)
  }
})

t.test('checkScoreRange: a bound of 0 is a bound, not "none"', async t => {
  t.equal(codeOf(() => checkScoreRange(game({ score_min: 0 }), -1)), 'score_out_of_range', 'score_min 0 refuses -1')
  t.equal(codeOf(() => checkScoreRange(game({ score_min: 0 }), MAX)), 'none')
  t.equal(codeOf(() => checkScoreRange(game({ score_max: 0 }), 1)), 'score_out_of_range', 'score_max 0 refuses 1')
  t.equal(codeOf(() => checkScoreRange(game({ score_max: 0 }), -MAX)), 'none')
})

t.test('checkScoreRange: one bound only', async t => {
  const floor = game({ score_min: 10 })
  t.equal(codeOf(() => checkScoreRange(floor, 10)), 'none')
  t.equal(codeOf(() => checkScoreRange(floor, MAX)), 'none', 'no upper bound')
  t.same(failure(() => checkScoreRange(floor, 9)), { code: 'score_out_of_range', message: 'score must be from 10 to 9007199254740991 for this game.' })

  const ceiling = game({ score_max: 50 })
  t.equal(codeOf(() => checkScoreRange(ceiling, 50)), 'none')
  t.equal(codeOf(() => checkScoreRange(ceiling, -MAX)), 'none', 'no lower bound')
  t.same(failure(() => checkScoreRange(ceiling, 51)), { code: 'score_out_of_range', message: 'score must be from -9007199254740991 to 50 for this game.' })
})

t.test('checkScoreRange: negative and single-value ranges', async t => {
  const negative = game({ score_min: -100, score_max: -10 })
  t.equal(codeOf(() => checkScoreRange(negative, -100)), 'none')
  t.equal(codeOf(() => checkScoreRange(negative, -10)), 'none')
  t.equal(codeOf(() => checkScoreRange(negative, -101)), 'score_out_of_range')
  t.equal(codeOf(() => checkScoreRange(negative, -9)), 'score_out_of_range')
  t.equal(codeOf(() => checkScoreRange(negative, 0)), 'score_out_of_range')

  const single = game({ score_min: 5, score_max: 5 })
  t.equal(codeOf(() => checkScoreRange(single, 5)), 'none')
  t.equal(codeOf(() => checkScoreRange(single, 4)), 'score_out_of_range')
  t.equal(codeOf(() => checkScoreRange(single, 6)), 'score_out_of_range')
})

t.test('checkScoreRange: the board order does not change the bounds', async t => {
  const ascending = game({ order: 'asc', score_min: 1, score_max: 3600 })
  t.equal(codeOf(() => checkScoreRange(ascending, 0)), 'score_out_of_range')
  t.equal(codeOf(() => checkScoreRange(ascending, 1)), 'none')
  t.equal(codeOf(() => checkScoreRange(ascending, 3600)), 'none')
  t.equal(codeOf(() => checkScoreRange(ascending, 3601)), 'score_out_of_range')
})

t.test('checkScoreRange: review rules are not bounds', async t => {
  // A score past review_above is held for review later, not refused here.
  const reviewed = game({ review_above: 100, review_below: 0, review_factor: 2 })
  t.equal(codeOf(() => checkScoreRange(reviewed, 1_000_000)), 'none')
  t.equal(codeOf(() => checkScoreRange(reviewed, -5)), 'none')
})
