import t from 'tap'
import type { Page } from 'playwright-core'
import { join } from 'node:path'
import { admin, createGame, dataOf, submit } from '../helpers/app.js'
import { BROWSER_TEST_TIMEOUT_MS, VIEWPORTS, consoleSignedIn, launchBrowser, screenshotFolder } from '../helpers/browser.js'
import { listeningApp } from '../helpers/listening.js'
import { startReceiver } from '../helpers/receiver.js'
import { waitFor } from '../helpers/wait.js'

/*
 * What a new operator found on a phone, measured in Chromium at
 * a desktop's size and a phone's (390x844): the games list's approve and
 * withdraw buttons on screen; no cell of the board, the review queue, the
 * named boards, the achievements, the users, the API keys or a webhook's
 * deliveries under a row's buttons; the stacked tables' roles and cells as a
 * screen reader has them on a phone; the
 * audit log's When on one line (two on a phone) and its filters in line,
 * and no row of it many lines tall. Screenshots of each.
 */

const ADMIN = 'console-admin-token-0123456789abcdef'
const { app, baseUrl } = await listeningApp(t, { ADMIN_TOKENS: `ana:admin:${ADMIN}`, WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_MS: '50' })
const folder = screenshotFolder(t)
const browser = await launchBrowser(t)

// Two games, one approved and one waiting (both buttons); long names; entries with meta; a held score; audit entries from all of it.
const game = await createGame(app, { gameId: 'space_race' })
await createGame(app, { gameId: 'moon_lander_deluxe_edition', approved: false })
dataOf(await admin(app, 'PATCH', '/admin/games/space_race', { name: 'Space Race: the long-named championship of the outer rim', review_above: 1000 }))
dataOf(await admin(app, 'PATCH', '/admin/games/moon_lander_deluxe_edition', { name: 'Moon Lander, the deluxe edition with every level' }))
for (const [player, score] of [['vega', 120], ['altair', 300], ['a_player_with_a_rather_long_na', 250]] as const) dataOf(await submit(app, game, { player, score, meta: '{"ship":"falcon","lap_times":[61.2,59.8,60.4]}' }))
dataOf(await submit(app, game, { player: 'rigel', score: 5000 }))
// An entry without meta: its Meta cell says so rather than being left out.
dataOf(await submit(app, game, { player: 'deneb', score: 80 }))
dataOf(await admin(app, 'PATCH', '/admin/games/space_race/players/vega', { hidden: true }))
// Named boards, achievements and users with long ids and names: the other wide tables with a row's buttons.
dataOf(await admin(app, 'POST', '/admin/games/space_race/boards', { board_id: 'lap-of-the-outer-rim-circuit', name: 'The long lap of the outer rim circuit, reversed', order: 'asc', periods: ['daily', 'weekly'] }))
dataOf(await admin(app, 'POST', '/admin/games/space_race/boards', { board_id: 'coins', operator: 'sum' }))
dataOf(await admin(app, 'PATCH', '/admin/games/space_race/boards/coins', { archived: true }))
dataOf(await admin(app, 'POST', '/admin/games/space_race/achievements', { achievement_id: 'ace-of-the-outer-rim-circuit', name: 'Ace of the outer rim circuit, the long way round', points: 100, rule: { board: 'lap-of-the-outer-rim-circuit', at_most: 62_000 } }))
dataOf(await admin(app, 'POST', '/admin/games/space_race/achievements', { achievement_id: 'secret', hidden: true }))
dataOf(await admin(app, 'POST', '/admin/users', { username: 'bob' }))
dataOf(await admin(app, 'POST', '/admin/users', { username: 'a_user_with_a_rather_long_name', is_admin: true }))
// Two flags, which must read as two words.
dataOf(await admin(app, 'POST', '/admin/users', { username: 'cas', is_admin: true }))
dataOf(await admin(app, 'PATCH', '/admin/users/cas', { hidden: true }))
// A webhook with a delivered test event: the deliveries table, with its Send again.
const receiver = await startReceiver()
t.teardown(receiver.close)
const webhook = dataOf(await admin(app, 'POST', '/admin/games/space_race/webhooks', { url: receiver.url, events: ['rating.changed'] })) as { webhook_id: string }
dataOf(await admin(app, 'POST', `/admin/games/space_race/webhooks/${webhook.webhook_id}/test`, {}))
await waitFor(async () => (dataOf(await admin(app, 'GET', `/admin/games/space_race/webhooks/${webhook.webhook_id}/deliveries?status=done`)) as { items: unknown[] }).items.length > 0, { what: 'the test event to be delivered' })

