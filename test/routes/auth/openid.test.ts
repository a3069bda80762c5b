import t from 'tap'
import { listeningApp } from '../../helpers/listening.js'
import { startOpenIdProvider, type TestOpenIdProvider } from '../../helpers/openid-provider.js'
import { admin, createGame, dataOf, errorOf } from '../../helpers/app.js'

/*
 * "Sign in with …" an OpenID Connect provider (docs/signin.md#openid-connect),
 * against a real provider (oidc-provider) this test runs: the authorization
 * code flow with PKCE, followed hop by hop as a browser follows it, with a
 * cookie jar per site.
 */

/** A browser's part: cookies per origin, redirects followed, every hop kept. */
class Browser {
  private readonly jars = new Map<string, Map<string, string>>()
  readonly hops: string[] = []

  cookie (origin: string, name: string): string | undefined {
    return this.jars.get(origin)?.get(name)
  }

  setCookie (origin: string, name: string, value: string): void {
    const jar = this.jars.get(origin) ?? new Map<string, string>()
    jar.set(name, value)
    this.jars.set(origin, jar)
  }

  /** Follows redirects from `url` until the next hop begins with `prefix`; that hop's URL, not visited. */
  async goUntil (url: string, prefix: string): Promise<string> {
    let at = new URL(url)
    for (let i = 0; i < 12; i++) {
      const jar = this.jars.get(at.origin) ?? new Map<string, string>()
      const response = await fetch(at, { redirect: 'manual', headers: { cookie: [...jar].map(([name, value]) => `${name}=${value}`).join('; ') } })
      this.keep(at.origin, response)
      const location = response.headers.get('location')
      await response.arrayBuffer()
      if (location === null) throw new Error(`no redirect at ${at.href}`)
      at = new URL(location, at)
      if (at.href.startsWith(prefix)) return at.href
    }
    throw new Error('too many redirects')
  }

  private keep (origin: string, response: Response): void {
    const jar = this.jars.get(origin) ?? new Map<string, string>()
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';')
      const [name = '', ...rest] = pair.split('=')
      const value = rest.join('=')
      if (/max-age=0|expires=thu, 01 jan 1970/i.test(line) || value === '') jar.delete(name.trim())
      else jar.set(name.trim(), value)
    }
    this.jars.set(origin, jar)
  }

  /** Goes to `url` and follows redirects; the last answer (status 200 or an error), and where it ended. */
  async go (url: string, hops = 12): Promise<{ url: string, status: number, body: string }> {
    let at = new URL(url)
    for (let i = 0; i < hops; i++) {
      this.hops.push(at.href)
      const jar = this.jars.get(at.origin) ?? new Map<string, string>()
      const response = await fetch(at, { redirect: 'manual', headers: { cookie: [...jar].map(([name, value]) => `${name}=${value}`).join('; ') } })
      this.keep(at.origin, response)
      const location = response.headers.get('location')
      if (response.status >= 300 && response.status < 400 && location !== null) {
        await response.arrayBuffer()
        at = new URL(location, at)
        continue
      }
      return { url: at.href, status: response.status, body: await response.text() }
    }
    throw new Error(`more than ${hops} redirects: ${this.hops.join(' -> ')}`)
  }
}

async function setUp (t: { teardown: (fn: () => unknown) => void }, env: Record<string, string> = {}): Promise<{ provider: TestOpenIdProvider, baseUrl: string, app: Awaited<ReturnType<typeof listeningApp>>['app'] }> {
  const provider = await startOpenIdProvider(t)
  const { app, baseUrl } = await listeningApp(t, { OIDC_ISSUER: provider.issuer, OIDC_CLIENT_ID: provider.clientId, OIDC_CLIENT_SECRET: provider.clientSecret, OIDC_LABEL: 'Playhub', ...env })
  await provider.serve(`${baseUrl}/auth/oidc/callback`)
  return { provider, baseUrl, app }
}

