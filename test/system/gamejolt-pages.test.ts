import t from 'tap'
import { join } from 'node:path'
import { admin, createGame, dataOf, errorOf } from '../helpers/app.js'
import { BROWSER_TEST_TIMEOUT_MS, VIEWPORTS, consoleSignedIn, launchBrowser, screenshotFolder, watchedPage } from '../helpers/browser.js'
import { listeningApp } from '../helpers/listening.js'
import { gamejolt } from '../helpers/gamejolt.js'

/*
 * Game Jolt's API as operators and players see it, in Chromium at a
 * desktop's size and a phone's (390x844): the console's Game Jolt tab (on,
 * off, the id and the masked key, a new key, the table id changed alone,
 * an id another game holds refused in words, a viewer's buttons disabled;
 * cloud saves: usage, stores, items, an item as escaped text, a big one
 * cut, one deleted), an achievement's difficulty and trophy id, a board's
 * table id, and the account page's game token. Screenshots of each.
 */

const ADMIN = 'console-admin-token-0123456789abcdef'
const VIEWER = 'console-viewer-token-0123456789abcdef'
const STRONG = 'correct horse battery staple'
const { app, baseUrl } = await listeningApp(t, { ADMIN_TOKENS: `ana:admin:${ADMIN},eve:viewer:${VIEWER}` })
const folder = screenshotFolder(t)
const browser = await launchBrowser(t)

await createGame(app, { gameId: 'space_race' })
await createGame(app, { gameId: 'other_game' })
// Another game answers to 777: the console's tab must say so when it is asked for.
dataOf(await admin(app, 'PUT', '/admin/games/other_game/gamejolt', { gamejolt_game_id: 777 }))
dataOf(await admin(app, 'POST', '/admin/games/space_race/achievements', { achievement_id: 'first-lap', name: 'First lap of the outer rim circuit', points: 10 }))

interface Link { gamejolt_game_id: number, private_key: string, primary_table_id: number }
const linkOf = async (): Promise<Link> => dataOf(await admin(app, 'GET', '/admin/games/space_race/gamejolt')) as Link

t.test('console, Game Jolt tab: off, an id another game holds refused, on, the key masked then shown, a new key, off again', { timeout: 2 * BROWSER_TEST_TIMEOUT_MS }, async t => {
  for (const [size, viewport] of VIEWPORTS) {
    const { page, context, overflow, problems, settled } = await consoleSignedIn(browser, baseUrl, ADMIN, viewport)
    t.teardown(async () => { await context.close() })
    await page.goto(`${baseUrl}/console/#/games/space_race/gamejolt`)
    const state = page.locator('#gamejolt-state')
    await state.getByText('off').waitFor()
    t.ok(await page.getByRole('heading', { name: /Game Jolt API/ }).isVisible(), `${size}: the section is shown`)
    t.equal(await page.locator('#gamejolt-base').textContent(), `${baseUrl}/api/game/`, `${size}: the base URL builds use`)
    t.ok(await page.getByText('docs/gamejolt.md').isVisible(), `${size}: the operator steps are pointed at`)

    // An id another game answers to: the service's sentence, on the page.
    await page.getByLabel('Game Jolt game id').fill('777')
    await page.getByRole('button', { name: 'Turn the API on' }).click()
    await page.getByRole('alert').getByText('another game answers to 777').waitFor()
    t.ok(await page.getByRole('alert').isVisible(), `${size}: the refusal is shown as a problem`)
    await page.screenshot({ path: join(folder, `gamejolt-refused-${size}.png`), fullPage: true })

    // Empty fields: both made.
    await page.getByLabel('Game Jolt game id').fill('')
    await page.getByRole('button', { name: 'Turn the API on' }).click()
    await state.getByText('on').waitFor()
    const link = await linkOf()
    t.equal(await page.locator('#gamejolt-game-id').textContent(), String(link.gamejolt_game_id), `${size}: the Game Jolt game id is shown`)
    const masked = await page.locator('#gamejolt-key').textContent() ?? ''
    t.notOk(masked.includes(link.private_key), `${size}: the private key is masked`)
    t.match(masked, /^•+$/, `${size}: as dots`)
    await settled()
    t.equal(await overflow(), 0, `${size}: no sideways scrolling`)
    await page.screenshot({ path: join(folder, `gamejolt-on-${size}.png`), fullPage: true })

    await page.getByRole('button', { name: 'Show key' }).click()
    t.equal(await page.locator('#gamejolt-key').textContent(), link.private_key, `${size}: Show key shows it`)

    // A new key, asked first: the page shows the new one, which is the service's.
    await page.getByRole('button', { name: 'Make a new key' }).click()
    const dialog = page.getByRole('alertdialog')
    await dialog.getByText('Builds carrying the old key stop working').waitFor()
    await page.screenshot({ path: join(folder, `gamejolt-new-key-asked-${size}.png`) })
    await dialog.getByRole('button', { name: 'Make a new key' }).click()
    await page.getByText('A new private key is made').waitFor()
    const rotated = await linkOf()
    t.not(rotated.private_key, link.private_key, `${size}: the key is new`)
    t.equal(rotated.gamejolt_game_id, link.gamejolt_game_id, `${size}: the id is kept`)
    await page.locator('#gamejolt-key').getByText(rotated.private_key).waitFor()
    t.pass(`${size}: the page shows the new key`)
    t.equal(await overflow(), 0, `${size}: no sideways scrolling with the key shown`)
    await page.screenshot({ path: join(folder, `gamejolt-key-shown-${size}.png`), fullPage: true })

    // The primary table's id changed alone: the key and the game id stay.
    const table = size === 'desktop' ? 9090 : 9191
    await page.getByText('Change the ids or the key').click()
    await page.getByLabel('Primary table id').fill(String(table))
    await page.getByRole('button', { name: 'Save', exact: true }).click()
    await page.getByText('The Game Jolt settings are saved.').waitFor()
    t.same(await linkOf(), { ...rotated, primary_table_id: table }, `${size}: the table id is saved, the id and key kept`)
    await page.locator('#gamejolt-table-id').getByText(String(table)).waitFor()
    t.pass(`${size}: the page shows the table id`)
    t.equal(await overflow(), 0, `${size}: no sideways scrolling with the form open`)
    await page.screenshot({ path: join(folder, `gamejolt-change-${size}.png`), fullPage: true })

    // Off, asked first.
    await page.getByRole('button', { name: 'Turn the API off' }).click()
    await dialog.getByRole('button', { name: 'Turn it off' }).click()
    await state.getByText('off').waitFor()
    t.equal(errorOf(await admin(app, 'GET', '/admin/games/space_race/gamejolt')), 'not_found', `${size}: and it is off`)
    t.same(problems, [], `${size}: no script errors`)
    await context.close()
  }
})

