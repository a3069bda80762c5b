import type { FastifyInstance, FastifyRequest } from 'fastify'
import { fail } from '../../errors.js'
import { param, requireParams } from '../../rules/fields.js'
import { createTokenVerifier } from '../../signin/platform-token.js'
import { routeSchemas } from '../schemas.js'
import { refuseCredentialsInUrl, sessionStarter } from './session-start.js'

/**
 * Sign-in with the platform's own accounts (docs/signin.md): no password is
 * kept here. A platform's identity (its issuer and its player's subject) is
 * linked to a user at the first sign-in, which makes the user; every later
 * one finds the user by the identity, whatever the player is called by then.
 */
export default async function platformSigninRoutes (fastify: FastifyInstance): Promise<void> {
  const { config } = fastify
  const { operationsOf, startSession } = sessionStarter(fastify)
  const tokens = config.tokenSignin === null ? null : createTokenVerifier(config.tokenSignin)

  /*
   * A JWT the platform signed for its player (docs/signin.md#signed-tokens):
   * the Origin, TOKEN_SIGNIN_* set, the token present, the address's limit;
   * then the token (signature, iss, aud, exp) and the user it names.
   */
  fastify.route({
    method: 'POST',
    url: '/auth/token',
    schema: routeSchemas.tokenSignin,
    config: { rateLimitPolicy: 'signinAddress', noStore: true },
    preValidation: [refuseCredentialsInUrl, fastify.readFields],
    preHandler: [
      fastify.checkOrigin,
      async () => { if (tokens === null) fail('forbidden', 'Sign-in with signed tokens is not set up on this service (TOKEN_SIGNIN_ISSUER).') },
      async (request: FastifyRequest) => { requireParams(request.fields, ['token']) },
      fastify.limitRate
    ],
    handler: async (request, reply) => {
      const player = await (tokens as NonNullable<typeof tokens>).verify(param(request.fields, 'token'))
      // Audited as `player`: the name is not decided until the first sign-in has chosen one.
      const user = await operationsOf(request, 'player').signInWithIdentity({ method: 'token', issuer: player.issuer, subject: player.subject }, player.name)
      return await startSession(request, reply, user)
    }
  })
}