t.test('off unless the operator sets it up; the login page offers it when it is', async t => {
  const { app, baseUrl } = await listeningApp(t)
  t.equal(errorOf(await app.inject({ method: 'GET', url: '/auth/oidc/start' })), 'forbidden')
  t.notMatch((await app.inject({ method: 'GET', url: '/login' })).body, /Sign in with/)
  const set = await setUp(t)
  const login = await set.app.inject({ method: 'GET', url: '/login?next=/play/demo' })
  t.match(login.body, /<a class="button" id="openid" href="\/auth\/oidc\/start\?next=%2Fplay%2Fdemo">Sign in with <bdi>Playhub<\/bdi><\/a>/)
  t.ok(baseUrl)
})

t.test('the first sign-in makes the user and links it to the subject; later ones find it whatever the name', async t => {
  const { provider, baseUrl, app } = await setUp(t)
  const game = await createGame(app)
  provider.as({ sub: 'acct-1', claims: { preferred_username: 'mira', name: 'Mira Jones' } })
  const browser = new Browser()
  const landed = await browser.go(`${baseUrl}/auth/oidc/start?next=/play/${game.gameId}`)
  t.equal(landed.url, `${baseUrl}/play/${game.gameId}`, 'back where the sign-in began')
  t.equal(landed.status, 200)
  t.ok(browser.hops.some(hop => hop.startsWith(provider.issuer)), 'through the provider')
  t.match(browser.hops.find(hop => hop.startsWith(`${provider.issuer}/auth?`)), /code_challenge_method=S256/, 'with PKCE')
  t.match(landed.body, /Logged in as <strong><bdi>mira<\/bdi><\/strong>/, 'signed in, under the preferred username')
  const user = dataOf(await admin(app, 'GET', '/admin/users/mira'))
  t.same(user.sign_in, [{ method: 'oidc', issuer: provider.issuer, subject: 'acct-1' }], 'operators see how')
  t.equal(browser.cookie(baseUrl, 'oidc_state'), undefined, 'the state cookie is gone')

  // Renamed at the provider; signing in again (another browser) finds the same user.
  provider.as({ sub: 'acct-1', claims: { preferred_username: 'mira_j' } })
  const again = new Browser()
  t.match((await again.go(`${baseUrl}/auth/oidc/start`)).body, /logged in as <strong><bdi>mira<\/bdi>/i)
  // Someone else with a taken name gets the next free one; a name from userinfo when the ID token has none.
  provider.as({ sub: 'acct-2', claims: { name: 'mira' } })
  t.match((await new Browser().go(`${baseUrl}/auth/oidc/start`)).body, /<bdi>mira-2<\/bdi>/)
  t.equal(dataOf(await admin(app, 'GET', '/admin/users?prefix=mira')).items.length, 2)
})

t.test('a refused, replayed, foreign or expired sign-in makes no session and says why on the login page', async t => {
  const { provider, baseUrl, app } = await setUp(t)
  // The player declines at the provider.
  provider.as(null)
  const declined = await new Browser().go(`${baseUrl}/auth/oidc/start`)
  t.equal(declined.url, `${baseUrl}/login?signin=refused`)
  t.match(declined.body, /id="signin-failed"[^>]*>The sign-in was refused/)
  t.equal(dataOf(await admin(app, 'GET', '/admin/users')).items.length, 0, 'nobody made')

  // A callback that another browser began (an attacker's link): its state is not this browser's.
  provider.as({ sub: 'acct-9', claims: { name: 'eve' } })
  const attacker = new Browser()
  const callback = await attacker.goUntil(`${baseUrl}/auth/oidc/start`, `${baseUrl}/auth/oidc/callback`)
  t.match(callback, /[?&]code=.+&?/, 'the attacker holds a callback with a code')
  t.ok(attacker.cookie(baseUrl, 'oidc_state'), 'the state is tied to the attacker\'s browser by a cookie')
  t.equal((await new Browser().go(callback)).url, `${baseUrl}/login?signin=expired`, 'opened by a victim: nobody signed in')
  t.equal(dataOf(await admin(app, 'GET', '/admin/users')).items.length, 0, 'nobody made')
  t.match((await attacker.go(callback)).body, /<bdi>eve<\/bdi>/, 'the browser that began it signs in as itself')
  t.equal((await attacker.go(callback)).url, `${baseUrl}/login?signin=expired`, 'once: the same callback again finds no flow')
  // A callback with no state, a made-up one, or its flow gone.
  t.equal((await new Browser().go(`${baseUrl}/auth/oidc/callback?code=abc`)).url, `${baseUrl}/login?signin=expired`)
  const forged = new Browser()
  forged.setCookie(baseUrl, 'oidc_state', 'A'.repeat(43))
  t.equal((await forged.go(`${baseUrl}/auth/oidc/callback?code=abc&state=${'A'.repeat(43)}`)).url, `${baseUrl}/login?signin=expired`)
  t.same(dataOf(await admin(app, 'GET', '/admin/users')).items.map((user: { username: string }) => user.username), ['eve'], 'nobody else')
  // Hostile query values: never a crash.
  for (const query of ['state=%E0%A4%A', 'state=a&state=b', `state=${'x'.repeat(5000)}`, 'error=<script>', '__proto__=1&constructor=2']) {
    const answer = await app.inject({ method: 'GET', url: `/auth/oidc/callback?${query}` })
    const what = query.slice(0, 40)
    t.ok(answer.statusCode === 303 || answer.json().ok === false, what)
    t.notMatch(answer.body, /<script>/, `${what}: nothing reflected`)
  }
})

