import t from 'tap'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { admin, createGame, dataOf } from '../helpers/app.js'
import { BROWSER_TEST_TIMEOUT_MS, VIEWPORTS, consoleSignedIn, launchBrowser, screenshotFolder } from '../helpers/browser.js'
import { listeningApp } from '../helpers/listening.js'
import { keys } from '../../src/store/keys.js'

/*
 * A game's ratings in the console (docs/ratings.md#operators), in Chromium
 * at a desktop's size and a phone's: the overview's weighted score beside
 * the average, and its chart of both per day; the Ratings tab's raters with
 * their play when they rated and now, filtered to those who never played,
 * and one removed after a question (every figure follows). Screenshots.
 */

const ADMIN = 'console-admin-token-0123456789abcdef'
const { app, baseUrl } = await listeningApp(t, { ADMIN_TOKENS: `ana:admin:${ADMIN}`, RATING_PRIOR_MEAN: '5.5' })
const folder = screenshotFolder(t)
const browser = await launchBrowser(t)

async function userCookie (app: FastifyInstance, username: string): Promise<string> {
  dataOf(await admin(app, 'POST', '/admin/users', { username }))
  return `sid=${String(dataOf(await admin(app, 'POST', '/admin/sessions', { username })).session_id)}`
}

async function playAndRate (cookie: string, seconds: number, stars: number): Promise<void> {
  const headers = { 'content-type': 'application/x-www-form-urlencoded', cookie }
  if (seconds > 0) dataOf(await app.inject({ method: 'POST', url: '/api/playtime', payload: `game_id=star_rush&seconds=${seconds}`, headers }))
  dataOf(await app.inject({ method: 'POST', url: '/api/rate?game_id=star_rush', payload: `stars=${stars}`, headers }))
}

await createGame(app, { gameId: 'star_rush' })
// Three days ago the figures were other: the chart draws the days the index noted.
const day = (ago: number): string => new Date(Date.now() - ago * 86_400_000).toISOString().slice(0, 10)
await app.redis.hset(keys.ratingDays('star_rush'), day(3), '6|8|3')
await playAndRate(await userCookie(app, 'ann'), 300, 9)
await playAndRate(await userCookie(app, 'bob'), 120, 8)
for (const name of ['bomb_1', 'bomb_2', 'bomb_3']) await playAndRate(await userCookie(app, name), 0, 1)
await app.syncRecordCache()
await app.gamesIndex.flush()

t.test('the overview shows the weighted score beside the average, and both per day', { timeout: BROWSER_TEST_TIMEOUT_MS }, async t => {
  for (const [size, viewport] of VIEWPORTS) {
    const { page, context, overflow, problems } = await consoleSignedIn(browser, baseUrl, ADMIN, viewport)
    t.teardown(async () => { await context.close() })
    await page.goto(`${baseUrl}/console/#/games/star_rush/overview`)
    // (5 x 5.5 + 0.5 x 9 + 0.2 x 8) / 5.7 = 5.89 half stars: 2.94 stars; the average of 9, 8, 1, 1, 1 is 4 half stars: 2.00.
    await page.locator('#figure-weighted').getByText('2.94 ★').waitFor()
    t.ok(await page.getByText('average 2.00 ★').isVisible(), `${size}: the average beside it`)
    const chart = page.locator('#chart-rating-days')
    await chart.scrollIntoViewIfNeeded()
    t.ok(await chart.isVisible(), `${size}: the chart of both per day`)
    t.match(await chart.getAttribute('aria-label'), /Now 2\.94 stars weighted by play, 2\.00 on average\./, `${size}: its sentence for screen readers`)
    t.ok(await page.locator('.legend').filter({ hasText: 'Weighted by play' }).filter({ hasText: 'Average' }).isVisible(), `${size}: a legend names both lines`)
    t.ok(await overflow() <= 0, `${size}: nothing overflows sideways`)
    t.same(problems, [], `${size}: no script error`)
    await chart.screenshot({ path: join(folder, `console-rating-days-${size}.png`) })
    await page.screenshot({ path: join(folder, `console-overview-ratings-${size}.png`), fullPage: true })
  }
})

t.test('the Ratings tab lists raters with their play, filters those who never played, removes one after a question', { timeout: BROWSER_TEST_TIMEOUT_MS }, async t => {
  for (const [size, viewport] of VIEWPORTS) {
    const { page, context, overflow, problems } = await consoleSignedIn(browser, baseUrl, ADMIN, viewport)
    t.teardown(async () => { await context.close() })
    await page.goto(`${baseUrl}/console/#/games/star_rush/ratings`)
    const rows = page.locator('#ratings tbody tr')
    await rows.first().waitFor()
    const expected = size === 'desktop' ? 5 : 4
    t.equal(await rows.count(), expected, `${size}: every rating (the desktop pass removed one)`)
    const ann = rows.filter({ hasText: 'ann' })
    t.match(await ann.textContent(), /4\.5 ★.*5 min.*5 min.*50 %/, `${size}: stars, play when rated and now, the weight`)
    await page.screenshot({ path: join(folder, `console-ratings-${size}.png`), fullPage: true })

    await page.getByLabel('Play at most (seconds)').fill('0')
    await page.getByRole('button', { name: 'Show' }).click()
    await rows.filter({ hasText: 'bob' }).waitFor({ state: 'detached' })
    t.equal(await rows.count(), expected - 2, `${size}: only the raters who never played`)

    const victim = size === 'desktop' ? 'bomb_1' : 'bomb_2'
    await page.getByRole('button', { name: `Remove ${victim}'s rating` }).click()
    await page.getByRole('alertdialog').getByRole('button', { name: 'Remove the rating' }).click()
    await page.getByText(`${victim}'s rating is removed.`).waitFor()
    await rows.filter({ hasText: victim }).waitFor({ state: 'detached' })
    t.ok(await overflow() <= 0, `${size}: nothing overflows sideways`)
    t.same(problems, [], `${size}: no script error`)
    await page.screenshot({ path: join(folder, `console-ratings-removed-${size}.png`), fullPage: true })
  }
  const left = dataOf(await admin(app, 'GET', '/admin/games/star_rush/ratings'))
  t.same(left.items.map((item: { username: string }) => item.username).sort(), ['ann', 'bob', 'bomb_3'], 'the two removed are gone')
  const audit = dataOf(await admin(app, 'GET', '/admin/games/star_rush/audit'))
  t.ok(audit.items.some((entry: { action: string, target: string }) => entry.action === 'rating.remove' && entry.target === 'bomb_1'), 'audited')
})
