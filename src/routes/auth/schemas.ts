import { Type } from '@sinclair/typebox'
import { Empty, Nullable, envelope, redirectAnswer } from '../schemas.js'

/** The route schemas of /auth: logging in and out, sign-up, guests, the player's account, sign-in with the platform. */

const GameToken = Type.Object({
  username: Type.String(),
  game_token: Type.String({ description: 'lowercase letters and digits; with the username, what a Game Jolt client logs in with' })
})

/** Everything kept about a user: for the user (GET /auth/account) and for an operator (GET /admin/users/:username/export). */
export const UserDataSchema = Type.Object({
  username: Type.String(),
  is_admin: Type.Boolean(),
  hidden: Type.Boolean(),
  created_at: Type.String({ format: 'date-time' }),
  guest: Type.Boolean(),
  guest_until: Nullable(Type.String({ format: 'date-time' })),
  sign_in: Type.Array(Type.Object({ method: Type.String(), issuer: Type.Optional(Type.String()), subject: Type.Optional(Type.String()) }), { description: 'how the player signs in: a password, and each identity at the platform' }),
  games: Type.Array(Type.Object({
    game_id: Type.String(),
    best_score: Nullable(Type.Integer({ description: "the player's best on the game's all-time board (its current season)" })),
    rank: Nullable(Type.Integer({ description: 'null while hidden or without a best' })),
    stars: Nullable(Type.Integer({ description: 'their rating, 1..10 half stars' })),
    playtime_seconds: Type.Integer(),
    saved_items: Type.Array(Type.Object({ key: Type.String(), bytes: Type.Integer() }), { description: 'their Game Jolt data store items in the game (docs/gamejolt.md#data-store): keys and sizes, up to 1000' })
  }), { description: 'each game where they have a best score, a rating, play time or saved items, in game id order' })
})

