import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { fail, ok } from '../../errors.js'
import { verifyPasswordBounded } from '../../store/passwords.js'
import { param, requireParams } from '../../lib/params.js'
import { GUEST_NAME_PATTERN, USERNAME_PATTERN } from '../../rules/fields.js'
import { checkPasswordStrength } from '../../rules/password-strength.js'
import type { StoredUser } from '../../store/users.js'
import { isDelete } from '../session/index.js'
import { guestsWelcome, playableGame } from '../../rules/games.js'
import { loginUsernameSubject } from '../../../plugins/app/rate-limit.js'
import { authSchemas } from './schemas.js'
import { refuseCredentialsInUrl, sessionStarter } from './session-start.js'
import platformSigninRoutes from './platform-signin.js'

/**
 * The small part of the platform that makes session mode usable on its own
 * (docs/interface.md#sessions-and-login): log in with a username and password,
 * sign up, play as a guest, sign in with the platform's accounts
 * (platform-signin.ts), log out; a player's own account.
 */
export default async function authRoutes (fastify: FastifyInstance): Promise<void> {
  const { config } = fastify
  await fastify.register(platformSigninRoutes)
  const { operationsOf, setSessionCookie, clearSessionCookie, startSession } = sessionStarter(fastify)

  /** Whether `password` matches `hash`; rate_limited (retry in 1 s) while the process checks as many as it may at once. */
  async function passwordMatches (password: string, hash: string | undefined, reply: FastifyReply, what: 'logins' | 'passwords'): Promise<boolean> {
    const valid = await verifyPasswordBounded(password, hash)
    if (valid === undefined) {
      reply.header('retry-after', 1)
      fail('rate_limited', `Too many ${what} are being checked right now; retry in 1 s.`)
    }
    return valid
  }

  /** Sign-up is the operator's choice (SIGNUP); closing it leaves every account as it is. */
  async function signupOpen (): Promise<void> {
    if (config.signup === 'closed') fail('forbidden', 'Sign-up is closed on this service; an operator creates accounts.')
  }

  /** The hooks of a form that carries a password: never in the URL, from this site only, its fields there, then counted. */
  function credentialsForm (required: string[], ...before: Array<(request: FastifyRequest) => Promise<void>>) {
    return {
      preValidation: [refuseCredentialsInUrl, fastify.readFields],
      preHandler: [fastify.checkOrigin, ...before, async (request: FastifyRequest) => { requireParams(request.fields, required) }, fastify.limitRate]
    }
  }

  fastify.route({
    method: 'POST',
    url: '/auth/login',
    schema: authSchemas.login,
    // Counted per address, then per username across addresses, both before
    // any password is hashed (plugins/app/rate-limit.ts).
    config: { rateLimitPolicy: 'loginAddress', noStore: true },
    ...credentialsForm(['username', 'password']),
    handler: async (request, reply) => {
      const user = await fastify.users.user(param(request.fields, 'username'))
      // The password is checked even for an unknown user, so both answers take as long.
      const valid = await passwordMatches(param(request.fields, 'password'), user?.passwordHash, reply, 'logins')
      if (user === null || !valid) fail('invalid_credentials')
      return await startSession(request, reply, user)
    }
  })

  // A proof-of-work challenge for a sign-up: the sign-up page's widget solves it in the background.
  fastify.route({
    method: 'GET',
    url: '/auth/challenge',
    schema: authSchemas.signupChallenge,
    config: { rateLimitPolicy: 'page', noStore: true },
    preHandler: [signupOpen, fastify.limitRate],
    handler: async () => ok({ challenge: await fastify.signupChallenges.create() })
  })

  /*
   * A player makes their own account (docs/interface.md#sign-up), checked
   * cheapest first: the Origin, SIGNUP, the fields, the address's and
   * everyone's limits, the name, the password's strength, a free name; then
   * the proof of work is spent and the account made (audited as the
   * player's), and the player is logged in.
   */
  fastify.route({
    method: 'POST',
    url: '/auth/signup',
    schema: authSchemas.signup,
    config: { rateLimitPolicy: 'signupAddress', noStore: true },
    ...credentialsForm(['username', 'password', 'altcha'], signupOpen),
    handler: async (request, reply) => {
      const username = param(request.fields, 'username')
      const password = param(request.fields, 'password')
      if (!USERNAME_PATTERN.test(username)) fail('invalid_param', 'username must be 1 to 30 characters from A-Z a-z 0-9 _ . -')
      if (GUEST_NAME_PATTERN.test(username)) fail('invalid_param', 'Names beginning with guest- are for guests: choose another username.')
      checkPasswordStrength(password, username)
      // Not a user's, nor any game's player's: the account would own their scores.
      const operations = operationsOf(request, `player:${username}`)
      if (await operations.nameTaken(username)) fail('already_exists', `The username "${username}" is taken.`)
      await fastify.signupChallenges.redeem(param(request.fields, 'altcha'))
      // Sign-ups from many addresses at once (a botnet) meet one limit for all, counted only
      // for proofs of work that hold: unsolved attempts cannot close sign-up for everyone.
      await fastify.rateLimits.enforce(request, reply, 'signupAll', 'all')
      await operations.createUser({ username, password })
      const user = await fastify.users.user(username)
      if (user === null) fail('internal_error')
      return await startSession(request, reply, user)
    }
  })

  /*
   * A visitor plays a game at once, as a guest (docs/guide.md#guests): the
   * Origin, the game_id, the address's limit, the game (playable, taking
   * guests), everyone's limit; then the guest and its session. A visitor
   * already logged in (a user, or a guest) stays who they are.
   */
  fastify.route({
    method: 'POST',
    url: '/auth/guest',
    schema: authSchemas.guest,
    config: { rateLimitPolicy: 'guestAddress', noStore: true },
    preValidation: fastify.readFields,
    preHandler: [fastify.checkOrigin, async (request: FastifyRequest) => { requireParams(request.fields, ['game_id']) }, fastify.limitRate],
    handler: async (request, reply) => {
      const game = playableGame(await fastify.records.game(param(request.fields, 'game_id')))
      guestsWelcome(game)
      const current = await fastify.currentUser(request)
      if (current !== null) return ok({ username: current.username, is_admin: current.is_admin, guest: current.guest, guest_until: current.guest_until })
      await fastify.rateLimits.enforce(request, reply, 'guestAll', 'all')
      const { user, session } = await fastify.admin.as({ name: 'guest', via: 'http', request_id: String(request.id) }).createGuest(game)
      setSessionCookie(reply, session.sessionId, config.guestTtlS)
      return ok({ username: user.username, is_admin: false, guest: true, guest_until: user.guest_until })
    }
  })

  fastify.route({
    method: 'POST',
    url: '/auth/logout',
    schema: authSchemas.logout,
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

  // A logged-in player's own account: what is kept about them, a new password, deleting it.
  const ownAccount = {
    config: { rateLimitPolicy: 'session' as const, noStore: true },
    preValidation: [refuseCredentialsInUrl, fastify.readFields],
    preHandler: [fastify.requireSession, fastify.checkOrigin, fastify.limitRate]
  }
  const asThePlayer = (request: FastifyRequest) => operationsOf(request, `player:${(request.user as StoredUser).username}`)

  /** The password a change or a deletion is confirmed with; a user without one (made for a platform's sessions) cannot confirm. */
  async function confirmPassword (request: FastifyRequest, user: StoredUser, password: string, reply: FastifyReply): Promise<void> {
    // As many tries as a login: a stolen session (or a game's script on this origin) cannot guess faster.
    await fastify.rateLimits.enforce(request, reply, 'loginUsername', loginUsernameSubject(user.username))
    if (!await passwordMatches(password, user.passwordHash, reply, 'passwords')) fail('invalid_credentials', 'The current password is wrong.')
  }

  fastify.route({
    method: 'GET',
    url: '/auth/account',
    schema: authSchemas.account,
    ...ownAccount,
    handler: async (request) => ok(await asThePlayer(request).userData((request.user as StoredUser).username))
  })

  // A new password ends every other session of the player; this one goes on, with a new session id.
  fastify.route({
    method: 'POST',
    url: '/auth/password',
    schema: authSchemas.changePassword,
    ...ownAccount,
    handler: async (request, reply) => {
      requireParams(request.fields, ['password', 'new_password'])
      const user = request.user as StoredUser
      const newPassword = param(request.fields, 'new_password')
      await confirmPassword(request, user, param(request.fields, 'password'), reply)
      checkPasswordStrength(newPassword, user.username)
      await asThePlayer(request).updateUser(user.username, { password: newPassword })
      return await startSession(request, reply, await fastify.users.user(user.username) ?? fail('not_logged_in'))
    }
  })

  // The player's game token for Game Jolt's clients (docs/gamejolt.md#players-and-tokens).
  fastify.route({
    method: 'GET',
    url: '/auth/game-token',
    schema: authSchemas.gameToken,
    ...ownAccount,
    handler: async (request) => ok(await asThePlayer(request).gameToken((request.user as StoredUser).username, undefined, { current: true }))
  })
  fastify.route({
    method: 'POST',
    url: '/auth/game-token',
    schema: authSchemas.newGameToken,
    ...ownAccount,
    handler: async (request) => ok(await asThePlayer(request).gameToken((request.user as StoredUser).username))
  })

  fastify.route({
    method: 'GET',
    url: '/auth/sessions',
    schema: authSchemas.sessions,
    ...ownAccount,
    handler: async (request) => ok({ sessions: await fastify.users.ownSessions((request.user as StoredUser).username, request.cookies[config.sessionCookie] ?? '') })
  })

  // Logging out everywhere else is ending every session, audited as the player's, then a new one for this browser (as a new password does).
  fastify.route({
    method: ['POST', 'DELETE'],
    url: '/auth/sessions',
    schema: authSchemas.endOtherSessions,
    ...ownAccount,
    handler: async (request, reply) => {
      if (!isDelete(request)) fail('invalid_param', 'POST /auth/sessions logs out everywhere else: send _method=DELETE.')
      const user = request.user as StoredUser
      // A guest's one session lasts as long as the guest; a new one would outlive it (and a guest has nowhere else).
      if (user.guest) fail('forbidden', 'A guest is logged in on this browser only: sign up to keep your play and log in elsewhere.')
      const others = (await fastify.users.ownSessions(user.username, request.cookies[config.sessionCookie] ?? '')).filter(session => !session.current).length
      await asThePlayer(request).endUserSessions(user.username)
      await startSession(request, reply, await fastify.users.user(user.username) ?? fail('not_logged_in'))
      return ok({ ended: others })
    }
  })

  // Deleting one's account is the operators' erasure (docs/guide.md#erasure), audited as the player's.
  fastify.route({
    method: ['POST', 'DELETE'],
    url: '/auth/account',
    schema: authSchemas.deleteAccount,
    ...ownAccount,
    handler: async (request, reply) => {
      if (!isDelete(request)) fail('invalid_param', 'POST /auth/account deletes the account: send _method=DELETE.')
      const user = request.user as StoredUser
      if (user.passwordHash === undefined) {
        // A player who signs in through the platform (or a guest) has no password here: they type their username instead.
        requireParams(request.fields, ['username'])
        if (param(request.fields, 'username') !== user.username) fail('invalid_credentials', 'Type your username exactly to confirm the deletion.')
      } else {
        requireParams(request.fields, ['password'])
        await confirmPassword(request, user, param(request.fields, 'password'), reply)
      }
      // Audited as a player's own deletion, without the name: the erasure keeps counts, not the person.
      const erased = await operationsOf(request, 'player').eraseUser(user.username, { erase: true })
      clearSessionCookie(reply)
      return ok(erased)
    }
  })
}