const signedIn = async (viewport: { width: number, height: number }) => await consoleSignedIn(browser, baseUrl, ADMIN, viewport)

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

/**
 * Within the table `table` (a selector), at each sideways scroll of its box
 * (start, middle, end): every cell whose text (as drawn) lies under its
 * row's actions cell, and every row whose actions cell has no width (which
 * would cover nothing however it lay).
 */
async function coveredCells (page: Page, table: string): Promise<{ covered: Array<{ scroll: number, row: string, cell: string }>, unmeasured: string[] }> {
  return await page.evaluate(async selector => {
    const table = document.querySelector(selector)!
    const box = table.closest('.table-box')!
    const covered: Array<{ scroll: number, row: string, cell: string }> = []
    const unmeasured: string[] = []
    const widest = box.scrollWidth - box.clientWidth
    for (const scroll of [0, Math.round(widest / 2), widest]) {
      box.scrollLeft = scroll
      await new Promise(resolve => requestAnimationFrame(resolve))
      for (const row of Array.from(table.querySelectorAll('tbody tr'))) {
        const actions = row.querySelector('.row-actions')?.getBoundingClientRect()
        if (actions === undefined || actions.width === 0 || actions.height === 0) {
          unmeasured.push(row.querySelector('th')?.textContent ?? '')
          continue
        }
        for (const cell of Array.from(row.querySelectorAll(':scope > th, :scope > td:not(.row-actions)'))) {
          const range = document.createRange()
          range.selectNodeContents(cell)
          // Each line of the cell's text (and each element in it), as drawn.
          const over = Array.from(range.getClientRects()).some(text => text.width > 0 && text.left < actions.right && text.right > actions.left && text.top < actions.bottom && text.bottom > actions.top)
          if (over) covered.push({ scroll, row: row.querySelector('th')?.textContent ?? '', cell: (cell.textContent ?? '').slice(0, 40) })
        }
      }
    }
    box.scrollLeft = 0
    return { covered, unmeasured }
  }, table)
}

/** The left and right of the text of each cell of column `column` (from 1) of the table `table` (a selector), as drawn; null for a cell with no text drawn. */
async function columnText (page: Page, table: string, column: number): Promise<Array<{ left: number, right: number, text: string } | null>> {
  return await page.evaluate(({ table, column }) => Array.from(document.querySelectorAll(`${table} tbody tr > :nth-child(${column})`)).map(cell => {
    const range = document.createRange()
    range.selectNodeContents(cell)
    const rects = Array.from(range.getClientRects()).filter(rect => rect.width > 0 && rect.height > 0)
    if (rects.length === 0 || (cell.textContent ?? '').trim() === '') return null
    return { left: Math.min(...rects.map(rect => rect.left)), right: Math.max(...rects.map(rect => rect.right)), text: (cell.textContent ?? '').slice(0, 40) }
  }), { table, column })
}

