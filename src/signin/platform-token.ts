import { createPublicKey, type KeyObject } from 'node:crypto'
import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose'
import { fail } from '../errors.js'

/**
 * Sign-in with a token the platform signed (docs/signin.md#signed-tokens):
 * a short-lived JWT for one of its players, verified with `jose` against the
 * platform's JWKS (fetched and cached; an unknown `kid` fetches it again, so
 * a rotated key is found), one public key, or a shared HS256 secret.
 */

export interface TokenSigninOptions {
  /** The `iss` the platform's tokens carry; with the subject, it names the player here. */
  issuer: string
  /** The `aud` the tokens must name: this service. */
  audience: string
  /** Exactly one of these three says how tokens are signed. */
  jwksUrl?: string
  /** An SPKI public key, PEM. */
  publicKey?: string
  /** A shared secret (HS256), at least 32 characters. */
  secret?: string
  /** The claim whose text becomes the username at the first sign-in. */
  nameClaim: string
  /** How far in the future `exp` may be: a token is a moment's pass, not a session. */
  maxLifetimeS: number
}

/** Who a token names: the platform's subject, and the name it gave them (the first sign-in's username comes from it). */
export interface PlatformPlayer { issuer: string, subject: string, name: string | null }

/**
 * A compact JWS as the platform's library writes it: three parts of
 * base64url without padding, nothing else (no `=`, no spaces, which a
 * decoder would skip).
 */
const COMPACT_JWS = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/

/** A part in the one spelling its bytes have: its last character's unused bits are zero (`…UVQ`, never `…UVR`). */
const canonical = (part: string): boolean => Buffer.from(part, 'base64url').toString('base64url') === part

/** Most characters of a token; longer is invalid_param before anything is parsed. */
export const MAX_TOKEN_LENGTH = 8192
/** Most characters of a subject: the platform's id of its player. */
export const MAX_SUBJECT_LENGTH = 255

/** Public-key algorithms a platform may sign with; never `none`, never HS256 with a public key as its secret. */
const PUBLIC_KEY_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA']

/** How long the JWKS may take to answer, and how long a fetched one is kept before it is fetched again. */
const JWKS_TIMEOUT_MS = 5000
const JWKS_MAX_AGE_MS = 10 * 60_000
/** At most one fetch in this time, however many unknown `kid`s arrive (a rotated key is found within it). */
const JWKS_COOLDOWN_MS = 5000

function invalid (why: string): never {
  fail('invalid_token', `The sign-in token is not valid: ${why}.`)
}

/**
 * Whether jose could not read the platform's JWKS: it timed out, could not be
 * reached (fetch's TypeError), answered other than 200, or not a key set.
 * That is the platform's outage, not the player's fault: `unavailable`.
 */
function jwksUnreadable (error: unknown): boolean {
  return error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid || error instanceof TypeError ||
    (error instanceof errors.JOSEError && error.code === 'ERR_JOSE_GENERIC' && /JSON Web Key Set/.test(error.message))
}

/** The sentence for a token jose refused. */
function refusal (error: unknown): never {
  if (jwksUnreadable(error)) fail('unavailable', "The platform's keys (its JWKS) cannot be read right now; retry in a moment.")
  if (error instanceof errors.JWTExpired) invalid('it has expired')
  if (error instanceof errors.JWTClaimValidationFailed) invalid(`its ${error.claim} claim is not what this service expects`)
  if (error instanceof errors.JOSEAlgNotAllowed) invalid('it is signed with an algorithm this service does not accept')
  if (error instanceof errors.JWSSignatureVerificationFailed) invalid('its signature does not hold')
  if (error instanceof errors.JWKSNoMatchingKey) invalid("no key of the platform's JWKS signed it")
  invalid('it is not a signed JWT')
}

export function createTokenVerifier (options: TokenSigninOptions) {
  const { issuer, audience, nameClaim, maxLifetimeS } = options
  let key: JWTVerifyGetKey | KeyObject | Uint8Array
  let algorithms: string[]
  if (options.jwksUrl !== undefined) {
    key = createRemoteJWKSet(new URL(options.jwksUrl), { timeoutDuration: JWKS_TIMEOUT_MS, cacheMaxAge: JWKS_MAX_AGE_MS, cooldownDuration: JWKS_COOLDOWN_MS })
    algorithms = PUBLIC_KEY_ALGORITHMS
  } else if (options.publicKey !== undefined) {
    key = createPublicKey(options.publicKey)
    algorithms = PUBLIC_KEY_ALGORITHMS
  } else {
    key = new TextEncoder().encode(options.secret)
    algorithms = ['HS256']
  }

  return {
    /**
     * The player a token names, or invalid_token saying why not (unavailable
     * while the JWKS cannot be read); with what signs in once (`signed`):
     * the token's header and payload, the text its signature covers. The
     * signature itself is not that: one signature has other spellings, and
     * an ECDSA signature (r, s) has a twin (r, n - s) that verifies too
     * (docs/security.md, "Who a player is").
     */
    async verify (token: string): Promise<PlatformPlayer & { expiresAtMs: number, signed: string }> {
      if (token.length > MAX_TOKEN_LENGTH) fail('invalid_param', `token must be at most ${MAX_TOKEN_LENGTH} characters.`)
      const parts = COMPACT_JWS.exec(token)
      if (parts === null) invalid('it is not a signed JWT (three base64url parts, without padding or spaces)')
      if (!parts.slice(1).every(canonical)) invalid('it is not written as its signer wrote it (a base64url part has stray bits)')
      let payload: JWTPayload
      try {
        ({ payload } = await jwtVerify(token, key as JWTVerifyGetKey, { issuer, audience, algorithms, requiredClaims: ['sub', 'exp'] }))
      } catch (error) {
        refusal(error)
      }
      const { sub } = payload
      if (typeof sub !== 'string' || sub.length === 0 || sub.length > MAX_SUBJECT_LENGTH) invalid(`its sub claim must be text of 1 to ${MAX_SUBJECT_LENGTH} characters`)
      if ((payload.exp as number) > Date.now() / 1000 + maxLifetimeS) invalid(`it lives too long: exp may be at most ${maxLifetimeS} s ahead`)
      const name = Object.hasOwn(payload, nameClaim) ? payload[nameClaim] : undefined
      return { issuer, subject: sub, name: typeof name === 'string' ? name : null, expiresAtMs: (payload.exp as number) * 1000, signed: `${parts[1] as string}.${parts[2] as string}` }
    }
  }
}

export type TokenVerifier = ReturnType<typeof createTokenVerifier>
