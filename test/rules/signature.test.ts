import { createHmac } from 'node:crypto'
import t from 'tap'
import { hmacSha256Hex, signatureBase as sdkSignatureBase } from '../../sdk/index.js'
import { computeSignature, signatureBase, signatureMatches, type SignedFields } from '../../src/rules/signature.js'

/*
 * The submit signature (src/rules/signature.ts) against
 * docs/interface.md#signature: the five values exactly as sent, joined by
 * `|`, HMAC-SHA256 keyed with the secret, 64 lowercase hex digits. Expected
 * signatures are computed here with node:crypto, independently of src/.
 */

const KEY = 'rk_0123456789abcdef0123456789abcdef'
const SECRET = '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'
const EXAMPLE: SignedFields = { api_key: KEY, game_id: 'demo', player_name: 'alice', score: '1234', ts: '1767225600' }
/** The sign docs/interface.md gives for the example above. */
const EXAMPLE_SIGN = '7b214e9cfd10e39cb8e7cc046f5b8a665918cfacbbb6ff928fad46899bc45731'

/** The documented recipe, written out: join in order with `|`, HMAC-SHA256 over UTF-8, lowercase hex. */
function expectedSign (secret: string, fields: SignedFields): string {
  const base = [fields.api_key, fields.game_id, fields.player_name, fields.score, fields.ts].join('|')
  return createHmac('sha256', secret).update(base, 'utf8').digest('hex')
}

t.test('the documented example', async t => {
  t.equal(signatureBase(EXAMPLE), 'rk_0123456789abcdef0123456789abcdef|demo|alice|1234|1767225600')
  t.equal(expectedSign(SECRET, EXAMPLE), EXAMPLE_SIGN, 'the docs and node:crypto agree')
  t.equal(computeSignature(SECRET, EXAMPLE), EXAMPLE_SIGN)
  t.equal(signatureMatches(SECRET, EXAMPLE, EXAMPLE_SIGN), true)
})

t.test('the base is the SDK\'s, so games and the service sign the same text', async t => {
  t.equal(signatureBase, sdkSignatureBase, 'one function, re-exported')
  t.equal(signatureBase({ api_key: 'k', game_id: 'g', player_name: 'p', score: 's', ts: 't' }), 'k|g|p|s|t', 'in this order, no spaces, no trailing separator')
  // Key order in the object does not matter; the names do.
  t.equal(signatureBase({ ts: '5', score: '4', player_name: '3', game_id: '2', api_key: '1' }), '1|2|3|4|5')
  t.equal(await hmacSha256Hex(SECRET, signatureBase(EXAMPLE)), EXAMPLE_SIGN, 'the SDK\'s WebCrypto HMAC gives the same sign')
})

t.test('a named board is the sixth signed value; the game\'s own board keeps the v1 text', async t => {
  t.equal(signatureBase({ ...EXAMPLE, board: 'level-1' }), 'rk_0123456789abcdef0123456789abcdef|demo|alice|1234|1767225600|level-1')
  t.equal(signatureBase({ ...EXAMPLE, board: 'default' }), signatureBase(EXAMPLE), 'board=default: the v1 text')
  t.equal(signatureBase({ ...EXAMPLE, board: undefined }), signatureBase(EXAMPLE), 'no board: the v1 text')
  const onLevel = computeSignature(SECRET, { ...EXAMPLE, board: 'level-1' })
  t.not(onLevel, EXAMPLE_SIGN)
  t.equal(signatureMatches(SECRET, { ...EXAMPLE, board: 'level-2' }, onLevel), false, 'a signature for one board does not hold for another')
  t.equal(signatureMatches(SECRET, EXAMPLE, onLevel), false, 'nor for the game\'s own')
})

t.test('values are signed exactly as sent', async t => {
  const variants: SignedFields[] = [
    { ...EXAMPLE, score: '007' },
    { ...EXAMPLE, score: '-0' },
    { ...EXAMPLE, player_name: 'alice ' },
    { ...EXAMPLE, player_name: 'Alice' },
    { ...EXAMPLE, player_name: '\u00E9' },
    { ...EXAMPLE, player_name: 'e\u0301' },
    { ...EXAMPLE, player_name: '\u{1F469}\u200D\u{1F4BB}' },
    { ...EXAMPLE, ts: '01767225600' }
  ]
  for (const fields of variants) {
    const sign = expectedSign(SECRET, fields)
    t.equal(computeSignature(SECRET, fields), sign, `${JSON.stringify(fields.player_name)} ${fields.score} ${fields.ts}: UTF-8 bytes of the text as sent`)
    t.equal(signatureMatches(SECRET, fields, sign), true, 'its own sign matches')
    t.equal(signatureMatches(SECRET, EXAMPLE, sign), false, 'and does not stand for the normalised example')
    t.not(sign, EXAMPLE_SIGN)
  }
  t.equal(signatureMatches(SECRET, { ...EXAMPLE, score: '7' }, expectedSign(SECRET, { ...EXAMPLE, score: '007' })), false, '007 signed, 7 checked')
})