// Seven pages at two sizes, each read whole before it is measured: three times the least budget.
t.test('the board, the review queue, the named boards, the achievements, the users, the API keys and a webhook\'s deliveries: a row\'s buttons cover none of its cells, and stay on screen', { timeout: 3 * BROWSER_TEST_TIMEOUT_MS }, async t => {
  for (const [size, viewport] of VIEWPORTS) {
    const { page, context, overflow, problems, settled } = await signedIn(viewport)
    t.teardown(async () => { await context.close() })
    // A column far to the right, which a sticky column of buttons lay over: the board's Meta, the review queue's Submitted, the named boards' Made, the achievements' Players, the users' Flags, a key's State, a delivery's Last answer.
    const pages: Array<[string, string, string, number, string?]> = [['board', '#/games/space_race/board', '#board-table', 5], ['review', '#/games/space_race/review', '#review-table', 5], ['boards', '#/games/space_race/boards', '#boards-table', 5], ['achievements', '#/games/space_race/achievements', '#achievements-table', 4], ['users', '#/users', '#users-table', 4], ['keys', '#/games/space_race/keys', '#keys-table', 3], ['webhooks', '#/games/space_race/webhooks', '.deliveries table', 4, 'Deliveries']]
    for (const [name, hash, table, column, open] of pages) {
      await page.goto(`${baseUrl}/console/${hash}`)
      if (open !== undefined) await page.getByRole('button', { name: open, exact: true }).click()
      await page.locator(`${table} tbody tr`).first().waitFor()
      await settled()
      const { covered, unmeasured } = await coveredCells(page, table)
      t.same(unmeasured, [], `${name} at ${size}: every row's buttons take room`)
      t.same(covered, [], `${name} at ${size}: no cell's text lies under the row's buttons, however far the table is scrolled`)
      const cells = await columnText(page, table, column)
      t.ok(cells.length > 0, `${name} at ${size}: column ${column} has cells`)
      for (const cell of cells) {
        t.ok(cell !== null && cell.right > cell.left && cell.left >= 0 && cell.right <= viewport.width, `${name} at ${size}: ${cell === null ? 'a cell with no text drawn' : `"${cell.text}" can be read on screen (${Math.round(cell.left)} to ${Math.round(cell.right)} of ${viewport.width})`}`)
      }
      const rows = await page.locator(`${table} tbody tr`).count()
      const withButtons = await page.locator(`${table} tbody tr`, { has: page.locator('.row-actions button, .row-actions a.button') }).count()
      t.equal(withButtons, rows, `${name} at ${size}: every row has its buttons (${rows} rows)`)
      const reachable = await buttonsOf(page, table)
      t.ok(reachable.length >= rows, `${name} at ${size}: a button or more for each row`)
      for (const button of reachable) t.ok(button.left >= 0 && button.right <= viewport.width && button.reached, `${name} at ${size}: "${button.name}" is on screen and takes a tap`)
      if (size === 'phone') {
        // Each cell's label (its column's name, drawn before it): one line, within the room left for it, so it lies over neither the cell's text nor the next line.
        const labels = await page.evaluate(selector => Array.from(document.querySelectorAll(`${selector} tbody td[data-label]`)).map(cell => {
          const style = getComputedStyle(cell, '::before')
          const probe = document.createElement('span')
          probe.style.cssText = `position: absolute; white-space: nowrap; font: ${style.font}`
          probe.textContent = cell.getAttribute('data-label')
          document.body.append(probe)
          const wide = probe.getBoundingClientRect().width
          probe.remove()
          return { label: cell.getAttribute('data-label') ?? '', height: parseFloat(style.height), lineHeight: parseFloat(style.lineHeight), room: parseFloat(getComputedStyle(cell).paddingLeft), wide }
        }), table)
        t.ok(labels.length > 0, `${name} at phone: labelled cells`)
        for (const label of new Map(labels.map(label => [label.label, label])).values()) {
          t.ok(label.height <= label.lineHeight + 0.5 && label.wide < label.room, `${name} at phone: the label "${label.label}" is one line (${label.height} px, a line is ${label.lineHeight} px), ${Math.round(label.wide)} px wide in ${label.room} px before the cell's text`)
        }
      }
      t.equal(await overflow(), 0, `${name} at ${size}: no sideways scrolling`)
      await page.screenshot({ path: join(folder, `polish-${name}-${size}.png`), fullPage: true })
    }
    t.same(problems, [], `${size}: no script errors`)
    await context.close()
  }
})

