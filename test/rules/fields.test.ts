import t from 'tap'
import { ERROR_MESSAGES } from '../../src/errors.js'
import {
  AROUND_DEFAULT, AROUND_MAX, GAME_ID_PATTERN, META_MAX_BYTES, PLAYERS_MAX, TOP_DEFAULT_LIMIT, TOP_MAX_LIMIT, TS_TOLERANCE_S,
  USERNAME_PATTERN, checkTimestamp, isGameId, parseBoardChoice, parseLimit, parseMeta,
  parseNeighbours, parseOffset, parsePlayerName, parsePlayerNames, parseScore, parseSeconds, parseStars
} from '../../src/rules/fields.js'
import { codeOf, messageOf, outcome, params, show } from '../helpers/outcomes.js'

/*
 * The field rules (src/rules/fields.ts) against docs/interface.md#field-rules,
 * #pagination, #around-and-players and docs/security.md (Names): each field's
 * parser, with its boundary values and the exact error code it refuses with.
 * The request parameters themselves: test/lib/params.test.ts.
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

t.test('parsePlayerName: 1 to 30 code points, one emoji is one', async t => {
  const accepted = ['a', 'a'.repeat(30), '\u{1F600}'.repeat(30), 'a'.repeat(29) + '\u{1F600}', '\u540D'.repeat(30), 'e\u0301'.repeat(15)]
  for (const name of accepted) t.equal(outcome(() => parsePlayerName(name)), name, `${[...name].length} code points, ${name.length} UTF-16 units`)
  const refused = ['', 'a'.repeat(31), '\u{1F600}'.repeat(31), 'a'.repeat(30) + '\u{1F600}', 'e\u0301'.repeat(15) + 'e']
  for (const name of refused) t.equal(codeOf(() => parsePlayerName(name)), 'invalid_player_name', `${[...name].length} code points`)
  // Code points, not graphemes: a woman technologist is three of them.
  const technologist = '\u{1F469}\u200D\u{1F4BB}'
  t.equal(outcome(() => parsePlayerName(technologist.repeat(10))), technologist.repeat(10), '10 sequences of 3 code points')
  t.equal(codeOf(() => parsePlayerName(technologist.repeat(10) + 'a')), 'invalid_player_name', '31 code points')
  t.equal(messageOf(() => parsePlayerName('')), ERROR_MESSAGES.invalid_player_name)
})

t.test('parsePlayerName: used exactly as sent', async t => {
  for (const name of [' alice ', 'Alice', 'e\u0301', '\u00E9', '\u0430lice', 'a b', '<b>x</b>', 'a|b', '\u2800a']) {
    t.equal(parsePlayerName(name), name, `${show(name)}: not trimmed, folded or normalised`)
  }
})

t.test('parsePlayerName: controls, separators, bidi controls and lone surrogates', async t => {
  const never = [
    '\u0000', '\t', '\n', '\r', '\u001B', '\u007F', '\u0085', '\u009F',
    '\u2028', '\u2029',
    '\u061C', '\u200E', '\u200F', '\u202A', '\u202B', '\u202C', '\u202D', '\u202E', '\u2066', '\u2067', '\u2068', '\u2069',
    '\uD800', '\uDBFF', '\uDC00', '\uDFFF'
  ]
  for (const char of never) {
    const code = char.codePointAt(0)?.toString(16).toUpperCase().padStart(4, '0')
    t.equal(codeOf(() => parsePlayerName(`al${char}ice`)), 'invalid_player_name', `U+${code} inside`)
    t.equal(codeOf(() => parsePlayerName(`alice${char}`)), 'invalid_player_name', `U+${code} at the end`)
  }
  t.equal(codeOf(() => parsePlayerName('\u{1F600}'.slice(0, 1))), 'invalid_player_name', 'half an emoji')
  t.equal(codeOf(() => parsePlayerName('a' + '\u{1F600}'.slice(1))), 'invalid_player_name', 'the other half')
})

t.test('parsePlayerName: invisible characters that never belong', async t => {
  // Each draws as nothing, so "al\u200Bice" would look like "alice".
  const stray = ['\u200B', '\u2060', '\u00AD', '\uFEFF', '\u2061', '\u180E', '\u034F', '\u3164', '\u115F', '\uFFA0']
  for (const char of stray) {
    const code = char.codePointAt(0)?.toString(16).toUpperCase().padStart(4, '0')
    t.equal(codeOf(() => parsePlayerName(`al${char}ice`)), 'invalid_player_name', `U+${code} inside`)
    t.equal(codeOf(() => parsePlayerName(char)), 'invalid_player_name', `U+${code} alone`)
  }
})

t.test('parsePlayerName: joiners where they belong to what is drawn', async t => {
  const accepted: Array<[string, string]> = [
    ['\u{1F469}\u200D\u{1F4BB}', 'ZWJ between two emoji'],
    ['\u{1F469}\u{1F3FD}\u200D\u{1F4BB}', 'ZWJ after a skin tone'],
    ['\u2764\uFE0F\u200D\u{1F525}', 'ZWJ after a presentation selector'],
    ['\u{1F3F3}\uFE0F\u200D\u{1F308}', 'rainbow flag'],
    ['\u{1F600}\u200D\u{1F600}', 'any two emoji, drawn side by side at worst'],
    ['\u0DC1\u0DCA\u200D\u0DBB\u0DD3', 'Sinhala ZWJ after the virama'],
    ['\u0915\u094D\u200D\u0937', 'Devanagari half form'],
    ['\u0645\u06CC\u200C\u062E\u0648\u0627\u0647\u0645', 'Persian ZWNJ between joining letters'],
    ['\u0628\u200C\u0628', 'Arabic ZWNJ after beh'],
    ['\u0915\u094D\u200C\u0937', 'Devanagari explicit virama'],
    ['\u0712\u200C\u0712', 'Syriac']
  ]
  for (const [name, why] of accepted) t.equal(outcome(() => parsePlayerName(name)), name, why)

  const refused: Array<[string, string]> = [
    ['a\u200Db', 'ZWJ between letters'],
    ['\u200D\u{1F600}', 'ZWJ first'],
    ['\u{1F600}\u200D', 'ZWJ last'],
    ['\u{1F600}\u200Da', 'ZWJ from an emoji to a letter'],
    ['a\u200D\u{1F600}', 'ZWJ from a letter to an emoji'],
    ['a\u200Cb', 'ZWNJ between Latin letters'],
    ['\u0627\u200C\u0628', 'ZWNJ after alef, which joins nothing after it'],
    ['\u062F\u200C\u0628', 'after dal'],
    ['\u0631\u200C\u0628', 'after reh'],
    ['\u0648\u200C\u0628', 'after waw'],
    ['\u0628\u200Ca', 'ZWNJ from Arabic to Latin'],
    ['a\u200C\u0628', 'ZWNJ from Latin to Arabic'],
    ['\u200C\u0628', 'ZWNJ first'],
    ['\u0628\u200C', 'ZWNJ last'],
    ['\u0628\u200C\u0915', 'ZWNJ between two different joining scripts']
  ]
  for (const [name, why] of refused) t.equal(codeOf(() => parsePlayerName(name)), 'invalid_player_name', why)
})

t.test('parsePlayerName: variation selectors', async t => {
  const accepted: Array<[string, string]> = [
    ['\u2764\uFE0F', 'emoji presentation after an emoji'],
    ['\u263A\uFE0E', 'text presentation after an emoji'],
    ['1\uFE0F\u20E3', 'keycap 1'],
    ['#\uFE0F\u20E3', 'keycap #'],
    ['*\uFE0F\u20E3', 'keycap *'],
    ['\u845B\uFE00', 'ideographic variation after Han'],
    ['\u845B\u{E0100}', 'supplementary ideographic variation after Han'],
    ['\u1820\u180B', 'Mongolian free variation selector'],
    ['\u1820\u180F', 'the fourth Mongolian selector']
  ]
  for (const [name, why] of accepted) t.equal(outcome(() => parsePlayerName(name)), name, why)

  const refused: Array<[string, string]> = [
    ['a\uFE0F', 'emoji selector after a letter'],
    ['1\uFE0F', 'on a digit without the keycap'],
    ['1\uFE0Fa', 'on a digit followed by something else'],
    ['\uFE0F', 'alone'],
    ['a\uFE00', 'ideographic selector after a Latin letter'],
    ['a\u{E0100}', 'supplementary selector after a Latin letter'],
    ['\u{1F600}\uFE00', 'ideographic selector after an emoji'],
    ['a\u180B', 'Mongolian selector after a Latin letter']
  ]
  for (const [name, why] of refused) t.equal(codeOf(() => parsePlayerName(name)), 'invalid_player_name', why)
})

t.test('parsePlayerName: tags only as a subdivision flag', async t => {
  const tags = (text: string): string => [...text].map(char => String.fromCodePoint(0xE0000 + (char.codePointAt(0) as number))).join('')
  const flag = (body: string): string => '\u{1F3F4}' + tags(body) + '\u{E007F}'
  for (const body of ['gbsct', 'gbeng', 'gb', 'usca', 'us06', 'abcdefg']) t.equal(outcome(() => parsePlayerName(flag(body))), flag(body), `flag ${body}`)
  t.equal(outcome(() => parsePlayerName(flag('gbsct') + flag('gbwls'))), flag('gbsct') + flag('gbwls'), 'two flags side by side')
  t.equal([...flag('gbsct')].length, 7, 'a flag is 7 code points')

  const refused: Array<[string, string]> = [
    [flag('g'), 'one tag'],
    [flag('abcdefgh'), 'eight tags'],
    [flag('GB'), 'uppercase tag letters'],
    [flag('g b'), 'a tag space'],
    ['\u{1F3F4}\u{E007F}', 'no tags at all'],
    ['\u{1F3F4}' + tags('gbsct'), 'no cancel tag'],
    ['a' + tags('gbsct') + '\u{E007F}', 'not after the black flag'],
    ['alice' + tags('gbsct'), 'hidden text after a name'],
    ['a\u{E007F}', 'a cancel tag alone'],
    [flag('gbsct') + '\u{E007F}', 'a second cancel tag']
  ]
  for (const [name, why] of refused) t.equal(codeOf(() => parsePlayerName(name)), 'invalid_player_name', why)
})

t.test('parsePlayerName: at least one character that draws something', async t => {
  const blank = [' ', '   ', '\u00A0', '\u3000', '\u2800', '\u2800\u2800', '\u{1D159}', '\u0301', ' \u0301', '\u20E3']
  for (const name of blank) t.equal(codeOf(() => parsePlayerName(name)), 'invalid_player_name', show(name))
  const drawn = ['a', '.', '_', '1', '\u{1F600}', '\u{1F1EB}\u{1F1F7}', '\u{1F44D}\u{1F3FD}', '$', ' a', 'a\u2800', '\u0301a']
  for (const name of drawn) t.equal(outcome(() => parsePlayerName(name)), name, show(name))
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