t.test('a change to any signed value breaks the signature', async t => {
  for (const name of ['api_key', 'game_id', 'player_name', 'score', 'ts'] as const) {
    t.equal(signatureMatches(SECRET, { ...EXAMPLE, [name]: `${EXAMPLE[name]}0` }, EXAMPLE_SIGN), false, name)
  }
  // Two values swapped keep the same characters but not the same base.
  t.equal(signatureMatches(SECRET, { ...EXAMPLE, player_name: '1234', score: 'alice' }, EXAMPLE_SIGN), false, 'swapped values')
})

t.test('the secret is the key, used as the text it is', async t => {
  t.equal(signatureMatches(`${SECRET}0`, EXAMPLE, EXAMPLE_SIGN), false, 'a longer secret')
  t.equal(signatureMatches(SECRET.toUpperCase(), EXAMPLE, EXAMPLE_SIGN), false, 'the secret\'s letters in another case')
  t.equal(signatureMatches('', EXAMPLE, EXAMPLE_SIGN), false, 'an empty secret')
  const hexAsBytes = createHmac('sha256', Buffer.from(SECRET, 'hex')).update(signatureBase(EXAMPLE), 'utf8').digest('hex')
  t.equal(signatureMatches(SECRET, EXAMPLE, hexAsBytes), false, 'not the secret decoded from hex')
  t.equal(computeSignature('s\u00E9cret', EXAMPLE), expectedSign('s\u00E9cret', EXAMPLE), 'a non-ASCII secret, as UTF-8')
})

t.test('sign: 64 lowercase hex digits and nothing else', async t => {
  t.equal(signatureMatches(SECRET, EXAMPLE, EXAMPLE_SIGN.toUpperCase()), false, 'uppercase hex')
  t.equal(signatureMatches(SECRET, EXAMPLE, `${EXAMPLE_SIGN.slice(0, 63)}${EXAMPLE_SIGN.slice(63).toUpperCase()}`), true, 'the last digit is 1, no letter to change case')
  t.equal(signatureMatches(SECRET, EXAMPLE, `${EXAMPLE_SIGN.slice(0, 10).toUpperCase()}${EXAMPLE_SIGN.slice(10)}`), false, 'some letters uppercase')
  t.equal(signatureMatches(SECRET, EXAMPLE, EXAMPLE_SIGN.slice(0, 63)), false, '63 digits')
  t.equal(signatureMatches(SECRET, EXAMPLE, `${EXAMPLE_SIGN}0`), false, '65 digits')
  t.equal(signatureMatches(SECRET, EXAMPLE, ''), false, 'empty')
  t.equal(signatureMatches(SECRET, EXAMPLE, ` ${EXAMPLE_SIGN}`), false, 'a leading space')
  t.equal(signatureMatches(SECRET, EXAMPLE, `${EXAMPLE_SIGN}\n`), false, 'a trailing newline')
  t.equal(signatureMatches(SECRET, EXAMPLE, EXAMPLE_SIGN.slice(0, 32)), false, 'the first half')
  t.equal(signatureMatches(SECRET, EXAMPLE, Buffer.from(EXAMPLE_SIGN, 'hex').toString('base64')), false, 'base64 of the right bytes')
  t.equal(signatureMatches(SECRET, EXAMPLE, '0'.repeat(64)), false, 'the right length, the wrong digits')
  t.equal(signatureMatches(SECRET, EXAMPLE, `${EXAMPLE_SIGN.slice(0, 63)}0`), false, 'the last digit wrong')
  t.equal(signatureMatches(SECRET, EXAMPLE, `0${EXAMPLE_SIGN.slice(1)}`), false, 'the first digit wrong')
})

t.test('a sign that is not ASCII is refused, never thrown on', async t => {
  // 64 characters but more bytes, and 64 bytes but fewer characters: the byte lengths decide.
  t.equal(signatureMatches(SECRET, EXAMPLE, `${EXAMPLE_SIGN.slice(0, 63)}\u00E9`), false, '64 characters, 65 bytes')
  t.equal(signatureMatches(SECRET, EXAMPLE, '\u00E9'.repeat(32)), false, '32 characters, 64 bytes')
  t.equal(signatureMatches(SECRET, EXAMPLE, '\u{1F600}'.repeat(16)), false, '16 emoji, 64 bytes')
  t.equal(signatureMatches(SECRET, EXAMPLE, '\uD800'.repeat(64)), false, 'lone surrogates')
  // U+0137's low byte is "7", the first digit: read as one byte per character, this would match.
  const lookalike = String.fromCharCode(0x100 + EXAMPLE_SIGN.charCodeAt(0)) + EXAMPLE_SIGN.slice(1)
  t.equal(signatureMatches(SECRET, EXAMPLE, lookalike), false, 'a character whose low byte is the right digit')
})