t.test('stacked tables on a phone, as a screen reader has them: column headers, row headers and cells, each cell read once and none left out', { timeout: BROWSER_TEST_TIMEOUT_MS }, async t => {
  const [, viewport] = VIEWPORTS[1]
  const { page, context, problems, settled } = await signedIn(viewport)
  t.teardown(async () => { await context.close() })
  const roles = async (table: string): Promise<string[]> => await page.evaluate(selector => {
    const table = document.querySelector(selector)!
    const parts = [table, ...Array.from(table.querySelectorAll(':scope > * , :scope > * > tr, :scope > * > tr > *'))]
    return parts.filter(part => part.getAttribute('role') === null).map(part => part.tagName.toLowerCase())
  }, table)

  const games = page.getByRole('region', { name: 'Games' })
  await games.getByRole('rowheader', { name: /^space_race/ }).waitFor()
  await settled()
  t.same(await roles('#games-table'), [], 'games: every part of the table has its role written out (WebKit drops them from blocks and flex boxes)')
  for (const name of ['Game', 'Approved', 'Players', 'Rating', 'Play time']) t.equal(await games.getByRole('columnheader', { name, exact: true }).count(), 1, `games: the column header ${name}`)
  t.equal(await games.getByRole('row').count(), 3, 'games: a row of headers and a row per game')
  const race = games.getByRole('row', { name: /space_race/ })
  t.equal(await race.getByRole('cell', { name: 'approved', exact: true }).count(), 1, 'games: a cell reads "approved", not its column\'s name with it')
  t.equal(await race.getByRole('cell', { name: '—', exact: true }).count(), 1, 'games: an unrated game\'s Rating reads "—"')

  await page.goto(`${baseUrl}/console/#/users`)
  const users = page.getByRole('region', { name: 'Users' })
  await users.getByRole('rowheader', { name: 'cas', exact: true }).waitFor()
  await settled()
  t.same(await roles('#users-table'), [], 'users: every part of the table has its role written out')
  for (const name of ['User', 'Since', 'Signs in with', 'Flags']) t.equal(await users.getByRole('columnheader', { name, exact: true }).count(), 1, `users: the column header ${name}`)
  t.equal(await users.getByRole('row', { name: /^cas / }).getByRole('cell', { name: 'admin hidden', exact: true }).count(), 1, 'users: two flags are two words, without the column\'s name')
  // Chromium reads spaces between inline blocks of itself; other readers, and a copy of the text, need them written.
  t.equal((await page.locator('#users-table tbody tr', { has: page.locator('th', { hasText: /^cas$/ }) }).locator('td').nth(2).textContent())?.trim(), 'admin hidden', 'users: a space written between two flags')
  t.equal(await users.getByRole('row', { name: /^bob / }).getByRole('cell', { name: 'none', exact: true }).count(), 1, 'users: a user without flags has a cell that says so')
  // Each row has as many cells (and a row header) as there are columns, so none is read under another's name.
  const shape = await page.evaluate(() => Array.from(document.querySelectorAll('#users-table tbody tr')).map(row => Array.from(row.children).filter(cell => getComputedStyle(cell).display !== 'none').length))
  t.ok(shape.length >= 3 && shape.every(count => count === 5), `users: every row's five cells are drawn (${shape.join(', ')})`)
  await page.screenshot({ path: join(folder, 'polish-users-roles-phone.png'), fullPage: true })
  t.same(problems, [], 'no script errors')
  await context.close()
})

t.test('the audit log: When on one line at a desktop and at most two on a phone, with the full time kept; its filters in line', { timeout: BROWSER_TEST_TIMEOUT_MS }, async t => {
  for (const [size, viewport] of VIEWPORTS) {
    const { page, context, overflow, problems, settled } = await signedIn(viewport)
    t.teardown(async () => { await context.close() })
    await page.goto(`${baseUrl}/console/#/audit`)
    await page.locator('#audit-table tbody tr').first().waitFor()
    await settled()
    const whens = await page.evaluate(() => Array.from(document.querySelectorAll('#audit-table tbody tr > td:first-child')).map(cell => {
      const range = document.createRange()
      range.selectNodeContents(cell)
      // Lines: the distinct tops of the text as drawn.
      const lines = new Set(Array.from(range.getClientRects()).filter(rect => rect.width > 0).map(rect => Math.round(rect.top))).size
      // Its text's height (the cell is as tall as its row, which another cell may make taller).
      const height = range.getBoundingClientRect().height
      const time = cell.querySelector('time')
      // The time zone the browser shows times in, as it names it ("UTC", "CET"), and the time in UTC as it writes it.
      const date = new Date(time?.getAttribute('datetime') ?? '')
      const zone = new Intl.DateTimeFormat(undefined, { timeZoneName: 'short' }).formatToParts(date).find(part => part.type === 'timeZoneName')?.value ?? null
      const utc = date.toLocaleString(undefined, { timeZone: 'UTC', dateStyle: 'medium', timeStyle: 'long' })
      return { text: cell.textContent ?? '', lines, height, lineHeight: parseFloat(getComputedStyle(cell).lineHeight), datetime: time?.getAttribute('datetime') ?? null, title: time?.getAttribute('title') ?? null, zone, utc }
    }))
    t.ok(whens.length >= 5, `${size}: audit entries`)
    const most = size === 'desktop' ? 1 : 2
    for (const when of whens) {
      t.ok(when.lines <= most && when.height <= most * when.lineHeight + 1, `${size}: "${when.text}" is at most ${most} line(s) long: ${when.lines} (${when.height} px, a line is ${when.lineHeight} px)`)
      t.match(when.datetime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/, `${size}: "${when.text}" keeps the full time, to the second, for machines`)
      t.ok(when.zone !== null && when.text.trim().endsWith(when.zone), `${size}: "${when.text}" names its time zone (${when.zone})`)
      t.ok(when.title !== null && when.title === when.utc && /UTC/.test(when.title), `${size}: and shows the time in UTC, to the second and saying so, on hover ("${when.title}")`)
    }

    // The filters: each label over its field; at a desktop side by side, labels and fields on common lines; on a phone one under the other, full width.
    const fields = await page.evaluate(() => ['audit-action', 'audit-actor'].map(id => {
      const input = document.getElementById(id)!.getBoundingClientRect()
      const label = document.querySelector(`label[for="${id}"]`)!.getBoundingClientRect()
      const form = document.getElementById(id)!.closest('form')!.getBoundingClientRect()
      return { input: { left: input.left, right: input.right, top: input.top, bottom: input.bottom }, label: { top: label.top, bottom: label.bottom }, form: { left: form.left, right: form.right } }
    }))
    const [action, actor] = fields as [typeof fields[0], typeof fields[0]]
    for (const field of fields) t.ok(field.label.bottom <= field.input.top, `${size}: a label over its field`)
    if (size === 'desktop') {
      t.ok(actor.input.left > action.input.right, 'desktop: the filters side by side')
      t.ok(Math.abs(action.label.top - actor.label.top) < 1, `desktop: the labels on one line (tops ${action.label.top}, ${actor.label.top})`)
      t.ok(Math.abs(action.input.top - actor.input.top) < 1 && Math.abs(action.input.bottom - actor.input.bottom) < 1, `desktop: the fields' tops and bottoms in line (${action.input.top}–${action.input.bottom}, ${actor.input.top}–${actor.input.bottom})`)
      t.ok(Math.abs((action.input.right - action.input.left) - (actor.input.right - actor.input.left)) < 1, 'desktop: the fields as wide as each other')
    } else {
      t.ok(actor.input.top > action.input.bottom, 'phone: one filter under the other')
      for (const field of fields) t.ok(Math.abs(field.input.left - field.form.left) < 1 && Math.abs(field.input.right - field.form.right) < 1 && field.input.right <= viewport.width, `phone: a field as wide as the form (${field.input.left}–${field.input.right})`)
    }
    t.equal(await overflow(), 0, `${size}: no sideways scrolling`)
    await page.screenshot({ path: join(folder, `polish-audit-${size}.png`), fullPage: true })
    t.same(problems, [], `${size}: no script errors`)
    await context.close()
  }
})