t.test('console, Game Jolt tab: a viewer may not read the settings (the key is a secret), and can change nothing', { timeout: BROWSER_TEST_TIMEOUT_MS }, async t => {
  const { page, context, problems } = await consoleSignedIn(browser, baseUrl, VIEWER, { width: 390, height: 844 })
  t.teardown(async () => { await context.close() })
  await page.goto(`${baseUrl}/console/#/games/other_game/gamejolt`)
  await page.locator('#gamejolt-forbidden').waitFor()
  t.match(await page.locator('#gamejolt-forbidden').textContent(), /the private key is a secret/, 'it says why')
  t.equal(await page.locator('#gamejolt-key').count(), 0, 'no key, not even masked')
  t.equal(await page.getByRole('button', { name: 'Make a new key' }).count(), 0, 'nothing to change')
  await page.screenshot({ path: join(folder, 'gamejolt-viewer-phone.png'), fullPage: true })
  t.same(problems, [], 'no script errors')
})

t.test('console, Game Jolt tab: cloud saves: usage, owners, items, one item as text, a big one cut, delete after asking', { timeout: 2 * BROWSER_TEST_TIMEOUT_MS }, async t => {
  const link = dataOf(await admin(app, 'GET', '/admin/games/other_game/gamejolt')) as Link
  dataOf(await admin(app, 'POST', '/admin/users', { username: 'saver' }))
  const { game_token: token } = dataOf(await admin(app, 'POST', '/admin/users/saver/game-token', {})) as { game_token: string }
  t.equal((await gamejolt(app, link, 'data-store/set', { key: 'big', data: 'x'.repeat(6000) })).success, 'true')
  t.equal((await gamejolt(app, link, 'data-store/set', { key: 'slot 1', data: '{"hp":3}', username: 'saver', user_token: token })).success, 'true')
  for (const [size, viewport] of VIEWPORTS) {
    t.equal((await gamejolt(app, link, 'data-store/set', { key: 'level-1', data: 'hello <b>world</b>' })).success, 'true', `${size}: an item to delete`)
    const { page, context, overflow, problems, settled } = await consoleSignedIn(browser, baseUrl, ADMIN, viewport)
    t.teardown(async () => { await context.close() })
    await page.goto(`${baseUrl}/console/#/games/other_game/gamejolt`)
    const usage = page.locator('#data-store-usage')
    await usage.waitFor()
    t.match(await usage.textContent(), /Items\s*3\s*of 100,000 at most/, `${size}: three items of the game's limit`)
    const owners = page.locator('#data-owners')
    t.ok(await owners.getByText('the game\'s global store').isVisible(), `${size}: the global store is an owner`)
    t.ok(await owners.getByText('saver').isVisible(), `${size}: and the player`)
    await page.getByRole('button', { name: 'Items of the game\'s global store' }).click()
    const items = page.locator('#data-items')
    await items.getByText('level-1').waitFor()
    t.ok(await items.getByText('big').isVisible(), `${size}: the global store's items are listed`)

    // One item's data as text: markup in it is shown, not drawn.
    await page.getByRole('button', { name: 'View level-1' }).click()
    const text = page.locator('#data-item-text')
    await text.getByText('hello <b>world</b>').waitFor()
    t.equal(await text.locator('b').count(), 0, `${size}: the data is text, escaped`)
    // A big one: its start.
    await page.getByRole('button', { name: 'View big' }).click()
    await page.locator('#data-item-cut').waitFor()
    t.equal((await text.textContent())?.length, 4000, `${size}: a big item's first 4000 characters`)
    await settled()
    t.equal(await overflow(), 0, `${size}: no sideways scrolling`)
    await page.screenshot({ path: join(folder, `gamejolt-data-${size}.png`), fullPage: true })

    // Delete, asked first.
    await page.getByRole('button', { name: 'Delete level-1' }).click()
    const dialog = page.getByRole('alertdialog')
    await dialog.getByText('This cannot be undone').waitFor()
    await dialog.getByRole('button', { name: 'Delete the item' }).click()
    await page.getByText('The item level-1 of the game\'s global store is deleted.').waitFor()
    const left = dataOf(await admin(app, 'GET', '/admin/games/other_game/gamejolt/data/items')) as { items: Array<{ key: string }> }
    t.same(left.items.map(item => item.key), ['big'], `${size}: the item is gone`)
    await items.getByText('level-1').waitFor({ state: 'detached' })
    t.pass(`${size}: and gone from the list`)

    // A player's items.
    await page.getByRole('button', { name: 'Items of saver' }).click()
    await items.getByText('slot 1').waitFor()
    t.pass(`${size}: a player's items`)
    t.same(problems, [], `${size}: no script errors`)
    await context.close()
  }
})

