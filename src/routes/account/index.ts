import type { FastifyInstance, FastifySchema } from 'fastify'
import { HELMET } from '../../../plugins/external/security-headers.js'
import { html, page } from '../../lib/html.js'
import { SITE_SCRIPT, siteHeader } from '../site-header.js'
import { formatScore } from '../../../sdk/format.js'
import { scoreFormatOf } from '../../rules/score-format.js'
import type { GameRecord } from '../../rules/games.js'
import type { SignIn, StoredUser, UserRecord } from '../../store/users.js'
import type { UserInGame } from '../../operations/users.js'

const accountSchema = { summary: "The player's account page (HTML): their games, password, game token, sessions, data and deleting the account; a visitor is sent to log in", tags: ['platform'] } as FastifySchema

/** What the account page is made from, read once per request. */
interface AccountView {
  user: StoredUser
  data: UserRecord & { games: UserInGame[] }
  games: Map<string, GameRecord>
  sessions: Array<{ expires_at: string, current: boolean }>
  /** The OpenID Connect provider's label and issuer, when sign-in through it is set up. */
  openId: { label: string, issuer: string } | null
}

/** A date as people read it, the same on every machine (UTC). */
function day (iso: string | null): string {
  return iso === null ? '' : new Date(iso).toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' })
}

/** Play time as hours and minutes ("2 h 05 min", "4 min", "under a minute"). */
function playTime (seconds: number): string {
  const minutes = Math.floor(seconds / 60)
  if (minutes === 0) return seconds === 0 ? '—' : 'under a minute'
  return minutes < 60 ? `${minutes} min` : `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`
}

/** How one way of signing in reads to its player. */
function signInName (signIn: SignIn, openId: AccountView['openId']): string {
  if (signIn.method === 'password') return 'a password'
  if (signIn.method === 'oidc' && openId !== null && signIn.issuer === openId.issuer) return html(openId.label)
  return signIn.method === 'oidc' ? `OpenID Connect (<bdi>${html(signIn.issuer)}</bdi>)` : `the platform's sign-in (<bdi>${html(signIn.issuer)}</bdi>)`
}

/**
 * The page's sections, in order: each shows one part of the account and
 * what the player can do with it. A later feature that gives players
 * settings or tokens of their own adds its section here.
 */
