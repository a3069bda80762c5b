import { fail } from '../errors.js'

/**
 * The player_name rule (docs/interface.md#field-rules; why, in docs/security.md
 * under Names): a name is refused when it would display as someone else's name.
 */

/** Never in a name: controls, line and paragraph separators, bidirectional controls, lone surrogates. */
const NEVER = /[\p{Cc}\p{Zl}\p{Zp}\p{Bidi_Control}\p{Cs}]/u
/** Characters that draw nothing, or change how their neighbours draw (Unicode's default-ignorables and format characters). */
const INVISIBLE = /[\p{Default_Ignorable_Code_Point}\p{Cf}]/u
/** A character that draws something: a letter, digit, punctuation or symbol (emoji are symbols). */
const SHOWS = /[\p{L}\p{N}\p{P}\p{S}]/u
/** Symbols that draw a blank all the same. */
const BLANKS = new Set(['\u2800', '\u{1D159}'])

const ZWJ = '\u200D'
const ZWNJ = '\u200C'
const KEYCAP = '\u20E3'
const BLACK_FLAG = '\u{1F3F4}'
const CANCEL_TAG = '\u{E007F}'
const EMOJI_BEFORE_JOINER = /[\p{Extended_Pictographic}\p{Emoji_Modifier}\uFE0F]/u
const EMOJI = /\p{Extended_Pictographic}/u
const MARK = /\p{M}/u
/** Scripts whose letters join, so that a zero-width non-joiner changes how they draw. */
const JOINING_SCRIPTS = ['Arabic', 'Syriac', 'Nko', 'Mongolian', 'Mandaic', 'Adlam', 'Hanifi_Rohingya', 'Phags_Pa',
  'Devanagari', 'Bengali', 'Gurmukhi', 'Gujarati', 'Oriya', 'Tamil', 'Telugu', 'Kannada', 'Malayalam', 'Sinhala']
  .map(script => new RegExp(`^(?=[\\p{L}\\p{M}])\\p{Script_Extensions=${script}}$`, 'u'))
/**
 * Arabic-script letters that never join the letter after them (alef, dal,
 * reh, waw and their variants, hamza, teh marbuta): a non-joiner after one
 * changes nothing drawn.
 */
const JOINS_NOTHING_AFTER = /[\u0621-\u0625\u0627\u0629\u062F-\u0632\u0648\u0671-\u0673\u0675-\u0677\u0688-\u0699\u06C0\u06C3-\u06CB\u06CD\u06CF\u06D2\u06D3\u06D5\u06EE\u06EF\u0710\u072C\u0759-\u075B\u076B\u076C\u0771\u0773\u0774\u0778\u0779]/u
/** Viramas: after one, a joiner or non-joiner picks the conjunct, half or explicit-virama form. */
const VIRAMA = /[\u094D\u09CD\u0A4D\u0ACD\u0B4D\u0BCD\u0C4D\u0CCD\u0D4D\u0DCA\u1039\u17D2\u1B44\uA8C4\uA9C0\u{11046}\u{110B9}]/u
/** Tag letters and digits, the body of a subdivision flag (🏴 gbsct ␡). */
const FLAG_TAG = /[\u{E0030}-\u{E0039}\u{E0061}-\u{E007A}]/u

const scriptOf = (char: string): RegExp | undefined => JOINING_SCRIPTS.find(script => script.test(char))
const inRange = (char: string, low: string, high: string): boolean => char >= low && char <= high

/** The letter a mark sits on: the nearest character before `index` that is not a mark. */
function baseBefore (chars: string[], index: number): string {
  let at = index - 1
  while (at >= 0 && MARK.test(chars[at] as string)) at--
  return chars[at] ?? ''
}

/** A non-joiner between two letters of one joining script, where the first one would join the second. */
function nonJoinerBelongs (chars: string[], index: number): boolean {
  const before = chars[index - 1] ?? ''
  const after = chars[index + 1] ?? ''
  const script = scriptOf(after)
  if (script === undefined || !/\p{L}/u.test(after) || !script.test(before)) return false
  if (VIRAMA.test(before)) return true
  const base = baseBefore(chars, index)
  return /\p{L}/u.test(base) && script.test(base) && !JOINS_NOTHING_AFTER.test(base)
}

/** A subdivision flag: 🏴, two to seven tag letters or digits, the cancel tag. */
function inSubdivisionFlag (chars: string[], index: number): boolean {
  let start = index
  while (start > 0 && inRange(chars[start - 1] as string, '\u{E0020}', CANCEL_TAG)) start--
  let end = index
  while (end < chars.length - 1 && inRange(chars[end + 1] as string, '\u{E0020}', CANCEL_TAG)) end++
  const body = chars.slice(start, end)
  return chars[start - 1] === BLACK_FLAG && chars[end] === CANCEL_TAG &&
    body.length >= 2 && body.length <= 7 && body.every(char => FLAG_TAG.test(char))
}

/**
 * An invisible character is kept only where it is part of what is drawn:
 * - a joiner inside an emoji sequence (👩‍💻), or after a virama (the Sinhala
 *   and Devanagari half and conjunct forms);
 * - a non-joiner between letters of a joining script (Persian می‌خواهم, an
 *   explicit Devanagari virama);
 * - the emoji and text presentation selectors after an emoji, or before a
 *   keycap (1️⃣); the ideographic variation selectors after a Han character;
 *   the Mongolian free variation selectors after a Mongolian letter;
 * - the tags of a subdivision flag (🏴󠁧󠁢󠁳󠁣󠁴󠁿).
 * Anywhere else it only makes one name look like another ("al\u200Bice" draws as "alice").
 */
function invisibleBelongs (chars: string[], index: number): boolean {
  const char = chars[index] as string
  const before = chars[index - 1] ?? ''
  const after = chars[index + 1] ?? ''
  if (char === ZWJ) return (EMOJI_BEFORE_JOINER.test(before) && EMOJI.test(after)) || VIRAMA.test(before)
  if (char === ZWNJ) return nonJoinerBelongs(chars, index)
  if (char === '\uFE0E' || char === '\uFE0F') return EMOJI.test(before) || (/^[0-9#*]$/.test(before) && after === KEYCAP)
  if (inRange(char, '\uFE00', '\uFE0D') || inRange(char, '\u{E0100}', '\u{E01EF}')) return /\p{Script=Han}/u.test(before)
  if (inRange(char, '\u180B', '\u180D') || char === '\u180F') return /^(?=\p{L})\p{Script=Mongolian}$/u.test(before)
  if (inRange(char, '\u{E0020}', CANCEL_TAG)) return inSubdivisionFlag(chars, index)
  return false
}

/** Whether a text passes the player_name rule (parsePlayerName). */
export function isPlayerName (value: string): boolean {
  try {
    parsePlayerName(value)
    return true
  } catch {
    return false
  }
}

/**
 * 1 to 30 code points (one emoji is one character), at least one of which is
 * drawn; no control, separator or bidirectional character (they reorder what
 * is shown, so "alice" can display as someone else's name); invisible
 * characters only where they belong to what is drawn (invisibleBelongs).
 */
export function parsePlayerName (value: string): string {
  const chars = [...value]
  if (chars.length < 1 || chars.length > 30 || NEVER.test(value)) fail('invalid_player_name')
  let drawn = false
  for (const [index, char] of chars.entries()) {
    if (INVISIBLE.test(char)) {
      if (!invisibleBelongs(chars, index)) fail('invalid_player_name')
    } else if (SHOWS.test(char) && !BLANKS.has(char)) {
      drawn = true
    }
  }
  if (!drawn) fail('invalid_player_name')
  return value
}
