import type { StoredUser } from '../store/users.js'
import { html } from '../lib/html.js'

/** What the header of a player's page needs to know. */
export interface HeaderContext {
  /** Who is logged in, a guest included; null for a visitor. */
  user: StoredUser | null
  /** The page's own path, where logging in or signing up comes back to. */
  here: string
  /** Whether the service takes sign-ups (SIGNUP). */
  signupOpen: boolean
}

/** `?next=<path>` for a link that should come back to `here`; nothing for the front page, where they land anyway. */
export function nextQuery (here: string): string {
  return here === '/' ? '' : `?next=${encodeURIComponent(here)}`
}

/**
 * The one header of every page a player sees (front page, play page, login,
 * sign-up, account): the platform, its games, and who is here with what
 * they can do: log in or sign up, and once in, their account and log out.
 * A guest sees its name and how to keep its play. public/site.js logs out.
 */
export function siteHeader ({ user, here, signupOpen }: HeaderContext): string {
  const back = nextQuery(here)
  const login = `<a id="nav-login" href="/login${back}">Log in</a>`
  const signup = signupOpen ? `<a id="nav-signup" href="/signup${back}">Sign up</a>` : ''
  const who = user === null
    ? `${login}${signup}`
    : user.guest
      ? `<span>Guest <a id="nav-account" href="/account"><strong><bdi>${html(user.username)}</bdi></strong></a></span>${signup}${login}`
      : `<span>Logged in as <strong><bdi>${html(user.username)}</bdi></strong></span><a id="nav-account" href="/account"${here === '/account' ? ' aria-current="page"' : ''}>Account</a><button id="logout" type="button">Log out</button>`
  return `<header class="site">
<nav aria-label="Platform"><a class="brand" href="/">Ranking service</a><a id="nav-games" href="/#games">Games</a></nav>
<p class="who">${who}</p>
</header>`
}

/** The script that goes with the header (its log-out button). */
export const SITE_SCRIPT = '<script src="/static/site.js" defer></script>'
