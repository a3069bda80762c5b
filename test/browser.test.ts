import { existsSync, mkdirSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { keys } from '../src/store/keys.js'
import { admin, createGame, dataOf, get, submit } from './helpers/app.js'
import { CHROMIUM, launchBrowser } from './helpers/browser.js'
import { listeningApp } from './helpers/listening.js'

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

  const browser = await launchBrowser(t)
  const page = await browser.newPage()
  const pageErrors: string[] = []
  page.on('pageerror', error => { pageErrors.push(error.message) })
  // A Content-Security-Policy violation is reported on the console: none may happen.
  page.on('console', message => { if (/Content Security Policy|Refused to/i.test(message.text())) pageErrors.push(message.text()) })

  await page.goto(`${baseUrl}/play/demo`)
  t.equal(await page.evaluate(() => JSON.stringify((window as unknown as { __platform: unknown }).__platform)), JSON.stringify({ gameId: 'demo', username: null, canSubmit: false }))
  t.equal(await page.locator('input[type=password]').count(), 0, 'no password field beside the game')
  // Logging in happens on a page of its own, then leads back to the game.
  await Promise.all([page.waitForURL(`${baseUrl}/login?next=%2Fplay%2Fdemo`), page.click('a#login')])
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

/*
 * The pages at desktop and phone size (390×844): what must be visible is,
 * nothing overflows sideways, names keep their direction inside <bdi>.
 * Screenshots go to SCREENSHOT_DIR (default: a temp folder, printed).
 */
t.test('the front door, the play, login and unapproved-game pages at desktop and phone size', async t => {
  const { app, baseUrl } = await listeningApp(t)
  const game = await createGame(app, { gameId: 'demo' })
  dataOf(await admin(app, 'POST', '/admin/users', { username: 'grace', password: 'hopper-1906' }))
  // Names in other scripts and directions, and a long one, on the board beside the game.
  for (const [i, player] of ['grace', 'نور الهدى', 'שלום', '👩‍💻 ada', 'a-name-that-is-thirty-chars!!'].entries()) {
    dataOf(await submit(app, game, { player, score: 900 - i * 100 }))
  }
  const session = dataOf(await admin(app, 'POST', '/admin/sessions', { username: 'grace' }))
  dataOf(await admin(app, 'POST', '/admin/games', { game_id: 'draft', name: 'A draft game' }))
  const folder = process.env.SCREENSHOT_DIR ?? mkdtempSync(join(tmpdir(), 'ranking-screens-'))
  mkdirSync(folder, { recursive: true })
  t.comment(`screenshots in ${folder}`)

  const browser = await launchBrowser(t)
  for (const [size, viewport] of [['desktop', { width: 1280, height: 800 }], ['phone', { width: 390, height: 844 }]] as const) {
    const context = await browser.newContext({ viewport })
    const page = await context.newPage()
    const problems: string[] = []
    page.on('pageerror', error => { problems.push(error.message) })
    page.on('console', message => { if (/Content Security Policy|Refused to/i.test(message.text())) problems.push(message.text()) })
    const overflow = async (): Promise<number> => await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)

    await page.goto(`${baseUrl}/`)
    for (const selector of ['h1', 'a[href="/play/demo"]', 'a[href="/docs"]', 'a[href="/healthz"]']) {
      t.ok(await page.locator(selector).isVisible(), `${size} front door: ${selector} is visible`)
    }
    t.equal(await page.locator('a[href="/play/draft"]').count(), 0, `${size} front door: an unapproved game is not listed`)
    t.ok(await overflow() <= 0, `${size} front door: nothing overflows sideways`)
    await page.screenshot({ path: join(folder, `home-${size}.png`), fullPage: true })

    await page.goto(`${baseUrl}/login?next=/play/demo`)
    for (const selector of ['h1', 'input[name=username]', 'input[name=password]', 'form.login button[type=submit]']) {
      t.ok(await page.locator(selector).isVisible(), `${size} login page: ${selector} is visible`)
    }
    t.ok(await overflow() <= 0, `${size} login page: nothing overflows sideways`)
    await page.screenshot({ path: join(folder, `login-${size}.png`), fullPage: true })

    await context.addCookies([{ name: 'sid', value: session.session_id, url: baseUrl }])
    await page.goto(`${baseUrl}/play/demo`)
    await page.locator('#board li').nth(4).waitFor()
    for (const selector of ['h1', 'iframe#game', '#board', '#logout', '.stars button >> nth=9', '#my-rank']) {
      t.ok(await page.locator(selector).isVisible(), `${size} play page: ${selector} is visible`)
    }
    await page.locator('#my-rank').filter({ hasText: 'Your best: 900, rank 1 of 5' }).waitFor()
    t.equal(await page.locator('#board li bdi').count(), 5, `${size}: every name is in a <bdi>`)
    t.equal(await page.locator('#board li').nth(1).textContent(), 'نور الهدى — 800', `${size}: the score stays after a right-to-left name`)
    const frame = await page.locator('iframe#game').boundingBox()
    t.ok(frame !== null && frame.width >= viewport.width * (size === 'phone' ? 0.85 : 0.5), `${size}: the game takes the width it should (${frame?.width ?? 0} px)`)
    t.ok(await overflow() <= 0, `${size} play page: nothing overflows sideways`)
    // The demo game fits its frame: its button, and its result line with the longest text it shows, inside the frame, nothing scrolled away.
    const game = page.frameLocator('#game')
    await game.locator('#result').evaluate(element => { element.textContent = 'Score 2750. New best! Rank 1.' })
    for (const selector of ['canvas', '#target', '#status', '#result']) {
      const box = await game.locator(selector).boundingBox()
      t.ok(box !== null && frame !== null && box.y >= frame.y && box.y + box.height <= frame.y + frame.height && box.x >= frame.x && box.x + box.width <= frame.x + frame.width,
        `${size}: the game's ${selector} is inside the frame (${JSON.stringify(box)} in ${JSON.stringify(frame)})`)
    }
    t.ok(await game.locator('html').evaluate(root => root.scrollHeight <= window.innerHeight && root.scrollWidth <= window.innerWidth), `${size}: the game does not scroll inside its frame`)
    await page.screenshot({ path: join(folder, `play-${size}.png`), fullPage: true })

    // A game that is not approved yet: its page frames a page for people that says so, never JSON.
    await page.goto(`${baseUrl}/play/draft`)
    const draft = page.frameLocator('#game')
    await draft.locator('h1').filter({ hasText: 'Not available yet' }).waitFor()
    t.ok(await draft.locator('h1').isVisible(), `${size} unapproved game: the frame says it is not available yet`)
    t.notMatch(await draft.locator('body').textContent() ?? '', /^\s*\{/, `${size} unapproved game: no JSON in the frame`)
    const colours = await draft.locator('h1').evaluate(h1 => [getComputedStyle(h1).color, getComputedStyle(document.body).backgroundColor])
    t.ok(colours[1] !== 'rgba(0, 0, 0, 0)' && colours[0] !== colours[1], `${size} unapproved game: the frame's text stands on its own background (${colours.join(' on ')})`)
    t.equal(await page.locator('.stars').count(), 0, `${size} unapproved game: no rating widget for a game that cannot be rated`)
    t.ok(await overflow() <= 0, `${size} unapproved game: nothing overflows sideways`)
    await page.screenshot({ path: join(folder, `unapproved-${size}.png`), fullPage: true })
    t.same(problems, [], `${size}: no script errors and no blocked content`)
    await context.close()
  }
})