const SECTIONS: Array<(view: AccountView) => string> = [
  function keepPlay ({ user }) {
    if (!user.guest) return ''
    return `<section id="keep-play" class="notice" aria-labelledby="keep-play-title">
<h2 id="keep-play-title">Keep your play</h2>
<p>You are playing as a guest. Your scores, ratings and play time are kept until <strong>${day(user.guest_until)}</strong>, then erased. Sign up, or log in to an account you have, and they move to that account.</p>
<p><a class="button" href="/signup?next=%2Faccount">Sign up</a> <a href="/login?next=%2Faccount">Log in</a></p>
</section>`
  },
  function profile ({ user, openId }) {
    const ways = user.sign_in.map(signIn => signInName(signIn, openId))
    return `<section aria-labelledby="profile-title">
<h2 id="profile-title">Profile</h2>
<dl class="facts">
<dt>Name</dt><dd id="account-name"><bdi>${html(user.username)}</bdi></dd>
<dt>${user.guest ? 'Guest since' : 'Member since'}</dt><dd>${day(user.created_at)}</dd>
<dt>Signs in with</dt><dd id="sign-in">${ways.length === 0 ? (user.guest ? 'this browser only' : 'the platform that sent you here') : ways.join(', ')}</dd>
</dl>
</section>`
  },
  function played ({ data, games }) {
    const rows = data.games.map(entry => {
      const game = games.get(entry.game_id)
      const name = html(game?.name ?? entry.game_id)
      const best = entry.best_score === null ? '—' : html(game === undefined ? String(entry.best_score) : formatScore(entry.best_score, scoreFormatOf(game), 'en'))
      return `<tr><th scope="row"><a href="/play/${encodeURIComponent(entry.game_id)}"><bdi>${name}</bdi></a></th><td data-label="Best">${best}</td><td data-label="Rank">${entry.rank === null ? '—' : `#${entry.rank}`}</td><td data-label="Your rating">${entry.stars === null ? '—' : `${entry.stars / 2} ★`}</td><td data-label="Play time">${playTime(entry.playtime_seconds)}</td></tr>`
    })
    return `<section aria-labelledby="games-title">
<h2 id="games-title">Your games</h2>
${rows.length === 0
  ? '<p class="muted" id="no-games">No scores, ratings or play time yet. <a href="/#games">Find a game</a>.</p>'
  : `<table class="cards" id="my-games"><thead><tr><th scope="col">Game</th><th scope="col">Best</th><th scope="col">Rank</th><th scope="col">Your rating</th><th scope="col">Play time</th></tr></thead><tbody>${rows.join('')}</tbody></table>`}
</section>`
  },
  function password ({ user }) {
    if (user.passwordHash === undefined) return ''
    return `<section aria-labelledby="password-title">
<h2 id="password-title">Change password</h2>
<form id="password-form" class="stacked" aria-labelledby="password-title">
<input name="username" autocomplete="username" value="${html(user.username)}" hidden>
<label>Current password <input name="password" type="password" autocomplete="current-password" required></label>
<label>New password <input name="new_password" type="password" autocomplete="new-password" required minlength="8"></label>
<p class="muted">At least 8 characters, hard to guess. You stay logged in here; everywhere else you are logged out.</p>
<button type="submit">Change password</button>
<span id="password-status" role="status"></span>
</form>
</section>`
  },
  function gameToken ({ user }) {
    // Made the first time it is asked for (GET /auth/game-token, from account.js), so a player who never needs one has none.
    return `<section aria-labelledby="game-token-title">
<h2 id="game-token-title">Game token</h2>
<p>Games made for Game Jolt's API ask for a username and a game token: type these there, never your password.</p>
<dl class="facts">
<dt>Username</dt><dd><bdi>${html(user.username)}</bdi></dd>
<dt>Game token</dt><dd class="token"><code id="game-token">${html(user.gameToken ?? '')}</code></dd>
</dl>
<p><button id="new-game-token" type="button">Make a new token</button> <span id="game-token-status" role="status"></span></p>
<div id="game-token-confirm" class="confirm" hidden>
<p>Games logged in with your current token must log in again with the new one.</p>
<p><button id="game-token-yes" type="button">Make the new token</button> <button id="game-token-no" type="button">Cancel</button></p>
</div>
</section>`
  },
  function sessions ({ sessions }) {
    const others = sessions.filter(session => !session.current)
    const here = sessions.find(session => session.current)
    return `<section aria-labelledby="sessions-title">
<h2 id="sessions-title">Where you are logged in</h2>
<ul id="sessions">${here === undefined ? '' : `<li>This browser, until ${day(here.expires_at)}</li>`}${others.map(session => `<li>Another browser or device, until ${day(session.expires_at)}</li>`).join('')}</ul>
${others.length === 0
  ? '<p class="muted" id="sessions-none">Nowhere else.</p>'
  : '<p><button id="end-others" type="button">Log out everywhere else</button> <span id="sessions-status" role="status"></span></p>'}
</section>`
  },
  function yourData ({ user }) {
    return `<section aria-labelledby="data-title">
<h2 id="data-title">Your data</h2>
<p>Everything kept about you: your account, and your best score, rank, rating and play time in every game (JSON).</p>
<p><a class="button" id="download" href="/auth/account" download="account-${html(user.username)}.json">Download your data</a></p>
</section>`
  },
  function deletion ({ user }) {
    const confirm = user.passwordHash === undefined
      ? `<label><span>Type your username, <strong><bdi>${html(user.username)}</bdi></strong>, to confirm</span> <input name="username" autocomplete="off" required></label>`
      : '<label>Your password, to confirm <input name="password" type="password" autocomplete="current-password" required></label>'
    return `<section aria-labelledby="delete-title" class="danger">
<h2 id="delete-title">Delete your account</h2>
<p>Erases your account and everything of yours, in every game: scores, ratings, play time, achievements. It cannot be undone.</p>
<form id="delete-form" class="stacked" aria-labelledby="delete-title">
${confirm}
<button type="submit" class="danger">Delete my account</button>
<span id="delete-status" role="status"></span>
</form>
</section>`
  }
]

/**
 * GET /account: a player's own page (docs/interface.md#your-account), made
 * of what GET /auth/account and /auth/sessions answer; its forms call those
 * routes (public/account.js). A page of its own, like login: a password is
 * typed here. A visitor is sent to log in and brought back.
 */
export default async function accountRoutes (fastify: FastifyInstance): Promise<void> {
  const { config } = fastify
  fastify.get('/account', { schema: accountSchema, helmet: HELMET.loginPage, config: { rateLimitPolicy: 'page', noStore: true }, preHandler: fastify.limitRate }, async (request, reply) => {
    const user = await fastify.currentUser(request)
    if (user === null) return await reply.redirect('/login?next=%2Faccount', 303)
    const data = await fastify.admin.as({ name: `player:${user.username}`, via: 'http', request_id: String(request.id) }).userData(user.username)
    const games = new Map<string, GameRecord>()
    for (const entry of data.games) {
      const game = await fastify.records.game(entry.game_id)
      if (game !== null) games.set(entry.game_id, game)
    }
    const sessions = await fastify.users.ownSessions(user.username, request.cookies[config.sessionCookie] ?? '')
    const openId = config.openId === null ? null : { label: config.openId.label, issuer: config.openId.issuer }
    const view: AccountView = { user, data, games, sessions, openId }
    reply.type('text/html; charset=utf-8')
    return page('Your account', `${siteHeader({ user, here: '/account', signupOpen: config.signup === 'open' })}
<main class="narrow account">
<h1>Your account</h1>
${SECTIONS.map(section => section(view)).filter(text => text !== '').join('\n')}
</main>
<script src="/static/account.js" defer></script>
${SITE_SCRIPT}`)
  })
}