t.test('console, Game Jolt tab: the data store\'s limits changed, the id and key kept; a viewer cannot', { timeout: 2 * BROWSER_TEST_TIMEOUT_MS }, async t => {
  const before = dataOf(await admin(app, 'GET', '/admin/games/other_game/gamejolt')) as Link & { data_limits: Record<string, number> }
  for (const [size, viewport] of VIEWPORTS) {
    const perStore = size === 'desktop' ? 7 : 9
    const { page, context, overflow, problems, settled } = await consoleSignedIn(browser, baseUrl, ADMIN, viewport)
    t.teardown(async () => { await context.close() })
    await page.goto(`${baseUrl}/console/#/games/other_game/gamejolt`)
    await page.locator('#data-store-usage').waitFor()
    await page.getByText('Change the limits').click()
    t.equal(await page.getByLabel('Bytes of one item').getAttribute('placeholder'), String(size === 'desktop' ? before.data_limits.item_bytes : 2048), `${size}: the current limit as the placeholder`)
    t.match(await page.locator('#data-limit-item_bytes-hint').textContent(), /1 to 16,777,216 \(16 MiB\), 1,048,576 \(1 MiB\) by default/, `${size}: its range and default, in bytes and as people read them`)
    await page.getByLabel('Bytes of one item').fill('2048')
    await page.getByLabel('Items of one store').fill(String(perStore))
    await page.getByRole('button', { name: 'Save the limits' }).click()
    await page.getByText('The data store\'s limits are saved.').waitFor()
    const after = dataOf(await admin(app, 'GET', '/admin/games/other_game/gamejolt')) as typeof before
    t.same(after.data_limits, { ...before.data_limits, item_bytes: 2048, items_per_user: perStore }, `${size}: the two limits set, the others kept`)
    t.equal(after.private_key, before.private_key, `${size}: the private key kept`)
    t.equal(after.gamejolt_game_id, before.gamejolt_game_id, `${size}: the id kept`)
    await page.locator('#data-store-usage').getByText('items at most, each up to 2 KiB').waitFor()
    t.match(await page.locator('#data-store-usage').textContent(), new RegExp(`Each store${perStore}items at most, each up to 2 KiB`), `${size}: the figures follow`)
    t.equal(await page.getByLabel('Items of one store').inputValue(), '', `${size}: the form is emptied`)
    await settled()
    t.equal(await overflow(), 0, `${size}: no sideways scrolling`)
    await page.screenshot({ path: join(folder, `gamejolt-limits-${size}.png`), fullPage: true })
    // Out of range: the browser's own check stops it before the service is asked.
    await page.getByLabel('Bytes of the game').fill('0')
    await page.getByRole('button', { name: 'Save the limits' }).click()
    t.equal(await page.getByLabel('Bytes of the game').evaluate(input => (input as HTMLInputElement).validity.rangeUnderflow), true, `${size}: 0 bytes is refused by the field`)
    t.same(problems, [], `${size}: no script errors`)
    await context.close()
  }
  const link = dataOf(await admin(app, 'GET', '/admin/games/other_game/gamejolt')) as Link
  t.equal((await gamejolt(app, link, 'data-store/set', { key: 'too-big', data: 'x'.repeat(2049) })).success, 'false', 'an item past the new limit is refused')

  const viewer = await consoleSignedIn(browser, baseUrl, VIEWER, VIEWPORTS[0][1])
  t.teardown(async () => { await viewer.context.close() })
  await viewer.page.goto(`${baseUrl}/console/#/games/other_game/gamejolt`)
  await viewer.page.locator('#gamejolt-forbidden').waitFor()
  t.equal(await viewer.page.getByText('Change the limits').count(), 0, 'a viewer, who may not read the key, gets no limits form')
})