t.test('the audit log at a desktop: no row more than four lines tall, a created record\'s fields a click away', { timeout: BROWSER_TEST_TIMEOUT_MS }, async t => {
  const [, viewport] = VIEWPORTS[0]
  const { page, context, problems, settled } = await signedIn(viewport)
  t.teardown(async () => { await context.close() })
  await page.goto(`${baseUrl}/console/#/audit`)
  await page.locator('#audit-table tbody tr').first().waitFor()
  await settled()
  // Each row's height in lines of its text: the row less its cells' padding, over a line's height.
  const rows = await page.evaluate(() => Array.from(document.querySelectorAll('#audit-table tbody tr')).map(row => {
    const cell = row.querySelector('td')!
    const style = getComputedStyle(cell)
    const text = row.getBoundingClientRect().height - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom) - parseFloat(style.borderBottomWidth)
    return { what: `${row.querySelector('th')?.textContent ?? ''} ${row.querySelector('th + td + td')?.textContent ?? ''}`, lines: text / parseFloat(style.lineHeight) }
  }))
  t.ok(rows.some(row => row.what.startsWith('game.create')), 'a game.create among the entries')
  for (const row of rows) t.ok(row.lines <= 4.1, `"${row.what}" is at most 4 lines tall: ${row.lines.toFixed(1)}`)
  await page.screenshot({ path: join(folder, 'polish-audit-rows-desktop.png'), fullPage: true })

  // The fields of a game that was created: a count, and the list under it, a click away.
  const created = page.locator('#audit-table tbody tr', { has: page.locator('th code', { hasText: /^game\.create$/ }) }).first()
  const summary = created.locator('details > summary')
  t.equal(await summary.count(), 1, 'a created game\'s fields are behind a disclosure')
  if (await summary.count() === 1) {
    t.match(await summary.textContent(), /^created: \d+ fields$/, 'which says how many were set')
    t.notOk(await created.getByText('season_started_at').isVisible(), 'the list is closed at first')
    await summary.click()
    t.ok(await created.getByText('season_started_at').isVisible(), 'and open, it names each field')
    await created.screenshot({ path: join(folder, 'polish-audit-created-open-desktop.png') })
  }
  t.same(problems, [], 'no script errors')
  await context.close()
})

