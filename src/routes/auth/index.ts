import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { fail, ok } from '../../errors.js'
import { verifyPasswordBounded } from '../../store/passwords.js'
import { param, requireParams } from '../../rules/fields.js'
import { routeSchemas } from '../schemas.js'

/**
 * Credentials in a URL end up in browser history, proxy logs and Referer
 * headers: login takes them from the body only.
 */
async function refuseCredentialsInUrl (request: FastifyRequest): Promise<void> {
  const query = request.query as Record<string, unknown>
  for (const name of ['username', 'password']) {
    if (Object.hasOwn(query, name)) fail('invalid_param', `Send ${name} in the request body, never in the URL.`)
  }
}

/**
 * The small part of the platform that makes session mode usable on its own
 * (docs/interface.md#sessions-and-login): log in with a username and password, log out.
 */
export default async function authRoutes (fastify: FastifyInstance): Promise<void> {
  const { config } = fastify
  const cookieOptions = {
    httpOnly: true,
    sameSite: 'lax' as const,
    path: '/',
    // A __Host- or __Secure- cookie is dropped by browsers unless it is Secure.
    secure: config.nodeEnv === 'production' || /^__(?:Host|Secure)-/.test(config.sessionCookie)
  }

  function clearSessionCookie (reply: FastifyReply): void {
    reply.clearCookie(config.sessionCookie, cookieOptions)
  }

  fastify.route({
    method: 'POST',
    url: '/auth/login',
    schema: routeSchemas.login,
    // Counted per address, then per username across addresses, both before
    // any password is hashed (plugins/app/rate-limit.ts).
    config: { rateLimitPolicy: 'loginAddress', noStore: true },
    preValidation: [refuseCredentialsInUrl, fastify.readFields],
    preHandler: [fastify.checkOrigin, async (request) => { requireParams(request.fields, ['username', 'password']) }, fastify.limitRate],
    handler: async (request, reply) => {
      const user = await fastify.users.user(param(request.fields, 'username'))
      // The password is checked even for an unknown user, so both answers take as long.
      const valid = await verifyPasswordBounded(param(request.fields, 'password'), user?.passwordHash)
      if (valid === undefined) {
        reply.header('retry-after', 1)
        fail('rate_limited', 'Too many logins are being checked right now; retry in 1 s.')
      }
      if (user === null || !valid) fail('invalid_credentials')
      const session = await fastify.users.createSession(user, config.sessionTtlS)
      reply.setCookie(config.sessionCookie, session.sessionId, { ...cookieOptions, maxAge: config.sessionTtlS })
      return ok({ username: user.username, is_admin: user.is_admin })
    }
  })

  fastify.route({
    method: 'POST',
    url: '/auth/logout',
    schema: routeSchemas.logout,
    // No noStore here: the cookie it clears makes the answer no-store (plugins/external/security-headers.ts).
    preValidation: fastify.readFields,
    preHandler: fastify.checkOrigin,
    handler: async (request, reply) => {
      const sessionId = request.cookies[config.sessionCookie]
      if (sessionId !== undefined && sessionId !== '') await fastify.users.deleteSession(sessionId)
      clearSessionCookie(reply)
      return ok({})
    }
  })
}