t.test('console, achievements: the difficulty set with a select, the trophy id typed; both in the list', { timeout: 2 * BROWSER_TEST_TIMEOUT_MS }, async t => {
  for (const [size, viewport] of VIEWPORTS) {
    const difficulty = size === 'desktop' ? 'gold' : 'platinum'
    const trophy = size === 'desktop' ? 4242 : 4343
    const { page, context, overflow, problems, settled } = await consoleSignedIn(browser, baseUrl, ADMIN, viewport)
    t.teardown(async () => { await context.close() })
    await page.goto(`${baseUrl}/console/#/games/space_race/achievements`)
    await page.getByRole('button', { name: 'Change first-lap' }).click()
    await page.getByLabel('Difficulty').selectOption(difficulty)
    await page.getByLabel('Game Jolt trophy id').fill(String(trophy))
    await page.getByRole('button', { name: 'Save achievement' }).click()
    await page.getByText('The achievement first-lap is saved.').waitFor()
    const saved = (dataOf(await admin(app, 'GET', '/admin/games/space_race/achievements')) as { items: Array<{ difficulty: string, gamejolt_id: number }> }).items[0]!
    t.equal(saved.difficulty, difficulty, `${size}: the difficulty is saved`)
    t.equal(saved.gamejolt_id, trophy, `${size}: and the trophy id`)
    const cell = page.locator('#achievements-table td[data-label="Game Jolt trophy"]')
    await cell.getByText(difficulty).waitFor()
    t.match(await cell.textContent(), String(trophy), `${size}: the trophy id is shown`)
    t.ok(await cell.isVisible(), `${size}: and on screen`)
    // Opened again, the form has the saved difficulty.
    await page.getByRole('button', { name: 'Change first-lap' }).click()
    t.equal(await page.getByLabel('Difficulty').inputValue(), difficulty, `${size}: the form shows it again`)
    t.equal(await page.getByLabel('Game Jolt trophy id').getAttribute('placeholder'), String(trophy), `${size}: the trophy id as the field's placeholder (empty keeps it)`)
    await settled()
    t.equal(await overflow(), 0, `${size}: no sideways scrolling`)
    await page.screenshot({ path: join(folder, `achievements-difficulty-${size}.png`), fullPage: true })
    t.same(problems, [], `${size}: no script errors`)
    await context.close()
  }
})

