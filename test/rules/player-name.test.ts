import t from 'tap'
import { ERROR_MESSAGES } from '../../src/errors.js'
import { parsePlayerName } from '../../src/rules/player-name.js'
import { codeOf, messageOf, outcome, show } from '../helpers/outcomes.js'

/*
 * The player_name rule (src/rules/player-name.ts) against
 * docs/interface.md#field-rules and docs/security.md (Names): its length in
 * code points, the characters it never takes, the invisible ones it takes
 * only where they belong to what is drawn, with the exact error it refuses with.
 */

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
