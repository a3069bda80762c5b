import { existsSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { admin, createGame, dataOf, get } from '../helpers/app.js'
import { BROWSER_TEST_TIMEOUT_MS, CHROMIUM, VIEWPORTS, launchBrowser, screenshotFolder, watchedPage } from '../helpers/browser.js'
import { listeningApp } from '../helpers/listening.js'

/*
 * The sign-up page in real headless Chromium, with the real proof of work
 * (SIGNUP_WORK's default): from the play page to the login page, to sign-up,
 * back to the game signed in, a game played to a score under the new name.
 * Then the page at desktop and phone size.
 */

t.test('a visitor signs up from the play page, comes back signed in and plays the demo game', { timeout: BROWSER_TEST_TIMEOUT_MS }, async t => {
  t.ok(existsSync(CHROMIUM), `Chromium at ${CHROMIUM} (apt-get install chromium)`)
  const { app, baseUrl } = await listeningApp(t, { SIGNUP: 'open' })
  const game = await createGame(app, { gameId: 'demo' })
  const folder = screenshotFolder(t)
  const browser = await launchBrowser(t)
  const { page, problems } = await watchedPage(browser, VIEWPORTS[0][1])

  await page.goto(`${baseUrl}/play/demo`)
  await Promise.all([page.waitForURL(`${baseUrl}/login?next=%2Fplay%2Fdemo`), page.click('a#login')])
  await Promise.all([page.waitForURL(`${baseUrl}/signup?next=%2Fplay%2Fdemo`), page.click('a#signup')])
  await page.fill('input[name=username]', 'newcomer')
  // A weak password is refused with the reason, on the page.
  await page.fill('input[name=password]', 'password1')
  await page.click('form.signup button[type=submit]')
  await page.locator('#signup-status').filter({ hasText: /too easy to guess/ }).waitFor()
  t.pass('a weak password is refused on the page, with why')
  await page.screenshot({ path: join(folder, 'signup-refused-desktop.png'), fullPage: true })
  t.equal(errorCode(await admin(app, 'GET', '/admin/users/newcomer')), 'not_found', 'and nothing was made')

  // A taken name is refused too; the proof of work was not spent, and the next try goes through.
  dataOf(await admin(app, 'POST', '/admin/users', { username: 'taken', password: 'another horse battery staple' }))
  await page.fill('input[name=username]', 'taken')
  await page.fill('input[name=password]', 'correct horse battery staple')
  await page.click('form.signup button[type=submit]')
  await page.locator('#signup-status').filter({ hasText: /is taken/ }).waitFor()
  await page.fill('input[name=username]', 'newcomer')
  await Promise.all([page.waitForURL(`${baseUrl}/play/demo`, { waitUntil: 'load' }), page.click('form.signup button[type=submit]')])
  await page.getByText('Logged in as').waitFor()
  t.match(dataOf(await admin(app, 'GET', '/admin/users/newcomer')), { username: 'newcomer', is_admin: false })

  // Three rounds of Reaction, as in browser.test.ts.
  const frame = page.frameLocator('#game')
  await frame.locator('#target').click()
  for (let round = 0; round < 3; round++) {
    await frame.locator('#target[data-state="go"]').waitFor()
    await frame.locator('#target').click()
  }
  await frame.locator('#result').filter({ hasText: /New best! Rank 1\./ }).waitFor()
  await page.locator('#board li').filter({ hasText: /newcomer — \d+/ }).waitFor()
  t.match(dataOf(await get(app, '/api/rank', { action: 'top', api_key: game.apiKey, game_id: 'demo' })), { total: 1, items: [{ rank: 1, player_name: 'newcomer' }] }, 'the score is on the board under the new name')
  t.same(problems, [], 'no script errors or blocked content (CSP) on the way')
})

t.test('the sign-up page at desktop and phone size, and when sign-up is closed', { timeout: BROWSER_TEST_TIMEOUT_MS }, async t => {
  const { baseUrl } = await listeningApp(t, { SIGNUP: 'open' })
  const closed = await listeningApp(t, { SIGNUP: 'closed' })
  const folder = screenshotFolder(t)
  const browser = await launchBrowser(t)
  for (const [size, viewport] of VIEWPORTS) {
    const { context, page, problems, overflow } = await watchedPage(browser, viewport)
    await page.goto(`${baseUrl}/signup`)
    // The widget is drawn once its script (loaded last, as a module) has defined it.
    await page.locator('altcha-widget .altcha').waitFor()
    for (const selector of ['h1', 'input[name=username]', 'input[name=password]', 'altcha-widget', 'form.signup button[type=submit]', 'main a[href="/login"]', 'header.site #nav-login']) {
      t.ok(await page.locator(selector).isVisible(), `${size} sign-up page: ${selector} is visible`)
    }
    // The widget solves the challenge on load: its payload is in the form before anyone submits.
    await page.waitForFunction(() => (new FormData(document.querySelector('form.signup') as HTMLFormElement).get('altcha') ?? '') !== '')
    t.pass(`${size}: the proof of work is solved in the background`)
    t.ok(await overflow() <= 0, `${size} sign-up page: nothing overflows sideways`)
    await page.screenshot({ path: join(folder, `signup-${size}.png`), fullPage: true })
    await page.goto(`${closed.baseUrl}/signup`)
    await page.getByRole('heading', { name: 'Sign-up is closed' }).waitFor()
    t.equal(await page.locator('input[type=password]').count(), 0, `${size}: no form while sign-up is closed`)
    await page.goto(`${closed.baseUrl}/login`)
    t.equal(await page.locator('a#signup').count(), 0, `${size}: and the login page does not offer it`)
    t.same(problems, [], `${size}: no script errors or blocked content`)
    await context.close()
  }
})

function errorCode (answer: { json: () => { ok: boolean, error?: string } }): string {
  const body = answer.json()
  return body.ok ? 'ok' : body.error ?? ''
}
