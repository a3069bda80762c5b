import * as client from 'openid-client'
import { fail } from '../errors.js'
import { MAX_SUBJECT_LENGTH, type PlatformPlayer } from './platform-token.js'
import type { SigninFlow } from '../store/signin-flows.js'

/**
 * "Sign in with …" any OpenID Connect provider (docs/signin.md#openid-connect):
 * the authorization code flow with PKCE, a state and a nonce, through
 * `openid-client`. The provider is found by discovery from its issuer URL,
 * once, when the first player signs in (again after a failure).
 */

export interface OpenIdOptions {
  /** The provider's issuer URL: its discovery document is at /.well-known/openid-configuration under it. */
  issuer: string
  clientId: string
  clientSecret: string
  /** What the login page's button says after "Sign in with". */
  label: string
  /** The claim whose text becomes the username at the first sign-in; `name` when it is missing. */
  nameClaim: string
  scopes: string
  /** Talk to a provider over plain http (a test's, or one on loopback; never in production). */
  allowHttp: boolean
}

/** How long the provider may take to answer discovery, the token exchange or userinfo. */
const PROVIDER_TIMEOUT_S = 5

export function createOpenIdClient (options: OpenIdOptions) {
  let configuration: Promise<client.Configuration> | undefined

  /** The provider's configuration, discovered once; a failed discovery is tried again by the next sign-in. */
  async function provider (): Promise<client.Configuration> {
    configuration ??= client.discovery(new URL(options.issuer), options.clientId, options.clientSecret, undefined, {
      execute: options.allowHttp ? [client.allowInsecureRequests] : [],
      timeout: PROVIDER_TIMEOUT_S
    })
    try {
      return await configuration
    } catch {
      configuration = undefined
      return fail('unavailable', 'The OpenID provider cannot be reached right now; retry in a moment.')
    }
  }

  return {
    label: options.label,

    /** Where to send the browser, and the state and the flow's secrets to keep until it comes back. */
    async start (redirectUri: string, next: string): Promise<{ url: URL, state: string, flow: SigninFlow }> {
      const config = await provider()
      const verifier = client.randomPKCECodeVerifier()
      const state = client.randomState()
      const nonce = client.randomNonce()
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: options.scopes,
        code_challenge: await client.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        state,
        nonce
      })
      return { url, state, flow: { verifier, nonce, next } }
    },

    /**
     * The player the provider vouches for, from the callback's URL: the code
     * exchanged (with the verifier), the ID token checked (signature, issuer,
     * audience, expiry, nonce), the name from it or else from userinfo.
     * invalid_token when the provider refused or anything does not hold.
     */
    async finish (currentUrl: URL, state: string, flow: SigninFlow): Promise<PlatformPlayer> {
      const config = await provider()
      let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>
      try {
        tokens = await client.authorizationCodeGrant(config, currentUrl, { pkceCodeVerifier: flow.verifier, expectedState: state, expectedNonce: flow.nonce, idTokenExpected: true })
      } catch (error) {
        // The provider could not be reached, or took too long (fetch's TypeError, the timeout's abort).
        if (error instanceof TypeError || (error instanceof Error && ['AbortError', 'TimeoutError'].includes(error.name))) fail('unavailable', 'The OpenID provider cannot be reached right now; retry in a moment.')
        const code = (error as { error?: unknown }).error
        fail('invalid_token', typeof code === 'string' ? `The OpenID provider refused the sign-in (${code.slice(0, 50)}).` : 'The OpenID provider\'s answer does not hold.')
      }
      const claims = tokens.claims() as client.IDToken
      if (claims.sub.length > MAX_SUBJECT_LENGTH) fail('invalid_token', `The OpenID provider's subject is longer than ${MAX_SUBJECT_LENGTH} characters.`)
      let name = nameIn(claims, options.nameClaim)
      if (name === null && config.serverMetadata().userinfo_endpoint !== undefined) {
        name = await client.fetchUserInfo(config, tokens.access_token, claims.sub).then(info => nameIn(info, options.nameClaim), () => null)
      }
      return { issuer: config.serverMetadata().issuer, subject: claims.sub, name }
    }
  }
}

function nameIn (claims: Record<string, unknown>, nameClaim: string): string | null {
  for (const claim of [nameClaim, 'name']) {
    const value = Object.hasOwn(claims, claim) ? claims[claim] : undefined
    if (typeof value === 'string' && value.trim() !== '') return value
  }
  return null
}

export type OpenIdClient = ReturnType<typeof createOpenIdClient>