export const authSchemas = {
  login: envelope(Type.Object({ username: Type.String(), is_admin: Type.Boolean() }), ['forbidden_origin', 'missing_param', 'rate_limited', 'invalid_credentials'], 'Log in; sets the session cookie', {
    tags: ['session'],
    body: Type.Object({ username: Type.String(), password: Type.String() })
  }),
  logout: envelope(Empty, ['forbidden_origin'], 'Log out; ends the session', { tags: ['session'] }),
  account: envelope(UserDataSchema, ['not_logged_in', 'rate_limited'], 'Everything kept about the logged-in player', { tags: ['session'] }),
  changePassword: envelope(Type.Object({ username: Type.String(), is_admin: Type.Boolean() }), ['not_logged_in', 'forbidden_origin', 'rate_limited', 'missing_param', 'invalid_credentials', 'weak_password'], "Change the logged-in player's password: every other session ends, this one goes on with a new cookie", {
    tags: ['session'], body: Type.Object({ password: Type.String({ description: 'the current password' }), new_password: Type.String() })
  }),
  gameToken: envelope(GameToken, ['not_logged_in', 'rate_limited'], "The logged-in player's game token, what Game Jolt's clients send as user_token (docs/gamejolt.md): made the first time it is asked for", { tags: ['session'] }),
  newGameToken: envelope(GameToken, ['not_logged_in', 'forbidden_origin', 'rate_limited'], 'A new game token for the logged-in player: the previous one stops working at once', { tags: ['session'] }),
  sessions: envelope(Type.Object({
    sessions: Type.Array(Type.Object({
      expires_at: Type.String({ format: 'date-time' }),
      current: Type.Boolean({ description: 'the session of this request' })
    }), { description: "the player's live sessions (at most 20), soonest to expire first; their ids are never shown" })
  }), ['not_logged_in', 'rate_limited'], "The logged-in player's sessions: where they are logged in", { tags: ['session'] }),
  endOtherSessions: envelope(Type.Object({ ended: Type.Integer({ description: 'how many other sessions ended' }) }), ['not_logged_in', 'forbidden_origin', 'rate_limited', 'invalid_param', 'forbidden'], 'Log out everywhere else: every other session of the player ends, this one goes on with a new cookie (POST needs _method=DELETE)', {
    tags: ['session'], body: Type.Object({ _method: Type.Optional(Type.Literal('DELETE')) })
  }),
  deleteAccount: envelope(Type.Object({}, { additionalProperties: Type.Integer(), description: 'what was erased, counted' }), ['not_logged_in', 'forbidden_origin', 'rate_limited', 'invalid_param', 'missing_param', 'invalid_credentials'], "Delete the logged-in player's account: everything kept about them is erased, everywhere (POST needs _method=DELETE)", {
    tags: ['session'], body: Type.Object({ password: Type.Optional(Type.String({ description: 'the current password' })), username: Type.Optional(Type.String({ description: 'for a player without a password here (signed in through the platform, or a guest): their username, typed to confirm' })), _method: Type.Optional(Type.Literal('DELETE')) })
  }),
  signupChallenge: envelope(Type.Object({
    challenge: Type.Object({
      parameters: Type.Object({}, { additionalProperties: true, description: 'what to solve (ALTCHA): the key derivation, its cost, the prefix to find, the expiry' }),
      signature: Type.String()
    }, { description: "solve it with the ALTCHA widget or altcha-lib's solveChallenge, and send the payload they make as altcha" })
  }), ['forbidden', 'rate_limited'], 'A proof-of-work challenge for a sign-up (ALTCHA, self-hosted)', { tags: ['session'] }),
  signup: envelope(Type.Object({ username: Type.String(), is_admin: Type.Boolean() }), ['forbidden_origin', 'forbidden', 'missing_param', 'rate_limited', 'weak_password', 'already_exists', 'invalid_challenge'], 'Create an account and log in as it; sets the session cookie (SIGNUP=open)', {
    tags: ['session'],
    body: Type.Object({
      username: Type.String({ description: '1 to 30 characters from A-Z a-z 0-9 _ . -' }),
      password: Type.String({ description: 'at least 8 characters, hard to guess (zxcvbn score 3 of 4)' }),
      altcha: Type.String({ description: 'the solved challenge of GET /auth/challenge, as the ALTCHA widget sends it (base64 JSON)' })
    })
  }),
  tokenSignin: envelope(Type.Object({ username: Type.String(), is_admin: Type.Boolean() }), ['forbidden_origin', 'forbidden', 'missing_param', 'rate_limited', 'invalid_param', 'invalid_token', 'unavailable'], 'Sign in with a JWT the platform signed for its player; sets the session cookie (TOKEN_SIGNIN_*)', {
    tags: ['session'],
    body: Type.Object({ token: Type.String({ description: 'the JWT: sub, exp, iss and aud as the service is set up, at most 8192 characters' }) })
  }),
  openIdStart: redirectAnswer(envelope(Type.Null(), ['forbidden', 'rate_limited'], 'Sign in with the OpenID Connect provider (OIDC_*): redirects the browser to it (to /login?signin=unavailable when it cannot be reached)', {
    tags: ['session'],
    querystring: Type.Object({ next: Type.Optional(Type.String({ description: 'a path on this site to go to once signed in (default /, the front page)' })) })
  }), 302, 'to the provider, or to the login page that says it cannot be reached'),
  openIdCallback: redirectAnswer(envelope(Type.Null(), ['forbidden', 'rate_limited', 'invalid_param'], 'Where the OpenID Connect provider sends the browser back: signs the player in, then redirects to where they began (or to /login?signin=expired|refused|unavailable)', {
    tags: ['session'],
    querystring: Type.Object({ code: Type.Optional(Type.String()), state: Type.Optional(Type.String()), error: Type.Optional(Type.String()) }, { additionalProperties: true })
  }), 303, 'to the page the sign-in began from, or to the login page that says why it failed'),
  guest: envelope(Type.Object({
    username: Type.String({ description: 'the generated name, guest- and six digits' }),
    is_admin: Type.Boolean(),
    guest: Type.Boolean({ description: 'false when a user was logged in already: nothing was made' }),
    guest_until: Nullable(Type.String({ format: 'date-time', description: 'when the guest and its play are erased, unless it signs up or logs in first' }))
  }), ['forbidden_origin', 'missing_param', 'rate_limited', 'invalid_game', 'forbidden'], 'Play as a guest of a game that takes guests; sets the session cookie', {
    tags: ['session'],
    body: Type.Object({ game_id: Type.String({ description: 'a game whose guests setting is listed or unlisted' }) })
  })
}
