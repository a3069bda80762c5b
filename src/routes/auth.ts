import { createHash } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { fail, ok } from '../envelope.js'
import { verifyPassword } from '../passwords.js'
import { param } from '../params.js'
import { requires } from './requires.js'
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
 * (DECISIONS.md section 4): log in with a username and password, log out.
 */
export default async function authRoutes (fastify: FastifyInstance): Promise<void> {
  const { config } = fastify
  const cookieOptions = {
    httpOnly: true,
    sameSite: 'lax' as const,
    path: '/',
    secure: config.nodeEnv === 'production'
  }

  function clearSessionCookie (reply: FastifyReply): void {
    reply.clearCookie(config.sessionCookie, cookieOptions)
  }

  fastify.route({
    method: 'POST',
    url: '/auth/login',
    schema: routeSchemas.login,
    config: { rateLimitPolicy: 'login' },
    preValidation: [fastify.readFields, refuseCredentialsInUrl],
    preHandler: [
      fastify.checkOrigin,
      requires('username', 'password'),
      async (request) => {
        // Counted per (address, username); the name is hashed so any text is a safe key.
        const name = createHash('sha256').update(param(request.fields, 'username')).digest('base64url').slice(0, 22)
        request.rateLimitSubject = `${request.ip}:${name}`
      },
      fastify.limitRate
    ],
    handler: async (request, reply) => {
      const user = await fastify.users.user(param(request.fields, 'username'))
      // The password is checked even for an unknown user, so both answers take as long.
      const valid = await verifyPassword(param(request.fields, 'password'), user?.passwordHash)
      if (user === null || !valid) fail('invalid_credentials')
      const session = await fastify.users.createSession(user.username, config.sessionTtlS)
      reply.setCookie(config.sessionCookie, session.sessionId, { ...cookieOptions, maxAge: config.sessionTtlS })
      return ok({ username: user.username, is_admin: user.is_admin })
    }
  })

  fastify.route({
    method: 'POST',
    url: '/auth/logout',
    schema: routeSchemas.logout,
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