t.test('webhooks: each one\'s health in the list, a failing one\'s deliveries open on those waiting for a retry', { timeout: 2 * BROWSER_TEST_TIMEOUT_MS }, async t => {
  // Three receivers: one that answers 500 to everything, one whose port is closed, one that works.
  const failing = await startReceiver({ failFirst: 1_000_000 })
  t.teardown(failing.close)
  const refused = await startReceiver()
  await refused.close()
  const working = await startReceiver()
  t.teardown(working.close)
  await createGame(app, { gameId: 'hook_trouble' })
  const hooks: Record<string, { webhook_id: string, url: string }> = {}
  for (const [name, url] of [['failing', failing.url], ['refused', refused.url.replace('/hook', '/refused')], ['working', working.url]] as const) {
    const made = dataOf(await admin(app, 'POST', '/admin/games/hook_trouble/webhooks', { url, events: ['rating.changed'] })) as { webhook_id: string, url: string }
    hooks[name] = made
    dataOf(await admin(app, 'POST', `/admin/games/hook_trouble/webhooks/${made.webhook_id}/test`, {}))
  }
  const health = async (name: string): Promise<{ failing_since: string | null, last_attempt_at: string | null }> => dataOf(await admin(app, 'GET', `/admin/games/hook_trouble/webhooks/${hooks[name]!.webhook_id}`)).health
  await waitFor(async () => (await health('failing')).failing_since !== null && (await health('refused')).failing_since !== null && (await health('working')).last_attempt_at !== null, { what: 'every webhook tried once' })

  for (const [size, viewport] of VIEWPORTS) {
    const { page, context, overflow, problems, settled } = await signedIn(viewport)
    t.teardown(async () => { await context.close() })
    await page.goto(`${baseUrl}/console/#/games/hook_trouble/webhooks`)
    const card = (name: string) => page.getByRole('region', { name: hooks[name]!.url })
    await card('working').locator('.health').waitFor()
    await settled()
    const states: Array<[string, RegExp]> = [['failing', /^failing since .+ · last answer: HTTP 500$/], ['refused', /^failing since .+ · last answer: connection refused$/], ['working', /^working last answer: HTTP 200 \(.+\)$/]]
    for (const [name, expected] of states) {
      const line = card(name).locator('.health')
      t.match(await line.innerText(), expected, `${size}: the ${name} webhook says so in the list`)
      const box = (await line.boundingBox())!
      t.ok(await line.isVisible() && box.x >= 0 && box.x + box.width <= viewport.width, `${size}: its state is on screen`)
    }
    await page.screenshot({ path: join(folder, `polish-webhook-health-${size}.png`), fullPage: true })
    // The failing webhook's deliveries: the test event waiting for its retry, its last answer, not an empty list of finished ones.
    await card('failing').getByRole('button', { name: 'Deliveries', exact: true }).click()
    const row = card('failing').locator('.deliveries tbody tr', { hasText: 'webhook.test' })
    await row.waitFor()
    t.equal(await card('failing').getByRole('button', { name: 'Pending', exact: true }).getAttribute('aria-pressed'), 'true', `${size}: the deliveries open on the pending ones`)
    t.equal(await row.locator('.badge').innerText(), 'retrying', `${size}: the delivery is waiting for a retry`)
    t.ok(await row.getByText('HTTP 500').isVisible(), `${size}: with the receiver's last answer`)
    t.equal(await card('failing').getByText('None finished.').count(), 0, `${size}: not an empty list`)
    await page.screenshot({ path: join(folder, `polish-webhook-failing-deliveries-${size}.png`), fullPage: true })
    // A working webhook's open on its finished ones.
    await card('working').getByRole('button', { name: 'Deliveries', exact: true }).click()
    await card('working').locator('.deliveries tbody tr .badge', { hasText: 'delivered' }).waitFor()
    t.equal(await card('working').getByRole('button', { name: 'Finished', exact: true }).getAttribute('aria-pressed'), 'true', `${size}: a working webhook's open on the finished ones`)
    await settled()
    t.equal(await overflow(), 0, `${size}: no sideways scrolling`)
    await page.screenshot({ path: join(folder, `polish-webhook-deliveries-${size}.png`), fullPage: true })
    t.same(problems, [], `${size}: no script errors`)
    await context.close()
  }
})