t.test('console, boards: each board\'s Game Jolt table id in the list, and one typed in its form', { timeout: 2 * BROWSER_TEST_TIMEOUT_MS }, async t => {
  const made = dataOf(await admin(app, 'POST', '/admin/games/space_race/boards', { board_id: 'lap-of-the-outer-rim-circuit', name: 'The long lap of the outer rim circuit, reversed', order: 'asc', periods: ['daily'] })) as { gamejolt_id: number }
  for (const [size, viewport] of VIEWPORTS) {
    const table = size === 'desktop' ? 5151 : 5252
    const { page, context, overflow, problems, settled } = await consoleSignedIn(browser, baseUrl, ADMIN, viewport)
    t.teardown(async () => { await context.close() })
    await page.goto(`${baseUrl}/console/#/games/space_race/boards`)
    const cell = page.locator('#boards-table td[data-label="Game Jolt table"]')
    await cell.waitFor()
    if (size === 'desktop') t.equal(await cell.textContent(), String(made.gamejolt_id), 'the made table id is shown')
    await page.getByRole('button', { name: 'Change lap-of-the-outer-rim-circuit' }).click()
    await page.getByLabel('Game Jolt table id').fill(String(table))
    await page.getByRole('button', { name: 'Save board' }).click()
    await page.getByText('The board lap-of-the-outer-rim-circuit is saved.').waitFor()
    const saved = (dataOf(await admin(app, 'GET', '/admin/games/space_race/boards')) as { items: Array<{ gamejolt_id: number }> }).items[0]!
    t.equal(saved.gamejolt_id, table, `${size}: the table id is saved`)
    await cell.getByText(String(table)).waitFor()
    t.ok(await cell.isVisible(), `${size}: and shown in the list`)
    await settled()
    t.equal(await overflow(), 0, `${size}: no sideways scrolling`)
    await page.screenshot({ path: join(folder, `boards-table-id-${size}.png`), fullPage: true })
    t.same(problems, [], `${size}: no script errors`)
    await context.close()
  }
})

t.test('account page: the game token, and a new one after asking', { timeout: 2 * BROWSER_TEST_TIMEOUT_MS }, async t => {
  for (const [size, viewport] of VIEWPORTS) {
    const username = `player_${size}`
    dataOf(await admin(app, 'POST', '/admin/users', { username, password: STRONG }))
    const session = dataOf(await admin(app, 'POST', '/admin/sessions', { username })) as { session_id: string }
    const { page, context, overflow, problems } = await watchedPage(browser, viewport)
    t.teardown(async () => { await context.close() })
    await context.addCookies([{ name: 'sid', value: session.session_id, url: baseUrl }])
    await page.goto(`${baseUrl}/account`)
    const token = page.locator('#game-token')
    // None yet: the page asks for it, which makes it.
    await token.getByText(/^[a-z0-9]{26}$/).waitFor()
    const first = await token.textContent() ?? ''
    t.ok(await page.getByRole('heading', { name: 'Game token' }).isVisible(), `${size}: the section is shown`)
    t.ok(await page.getByText('Game Jolt\'s API ask for a username and a game token').isVisible(), `${size}: it says what it is for`)
    t.equal(await overflow(), 0, `${size}: no sideways scrolling`)
    const lines = await token.evaluate(code => code.getClientRects().length)
    t.equal(lines, 1, `${size}: the token is on one line`)
    await page.screenshot({ path: join(folder, `account-game-token-${size}.png`), fullPage: true })

    // Asked first; Cancel changes nothing.
    await page.getByRole('button', { name: 'Make a new token' }).click()
    await page.getByText('must log in again').waitFor()
    await page.getByRole('button', { name: 'Cancel' }).click()
    t.notOk(await page.getByText('must log in again').isVisible(), `${size}: Cancel closes the question`)
    t.equal(await token.textContent(), first, `${size}: and keeps the token`)

    await page.getByRole('button', { name: 'Make a new token' }).click()
    await page.screenshot({ path: join(folder, `account-game-token-asked-${size}.png`), fullPage: true })
    await page.getByRole('button', { name: 'Make the new token' }).click()
    await page.locator('#game-token-status').getByText('A new token is made').waitFor()
    const second = await token.textContent() ?? ''
    t.not(second, first, `${size}: the token shown is new`)
    t.match(second, /^[a-z0-9]{26}$/, `${size}: and looks like one`)
    // The page shows what the service keeps: reloaded, the same token.
    await page.reload()
    await token.getByText(second).waitFor()
    t.pass(`${size}: reloaded, the page shows the new token`)
    t.equal(await overflow(), 0, `${size}: no sideways scrolling`)
    await page.screenshot({ path: join(folder, `account-game-token-new-${size}.png`), fullPage: true })
    t.same(problems, [], `${size}: no script errors or blocked content`)
    await context.close()
  }
})
