import t from 'tap'
import { ERROR_MESSAGES } from '../../src/errors.js'
import {
  AROUND_DEFAULT, AROUND_MAX, GAME_ID_PATTERN, META_MAX_BYTES, PLAYERS_MAX, TOP_DEFAULT_LIMIT, TOP_MAX_LIMIT, TS_TOLERANCE_S,
  USERNAME_PATTERN, checkTimestamp, isGameId, parseBoardChoice, parseLimit, parseMeta,
  parseNeighbours, parseOffset, parsePlayerNames, parseScore, parseSeconds, parseStars
} from '../../src/rules/fields.js'
import { codeOf, messageOf, outcome, params, show } from '../helpers/outcomes.js'

/*
 * The field rules (src/rules/fields.ts) against docs/interface.md#field-rules,
 * #pagination and #around-and-players: each field's parser, with its boundary
 * values and the exact error code it refuses with. The request parameters
 * themselves: test/lib/params.test.ts; player names: player-name.test.ts.
 */

t.test('the documented limits', async t => {
  t.equal(TOP_DEFAULT_LIMIT, 20)
  t.equal(TOP_MAX_LIMIT, 100)
  t.equal(AROUND_DEFAULT, 5)
  t.equal(AROUND_MAX, 50)
  t.equal(PLAYERS_MAX, 100)
  t.equal(META_MAX_BYTES, 2048)
  t.equal(TS_TOLERANCE_S, 300)
})

t.test('isGameId and GAME_ID_PATTERN: 1 to 64 of A-Z a-z 0-9 _ -', async t => {
  for (const id of ['demo', 'D', 'Demo_Game-2', '_', '-', 'a'.repeat(64), '0123456789']) t.equal(isGameId(id), true, show(id))
  for (const id of ['', 'a'.repeat(65), 'a.b', 'a b', 'd\u00E9mo', 'demo\n', '\ndemo', 'a/b', '../x', 'demo%20', '\u0430bc']) {
    t.equal(isGameId(id), false, show(id))
  }
  t.equal(GAME_ID_PATTERN.test('demo'), GAME_ID_PATTERN.test('demo'), 'no /g state between calls')
  t.equal(GAME_ID_PATTERN.global, false)
})

t.test('USERNAME_PATTERN: 1 to 30 of A-Z a-z 0-9 _ . -', async t => {
  for (const name of ['alice', 'A', 'a.b-c_d', '...', 'a'.repeat(30), 'Bob99']) t.equal(USERNAME_PATTERN.test(name), true, show(name))
  for (const name of ['', 'a'.repeat(31), 'al ice', 'alic\u00E9', 'alice\n', 'a@b', 'a+b', '\u{1F600}', 'al\u200Bice']) {
    t.equal(USERNAME_PATTERN.test(name), false, show(name))
  }
  t.equal(USERNAME_PATTERN.global, false, 'no /g state between calls')
})

t.test('parseScore: base-10 integers within ±9007199254740991', async t => {
  const accepted: Array<[string, number]> = [
    ['0', 0], ['7', 7], ['-7', -7], ['007', 7], ['-007', -7], ['000', 0],
    ['9007199254740991', 9007199254740991], ['-9007199254740991', -9007199254740991], ['0009007199254740991', 9007199254740991]
  ]
  for (const [text, score] of accepted) t.equal(outcome(() => parseScore(text)), score, text)
  t.ok(Object.is(parseScore('-0'), 0), '-0 is 0, not negative zero')
  t.ok(Object.is(parseScore('-000'), 0), '-000 is 0')

  const refused = [
    '9007199254740992', '-9007199254740992', '9007199254740993', '99999999999999999999', '1' + '0'.repeat(400),
    '+5', '1.5', '1.0', '1e3', ' 5', '5 ', '5\n', '', '-', '--5', '0x10', '0b1', '1_000', '1,000', 'NaN', 'Infinity',
    '\u0661\u0662', '\uFF15', '\u00B2'
  ]
  for (const text of refused) t.equal(codeOf(() => parseScore(text)), 'invalid_score', show(text))
  t.equal(messageOf(() => parseScore('x')), ERROR_MESSAGES.invalid_score)
})