t.test('the overview\'s live top 10: each player\'s score and when on screen, as cards on a phone', { timeout: BROWSER_TEST_TIMEOUT_MS }, async t => {
  for (const [size, viewport] of VIEWPORTS) {
    const { page, context, overflow, problems, settled } = await signedIn(viewport)
    t.teardown(async () => { await context.close() })
    await page.goto(`${baseUrl}/console/#/games/space_race`)
    await page.locator('#live-top tbody tr').first().waitFor()
    await settled()
    const rows = await page.locator('#live-top tbody tr').count()
    t.ok(rows >= 3, `${size}: the players on the board (${rows})`)
    // Columns 3 and 4: Score and When, each cell's text as drawn, within the screen's width.
    for (const [column, name] of [[3, 'Score'], [4, 'When']] as const) {
      const cells = await columnText(page, '#live-top', column)
      t.equal(cells.length, rows, `${size}: a ${name} for every player`)
      for (const cell of cells) t.ok(cell !== null && cell.left >= 0 && cell.right <= viewport.width, `${size}: ${name} ${cell === null ? 'not drawn' : `"${cell.text}" on screen (${Math.round(cell.left)} to ${Math.round(cell.right)} of ${viewport.width})`}`)
    }
    if (size === 'phone') {
      const labels = await page.evaluate(() => Array.from(document.querySelectorAll('#live-top tbody tr:first-child td[data-label]')).map(cell => getComputedStyle(cell, '::before').content))
      t.same(labels, ['"Rank" / ""', '"Score" / ""', '"When" / ""'], 'phone: a card, each cell beside its column\'s name')
    }
    t.equal(await overflow(), 0, `${size}: no sideways scrolling`)
    await page.locator('section.live').screenshot({ path: join(folder, `polish-overview-top-${size}.png`) })
    t.same(problems, [], `${size}: no script errors`)
    await context.close()
  }
})

t.test('achievements on a time board: thresholds shown and typed as the board shows times, "at most" by default', { timeout: BROWSER_TEST_TIMEOUT_MS }, async t => {
  await createGame(app, { gameId: 'time_trial' })
  dataOf(await admin(app, 'POST', '/admin/games/time_trial/boards', { board_id: 'lap', order: 'asc', score_format: 'time' }))
  dataOf(await admin(app, 'POST', '/admin/games/time_trial/achievements', { achievement_id: 'quick-lap', rule: { board: 'lap', at_most: 83_456 } }))
  const ruleOf = async (id: string): Promise<unknown> => dataOf(await admin(app, 'GET', '/admin/games/time_trial/achievements')).items.find((item: { achievement_id: string }) => item.achievement_id === id)?.rule
  for (const [size, viewport] of VIEWPORTS) {
    const { page, context, overflow, problems, settled } = await signedIn(viewport)
    t.teardown(async () => { await context.close() })
    await page.goto(`${baseUrl}/console/#/games/time_trial/achievements`)
    const row = (id: string) => page.locator('#achievements-table tbody tr', { has: page.locator('th code', { hasText: new RegExp(`^${id}$`) }) })
    await row('quick-lap').waitFor()
    await settled()
    t.equal(await row('quick-lap').locator('td[data-label="Unlocked"]').innerText(), 'lap at most 1:23.456', `${size}: the threshold as the board shows times`)
    if (size === 'desktop') {
      // Changing it: the threshold in the field as a time, the rule as it is.
      await page.getByRole('button', { name: 'Change quick-lap' }).click()
      t.equal(await page.getByLabel('Threshold').inputValue(), '1:23.456', 'the field shows the time')
      t.equal(await page.getByLabel('Its stored score is').inputValue(), 'at_most')
      await page.getByRole('button', { name: 'Cancel', exact: true }).click()
      // Making one: the rule defaults to what is better on each board, the threshold is typed as a time, or in ms.
      await page.getByText('Make an achievement').click()
      await page.getByLabel('Achievement id').fill('sub-minute')
      await page.getByLabel('Unlocked when a board').selectOption('default')
      t.equal(await page.getByLabel('Its stored score is').inputValue(), 'at_least', 'higher is better on the game\'s own board: at least')
      await page.getByLabel('Unlocked when a board').selectOption('lap')
      t.equal(await page.getByLabel('Its stored score is').inputValue(), 'at_most', 'lower is better on a time board: at most')
      t.ok(await page.getByText('A time as the board shows it (1:23.456), or in ms.').isVisible(), 'the field says how to type it')
      await page.getByLabel('Threshold').fill('0:59.5')
      await page.locator('details.card').first().screenshot({ path: join(folder, 'polish-achievement-time-form-desktop.png') })
      await page.getByRole('button', { name: 'Make achievement' }).click()
      await page.getByText('The achievement sub-minute is made.').waitFor()
      t.same(await ruleOf('sub-minute'), { board: 'lap', at_least: null, at_most: 59_500 }, 'stored in ms')
      t.equal(await row('sub-minute').locator('td[data-label="Unlocked"]').innerText(), 'lap at most 0:59.500', 'and listed as a time')
      await page.getByLabel('Achievement id').fill('raw-ms')
      await page.getByLabel('Unlocked when a board').selectOption('lap')
      await page.getByLabel('Threshold').fill('61000')
      await page.getByRole('button', { name: 'Make achievement' }).click()
      await page.getByText('The achievement raw-ms is made.').waitFor()
      t.same(await ruleOf('raw-ms'), { board: 'lap', at_least: null, at_most: 61_000 }, 'a bare number is ms, as before')
      await page.getByLabel('Achievement id').fill('not-a-time')
      await page.getByLabel('Unlocked when a board').selectOption('lap')
      await page.getByLabel('Threshold').fill('1:2x')
      await page.getByRole('button', { name: 'Make achievement' }).click()
      t.equal(await page.getByLabel('Threshold').evaluate(input => (input as HTMLInputElement).validity.patternMismatch), true, 'text that is no time is refused before it is sent')
      t.equal(await ruleOf('not-a-time'), undefined, 'and nothing is made')
      await page.getByText('Make an achievement').click()
    }
    await settled()
    t.equal(await overflow(), 0, `${size}: no sideways scrolling`)
    await page.screenshot({ path: join(folder, `polish-achievements-time-${size}.png`), fullPage: true })
    t.same(problems, [], `${size}: no script errors`)
    await context.close()
  }
})

