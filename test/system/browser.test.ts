import { existsSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { keys } from '../../src/store/keys.js'
import { ADMIN_TOKEN, admin, createGame, dataOf, get, submit } from '../helpers/app.js'
import { BROWSER_TEST_TIMEOUT_MS, CHROMIUM, STEP_TIMEOUT_MS, VIEWPORTS, launchBrowser, screenshotFolder, watchedPage } from '../helpers/browser.js'
import { listeningApp } from '../helpers/listening.js'

/*
 * End to end in real headless Chromium: log in on the play page, play the
 * demo game to a score, see the board and the own rank update, rate the
 * game, and see a play-time report arrive.
 */
// About ten times the 12 s it takes on an idle machine (on a Redis Cluster).
t.test('a player logs in, plays the demo game, rates it, and play time is reported', { timeout: 130_000 }, async t => {
  t.ok(existsSync(CHROMIUM), `Chromium at ${CHROMIUM} (apt-get install chromium)`)
  const { app, baseUrl } = await listeningApp(t, { PLAYTIME_REPORT_S: '1' })
  // The demo game's files live in public/games/demo/, so the game id is demo.
  const game = await createGame(app, { gameId: 'demo' })
  dataOf(await admin(app, 'POST', '/admin/users', { username: 'ada', password: 'lovelace-1843' }))

  const browser = await launchBrowser(t)
  const page = await browser.newPage()
  // A step that cannot happen fails by its name (test/helpers/browser.ts).
  page.setDefaultTimeout(STEP_TIMEOUT_MS)
  const pageErrors: string[] = []
  page.on('pageerror', error => { pageErrors.push(error.message) })
  // A Content-Security-Policy violation is reported on the console: none may happen.
  page.on('console', message => { if (/Content Security Policy|Refused to/i.test(message.text())) pageErrors.push(message.text()) })

  await page.goto(`${baseUrl}/play/demo`)
  t.equal(await page.evaluate(() => JSON.stringify((window as unknown as { __platform: unknown }).__platform)), JSON.stringify({ gameId: 'demo', username: null, guest: false, playable: true, canSubmit: false, rating: { avg: 0, count: 0, mine: null, weighted: null, distribution: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0] }, periods: [], order: 'desc', format: { type: 'integer', decimals: 0, unit: '' }, runs: 'off', boards: [], periodNames: { all: 'All time', daily: 'Today', weekly: 'This week', monthly: 'This month' }, achievements: false, ready: true }))
  t.equal(await page.locator('input[type=password]').count(), 0, 'no password field beside the game')
  // Logging in happens on a page of its own, then leads back to the game.
  await Promise.all([page.waitForURL(`${baseUrl}/login?next=%2Fplay%2Fdemo`), page.click('a#login')])
  await page.fill('input[name=username]', 'ada')
  await page.fill('input[name=password]', 'lovelace-1843')
  await Promise.all([page.waitForURL(`${baseUrl}/play/demo`, { waitUntil: 'load' }), page.click('form.login button[type=submit]')])
  await page.getByText('Logged in as').waitFor()
  t.equal(await page.evaluate(() => JSON.stringify((window as unknown as { __platform: unknown }).__platform)), JSON.stringify({ gameId: 'demo', username: 'ada', guest: false, playable: true, canSubmit: true, rating: null, periods: [], order: 'desc', format: { type: 'integer', decimals: 0, unit: '' }, runs: 'off', boards: [], periodNames: { all: 'All time', daily: 'Today', weekly: 'This week', monthly: 'This month' }, achievements: false, ready: true }))

  // Three rounds of Reaction: click as soon as the button turns green.
  const frame = page.frameLocator('#game')
  await frame.locator('#target').click()
  for (let round = 0; round < 3; round++) {
    await frame.locator('#target[data-state="go"]').waitFor()
    await frame.locator('#target').click()
  }
  const result = frame.locator('#result')
  await result.filter({ hasText: /^Score [\d,]+\. New best! Rank 1\.$/ }).waitFor()
  const score = Number(/Score ([\d,]+)/.exec(await result.textContent() ?? '')?.[1]?.replace(/,/g, ''))
  t.ok(score > 0 && score <= 3000, `the game scored ${score}`)
  // The kit's 'best' event, as the game's message.
  await frame.locator('#message').filter({ hasText: /^New best: [\d,]+, rank 1!$/ }).waitFor()

  // The board and the own rank update after the submission.
  // Shown as the board's format shows it (whole numbers, grouped in the browser's locale).
  await page.locator('#board li').filter({ hasText: `ada — ${new Intl.NumberFormat('en-US').format(score)}` }).waitFor()
  t.equal(await page.locator('#board li').count(), 1)
  await page.locator('#my-rank').filter({ hasText: `Your best: ${new Intl.NumberFormat('en-US').format(score)}, rank 1 of 1` }).waitFor()

  // The score is on the real board, as the API-key side sees it.
  const board = dataOf(await get(app, '/api/rank', { action: 'top', api_key: game.apiKey, game_id: 'demo' }))
  t.match(board, { total: 1, items: [{ rank: 1, player_name: 'ada', score }] })

  // Before rating: no star lit (the average is in the sentence), nothing to remove.
  await page.locator('#rating-summary').filter({ hasText: 'No ratings yet.' }).waitFor()
  t.equal(await page.locator('.stars button.on').count(), 0, 'no star lit before the player rates')
  t.notOk(await page.locator('#rating-clear').isVisible(), 'no "Remove my rating" before there is one')
  // Rate 4 stars (8 half-stars).
  await page.click('.stars button[data-value="8"]')
  await page.locator('#rating-summary').filter({ hasText: /^Score [0-9.]+ of 5, weighted by play\. Average 4\.00 stars from 1 rating; yours: 4$/ }).waitFor()
  t.equal(await page.locator('.stars button.on').count(), 8)
  t.ok(await page.locator('#rating-clear').isVisible(), 'now it can be removed')
  await page.click('#rating-clear')
  await page.locator('#rating-summary').filter({ hasText: 'No ratings yet.' }).waitFor()
  t.equal(await page.locator('.stars button.on').count(), 0, 'removed: no star lit')
  t.notOk(await page.locator('#rating-clear').isVisible())
  await page.click('.stars button[data-value="8"]')
  await page.locator('#rating-summary').filter({ hasText: 'Average 4.00 stars from 1 rating; yours: 4' }).waitFor()

  // Play time arrives while the page is visible (reports every second here).
  await page.locator('#playtime').filter({ hasText: /You played [1-9]\d* s here/ }).waitFor()
  const credited = Number(await app.redis.hget(keys.playtime('demo'), 'u:ada'))
  t.ok(credited >= 1, `${credited} s credited to ada`)

  t.same(pageErrors, [], 'no script errors on the page')
})