t.test('a provider that cannot be reached: unavailable; the next try discovers it again', async t => {
  const provider = await startOpenIdProvider(t)
  const { app, baseUrl } = await listeningApp(t, { OIDC_ISSUER: provider.issuer, OIDC_CLIENT_ID: provider.clientId, OIDC_CLIENT_SECRET: provider.clientSecret })
  // Not serving yet: its discovery document answers 503.
  const answer = await app.inject({ method: 'GET', url: '/auth/oidc/start' })
  t.equal(answer.statusCode, 303)
  t.equal(answer.headers.location, '/login?signin=unavailable', 'the login page says the provider cannot be reached')
  t.match((await app.inject({ method: 'GET', url: '/login?signin=unavailable' })).body, /cannot be reached right now/)
  await provider.serve(`${baseUrl}/auth/oidc/callback`)
  provider.as({ sub: 'acct-3', claims: { preferred_username: 'late' } })
  t.match((await new Browser().go(`${baseUrl}/auth/oidc/start`)).body, /<bdi>late<\/bdi>/, 'signed in once it is back')
  // Gone for good: the login page would say so; a sign-in under way comes back unavailable.
  const browser = new Browser()
  const callback = await browser.goUntil(`${baseUrl}/auth/oidc/start`, `${baseUrl}/auth/oidc/callback`)
  await provider.close()
  t.equal((await browser.go(callback)).url, `${baseUrl}/login?signin=unavailable`, 'the code cannot be exchanged: unavailable, and said so')
})

t.test('a guest who signs in through the provider keeps its play', async t => {
  const { provider, baseUrl, app } = await setUp(t)
  const game = await createGame(app)
  await admin(app, 'PATCH', `/admin/games/${game.gameId}`, { guests: 'listed' })
  const browser = new Browser()
  const guest = await fetch(`${baseUrl}/auth/guest`, { method: 'POST', body: new URLSearchParams({ game_id: game.gameId }) })
  const sid = (guest.headers.getSetCookie()[0] ?? '').split(';')[0]?.split('=')[1] ?? ''
  browser.setCookie(baseUrl, 'sid', sid)
  await fetch(`${baseUrl}/api/rank?action=submit-self`, { method: 'POST', body: new URLSearchParams({ game_id: game.gameId, score: '77' }), headers: { cookie: `sid=${sid}` } })
  provider.as({ sub: 'acct-5', claims: { preferred_username: 'noor' } })
  await browser.go(`${baseUrl}/auth/oidc/start?next=/play/${game.gameId}`)
  const board = dataOf(await app.inject({ method: 'GET', url: `/play/${game.gameId}/board` })).items
  t.match(board, [{ player_name: 'noor', score: 77 }])
})
