import { createHmac, timingSafeEqual } from 'node:crypto'
import { signatureBase } from '../../sdk/index.js'

/** The five signed values, exactly as the caller sent them (docs/interface.md#signature). */
export type SignedFields = Parameters<typeof signatureBase>[0]

// The signature base is defined once, in the SDK that games use to sign.
export { signatureBase }

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