/*
 * The pages at desktop and phone size (390×844): what must be visible is,
 * nothing overflows sideways, names keep their direction inside <bdi>.
 * Screenshots go to SCREENSHOT_DIR (default: a temp folder, printed).
 */
t.test('the front door, the play, login and unapproved-game pages at desktop and phone size', { timeout: BROWSER_TEST_TIMEOUT_MS }, async t => {
  const { app, baseUrl } = await listeningApp(t)
  const game = await createGame(app, { gameId: 'demo' })
  dataOf(await admin(app, 'POST', '/admin/users', { username: 'grace', password: 'hopper-1906' }))
  // Names in other scripts and directions, and a long one, on the board beside the game.
  for (const [i, player] of ['grace', 'نور الهدى', 'שלום', '👩‍💻 ada', 'a-name-that-is-thirty-chars!!'].entries()) {
    dataOf(await submit(app, game, { player, score: 900 - i * 100 }))
  }
  const session = dataOf(await admin(app, 'POST', '/admin/sessions', { username: 'grace' }))
  dataOf(await admin(app, 'POST', '/admin/games', { game_id: 'draft', name: 'A draft game' }))
  const folder = screenshotFolder(t)
  // The front page's lists are the games index's: what this instance noted is written.
  await app.syncRecordCache()
  await app.gamesIndex.flush()

  const browser = await launchBrowser(t)
  for (const [size, viewport] of VIEWPORTS) {
    const { context, page, problems, overflow } = await watchedPage(browser, viewport)

    await page.goto(`${baseUrl}/`)
    for (const selector of ['h1', '#top-rated a[href="/play/demo"]', 'a[href="/docs"]', 'a[href="/healthz"]', 'a[href="/console/"]']) {
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

/*
 * The board switch of a game that keeps days and weeks, and the logged-in
 * user's neighbourhood, at desktop and phone size. Scores sent before the
 * game kept periods are on the all-time board only, so the boards differ:
 * grace is 103rd of 105 all time, 3rd of 5 today. Screenshots go where the
 * test above puts its own.
 */
t.test('the board switch and the around-me view at desktop and phone size', { timeout: BROWSER_TEST_TIMEOUT_MS }, async t => {
  const { app, baseUrl } = await listeningApp(t)
  const game = await createGame(app, { gameId: 'demo' })
  for (let i = 0; i < 100; i++) dataOf(await submit(app, game, { player: `veteran ${i + 1}`, score: 10_000 - i * 10 }))
  dataOf(await admin(app, 'PATCH', '/admin/games/demo', { periods: ['daily', 'weekly'], timezone: 'UTC' }))
  for (const [player, score] of [['نور الهدى', 900], ['שלום', 700], ['grace', 600], ['👩‍💻 ada', 500], ['a-name-that-is-thirty-chars!!', 300]] as const) {
    dataOf(await submit(app, game, { player, score }))
  }
  for (const username of ['grace', 'linus']) dataOf(await admin(app, 'POST', '/admin/users', { username, password: `${username}-pw-1` }))
  const grace = dataOf(await admin(app, 'POST', '/admin/sessions', { username: 'grace' }))
  const linus = dataOf(await admin(app, 'POST', '/admin/sessions', { username: 'linus' }))
  const plain = await createGame(app, { gameId: 'plain' })
  const folder = screenshotFolder(t)
  const neighbours = ['نور الهدى — 900', 'שלום — 700', 'grace — 600', '👩‍💻 ada — 500', 'a-name-that-is-thirty-chars!! — 300']
  const resets = /^Resets in (\d+ days?( \d+ h)?|\d+ h( \d+ min)?|\d+ min|less than a minute)$/

  const browser = await launchBrowser(t)
  for (const [size, viewport] of VIEWPORTS) {
    const { context, page, problems, overflow } = await watchedPage(browser, viewport)
    const pressed = async (): Promise<string[]> => await page.locator('.board-switch button[aria-pressed="true"]').allTextContents()

    // All time, as the page opens: grace is not in the top 10, and her neighbourhood shows her.
    await context.addCookies([{ name: 'sid', value: grace.session_id, url: baseUrl }])
    await page.goto(`${baseUrl}/play/demo`)
    await page.locator('#around li.me').waitFor()
    const buttons = page.locator('.board-switch button')
    t.same(await buttons.allTextContents(), ['All time', 'Today', 'This week'], `${size}: one button per board the game keeps`)
    for (let i = 0; i < 3; i++) t.ok(await buttons.nth(i).isVisible(), `${size}: switch button ${i + 1} is visible`)
    t.ok(await page.getByRole('group', { name: 'Which period' }).isVisible(), `${size}: the switch is a labelled group`)
    t.same(await pressed(), ['All time'], `${size}: all time is pressed first`)
    t.equal(await page.locator('#board-title').textContent(), 'Top 10 — all time', `${size}: the heading names the board`)
    t.equal(await page.locator('#board li').count(), 10, `${size}: ten on the all-time board`)
    t.equal(await page.locator('#board li.me').count(), 0, `${size}: grace is not in the all-time top 10`)
    t.notOk(await page.locator('#board-resets').isVisible(), `${size}: the all-time board never resets`)
    await page.locator('#my-rank').filter({ hasText: 'Your best: 600, rank 103 of 105' }).waitFor()
    t.same(await page.locator('#around li').allTextContents(), neighbours, `${size}: around grace all time, two on each side`)
    t.same(await page.locator('#around li').evaluateAll(items => items.map(item => (item as HTMLLIElement).value)), [101, 102, 103, 104, 105], `${size}: with their ranks`)
    t.equal(await page.locator('#around li.me').textContent(), 'grace — 600', `${size}: her own row is highlighted`)
    t.equal(await page.locator('#around-status').textContent(), 'You are number 103 of 105.', `${size}: in the back half, a rank reads better than "the top 98.1%"`)
    // Three-digit ranks, the widest one bold: the list leaves room for their numbers.
    const room = await page.locator('#around').evaluate(list => {
      const probe = document.createElement('li')
      probe.className = 'me'
      probe.textContent = '105. '
      list.append(probe)
      probe.style.cssText = 'display: inline-block; list-style: none; white-space: pre'
      const needed = probe.getBoundingClientRect().width
      probe.remove()
      return { padding: parseFloat(getComputedStyle(list).paddingLeft), needed }
    })
    t.ok(room.padding >= room.needed, `${size}: room for "105. " beside the names (${room.padding} px for ${room.needed} px)`)
    t.ok(await overflow() <= 0, `${size} all time: nothing overflows sideways`)
    await page.screenshot({ path: join(folder, `board-all-${size}.png`), fullPage: true })

    // Today, by mouse: the daily board, its reset, her rank and neighbourhood on it.
    await page.getByRole('button', { name: 'Today' }).click()
    await page.locator('#board-title').filter({ hasText: 'Top 10 — today' }).waitFor()
    t.same(await pressed(), ['Today'], `${size}: today is pressed, and only today`)
    t.same(await page.locator('#board li').allTextContents(), neighbours, `${size}: the daily board holds today's scores only`)
    t.equal(await page.locator('#board li.me').textContent(), 'grace — 600', `${size}: her row on the daily board`)
    t.ok(await page.locator('#board li').nth(4).isVisible(), `${size}: the daily board is visible`)
    t.ok(await page.locator('#board-resets').isVisible(), `${size}: the daily board says when it resets`)
    t.match(await page.locator('#board-resets').textContent(), resets)
    await page.locator('#my-rank').filter({ hasText: 'Your best today: 600, rank 3 of 5' }).waitFor()
    t.equal(await page.locator('#board-status').textContent(), '5 players')
    await page.locator('#around-status').filter({ hasText: 'You are number 3 today, on the board above.' }).waitFor()
    t.equal(await page.locator('#around li').count(), 0, `${size}: the top list shows her already: no neighbourhood repeating it`)
    t.notOk(await page.locator('#around').isVisible(), `${size}: the empty list takes no room`)
    t.equal(await page.locator('#around-title').textContent(), 'Around you — today')
    t.ok(await overflow() <= 0, `${size} today: nothing overflows sideways`)
    await page.screenshot({ path: join(folder, `board-today-${size}.png`), fullPage: true })

    // This week, by keyboard: Tab from Today, then Enter.
    await page.getByRole('button', { name: 'Today' }).focus()
    await page.keyboard.press('Tab')
    t.equal(await page.evaluate(() => document.activeElement?.textContent), 'This week', `${size}: Tab reaches the next board`)
    await page.keyboard.press('Enter')
    await page.locator('#board-title').filter({ hasText: 'Top 10 — this week' }).waitFor()
    t.same(await pressed(), ['This week'])
    await page.locator('#my-rank').filter({ hasText: 'Your best this week: 600, rank 3 of 5' }).waitFor()
    t.match(await page.locator('#board-resets').textContent(), resets)
    await page.keyboard.press('Shift+Tab')
    await page.keyboard.press('Shift+Tab')
    await page.keyboard.press('Space')
    await page.locator('#board-title').filter({ hasText: 'Top 10 — all time' }).waitFor()
    t.same(await pressed(), ['All time'], `${size}: back to all time with Shift+Tab and Space`)
    t.notOk(await page.locator('#board-resets').isVisible())
    t.same(problems, [], `${size}: no script errors and no blocked content`)

    // A user with no score: a sentence instead of a neighbourhood.
    await context.addCookies([{ name: 'sid', value: linus.session_id, url: baseUrl }])
    await page.goto(`${baseUrl}/play/demo`)
    await page.getByRole('button', { name: 'Today' }).click()
    await page.locator('#my-rank').filter({ hasText: 'You have no score today yet.' }).waitFor()
    t.equal(await page.locator('#around-status').textContent(), 'Play a round to see the players around you.')
    t.equal(await page.locator('#around li').count(), 0, `${size}: no neighbours without a score`)
    t.ok(await overflow() <= 0, `${size} no score: nothing overflows sideways`)

    // A game without periods: no switch, no reset line, the heading as before.
    await page.goto(`${baseUrl}/play/plain`)
    // (The desktop pass leaves one score there, below.)
    await page.locator('#board-status').filter({ hasText: size === 'desktop' ? 'No scores yet: be the first.' : '1 player' }).waitFor()

    // The board is live: a score submitted elsewhere shows up without a reload.
    const navigations: string[] = []
    page.on('framenavigated', frame => { if (frame === page.mainFrame()) navigations.push(frame.url()) })
    dataOf(await submit(app, plain, { player: `live from elsewhere ${size}`, score: 42 }))
    await page.locator('#board li').filter({ hasText: `live from elsewhere ${size} — 42` }).waitFor()
    const shown = await page.locator('#board li').count()
    t.equal(await page.locator('#board-status').textContent(), `${shown} player${shown === 1 ? '' : 's'}`, `${size}: the count follows`)
    t.same(navigations, [], `${size}: without reloading the page`)
    t.equal(await page.locator('.board-switch, .board-switch button, #board-resets').count(), 0, `${size}: no switch for a game without periods`)
    t.equal(await page.locator('#board-title').textContent(), 'Top 10')
    t.ok(await overflow() <= 0, `${size} without periods: nothing overflows sideways`)
    t.same(problems, [], `${size}: no script errors and no blocked content`)
    await context.close()
  }
})

t.test('the play page\'s board switch: the game\'s named boards, each with its own periods, live', { timeout: BROWSER_TEST_TIMEOUT_MS }, async t => {
  const { app, baseUrl } = await listeningApp(t)
  const game = await createGame(app, { gameId: 'demo' })
  dataOf(await admin(app, 'PATCH', '/admin/games/demo', { periods: ['weekly'] }))
  dataOf(await admin(app, 'POST', '/admin/games/demo/boards', { board_id: 'lap-1', name: 'Lap 1, the long way round the moon', order: 'asc', periods: ['daily'], score_format: 'time' }))
  dataOf(await admin(app, 'POST', '/admin/games/demo/boards', { board_id: 'coins', name: 'Coins', operator: 'sum', score_unit: 'coins' }))
  dataOf(await admin(app, 'POST', '/admin/users', { username: 'grace', password: 'grace-pw-1' }))
  const grace = dataOf(await admin(app, 'POST', '/admin/sessions', { username: 'grace' }))
  for (const [player, own, lap, coins] of [['grace', 300, 61_000, 40], ['ada', 500, 59_000, 12]] as const) {
    dataOf(await submit(app, game, { player: String(player), score: own }))
    dataOf(await submit(app, game, { player: String(player), score: lap, board: 'lap-1' }))
    dataOf(await submit(app, game, { player: String(player), score: coins, board: 'coins' }))
  }
  const folder = screenshotFolder(t)
  const browser = await launchBrowser(t)
  for (const [size, viewport] of VIEWPORTS) {
    const { context, page, problems, overflow } = await watchedPage(browser, viewport)
    await context.addCookies([{ name: 'sid', value: grace.session_id, url: baseUrl }])
    await page.goto(`${baseUrl}/play/demo`)
    await page.locator('#board li').first().waitFor()
    const choice = page.getByLabel('Board', { exact: true })
    t.ok(await choice.isVisible(), `${size}: the board select is there`)
    t.same(await choice.locator('option').allTextContents(), ['Main board', 'Coins', 'Lap 1, the long way round the moon'], `${size}: the game's own board, then its named boards`)
    t.same(await page.locator('.board-switch button').allTextContents(), ['All time', 'This week'], `${size}: the game's own periods`)
    t.same(await page.locator('#board li').allTextContents(), ['ada — 500', 'grace — 300'])

    await choice.selectOption('lap-1')
    await page.locator('#board-title').filter({ hasText: 'Top 10 — Lap 1, the long way round the moon, all time' }).waitFor()
    t.same(await page.locator('#board li').allTextContents(), ['ada — 0:59.000', 'grace — 1:01.000'], `${size}: the lap board, lower first, as times (its format)`)
    t.same(await page.locator('.board-switch button').allTextContents(), ['All time', 'Today'], `${size}: the lap board's own periods`)
    await page.locator('#my-rank').filter({ hasText: 'Your best: 1:01.000, rank 2 of 2' }).waitFor()
    await page.getByRole('button', { name: 'Today' }).click()
    await page.locator('#board-title').filter({ hasText: 'Top 10 — Lap 1, the long way round the moon, today' }).waitFor()
    await page.locator('#my-rank').filter({ hasText: 'Your best today: 1:01.000, rank 2 of 2' }).waitFor()
    t.ok(await page.locator('#board-resets').isVisible(), `${size}: its daily board resets`)
    t.ok(await overflow() <= 0, `${size} lap board: nothing overflows sideways`)
    await page.screenshot({ path: join(folder, `board-named-${size}.png`), fullPage: true })

    await choice.selectOption('coins')
    await page.locator('#board-title').filter({ hasText: 'Top 10 — Coins' }).waitFor()
    t.notOk(await page.locator('.board-switch').isVisible(), `${size}: a board without periods has no period switch`)
    t.same(await page.locator('#board li').allTextContents(), ['grace — 40\u00a0coins', 'ada — 12\u00a0coins'], `${size}: with the board's unit`)
    // Live: a score to this board shows up without a reload.
    dataOf(await submit(app, game, { player: 'ada', score: 50, board: 'coins' }))
    await page.locator('#board li').filter({ hasText: 'ada — 62\u00a0coins' }).waitFor()
    t.pass(`${size}: the coins board follows a submit (a sum: 12 + 50)`)
    dataOf(await submit(app, game, { player: 'ada', score: -50, board: 'coins' }))
    await choice.selectOption('')
    await page.locator('#board-title').filter({ hasText: 'Top 10 — all time' }).waitFor()
    t.same(await page.locator('.board-switch button').allTextContents(), ['All time', 'This week'], `${size}: back on the game's own board and its periods`)
    t.same(problems, [], `${size}: no script errors and no blocked content`)
    await context.close()
  }
})

t.test('an achievement unlocked by a score shows as a toast on the play page, at desktop and phone size', { timeout: BROWSER_TEST_TIMEOUT_MS }, async t => {
  const { app, baseUrl } = await listeningApp(t)
  await createGame(app, { gameId: 'demo' })
  dataOf(await admin(app, 'POST', '/admin/games/demo/achievements', { achievement_id: 'first-score', name: 'On the board', points: 10, rule: { board: 'default', at_least: 1 } }))
  await app.inject({ method: 'PUT', url: '/admin/games/demo/achievements/first-score/icon', payload: Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000100000500010d0a2db40000000049454e44ae426082', 'hex'), headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'image/png' } })
  const folder = screenshotFolder(t)
  const browser = await launchBrowser(t)
  for (const [size, viewport] of VIEWPORTS) {
    dataOf(await admin(app, 'POST', '/admin/users', { username: `kim-${size}`, password: 'kim-pw-1' }))
    const kim = dataOf(await admin(app, 'POST', '/admin/sessions', { username: `kim-${size}` }))
    const { context, page, problems, overflow } = await watchedPage(browser, viewport)
    await context.addCookies([{ name: 'sid', value: kim.session_id, url: baseUrl }])
    await page.goto(`${baseUrl}/play/demo`)
    const frame = page.frameLocator('#game')
    await frame.locator('#target').click()
    for (let round = 0; round < 3; round++) {
      await frame.locator('#target[data-state="go"]').waitFor()
      await frame.locator('#target').click()
    }
    const toast = page.locator('#toasts .toast')
    await toast.waitFor()
    t.equal(await toast.innerText(), 'Achievement unlocked: On the board (+10)', `${size}: the toast names it`)
    // The toast shows at once; its icon arrives in a request of its own: waited for (decode settles when it loads or fails).
    await toast.locator('img').evaluate(async image => { await (image as HTMLImageElement).decode().catch(() => undefined) })
    t.ok(await toast.locator('img').evaluate(image => (image as HTMLImageElement).complete && (image as HTMLImageElement).naturalWidth === 1), `${size}: with its icon`)
    t.ok(await toast.isVisible(), `${size}: visible`)
    t.ok(await overflow() <= 0, `${size}: nothing overflows sideways`)
    await page.screenshot({ path: join(folder, `achievement-toast-${size}.png`) })
    t.same(problems, [], `${size}: no script errors and no blocked content`)
    await context.close()
  }
})
