import { type Static, type TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { fail } from '../errors.js'

/*
 * The cursors of the operator listings (docs/interface.md#listings): opaque
 * text to clients, base64url of a small JSON value here. A listing says what
 * its cursor holds with a TypeBox schema, so a cursor from another listing,
 * an edited one or random text is invalid_param, never a crash.
 */

/** The longest cursor taken: far more than any listing writes. */
const MAX_CURSOR_LENGTH = 2048

export function encodeCursor (value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url')
}

/** The value of a cursor a listing gave out, checked against what that listing puts in one. */
export function decodeCursor<T extends TSchema> (schema: T, text: string): Static<T> {
  let value: unknown
  try {
    if (text.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(text)) throw new Error('not base64url')
    value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'))
  } catch {}
  if (value === undefined || !Value.Check(schema, value)) fail('invalid_param', 'Parameter "cursor" is not valid: pass the next_cursor of the page before, unchanged, to the same listing.')
  return value
}