t.test('settings: every select shows its options\' whole text at a desktop, and stays on a phone\'s screen', { timeout: BROWSER_TEST_TIMEOUT_MS }, async t => {
  for (const [size, viewport] of VIEWPORTS) {
    const { page, context, overflow, problems, settled } = await signedIn(viewport)
    t.teardown(async () => { await context.close() })
    await page.goto(`${baseUrl}/console/#/games/space_race/settings`)
    await page.locator('#setting-runs').waitFor()
    await settled()
    // Each select against the width it takes of itself (width auto: its longest option and its arrow), with each of its options chosen in turn.
    const selects = await page.evaluate(() => Array.from(document.querySelectorAll<HTMLSelectElement>('form[aria-labelledby="settings-title"] select')).flatMap(select => {
      const chosen = select.selectedIndex
      const natural = select.cloneNode(true) as HTMLSelectElement
      natural.style.cssText = 'position: absolute; visibility: hidden; width: auto; max-width: none'
      document.body.append(natural)
      const needs = natural.getBoundingClientRect().width
      natural.remove()
      const widths = Array.from(select.options).map((option, index) => {
        select.selectedIndex = index
        return { option: option.text, scroll: select.scrollWidth, client: select.clientWidth }
      })
      select.selectedIndex = chosen
      return widths.map(width => ({ id: select.id, needs, has: select.getBoundingClientRect().width, right: select.getBoundingClientRect().right, ...width }))
    }))
    t.ok(selects.length >= 6, `${size}: the settings' selects (${new Set(selects.map(select => select.id)).size})`)
    for (const select of selects) {
      // A phone's screen is narrower than the longest options of two selects (Scores shown as, Runs): there a select is as wide as the screen lets it be.
      if (size === 'phone') t.ok(select.right <= viewport.width && (select.has >= select.needs - 0.5 || select.has >= viewport.width - 60), `phone: #${select.id} is on screen, as wide as it needs or as the screen lets it be (${Math.round(select.has)} px wide, needs ${Math.round(select.needs)})`)
      else t.ok(select.has >= select.needs - 0.5 && select.scroll <= select.client, `${size}: #${select.id} shows "${select.option}" whole (${Math.round(select.has)} px wide, needs ${Math.round(select.needs)})`)
    }
    t.equal(await overflow(), 0, `${size}: no sideways scrolling`)
    await page.screenshot({ path: join(folder, `polish-settings-${size}.png`), fullPage: true })
    // The longest options chosen (not saved), for the eye.
    for (const [id, value] of [['setting-score_format', 'decimal'], ['setting-guests', 'unlisted'], ['setting-runs', 'optional'], ['setting-submit_run', 'on']] as const) await page.locator(`#${id}`).selectOption(value)
    await page.screenshot({ path: join(folder, `polish-settings-long-options-${size}.png`), fullPage: true })
    t.same(problems, [], `${size}: no script errors`)
    await context.close()
  }
})