t.test('parseMeta: any JSON text of at most 2048 UTF-8 bytes', async t => {
  t.equal(parseMeta(undefined), undefined, 'absent')
  for (const text of ['{"a":1}', '{ "a" : 1 }', '1', '-1.5e3', 'null', 'true', '"x"', '[]', ' [1] ', '"\\u00e9"']) {
    t.equal(outcome(() => parseMeta(text)), text, `${text}: returned as sent, not re-serialised`)
  }
  for (const text of ['', ' ', '{', "{'a':1}", 'undefined', 'NaN', '{"a":1}x', '[1,]', '{"a":1,}', '01']) {
    t.equal(codeOf(() => parseMeta(text)), 'invalid_meta', show(text))
  }

  const ascii = (bytes: number): string => `"${'a'.repeat(bytes - 2)}"`
  t.equal(outcome(() => parseMeta(ascii(2048))), ascii(2048), '2048 bytes')
  t.equal(codeOf(() => parseMeta(ascii(2049))), 'invalid_meta', '2049 bytes')
  // Bytes, not characters: é is two bytes, an emoji four.
  const accents = (count: number): string => `"${'\u00E9'.repeat(count)}"`
  t.equal(outcome(() => parseMeta(accents(1023))), accents(1023), '1023 × é = 2048 bytes')
  t.equal(codeOf(() => parseMeta(accents(1024))), 'invalid_meta', '1024 × é = 2050 bytes, 1026 characters')
  const emoji = (count: number): string => `"${'\u{1F600}'.repeat(count)}"`
  t.equal(outcome(() => parseMeta(emoji(511))), emoji(511), '511 emoji = 2046 bytes')
  t.equal(codeOf(() => parseMeta(emoji(512))), 'invalid_meta', '512 emoji = 2050 bytes')
  t.equal(codeOf(() => parseMeta(`${ascii(2048)} `)), 'invalid_meta', 'trailing white space counts')
  t.equal(messageOf(() => parseMeta('{')), ERROR_MESSAGES.invalid_meta)
})

t.test('parseLimit: digits only, at least 1, default 20, at most 100', async t => {
  t.equal(parseLimit(undefined), 20)
  const accepted: Array<[string, number]> = [['1', 1], ['01', 1], ['20', 20], ['99', 99], ['100', 100], ['101', 100], ['0100', 100], ['99999999999999999999999', 100]]
  for (const [text, limit] of accepted) t.equal(outcome(() => parseLimit(text)), limit, text)
  for (const text of ['0', '00', '-1', '1.5', '1e2', '+1', ' 1', '1 ', 'abc', '', '\uFF11']) {
    t.equal(codeOf(() => parseLimit(text)), 'invalid_param', show(text))
  }
  t.equal(messageOf(() => parseLimit('0')), 'limit must be a positive integer.')
})

t.test('parseOffset: digits only, default 0', async t => {
  t.equal(parseOffset(undefined), 0)
  const accepted: Array<[string, number]> = [['0', 0], ['00', 0], ['5', 5], ['007', 7], ['1000000', 1000000], ['99999999999999999999999', Number.MAX_SAFE_INTEGER]]
  for (const [text, offset] of accepted) t.equal(outcome(() => parseOffset(text)), offset, text)
  for (const text of ['-1', '-0', '1.5', '+1', '1e2', ' 0', 'x', '']) t.equal(codeOf(() => parseOffset(text)), 'invalid_param', show(text))
  t.equal(messageOf(() => parseOffset('-1')), 'offset must be a non-negative integer.')
})

t.test('parseStars: digits only, 1 to 10', async t => {
  const accepted: Array<[string, number]> = [['1', 1], ['5', 5], ['05', 5], ['10', 10], ['010', 10]]
  for (const [text, stars] of accepted) t.equal(outcome(() => parseStars(text)), stars, text)
  for (const text of ['0', '00', '11', '7.5', '+5', '-0', '-1', '', ' 5', '1e1', 'five']) {
    t.equal(codeOf(() => parseStars(text)), 'invalid_stars', show(text))
  }
  t.equal(messageOf(() => parseStars('0')), ERROR_MESSAGES.invalid_stars)
})

