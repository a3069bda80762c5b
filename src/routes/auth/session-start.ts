import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { fail, ok } from '../../errors.js'
import type { StoredUser } from '../../store/users.js'

/**
 * Credentials in a URL end up in browser history, proxy logs and Referer
 * headers: login, sign-up and sign-in take them from the body only.
 */
export async function refuseCredentialsInUrl (request: FastifyRequest): Promise<void> {
  const query = request.query as Record<string, unknown>
  for (const name of ['username', 'password', 'new_password', 'token']) {
    if (Object.hasOwn(query, name)) fail('invalid_param', `Send ${name} in the request body, never in the URL.`)
  }
}

/**
 * How every way of signing in ends (a password, a sign-up, a platform's
 * token, OpenID Connect): a session for the user, its cookie, and one
 * answer. Shared by the auth routes, so the cookie's attributes and the
 * guest's claim are written once.
 */
export function sessionStarter (fastify: FastifyInstance) {
  const { config } = fastify
  const cookieOptions = {
    httpOnly: true,
    sameSite: 'lax' as const,
    path: '/',
    // A __Host- or __Secure- cookie is dropped by browsers unless it is Secure.
    secure: config.nodeEnv === 'production' || /^__(?:Host|Secure)-/.test(config.sessionCookie)
  }

  /** The operations as a player makes them: audited as `player:<name>` (or `player` alone, for an erasure). */
  const operationsOf = (request: FastifyRequest, name: string) => fastify.admin.as({ name, via: 'http', request_id: String(request.id) })

  function setSessionCookie (reply: FastifyReply, sessionId: string, ttlS: number): void {
    reply.setCookie(config.sessionCookie, sessionId, { ...cookieOptions, maxAge: ttlS })
  }

  return {
    cookieOptions,
    operationsOf,
    setSessionCookie,

    clearSessionCookie (reply: FastifyReply): void {
      reply.clearCookie(config.sessionCookie, cookieOptions)
    },

    /**
     * Logs `user` in: a new session, its cookie, and the answer of login,
     * sign-up and sign-in. A guest who was playing in this browser becomes
     * `user` first: its play moves to them (docs/guide.md#guests).
     */
    async startSession (request: FastifyRequest, reply: FastifyReply, user: StoredUser) {
      const before = await fastify.currentUser(request)
      if (before?.guest === true && before.username !== user.username) await operationsOf(request, `player:${user.username}`).claimGuest(before.username, user.username)
      const session = await fastify.users.createSession(user, config.sessionTtlS)
      setSessionCookie(reply, session.sessionId, config.sessionTtlS)
      return ok({ username: user.username, is_admin: user.is_admin })
    }
  }
}
