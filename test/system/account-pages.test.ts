import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import type { Page } from 'playwright-core'
import { admin, createGame, dataOf, errorOf } from '../helpers/app.js'
import { BROWSER_TEST_TIMEOUT_MS, CHROMIUM, VIEWPORTS, launchBrowser, screenshotFolder, watchedPage } from '../helpers/browser.js'
import { listeningApp } from '../helpers/listening.js'

/*
 * A player's own pages in real headless Chromium, at desktop and phone size:
 * the one header on the front page, play page, login, sign-up and account
 * page; sign-up from the login page coming back to where the player was; the
 * account page's password, sessions, data download and deletion; a guest's
 * account page; what a visitor sees of a game (its average rating) and of a
 * game not approved yet.
 */

const STRONG = 'correct horse battery staple'
const NEWER = 'purple elephant umbrella tango'

/** Whether every part of `selector`'s first match is inside the viewport sideways, and it is shown. */
async function onScreen (page: Page, selector: string): Promise<boolean> {
  const box = await page.locator(selector).first().boundingBox()
  const width = page.viewportSize()?.width ?? 0
  return box !== null && box.width > 0 && box.x >= 0 && box.x + box.width <= width + 1
}

t.test('the header, sign-up back to the game, and the account page', { timeout: 2 * BROWSER_TEST_TIMEOUT_MS }, async t => {
  t.ok(existsSync(CHROMIUM), `Chromium at ${CHROMIUM} (apt-get install chromium)`)
  const { app, baseUrl } = await listeningApp(t, { SIGNUP: 'open', SIGNUP_WORK: '1' })
  await createGame(app, { gameId: 'demo' })
  dataOf(await admin(app, 'PATCH', '/admin/games/demo', { name: 'Reaction', guests: 'listed' }))
  dataOf(await admin(app, 'POST', '/admin/users', { username: 'taken', password: STRONG }))
  // The front page's lists are the games index's: what this instance noted is written.
  await app.syncRecordCache()
  await app.gamesIndex.flush()
  const folder = screenshotFolder(t)
  const browser = await launchBrowser(t)

  for (const [size, viewport] of VIEWPORTS) {
    const { context, page, problems, overflow } = await watchedPage(browser, viewport)
    const name = `newcomer_${size}`

    // The front page: the header with log in and sign up, and the game.
    await page.goto(`${baseUrl}/`)
    for (const selector of ['header.site a.brand', 'header.site #nav-games', 'header.site #nav-login', 'header.site #nav-signup', '#top-rated ul.games a[href="/play/demo"]']) {
      t.ok(await onScreen(page, selector), `${size}: ${selector} is on screen on the front page`)
    }
    t.ok(await overflow() <= 0, `${size}: the front page does not overflow sideways`)
    await page.screenshot({ path: join(folder, `front-${size}.png`), fullPage: true })

    // From the game, log in, then sign up from there: back at the game, signed in.
    await page.click('ul.games a[href="/play/demo"]')
    await Promise.all([page.waitForURL(`${baseUrl}/login?next=%2Fplay%2Fdemo`), page.click('header.site #nav-login')])
    t.ok(await onScreen(page, 'header.site #nav-signup'), `${size}: the login page has the header`)
    await Promise.all([page.waitForURL(`${baseUrl}/signup?next=%2Fplay%2Fdemo`), page.click('main a#signup')])
    // The widget is the platform's: no ALTCHA logo or link (asked for with its configuration attribute).
    await page.locator('altcha-widget').getByText(/Verif/).first().waitFor()
    t.equal(await page.getByText('ALTCHA').count(), 0, `${size}: no "Protected by ALTCHA" footer`)
    t.equal(await page.locator('altcha-widget a[href*="altcha"], altcha-widget svg.altcha-logo, altcha-widget .altcha-logo').count(), 0, `${size}: no ALTCHA logo`)
    // A refusal is shown as a problem, not as plain text.
    await page.fill('input[name=username]', 'taken')
    await page.fill('input[name=password]', STRONG)
    await page.click('form.signup button[type=submit]')
    await page.locator('#signup-status.problem').getByText(/is taken/).waitFor()
    t.ok(await onScreen(page, '#signup-status.problem'), `${size}: a refused sign-up says why, marked as a problem`)
    await page.screenshot({ path: join(folder, `signup-${size}.png`), fullPage: true })
    await page.fill('input[name=username]', name)
    await Promise.all([page.waitForURL(`${baseUrl}/play/demo`, { waitUntil: 'load' }), page.click('form.signup button[type=submit]')])
    await page.locator('header.site').getByText(`Logged in as ${name}`).waitFor()
    t.pass(`${size}: signed up from the login page, back at the game`)
    t.ok(await onScreen(page, 'header.site #logout'), `${size}: log out is in the header`)
    if (size === 'desktop') {
      const scroll = await page.evaluate(() => document.documentElement.scrollHeight - window.innerHeight)
      t.ok(scroll <= 0, `desktop: the play page fits 1280×800 without scrolling (${scroll} px over)`)
    }
    await page.screenshot({ path: join(folder, `play-signed-in-${size}.png`), fullPage: true })

    // The account page, from the header.
    await Promise.all([page.waitForURL(`${baseUrl}/account`), page.click('header.site #nav-account')])
    await page.locator('#account-name').getByText(name).waitFor()
    for (const selector of ['#password-form', '#sessions', '#download', '#delete-form', '#no-games']) {
      t.ok(await onScreen(page, selector), `${size}: ${selector} is on screen`)
    }
    t.ok(await overflow() <= 0, `${size}: the account page does not overflow sideways`)

    // Another browser logs in: listed here, and logged out from here.
    const other = await watchedPage(browser, viewport)
    await other.page.goto(`${baseUrl}/login`)
    await other.page.fill('input[name=username]', name)
    await other.page.fill('input[name=password]', STRONG)
    await Promise.all([other.page.waitForURL(`${baseUrl}/`), other.page.click('form.login button[type=submit]')])
    await other.page.locator('header.site').getByText(`Logged in as ${name}`).waitFor()
    t.pass(`${size}: logging in without next lands on the front page, signed in`)
    await page.reload()
    t.equal(await page.locator('#sessions li').count(), 2, `${size}: two browsers listed`)
    await page.screenshot({ path: join(folder, `account-${size}.png`), fullPage: true })
    await page.click('#end-others')
    await page.locator('#sessions-none').getByText('Logged out of 1 other session').waitFor()
    await other.page.goto(`${baseUrl}/account`)
    t.equal(new URL(other.page.url()).pathname, '/login', `${size}: the other browser is logged out`)
    await other.context.close()

    // A new password, and this browser stays logged in.
    await page.fill('#password-form input[name=password]', STRONG)
    await page.fill('#password-form input[name=new_password]', NEWER)
    await page.click('#password-form button[type=submit]')
    await page.locator('#password-status').getByText('Your password is changed').waitFor()
    await page.reload()
    await page.locator('#account-name').getByText(name).waitFor()
    t.pass(`${size}: the password changed and this browser is still logged in`)

    // The data download: what GET /auth/account answers.
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download')])
    t.equal(download.suggestedFilename(), `account-${name}.json`)
    const saved = JSON.parse(await readFile(await download.path(), 'utf8'))
    t.match(saved, { ok: true, data: { username: name, games: [] } }, `${size}: the download is the account's data`)

    // Deleting the account: a wrong password is refused on the page, the right one erases it.
    await page.fill('#delete-form input[name=password]', STRONG)
    await page.click('#delete-form button[type=submit]')
    await page.locator('#delete-status').getByText('The current password is wrong.').waitFor()
    await page.fill('#delete-form input[name=password]', NEWER)
    await page.click('#delete-form button[type=submit]')
    await page.locator('#deleted').waitFor()
    t.ok(await page.locator('#deleted').isVisible(), `${size}: the page says the account is deleted`)
    t.equal(errorOf(await admin(app, 'GET', `/admin/users/${name}`)), 'not_found', `${size}: and it is`)
    await page.screenshot({ path: join(folder, `account-deleted-${size}.png`), fullPage: true })
    t.same(problems, [], `${size}: no script errors or blocked content`)
    await context.close()
  }
})