t.test('parseSeconds: digits only, 1 to 300', async t => {
  const accepted: Array<[string, number]> = [['1', 1], ['60', 60], ['300', 300], ['0300', 300]]
  for (const [text, seconds] of accepted) t.equal(outcome(() => parseSeconds(text)), seconds, text)
  for (const text of ['0', '301', '1.5', '-1', '+1', '', '3e2']) t.equal(codeOf(() => parseSeconds(text)), 'invalid_seconds', show(text))
})

t.test('checkTimestamp: whole seconds within ±300 s, both ends included', async t => {
  const now = 1_767_225_600_000 // 2026-01-01T00:00:00Z
  for (const ts of ['1767225600', '1767225300', '1767225900', '01767225600']) t.equal(codeOf(() => checkTimestamp(ts, now)), 'none', ts)
  for (const ts of ['1767225299', '1767225901', '0', '1767225600000', '9'.repeat(400)]) t.equal(codeOf(() => checkTimestamp(ts, now)), 'expired_ts', ts)
  t.equal(messageOf(() => checkTimestamp('0', now)), ERROR_MESSAGES.expired_ts)

  // The server's second is the current one, not a rounded one.
  t.equal(codeOf(() => checkTimestamp('1767225900', now + 999)), 'none', '.999 s is still the same second')
  t.equal(codeOf(() => checkTimestamp('1767225901', now + 999)), 'expired_ts')
  t.equal(codeOf(() => checkTimestamp('1767225900', now - 1)), 'expired_ts', '1 ms earlier is the second before')
  t.equal(codeOf(() => checkTimestamp('1767225299', now - 1)), 'none')

  t.equal(codeOf(() => checkTimestamp('-300', 0)), 'none', 'an optional minus sign')
  t.equal(codeOf(() => checkTimestamp('-0', 0)), 'none')
  t.equal(codeOf(() => checkTimestamp('-301', 0)), 'expired_ts')

  for (const ts of ['', '-', '1.5', '1767225600.0', '+1767225600', ' 1767225600', '1767225600 ', '1e9', 'now', '0x10', '\uFF11']) {
    t.equal(codeOf(() => checkTimestamp(ts, now)), 'invalid_param', `malformed ${show(ts)}`)
  }
  t.equal(messageOf(() => checkTimestamp('1.5', now)), 'ts must be an integer UNIX time in seconds.')
  t.equal(codeOf(() => checkTimestamp(String(Math.floor(Date.now() / 1000)))), 'none', 'the default clock is the real one')
  t.equal(codeOf(() => checkTimestamp(String(Math.floor(Date.now() / 1000) - 3600))), 'expired_ts')
})

t.test('parseBoardChoice: period, period_id, season_id', async t => {
  t.same(parseBoardChoice(params({})), {})
  t.same(Object.keys(parseBoardChoice(params({ period: '', period_id: '', season_id: '' }))), [], 'empty values count as absent')
  for (const period of ['all', 'daily', 'weekly', 'monthly']) t.same(parseBoardChoice(params({ period })), { period })
  t.same(parseBoardChoice(params({ period_id: '2026-W48' })), { periodId: '2026-W48' }, 'period_id is checked against the game later')
  t.same(parseBoardChoice(params({ period_id: 'anything' })), { periodId: 'anything' })
  t.same(parseBoardChoice(params({ season_id: '1' })), { seasonId: 1 })
  t.same(parseBoardChoice(params({ season_id: '007' })), { seasonId: 7 })
  t.same(parseBoardChoice(params({ season_id: '1000000000' })), { seasonId: 1_000_000_000 })
  t.same(parseBoardChoice(params({ period: 'daily', period_id: '2026-11-23', season_id: '2' })), { period: 'daily', periodId: '2026-11-23', seasonId: 2 },
    'combinations are judged with the game (src/store/board-choice.ts)')

  for (const period of ['Daily', 'ALL', 'yearly', ' daily', 'daily ', 'hourly', '__proto__']) {
    t.equal(codeOf(() => parseBoardChoice(params({ period }))), 'invalid_param', `period ${show(period)}`)
  }
  t.equal(messageOf(() => parseBoardChoice(params({ period: 'x' }))), 'Parameter "period" must be one of all, daily, weekly, monthly.')
  for (const seasonId of ['0', '00', '-1', '1.5', '+1', '1e3', 'x', '1000000001']) {
    t.equal(codeOf(() => parseBoardChoice(params({ season_id: seasonId }))), 'invalid_param', `season_id ${show(seasonId)}`)
  }
  t.equal(messageOf(() => parseBoardChoice(params({ season_id: '0' }))), 'Parameter "season_id" must be a season number (a positive integer).')
  t.equal(codeOf(() => parseBoardChoice(params({ period: 'x', season_id: '0' }))), 'invalid_param')
  t.match(messageOf(() => parseBoardChoice(params({ period: 'x', season_id: '0' }))), /"period"/, 'period is checked first')
})

