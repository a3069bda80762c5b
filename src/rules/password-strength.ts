import { ZxcvbnFactory } from '@zxcvbn-ts/core'
import * as common from '@zxcvbn-ts/language-common'
import * as english from '@zxcvbn-ts/language-en'
import { fail } from '../errors.js'

/** The shortest password a player may choose. */
export const PASSWORD_MIN_LENGTH = 8
/** The longest (as operators may set; docs/interface.md#sign-up). */
export const PASSWORD_MAX_LENGTH = 1024
/** zxcvbn's score (0 to 4) a new password must reach: 3 is "safely unguessable" (about 10^10 guesses). */
const MIN_SCORE = 3
/** zxcvbn looks at this much of a password: its time grows with the length, and a longer one is strong enough by then. */
const CHECKED_LENGTH = 100

let estimator: ZxcvbnFactory | undefined

/** Built on first use: the dictionaries take some memory and a moment to load. */
function zxcvbn (): ZxcvbnFactory {
  estimator ??= new ZxcvbnFactory({
    translations: english.translations,
    graphs: common.adjacencyGraphs,
    dictionary: { ...common.dictionary, ...english.dictionary }
  })
  return estimator
}

/**
 * A password a player chooses (sign-up, a new password) must be hard to
 * guess, as zxcvbn estimates it, offline, against common passwords, words,
 * names, keyboard patterns and the player's own name. Else weak_password,
 * with zxcvbn's sentence saying why and what helps.
 */
export function checkPasswordStrength (password: string, username: string): void {
  if (password.length < PASSWORD_MIN_LENGTH) fail('weak_password', `The password is too short: use at least ${PASSWORD_MIN_LENGTH} characters.`)
  if (password.length > PASSWORD_MAX_LENGTH) fail('invalid_param', `password must be at most ${PASSWORD_MAX_LENGTH} characters.`)
  const { score, feedback } = zxcvbn().check(password.slice(0, CHECKED_LENGTH), [username])
  if (score >= MIN_SCORE) return
  const why = [feedback.warning, ...feedback.suggestions].filter((text): text is string => typeof text === 'string' && text !== '')
  fail('weak_password', ['The password is too easy to guess.', ...why].join(' '))
}
