import fp from 'fastify-plugin'
import cookie from '@fastify/cookie'
import type { FastifyRequest } from 'fastify'
import { normalizeOrigin } from '../../src/config/addresses.js'
import { fail } from '../../src/errors.js'
import type { StoredUser } from '../../src/store/users.js'
import { keys } from '../../src/store/keys.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** The logged-in user, read afresh from the user record on each request. */
    user: StoredUser | null
  }
  interface FastifyInstance {
    /** The logged-in user (also set as request.user), or not_logged_in unless the session cookie names a live session. */
    requireSession: (request: FastifyRequest) => Promise<StoredUser>
    /** The logged-in user, or null; for pages that work either way. */
    currentUser: (request: FastifyRequest) => Promise<StoredUser | null>
    /** preHandler: forbidden_origin for a POST/DELETE whose Origin names another site. */
    checkOrigin: (request: FastifyRequest) => Promise<void>
  }
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

/**
 * Session mode (docs/interface.md#sessions-and-login): the login cookie names an opaque
 * session id whose Redis record names the user; flags come from the user
 * record on each request, so changing them takes effect at once.
 */
export default fp(async (fastify) => {
  const { config } = fastify
  await fastify.register(cookie)
  fastify.decorateRequest('user', null)

  fastify.decorate('currentUser', async (request: FastifyRequest) => {
    const sessionId = request.cookies[config.sessionCookie]
    const session = sessionId === undefined || sessionId === '' ? null : await fastify.users.session(sessionId)
    if (session === null) return null
    const user = await fastify.users.user(session.username)
    // A session from before the user's sessions were ended (a new password, an operator) is over.
    return user === null || user.sessionEpoch !== session.epoch ? null : user
  })

  fastify.decorate('requireSession', async (request: FastifyRequest) => {
    const user = await fastify.currentUser(request)
    if (user === null) fail('not_logged_in')
    request.user = user
    request.rateLimitSubject = keys.userLimitSubject(user.username)
    return user
  })

  const allowed = new Set(config.allowedOrigins)
  fastify.decorate('checkOrigin', async (request: FastifyRequest) => {
    if (!WRITES.has(request.method)) return
    const origin = request.headers.origin
    if (origin === undefined) return
    // `Origin: null` (sandboxed frames, some redirects) counts as foreign.
    const given = origin === 'null' ? undefined : normalizeOrigin(origin)
    const own = config.publicOrigin ?? normalizeOrigin(`${request.protocol}://${request.host}`)
    if (given === undefined || (given !== own && !allowed.has(given))) fail('forbidden_origin')
  })
}, { name: 'session', dependencies: ['config', 'store', 'forms'] })
