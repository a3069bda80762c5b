import { randomBytes } from 'node:crypto'
import { createChallenge, verifySolution, type Challenge } from 'altcha-lib'
import { deriveKey } from 'altcha-lib/algorithms/pbkdf2'
import { fail } from '../errors.js'
import { keys } from './keys.js'
import type { RedisClient as Redis } from './redis-client.js'

/** The key derivation each try of the proof of work makes: PBKDF2-SHA-256 of this many rounds. */
const ROUNDS = 1000
/** How long a challenge may be solved and used (a page left open longer fetches a new one). */
export const CHALLENGE_TTL_S = 600
/** A payload longer than this is not one the widget or altcha-lib makes. */
const PAYLOAD_MAX_LENGTH = 4096

export interface SignupChallenges {
  /** A new challenge, signed: the client finds a counter whose derived key starts with `work` zero hex digits. */
  create: () => Promise<Challenge>
  /**
   * Accepts a solved challenge once: the payload altcha makes (base64 JSON of
   * the challenge and its solution). Anything else, a wrong or expired
   * solution, a challenge this service did not sign or one used before is
   * invalid_challenge.
   */
  redeem: (payload: string) => Promise<void>
}

/**
 * The sign-up proof of work (ALTCHA, self-hosted: no third party). Every
 * instance signs with one secret, made at random by the first that needs it
 * and kept in Redis; a solved challenge is remembered until it expires, so it
 * buys one sign-up.
 */
export function createSignupChallenges (redis: Redis, { work }: { work: number }): SignupChallenges {
  let secret: Promise<string> | undefined
  function signingSecret (): Promise<string> {
    secret ??= (async () => {
      await redis.set(keys.signupChallengeSecret(), randomBytes(32).toString('base64url'), 'NX')
      const stored = await redis.get(keys.signupChallengeSecret())
      if (stored === null) throw new Error('the sign-up challenge secret was not stored')
      return stored
    })()
    // A failure (Redis away) is not remembered: the next request tries again.
    secret.catch(() => { secret = undefined })
    return secret
  }

  return {
    async create () {
      return await createChallenge({
        algorithm: 'PBKDF2/SHA-256',
        cost: ROUNDS,
        deriveKey,
        keyPrefix: '0'.repeat(work),
        expiresAt: Math.floor(Date.now() / 1000) + CHALLENGE_TTL_S,
        hmacSignatureSecret: await signingSecret()
      })
    },

    async redeem (payload) {
      const solved = payload.length <= PAYLOAD_MAX_LENGTH ? parsePayload(payload) : undefined
      if (solved === undefined) fail('invalid_challenge', 'altcha must be the proof of work as the ALTCHA widget sends it (base64 JSON of the challenge and its solution).')
      const hmacSignatureSecret = await signingSecret()
      const result = await verifySolution({ challenge: solved.challenge, solution: solved.solution, deriveKey, hmacSignatureSecret }).catch(() => undefined)
      if (result?.verified !== true) fail('invalid_challenge', result?.expired === true ? 'The proof of work has expired; solve a new challenge.' : undefined)
      const expiresAt = solved.challenge.parameters.expiresAt ?? 0
      // A minute past the expiry: another instance whose clock is behind still refuses the replay.
      const ttl = Math.max(1, expiresAt - Math.floor(Date.now() / 1000)) + 60
      const first = await redis.set(keys.usedSignupChallenge(solved.challenge.parameters.nonce), '1', 'EX', ttl, 'NX')
      if (first === null) fail('invalid_challenge', 'This proof of work has been used already; solve a new challenge.')
    }
  }
}

interface SolvedChallenge {
  challenge: Challenge & { parameters: { nonce: string } }
  solution: { counter: number, derivedKey: string }
}

/** The payload's parts, each of the type altcha-lib expects, or undefined. */
function parsePayload (payload: string): SolvedChallenge | undefined {
  let value: unknown
  try {
    value = JSON.parse(Buffer.from(payload, 'base64').toString('utf8'))
  } catch {
    return undefined
  }
  if (!isObject(value) || !isObject(value.challenge) || !isObject(value.solution)) return undefined
  const { challenge, solution } = value
  if (!isObject(challenge.parameters) || typeof challenge.signature !== 'string') return undefined
  const { parameters } = challenge
  if (typeof parameters.nonce !== 'string' || !/^[0-9a-f]{1,128}$/.test(parameters.nonce)) return undefined
  if (typeof parameters.algorithm !== 'string' || typeof parameters.salt !== 'string' || typeof parameters.keyPrefix !== 'string') return undefined
  if (!Number.isSafeInteger(parameters.cost) || !Number.isSafeInteger(parameters.keyLength) || !Number.isSafeInteger(parameters.expiresAt)) return undefined
  if (!Number.isSafeInteger(solution.counter) || typeof solution.derivedKey !== 'string') return undefined
  return value as unknown as SolvedChallenge
}

function isObject (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
