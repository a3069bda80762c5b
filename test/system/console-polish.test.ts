import t from 'tap'
import type { Page } from 'playwright-core'
import { join } from 'node:path'
import { admin, createGame, dataOf, submit } from '../helpers/app.js'
import { BROWSER_TEST_TIMEOUT_MS, VIEWPORTS, launchBrowser, screenshotFolder, watchedPage } from '../helpers/browser.js'
import { listeningApp } from '../helpers/listening.js'

/*
 * What a new operator found on a phone (issue 32), measured in Chromium at
 * a desktop's size and a phone's (390x844): the games list's approve and
 * withdraw buttons on screen; no cell of the board or the review queue
 * under a row's buttons; the audit log's When on one line (two on a phone)
 * and its filters in line. Screenshots of each.
 */

const ADMIN = 'console-admin-token-0123456789abcdef'
const { app, baseUrl } = await listeningApp(t, { ADMIN_TOKENS: `ana:admin:${ADMIN}` })
const folder = screenshotFolder(t)
const browser = await launchBrowser(t)

// Two games, one approved and one waiting (both buttons); long names; entries with meta; a held score; audit entries from all of it.
const game = await createGame(app, { gameId: 'space_race' })
await createGame(app, { gameId: 'moon_lander_deluxe_edition', approved: false })
dataOf(await admin(app, 'PATCH', '/admin/games/space_race', { name: 'Space Race: the long-named championship of the outer rim', review_above: 1000 }))
dataOf(await admin(app, 'PATCH', '/admin/games/moon_lander_deluxe_edition', { name: 'Moon Lander, the deluxe edition with every level' }))
for (const [player, score] of [['vega', 120], ['altair', 300], ['a_player_with_a_rather_long_na', 250]] as const) dataOf(await submit(app, game, { player, score, meta: '{"ship":"falcon","lap_times":[61.2,59.8,60.4]}' }))
dataOf(await submit(app, game, { player: 'rigel', score: 5000 }))
dataOf(await admin(app, 'PATCH', '/admin/games/space_race/players/vega', { hidden: true }))

async function signedIn (viewport: { width: number, height: number }) {
  const watched = await watchedPage(browser, viewport)
  await watched.page.goto(`${baseUrl}/console`)
  await watched.page.getByLabel('Operator token').fill(ADMIN)
  await watched.page.getByRole('button', { name: 'Sign in' }).click()
  await watched.page.locator('header.top').waitFor()
  return watched
}

interface Box { left: number, right: number, top: number, bottom: number }

/**
 * Where each button of the rows within `within` (a selector) is, and whether a tap at its centre
 * reaches it (nothing drawn over it). The window is scrolled up or down to
 * each, never a table's box sideways: a button a table box hides to the
 * right is measured where it is.
 */
async function buttonsOf (page: Page, within: string): Promise<Array<Box & { name: string, reached: boolean }>> {
  return await page.evaluate(within => {
    return Array.from(document.querySelectorAll(`${within} tbody button`)).map(button => {
      window.scrollBy(0, button.getBoundingClientRect().top - window.innerHeight / 2)
      const { left, right, top, bottom } = button.getBoundingClientRect()
      const hit = document.elementFromPoint((left + right) / 2, (top + bottom) / 2)
      return { name: button.getAttribute('aria-label') ?? '', left, right, top, bottom, reached: hit !== null && button.contains(hit) }
    })
  }, within)
}

t.test('the games list: every row\'s approve or withdraw button is on screen and takes a tap, at a phone\'s width too', { timeout: BROWSER_TEST_TIMEOUT_MS }, async t => {
  for (const [size, viewport] of VIEWPORTS) {
    const { page, context, overflow, problems, settled } = await signedIn(viewport)
    t.teardown(async () => { await context.close() })
    await page.getByRole('button', { name: 'Approve moon_lander_deluxe_edition' }).waitFor()
    await settled()
    const buttons = await buttonsOf(page, '[role="region"][aria-label="Games"]')
    t.equal(buttons.length, 2, `${size}: a button for each game`)
    for (const button of buttons) {
      t.ok(button.left >= 0 && button.right <= viewport.width, `${size}: "${button.name}" is within the screen's width (${Math.round(button.left)} to ${Math.round(button.right)} of ${viewport.width})`)
      t.ok(button.reached, `${size}: a tap on "${button.name}" reaches it`)
    }
    t.equal(await overflow(), 0, `${size}: no sideways scrolling`)
    await page.screenshot({ path: join(folder, `polish-games-${size}.png`), fullPage: true })
    // The tap does what it says, and the list says so; then back as it was.
    await page.getByRole('button', { name: 'Approve moon_lander_deluxe_edition' }).click()
    await page.getByText('moon_lander_deluxe_edition is approved.').waitFor()
    await page.getByRole('button', { name: 'Withdraw approval of moon_lander_deluxe_edition' }).click()
    await page.getByText('moon_lander_deluxe_edition is no longer approved.').waitFor()
    t.same(problems, [], `${size}: no script errors`)
    await context.close()
  }
})