t.test('a guest finds how to keep its play; a visitor sees the average; a game not approved yet is quiet', { timeout: BROWSER_TEST_TIMEOUT_MS }, async t => {
  const { app, baseUrl } = await listeningApp(t, { SIGNUP: 'open' })
  await createGame(app, { gameId: 'demo' })
  dataOf(await admin(app, 'PATCH', '/admin/games/demo', { name: 'Reaction', guests: 'listed' }))
  dataOf(await admin(app, 'POST', '/admin/users', { username: 'rater', password: STRONG }))
  const rater = dataOf(await admin(app, 'POST', '/admin/sessions', { username: 'rater' }))
  const rated = await app.inject({ method: 'POST', url: '/api/rate?game_id=demo', headers: { cookie: `sid=${rater.session_id as string}`, 'content-type': 'application/x-www-form-urlencoded' }, payload: 'stars=7' })
  dataOf(rated)
  dataOf(await admin(app, 'POST', '/admin/games', { game_id: 'draft', name: 'Draft' }))
  const folder = screenshotFolder(t)
  const browser = await launchBrowser(t)

  for (const [size, viewport] of VIEWPORTS) {
    const { context, page, problems, overflow } = await watchedPage(browser, viewport)
    const consoleErrors: string[] = []
    page.on('console', message => { if (message.type() === 'error') consoleErrors.push(message.text()) })

    // A visitor sees the game's average, and is asked to log in to rate.
    await page.goto(`${baseUrl}/play/demo`)
    await page.locator('#rating-summary').getByText('Average 3.50 stars from 1 rating').waitFor()
    t.ok(await page.locator('#rating-summary').isVisible(), `${size}: a visitor sees the average`)

    // A guest: its name in the header, and its account page says how to keep its play.
    await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Play as a guest' }).click()])
    await page.locator('header.site').getByText(/^Guest guest-\d{6}$/).waitFor()
    await Promise.all([page.waitForURL(`${baseUrl}/account`), page.click('header.site #nav-account')])
    const keep = page.locator('#keep-play')
    await keep.waitFor()
    t.ok(await onScreen(page, '#keep-play'), `${size}: a guest's account page says how to keep its play`)
    t.ok(await onScreen(page, '#keep-play a[href="/signup?next=%2Faccount"]'), `${size}: with sign-up at hand`)
    t.ok(await overflow() <= 0, `${size}: nothing overflows sideways`)
    await page.screenshot({ path: join(folder, `guest-account-${size}.png`), fullPage: true })

    // A game not approved yet: no live board asked for, no login invited, no error in the console.
    await page.goto(`${baseUrl}/play/draft`)
    await page.getByText('The board opens once the game is available.').waitFor()
    t.equal(await page.locator('.intro a#login, #play-as-guest').count(), 0, `${size}: nothing invites playing a game that cannot be played`)
    await page.waitForTimeout(500)
    t.same(consoleErrors, [], `${size}: no console error (no EventSource on an unapproved game)`)
    await page.screenshot({ path: join(folder, `unapproved-${size}.png`), fullPage: true })
    t.same(problems, [], `${size}: no script errors or blocked content`)
    await context.close()
  }
})
