import { ApiError } from '../../src/errors.js'
import type { Params } from '../../src/lib/params.js'

/*
 * What a pure parser or rule answers, or the error it refuses with, for the
 * tests of src/lib/params.ts and src/rules/.
 */

/** The ApiError that `fn` throws, what else it throws as text, or 'none' when it returns. */
function refusal (fn: () => unknown): ApiError | string {
  try {
    fn()
  } catch (error) {
    return error instanceof ApiError ? error : `not an ApiError: ${String(error)}`
  }
  return 'none'
}

/** The code of the ApiError that `fn` throws: 'none' when it returns, so a missing refusal fails the assertion too. */
export function codeOf (fn: () => unknown): string {
  const refused = refusal(fn)
  return typeof refused === 'string' ? refused : refused.code
}

/** The message of the ApiError that `fn` throws, or 'none'. */
export function messageOf (fn: () => unknown): string {
  const refused = refusal(fn)
  return typeof refused === 'string' ? refused : refused.message
}

/** Parameters as collectParams makes them: a null-prototype map. */
export function params (values: Record<string, string>): Params {
  return Object.assign(Object.create(null) as Params, values)
}

/** A value as a test label: quoted, with every character outside printable ASCII spelled as an escape. */
export function show (text: string): string {
  return JSON.stringify(text).replace(/[^\x20-\x7e]/gu, char => `\\u{${(char.codePointAt(0) as number).toString(16)}}`)
}

/** What a parser answers, or the code it refuses with, so one list can hold both. */
export function outcome<T> (fn: () => T): T | string {
  try {
    return fn()
  } catch (error) {
    return error instanceof ApiError ? `refused: ${error.code}` : `not an ApiError: ${String(error)}`
  }
}
