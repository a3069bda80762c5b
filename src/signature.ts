import { createHmac, timingSafeEqual } from 'node:crypto'

/** The five signed values, exactly as the caller sent them (spec section 5). */
export interface SignedFields {
  api_key: string
  game_id: string
  player_name: string
  score: string
  ts: string
}

/** `api_key|game_id|player_name|score|ts`, hashed as UTF-8. */
export function signatureBase (fields: SignedFields): string {
  return [fields.api_key, fields.game_id, fields.player_name, fields.score, fields.ts].join('|')
}

/** Lowercase hexadecimal HMAC-SHA256 of the signature base, keyed with the secret. */
export function computeSignature (secret: string, fields: SignedFields): string {
  return createHmac('sha256', secret).update(signatureBase(fields), 'utf8').digest('hex')
}

/** Compares in constant time; only the length of `sign`, which is public, may end it early. */
export function signatureMatches (secret: string, fields: SignedFields, sign: string): boolean {
  const expected = Buffer.from(computeSignature(secret, fields), 'utf8')
  const given = Buffer.from(sign, 'utf8')
  return given.length === expected.length && timingSafeEqual(given, expected)
}