t.test('parseNeighbours: before and after, 0 to 50, default 5', async t => {
  for (const name of ['before', 'after'] as const) {
    t.equal(parseNeighbours(params({}), name), 5, `${name} absent`)
    t.equal(parseNeighbours(params({ [name]: '' }), name), 5, `${name} empty`)
    const accepted: Array<[string, number]> = [['0', 0], ['00', 0], ['1', 1], ['050', 50], ['50', 50]]
    for (const [text, count] of accepted) t.equal(outcome(() => parseNeighbours(params({ [name]: text }), name)), count, `${name}=${text}`)
    for (const text of ['51', '-1', '1.5', '+1', 'x', '5 ']) {
      t.equal(codeOf(() => parseNeighbours(params({ [name]: text }), name)), 'invalid_param', `${name}=${show(text)}`)
    }
    t.equal(messageOf(() => parseNeighbours(params({ [name]: '51' }), name)), `Parameter "${name}" must be an integer from 0 to 50.`)
  }
  t.equal(parseNeighbours(params({ after: '7' }), 'before'), 5, 'each reads its own parameter')
})

t.test('parsePlayerNames: a JSON array of at most 100 player names', async t => {
  t.same(parsePlayerNames(undefined), [])
  t.same(parsePlayerNames('[]'), [])
  t.same(parsePlayerNames('["ann","bob"]'), ['ann', 'bob'])
  t.same(parsePlayerNames('["bob","ann","bob","ann"]'), ['bob', 'ann'], 'a repeat counts once, first place kept')
  t.same(parsePlayerNames(JSON.stringify(['\u00E9', 'e\u0301'])), ['\u00E9', 'e\u0301'], 'names are not normalised, so these are two')
  t.same(parsePlayerNames(JSON.stringify(['\u{1F600}'.repeat(30), ' a '])), ['\u{1F600}'.repeat(30), ' a '])

  const hundred = Array.from({ length: 100 }, (_, i) => `p${i}`)
  t.equal(outcome(() => parsePlayerNames(JSON.stringify(hundred)).length), 100, '100 names')
  t.equal(codeOf(() => parsePlayerNames(JSON.stringify([...hundred, 'p100']))), 'invalid_param', '101 names')
  t.equal(codeOf(() => parsePlayerNames(JSON.stringify(Array(101).fill('ann')))), 'invalid_param', 'a repeat counts toward the 100')
  t.same(parsePlayerNames(JSON.stringify(Array(100).fill('ann'))), ['ann'])

  const shape = 'Parameter "player_names" must be a JSON array of at most 100 player names.'
  for (const text of ['', 'ann', '"ann"', '{}', '{"0":"ann"}', 'null', '1', '[', '["ann",]', "['ann']"]) {
    t.equal(codeOf(() => parsePlayerNames(text)), 'invalid_param', show(text))
    t.equal(messageOf(() => parsePlayerNames(text)), shape, `${show(text)}: message`)
  }

  const item = (index: number): string => `Parameter "player_names" is not valid: item ${index} is not a player name (1 to 30 characters, at least one of them visible).`
  const badItems: Array<[string, number]> = [
    ['[1]', 1], ['[null]', 1], ['[["ann"]]', 1], ['[{"name":"ann"}]', 1], ['["ann",""]', 2], ['["ann"," "]', 2],
    [JSON.stringify(['ann', 'bob', 'a'.repeat(31)]), 3], [JSON.stringify(['al\u200Bice']), 1], [JSON.stringify(['a\u202Eb']), 1], ['["a\\u0000b"]', 1]
  ]
  for (const [text, index] of badItems) {
    t.equal(codeOf(() => parsePlayerNames(text)), 'invalid_param', show(text))
    t.equal(messageOf(() => parsePlayerNames(text)), item(index), `${show(text)}: names item ${index}`)
  }
})
