import type { RedisClient as Redis } from './redis-client.js'
import { keys } from './keys.js'

/** What an OpenID Connect sign-in keeps while the browser is at the provider: its PKCE verifier, its nonce, where to go after. */
export interface SigninFlow { verifier: string, nonce: string, next: string }

/** What a state may look like before it names a key (openid-client makes 43 base64url characters). */
const STATE_PATTERN = /^[A-Za-z0-9_-]{20,128}$/

/** How long a player may take at the provider. */
export const SIGNIN_FLOW_TTL_S = 600

/**
 * The sign-in flows under way, by their state (docs/signin.md#openid-connect):
 * kept in Redis, so the callback may reach any instance, and taken once.
 */
export function createSigninFlows (redis: Redis) {
  return {
    async save (state: string, flow: SigninFlow): Promise<void> {
      await redis.set(keys.signinFlow(state), JSON.stringify(flow), 'EX', SIGNIN_FLOW_TTL_S)
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
