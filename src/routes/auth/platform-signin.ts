import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ApiError, fail } from '../../errors.js'
import { param, requireParams } from '../../lib/params.js'
import { createTokenVerifier } from '../../signin/platform-token.js'
import { createOpenIdClient, type OpenIdClient } from '../../signin/openid.js'
import { SIGNIN_FLOW_TTL_S } from '../../store/signin-flows.js'
import { safeNext } from '../play/index.js'
import { authSchemas } from './schemas.js'
import { refuseCredentialsInUrl, sessionStarter } from './session-start.js'

/**
 * Sign-in with the platform's own accounts (docs/signin.md): no password is
 * kept here. A platform's identity (its issuer and its player's subject) is
 * linked to a user at the first sign-in, which makes the user; every later
 * one finds the user by the identity, whatever the player is called by then.
 */
export default async function platformSigninRoutes (fastify: FastifyInstance): Promise<void> {
  const { config } = fastify
  const { cookieOptions, operationsOf, startSession } = sessionStarter(fastify)
  const tokens = config.tokenSignin === null ? null : createTokenVerifier(config.tokenSignin)

  /*
   * A JWT the platform signed for its player (docs/signin.md#signed-tokens):
   * the Origin, TOKEN_SIGNIN_* set, the token present, the address's limit;
   * then the token (signature, iss, aud, exp) and the user it names.
   */
  fastify.route({
    method: 'POST',
    url: '/auth/token',
    schema: authSchemas.tokenSignin,
    config: { rateLimitPolicy: 'signinAddress', noStore: true },
    preValidation: [refuseCredentialsInUrl, fastify.readFields],
    preHandler: [
      fastify.checkOrigin,
      async () => { if (tokens === null) fail('forbidden', 'Sign-in with signed tokens is not set up on this service (TOKEN_SIGNIN_ISSUER).') },
      async (request: FastifyRequest) => { requireParams(request.fields, ['token']) },
      fastify.limitRate
    ],
    handler: async (request, reply) => {
      const token = param(request.fields, 'token')
      const player = await (tokens as NonNullable<typeof tokens>).verify(token)
      if (!await fastify.signinFlows.spendToken(player.signed, player.expiresAtMs)) fail('invalid_token', 'The sign-in token is not valid: it was used before; the platform makes a new one for each sign-in.')
      // Audited as `player`: the name is not decided until the first sign-in has chosen one.
      const user = await operationsOf(request, 'player').signInWithIdentity({ method: 'token', issuer: player.issuer, subject: player.subject }, player.name)
      return await startSession(request, reply, user)
    }
  })

  const openId = config.openId === null ? null : createOpenIdClient(config.openId)
  // Over HTTPS a __Host- cookie: no sibling subdomain can plant a state of its own (and so sign this browser in as someone else).
  const stateCookie = { httpOnly: true, sameSite: 'lax' as const, path: cookieOptions.secure ? '/' : '/auth/oidc/', secure: cookieOptions.secure, maxAge: SIGNIN_FLOW_TTL_S }
  const STATE_COOKIE = cookieOptions.secure ? '__Host-oidc_state' : 'oidc_state'

  /** The callback URL the provider sends the browser back to: registered with the provider as it is. */
  const callbackUrl = (request: FastifyRequest): string => `${config.publicOrigin ?? `${request.protocol}://${request.host}`}/auth/oidc/callback`

  async function openIdOn (): Promise<void> {
    if (openId === null) fail('forbidden', 'Sign-in with OpenID Connect is not set up on this service (OIDC_ISSUER).')
  }

  /*
   * "Sign in with …" (docs/signin.md#openid-connect), step 1: a state, a
   * nonce and a PKCE verifier kept in Redis under the state, the state in a
   * cookie of this browser, and the browser sent to the provider.
   */
  fastify.get('/auth/oidc/start', {
    schema: authSchemas.openIdStart,
    config: { rateLimitPolicy: 'signinAddress', noStore: true },
    preHandler: [openIdOn, fastify.limitRate]
  }, async (request, reply) => {
    const next = safeNext((request.query as Record<string, unknown>).next) ?? '/'
    let started: Awaited<ReturnType<OpenIdClient['start']>>
    try {
      started = await (openId as OpenIdClient).start(callbackUrl(request), next)
    } catch (error) {
      // A browser followed a link: the login page says the provider cannot be reached.
      if (error instanceof ApiError && error.code === 'unavailable') return await reply.redirect('/login?signin=unavailable', 303)
      throw error
    }
    const { url, state, flow } = started
    await fastify.signinFlows.save(state, flow)
    reply.setCookie(STATE_COOKIE, state, stateCookie)
    return await reply.redirect(url.href, 302)
  })

  /*
   * Step 2, where the provider sends the browser back: the state must be
   * this browser's (a link from elsewhere cannot sign anyone in as someone
   * else) and its flow still kept (once); then the code is exchanged and the
   * ID token checked, and the player is signed in. The browser goes on to
   * where it started; a failure goes to the login page, which says why.
   */
  fastify.get('/auth/oidc/callback', {
    schema: authSchemas.openIdCallback,
    config: { rateLimitPolicy: 'signinAddress', noStore: true },
    preHandler: [openIdOn, fastify.limitRate]
  }, async (request, reply) => {
    reply.clearCookie(STATE_COOKIE, stateCookie)
    const query = request.query as Record<string, unknown>
    const state = typeof query.state === 'string' ? query.state : ''
    const failed = async (reason: SigninFailure): Promise<FastifyReply> => await reply.redirect(`/login?signin=${reason}`, 303)
    if (state === '' || request.cookies[STATE_COOKIE] !== state) return await failed('expired')
    const flow = await fastify.signinFlows.take(state)
    if (flow === null) return await failed('expired')
    if (typeof query.error === 'string') return await failed('refused')
    try {
      const currentUrl = new URL(request.url, callbackUrl(request))
      const player = await (openId as OpenIdClient).finish(currentUrl, state, flow)
      const user = await operationsOf(request, 'player').signInWithIdentity({ method: 'oidc', issuer: player.issuer, subject: player.subject }, player.name)
      await startSession(request, reply, user)
    } catch (error) {
      if (!(error instanceof ApiError)) throw error
      request.log.info({ code: error.code, reason: error.message }, 'OpenID Connect sign-in failed')
      return await failed(error.code === 'unavailable' ? 'unavailable' : 'refused')
    }
    return await reply.redirect(flow.next, 303)
  })
}

/** Why an OpenID Connect sign-in failed, as the login page says it (never the provider's text). */
export type SigninFailure = 'expired' | 'refused' | 'unavailable'
