import { existsSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { randomUUID } from 'node:crypto'
import { SignJWT } from 'jose'
import type { Page } from 'playwright-core'
import { admin, createGame, dataOf } from '../helpers/app.js'
import { BROWSER_TEST_TIMEOUT_MS, CHROMIUM, VIEWPORTS, launchBrowser, screenshotFolder, watchedPage } from '../helpers/browser.js'
import { listeningApp } from '../helpers/listening.js'
import { startOpenIdProvider } from '../helpers/openid-provider.js'

/*
 * Players in real headless Chromium (docs/signin.md, docs/interface.md#guests):
 * a visitor plays the demo game as a guest, signs up and finds the guest's
 * score under the new name; a player signs in through a real OpenID
 * provider from the login page; a framed play page signs in from the
 * platform's token. At desktop and phone size.
 */

const SECRET = 'a-shared-secret-of-at-least-32-characters!'

/** Three rounds of Reaction (public/games/demo), as browser.test.ts plays it. */
async function playDemo (page: Page): Promise<void> {
  const frame = page.frameLocator('#game')
  await frame.locator('#target').click()
  for (let round = 0; round < 3; round++) {
    await frame.locator('#target[data-state="go"]').waitFor()
    await frame.locator('#target').click()
  }
  await frame.locator('#result').filter({ hasText: /^Score [\d,]+\. (New best!|Your best is)/ }).waitFor()
}

t.test('a guest plays the demo game, signs up, and finds its score under the new name', { timeout: BROWSER_TEST_TIMEOUT_MS }, async t => {
  t.ok(existsSync(CHROMIUM), `Chromium at ${CHROMIUM} (apt-get install chromium)`)
  const { app, baseUrl } = await listeningApp(t, { SIGNUP: 'open', SIGNUP_WORK: '1' })
  await createGame(app, { gameId: 'demo' })
  await admin(app, 'PATCH', '/admin/games/demo', { guests: 'listed' })
  const folder = screenshotFolder(t)
  const browser = await launchBrowser(t)
  const { page, problems, overflow } = await watchedPage(browser, VIEWPORTS[0][1])

  await page.goto(`${baseUrl}/play/demo`)
  await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Play as a guest' }).click()])
  const playing = page.getByText(/Playing as guest-\d{6}, a guest until/)
  await playing.waitFor()
  const guestName = ((await page.locator('header strong bdi').textContent()) ?? '').trim()
  t.match(guestName, /^guest-\d{6}$/, 'playing at once, under a generated name')
  await playDemo(page)
  await page.locator('#board li').filter({ hasText: new RegExp(`${guestName} — \\d+`) }).waitFor()
  t.pass('the guest\'s score is on the board')
  // A guest rates what it has played a minute of: before that, the stars say why (docs/interface.md#guests).
  await page.click('.stars button[data-value="8"]')
  await page.locator('#rating-summary').filter({ hasText: /A guest rates a game after 60 s of play in it: \d+ more seconds? of play are needed \(or sign up to rate now\)/ }).waitFor()
  t.equal(await page.locator('.stars button.on').count(), 0, 'no star lit: nothing was rated')
  t.ok(await overflow() <= 0, 'nothing overflows sideways')
  await page.screenshot({ path: join(folder, 'guest-play-desktop.png'), fullPage: true })
  const best = dataOf(await admin(app, 'GET', `/admin/games/demo/players/${guestName}`)).best_score

  // Sign up from the play page: back to the game, the score now the account's.
  await Promise.all([page.waitForURL(`${baseUrl}/signup?next=%2Fplay%2Fdemo`), page.locator('.intro a#signup').click()])
  await page.fill('input[name=username]', 'keeper')
  await page.fill('input[name=password]', 'correct horse battery staple')
  await Promise.all([page.waitForURL(`${baseUrl}/play/demo`, { waitUntil: 'load' }), page.click('form.signup button[type=submit]')])
  await page.getByText('Logged in as').waitFor()
  await page.locator('#board li').filter({ hasText: `keeper — ${new Intl.NumberFormat('en-US').format(best)}` }).waitFor()
  t.equal(await page.locator('#board li').filter({ hasText: guestName }).count(), 0, 'the guest is gone from the board')
  await page.screenshot({ path: join(folder, 'guest-claimed-desktop.png'), fullPage: true })
  t.match(dataOf(await admin(app, 'GET', '/admin/games/demo/players/keeper')), { best_score: best }, 'the guest\'s best, under the new name')
  t.same(problems, [], 'no script errors or blocked content (CSP)')
})

t.test('the guest\'s play page at phone size', { timeout: BROWSER_TEST_TIMEOUT_MS }, async t => {
  const { app, baseUrl } = await listeningApp(t)
  await createGame(app, { gameId: 'demo' })
  await admin(app, 'PATCH', '/admin/games/demo', { guests: 'unlisted' })
  const folder = screenshotFolder(t)
  const browser = await launchBrowser(t)
  const { page, problems, overflow, settled } = await watchedPage(browser, VIEWPORTS[1][1])
  await page.goto(`${baseUrl}/play/demo`)
  t.ok(await page.getByRole('button', { name: 'Play as a guest' }).isVisible(), 'phone: the guest button is visible')
  await page.screenshot({ path: join(folder, 'guest-offer-phone.png'), fullPage: true })
  await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Play as a guest' }).click()])
  await page.getByText(/a guest until/).waitFor()
  for (const selector of ['header strong bdi', 'header a#nav-login', '.intro a#login', '#game', '#board-title']) {
    t.ok(await page.locator(selector).isVisible(), `phone: ${selector} is visible`)
  }
  await playDemo(page)
  // Unlisted: the guest's score is kept but on no board (once the page has read the board again).
  await page.reload()
  await settled()
  t.equal(await page.locator('#board li').count(), 0, 'an unlisted guest is on no board')
  await page.click('.stars button[data-value="3"]')
  const why = page.locator('#rating-summary').filter({ hasText: /A guest rates a game after 60 s of play/ })
  await why.waitFor()
  t.ok(await why.isVisible(), 'phone: why the guest cannot rate yet is on screen')
  t.ok(await overflow() <= 0, 'phone: nothing overflows sideways')
  await page.screenshot({ path: join(folder, 'guest-play-phone.png'), fullPage: true })
  t.same(problems, [], 'no script errors or blocked content')
})

t.test('sign in through the OpenID provider from the login page', { timeout: BROWSER_TEST_TIMEOUT_MS }, async t => {
  const provider = await startOpenIdProvider(t)
  const { app, baseUrl } = await listeningApp(t, { OIDC_ISSUER: provider.issuer, OIDC_CLIENT_ID: provider.clientId, OIDC_CLIENT_SECRET: provider.clientSecret, OIDC_LABEL: 'Playhub' })
  await provider.serve(`${baseUrl}/auth/oidc/callback`)
  await createGame(app, { gameId: 'demo' })
  const folder = screenshotFolder(t)
  const browser = await launchBrowser(t)
  for (const [size, viewport] of VIEWPORTS) {
    const { context, page, problems, overflow } = await watchedPage(browser, viewport)
    provider.as({ sub: `acct-${size}`, claims: { preferred_username: `hub_${size}` } })
    await page.goto(`${baseUrl}/play/demo`)
    await Promise.all([page.waitForURL(/\/login\?next=/), page.click('a#login')])
    const button = page.getByRole('link', { name: 'Sign in with Playhub' })
    t.ok(await button.isVisible(), `${size}: the login page offers the provider`)
    t.ok(await overflow() <= 0, `${size}: nothing overflows sideways`)
    await page.screenshot({ path: join(folder, `login-openid-${size}.png`), fullPage: true })
    await Promise.all([page.waitForURL(`${baseUrl}/play/demo`, { waitUntil: 'load' }), button.click()])
    await page.getByText(`Logged in as hub_${size}`).waitFor()
    t.pass(`${size}: through the provider and back to the game, signed in`)
    // A declined sign-in comes back to the login page, which says so.
    await page.click('#logout')
    await page.locator('a#login').waitFor()
    t.same(problems, [], `${size}: no script errors or blocked content`)
    await context.close()
    // Another browser (no session at the provider) declines: back at the login page, which says so.
    const declining = await watchedPage(browser, viewport)
    provider.as(null)
    await declining.page.goto(`${baseUrl}/login`)
    await Promise.all([declining.page.waitForURL(`${baseUrl}/login?signin=refused`), declining.page.getByRole('link', { name: 'Sign in with Playhub' }).click()])
    t.ok(await declining.page.getByRole('alert').filter({ hasText: 'The sign-in was refused' }).isVisible(), `${size}: why it failed, visible`)
    await declining.page.screenshot({ path: join(folder, `login-refused-${size}.png`), fullPage: true })
    t.same(declining.problems, [], `${size}: no script errors or blocked content`)
    await declining.context.close()
  }
})

t.test('the platform frames the play page and signs its player in with a token after the #', { timeout: BROWSER_TEST_TIMEOUT_MS }, async t => {
  // The platform's page, on an origin of its own (the same site, as a platform and its
  // ranking service share one: ranking.playhub.example in playhub.example), framing the play page.
  let playUrl = ''
  const platform = createServer((request, response) => {
    const token = new URL(request.url ?? '/', 'http://platform').searchParams.get('token') ?? ''
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    response.end(`<!doctype html><title>Playhub</title><h1>Playhub</h1><iframe src="${playUrl}#token=${token}" width="1000" height="700"></iframe>`)
  })
  await new Promise<void>(resolve => platform.listen(0, '127.0.0.1', resolve))
  t.teardown(() => { platform.closeAllConnections(); platform.close() })
  const platformOrigin = `http://127.0.0.1:${(platform.address() as AddressInfo).port}`
  const { app, baseUrl } = await listeningApp(t, { TOKEN_SIGNIN_ISSUER: 'https://platform.example', TOKEN_SIGNIN_SECRET: SECRET, PLAY_FRAME_ORIGINS: platformOrigin })
  playUrl = `${baseUrl}/play/demo`
  await createGame(app, { gameId: 'demo' })
  const folder = screenshotFolder(t)
  const browser = await launchBrowser(t)
  const { page, problems } = await watchedPage(browser, VIEWPORTS[0][1])
  const token = async (): Promise<string> => await new SignJWT({ name: 'Framed Player', jti: randomUUID() }).setProtectedHeader({ alg: 'HS256' }).setSubject('f-1')
    .setIssuer('https://platform.example').setAudience('ranking-service').setIssuedAt().setExpirationTime('2m').sign(new TextEncoder().encode(SECRET))

  await page.goto(`${platformOrigin}/?token=${await token()}`)
  const frame = page.frameLocator('iframe')
  await frame.getByText('Logged in as Framed_Player').waitFor()
  t.pass('signed in inside the platform\'s frame, no form')
  t.equal(new URL(page.frames()[1]?.url() ?? '').hash, '', 'the token is gone from the frame\'s address')
  await page.screenshot({ path: join(folder, 'framed-play-desktop.png'), fullPage: true })

  // The same kind of link opened on its own (someone's token sent to another player) signs nobody in.
  const alone = await watchedPage(browser, VIEWPORTS[1][1])
  await alone.page.goto(`${baseUrl}/play/demo#token=${await token()}`)
  await alone.page.locator('#signin-status').filter({ hasText: /works only inside the platform's page/ }).waitFor()
  t.equal(await alone.page.getByText('Logged in as').count(), 0, 'not framed: nobody is signed in')
  t.equal(new URL(alone.page.url()).hash, '', 'and the token is gone from the address')
  await alone.page.screenshot({ path: join(folder, 'token-link-alone-phone.png'), fullPage: true })

  // A bad token in the frame: the play page says why.
  const bad = await watchedPage(browser, VIEWPORTS[0][1])
  await bad.page.goto(`${platformOrigin}/?token=not.a.jwt`)
  await bad.page.frameLocator('iframe').locator('#signin-status').filter({ hasText: /Sign-in failed: The sign-in token is not valid/ }).waitFor()
  t.pass('a bad token is refused in the frame, with why')
  t.same([...problems, ...alone.problems, ...bad.problems], [], 'no script errors or blocked content')
})
