import { existsSync } from 'node:fs'
import { chromium, type Browser } from 'playwright-core'
import t from 'tap'
import { keys } from '../src/keys.js'
import { admin, createGame, dataOf, get } from './helpers/app.js'
import { listeningApp } from './helpers/listening.js'

/** Debian's chromium package; .ci/run installs it (README, "The two commands"). */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

/*
 * End to end in real headless Chromium: log in on the play page, play the
 * demo game to a score, see the board and the own rank update, rate the
 * game, and see a play-time report arrive.
 */
t.test('a player logs in, plays the demo game, rates it, and play time is reported', async t => {
  t.ok(existsSync(CHROMIUM), `Chromium at ${CHROMIUM} (apt-get install chromium)`)
  const { app, baseUrl } = await listeningApp(t, { PLAYTIME_REPORT_S: '1' })
  // The demo game's files live in public/games/demo/, so the game id is demo.
  const game = await createGame(app, { gameId: 'demo' })
  dataOf(await admin(app, 'POST', '/admin/users', { username: 'ada', password: 'lovelace-1843' }))

  const browser: Browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']
  })
  t.teardown(async () => { await browser.close() })
  const page = await browser.newPage()
  const pageErrors: string[] = []
  page.on('pageerror', error => { pageErrors.push(error.message) })

  await page.goto(`${baseUrl}/play/demo`)
  t.equal(await page.evaluate(() => JSON.stringify((window as unknown as { __platform: unknown }).__platform)), JSON.stringify({ gameId: 'demo', username: null, canSubmit: false }))
  await page.fill('input[name=username]', 'ada')
  await page.fill('input[name=password]', 'lovelace-1843')
  await Promise.all([page.waitForURL(`${baseUrl}/play/demo`, { waitUntil: 'load' }), page.click('form.login button[type=submit]')])
  await page.getByText('Logged in as').waitFor()
  t.equal(await page.evaluate(() => JSON.stringify((window as unknown as { __platform: unknown }).__platform)), JSON.stringify({ gameId: 'demo', username: 'ada', canSubmit: true }))

  // Three rounds of Reaction: click as soon as the button turns green.
  const frame = page.frameLocator('#game')
  await frame.locator('#target').click()
  for (let round = 0; round < 3; round++) {
    await frame.locator('#target[data-state="go"]').waitFor({ timeout: 10_000 })
    await frame.locator('#target').click()
  }
  const result = frame.locator('#result')
  await result.filter({ hasText: /^Score \d+\. New best! Rank 1\.$/ }).waitFor()
  const score = Number(/Score (\d+)/.exec(await result.textContent() ?? '')?.[1])
  t.ok(score > 0 && score <= 3000, `the game scored ${score}`)

  // The board and the own rank update after the submission.
  await page.locator('#board li').filter({ hasText: `ada — ${score}` }).waitFor()
  t.equal(await page.locator('#board li').count(), 1)
  await page.locator('#my-rank').filter({ hasText: `Your best: ${score}, rank 1 of 1` }).waitFor()

  // The score is on the real board, as the API-key side sees it.
  const board = dataOf(await get(app, '/api/rank', { action: 'top', api_key: game.apiKey, game_id: 'demo' }))
  t.match(board, { total: 1, items: [{ rank: 1, player_name: 'ada', score }] })

  // Rate 4 stars (8 half-stars).
  await page.click('.stars button[data-value="8"]')
  await page.locator('#rating-summary').filter({ hasText: 'Average 4.00 stars from 1 rating; yours: 4' }).waitFor()
  t.equal(await page.locator('.stars button.on').count(), 8)

  // Play time arrives while the page is visible (reports every second here).
  await page.locator('#playtime').filter({ hasText: /You played [1-9]\d* s here/ }).waitFor({ timeout: 10_000 })
  const credited = Number(await app.redis.hget(keys.playtime('demo'), 'u:ada'))
  t.ok(credited >= 1, `${credited} s credited to ada`)

  t.same(pageErrors, [], 'no script errors on the page')
})
