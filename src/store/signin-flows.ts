import { createHash } from 'node:crypto'
import type { RedisClient as Redis } from './redis-client.js'
import { keys } from './keys.js'

/** What an OpenID Connect sign-in keeps while the browser is at the provider: its PKCE verifier, its nonce, where to go after. */
export interface SigninFlow { verifier: string, nonce: string, next: string }

/** What a state may look like before it names a key (openid-client makes 43 base64url characters). */
const STATE_PATTERN = /^[A-Za-z0-9_-]{20,128}$/

/** How long a player may take at the provider. */
export const SIGNIN_FLOW_TTL_S = 600

/**
 * The sign-ins under way, by their state (docs/signin.md#openid-connect),
 * and the platform's tokens spent (docs/signin.md#signed-tokens): kept in
 * Redis, so any instance may take the next step, and each taken once.
 */
export function createSigninFlows (redis: Redis) {
  return {
    async save (state: string, flow: SigninFlow): Promise<void> {
      await redis.set(keys.signinFlow(state), JSON.stringify(flow), 'EX', SIGNIN_FLOW_TTL_S)
    },

    /**
     * Spends a sign-in token until it expires: true the first time, false
     * after. A token signs in once; a copy of it (a log, a screenshot of an
     * address) signs nobody in, nor does the same token with its signature
     * written another way: what is spent (a digest of) is `signed`, the
     * header and payload the signature covers.
     */
    async spendToken (signed: string, expiresAtMs: number): Promise<boolean> {
      const digest = createHash('sha256').update(signed).digest('base64url').slice(0, 32)
      return await redis.set(keys.spentSigninToken(digest), '1', 'PXAT', Math.max(expiresAtMs, Date.now() + 1000), 'NX') === 'OK'
    },

    /** The flow of `state`, gone from Redis once read: a callback replayed finds nothing. */
    async take (state: string): Promise<SigninFlow | null> {
      if (!STATE_PATTERN.test(state)) return null
      const stored = await redis.getdel(keys.signinFlow(state))
      if (stored === null) return null
      const flow = JSON.parse(stored) as SigninFlow
      return typeof flow.verifier === 'string' && typeof flow.nonce === 'string' && typeof flow.next === 'string' ? flow : null
    }
  }
}

export type SigninFlows = ReturnType<typeof createSigninFlows>
