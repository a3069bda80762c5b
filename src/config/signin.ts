import { createPublicKey } from 'node:crypto'
import type { TokenSigninOptions } from '../signin/platform-token.js'
import type { OpenIdOptions } from '../signin/openid.js'
import { ConfigError, integer, type Env, type NodeEnv } from './values.js'
import { normalizeOrigin } from './addresses.js'

/**
 * Sign-in with the platform's signed tokens (docs/signin.md#signed-tokens):
 * off unless TOKEN_SIGNIN_ISSUER is set, and then exactly one way to check
 * signatures: a JWKS URL (https in production), a PEM public key (`\n` may
 * stand for its line breaks), or a shared secret of at least 32 characters.
 */
export function tokenSignin (env: Env, nodeEnv: NodeEnv): TokenSigninOptions | null {
  const issuer = env.TOKEN_SIGNIN_ISSUER ?? ''
  const ways = (['TOKEN_SIGNIN_JWKS_URL', 'TOKEN_SIGNIN_PUBLIC_KEY', 'TOKEN_SIGNIN_SECRET'] as const).filter(name => (env[name] ?? '') !== '')
  if (issuer === '') {
    if (ways.length > 0) throw new ConfigError('TOKEN_SIGNIN_ISSUER', `must be set with ${ways[0] as string}: the iss the platform's tokens carry`, '')
    return null
  }
  if (issuer.length > 200) throw new ConfigError('TOKEN_SIGNIN_ISSUER', 'must be at most 200 characters', issuer)
  if (ways.length !== 1) throw new ConfigError('TOKEN_SIGNIN_ISSUER', 'needs exactly one of TOKEN_SIGNIN_JWKS_URL, TOKEN_SIGNIN_PUBLIC_KEY, TOKEN_SIGNIN_SECRET', ways.join(', ') || '(none)')
  const options: TokenSigninOptions = {
    issuer,
    // Each installation its own audience: a token minted for one is refused by another.
    audience: env.TOKEN_SIGNIN_AUDIENCE === undefined || env.TOKEN_SIGNIN_AUDIENCE === '' ? normalizeOrigin(env.PUBLIC_ORIGIN ?? '') ?? 'ranking-service' : env.TOKEN_SIGNIN_AUDIENCE,
    nameClaim: env.TOKEN_SIGNIN_NAME_CLAIM === undefined || env.TOKEN_SIGNIN_NAME_CLAIM === '' ? 'name' : env.TOKEN_SIGNIN_NAME_CLAIM,
    maxLifetimeS: integer(env, 'TOKEN_SIGNIN_MAX_LIFETIME_S', 900, 10, 86400)
  }
  const jwksUrl = env.TOKEN_SIGNIN_JWKS_URL ?? ''
  const publicKey = (env.TOKEN_SIGNIN_PUBLIC_KEY ?? '').replace(/\\n/g, '\n')
  const secret = env.TOKEN_SIGNIN_SECRET ?? ''
  if (jwksUrl !== '') {
    let url: URL | undefined
    try { url = new URL(jwksUrl) } catch {}
    const schemes = nodeEnv === 'production' ? ['https:'] : ['https:', 'http:']
    if (url === undefined || !schemes.includes(url.protocol)) throw new ConfigError('TOKEN_SIGNIN_JWKS_URL', `must be an ${schemes.join(' or ').replace(/:/g, '')} URL`, jwksUrl)
    options.jwksUrl = jwksUrl
  } else if (publicKey !== '') {
    try {
      // A private key would also give a public one: refused, so no private key sits in the service's environment.
      if (!/^-----BEGIN PUBLIC KEY-----/.test(publicKey.trim()) || createPublicKey(publicKey).type !== 'public') throw new Error('not a public key')
    } catch {
      throw new ConfigError('TOKEN_SIGNIN_PUBLIC_KEY', 'must be a public key in PEM (-----BEGIN PUBLIC KEY-----)', '(not shown)')
    }
    options.publicKey = publicKey
  } else {
    if (secret.length < 32) throw new ConfigError('TOKEN_SIGNIN_SECRET', 'must be at least 32 characters', '(hidden)')
    options.secret = secret
  }
  return options
}

/**
 * "Sign in with …" an OpenID Connect provider (docs/signin.md#openid-connect):
 * off unless OIDC_ISSUER is set, and then its client id and secret too. The
 * issuer is https, or http on loopback outside production (a provider on
 * this machine, or a test's).
 */
export function openId (env: Env, nodeEnv: NodeEnv): OpenIdOptions | null {
  const issuer = env.OIDC_ISSUER ?? ''
  const clientId = env.OIDC_CLIENT_ID ?? ''
  const clientSecret = env.OIDC_CLIENT_SECRET ?? ''
  if (issuer === '') {
    if (clientId !== '' || clientSecret !== '') throw new ConfigError('OIDC_ISSUER', 'must be set with OIDC_CLIENT_ID and OIDC_CLIENT_SECRET: the provider\'s issuer URL', '')
    return null
  }
  let url: URL | undefined
  try { url = new URL(issuer) } catch {}
  const loopback = url !== undefined && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)
  const allowHttp = url?.protocol === 'http:' && loopback && nodeEnv !== 'production'
  if (url === undefined || (url.protocol !== 'https:' && !allowHttp)) throw new ConfigError('OIDC_ISSUER', 'must be an https URL (http only on loopback, outside production)', issuer)
  if (clientId === '') throw new ConfigError('OIDC_CLIENT_ID', 'must be set with OIDC_ISSUER', '')
  if (clientSecret === '') throw new ConfigError('OIDC_CLIENT_SECRET', 'must be set with OIDC_ISSUER', '')
  const scopes = env.OIDC_SCOPES === undefined || env.OIDC_SCOPES === '' ? 'openid profile' : env.OIDC_SCOPES
  if (!scopes.split(' ').includes('openid')) throw new ConfigError('OIDC_SCOPES', 'must include openid (space-separated scopes)', scopes)
  const label = env.OIDC_LABEL ?? ''
  if (label.length > 40) throw new ConfigError('OIDC_LABEL', 'must be at most 40 characters', label)
  return {
    issuer,
    clientId,
    clientSecret,
    label: label === '' ? url.hostname : label,
    nameClaim: env.OIDC_NAME_CLAIM === undefined || env.OIDC_NAME_CLAIM === '' ? 'preferred_username' : env.OIDC_NAME_CLAIM,
    scopes,
    allowHttp
  }
}
