import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import type { Page } from 'playwright-core'
import { computeSignature } from '../../src/rules/signature.js'
import { CONSOLE_FILES } from '../../src/routes/console/index.js'
import { BROWSER_TEST_TIMEOUT_MS, VIEWPORTS, launchBrowser, screenshotFolder, watchedPage } from '../helpers/browser.js'
import { listeningApp } from '../helpers/listening.js'
import { startReceiver } from '../helpers/receiver.js'
import { waitFor } from '../helpers/wait.js'

/*
 * The operator console (docs/console.md) in real headless
 * Chromium, built by `npm test` (scripts/test-prereqs.mjs) into dist/console
 * and served by the service: an operator signs in with a token, creates and
 * approves a game, issues a key, sees a signed score arrive on the board
 * and on the live top 10, hides it, approves a held score; the charts draw
 * data; a viewer token changes nothing; every page fits a phone.
 */

const ADMIN = 'console-admin-token-0123456789abcdef'
const VIEWER = 'console-viewer-token-0123456789abcde'
const { baseUrl } = await listeningApp(t, { ADMIN_TOKENS: `ana:admin:${ADMIN},eve:viewer:${VIEWER}`, RATE_LIMIT_MAX: '1000000', WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_MS: '50' })
const folder = screenshotFolder(t)
const browser = await launchBrowser(t)

t.ok(existsSync(join(CONSOLE_FILES, 'index.html')), 'the console is built (npm test builds it)')

/** A page of the console, signed in with `token`, which records every URL it asks for. */
async function signedIn (token: string, viewport: { width: number, height: number } = VIEWPORTS[0][1]) {
  const watched = await watchedPage(browser, viewport)
  const urls: string[] = []
  watched.page.on('request', request => { urls.push(request.url()) })
  await watched.page.goto(`${baseUrl}/console`)
  await watched.page.getByLabel('Operator token').fill(token)
  await watched.page.getByRole('button', { name: 'Sign in' }).click()
  await watched.page.locator('header.top').waitFor()
  return { ...watched, urls }
}

async function submitSigned (apiKey: string, secret: string, gameId: string, player: string, score: number): Promise<any> {
  const fields = { api_key: apiKey, game_id: gameId, player_name: player, score: String(score), ts: String(Math.floor(Date.now() / 1000)) }
  const body = new URLSearchParams({ ...fields, sign: computeSignature(secret, fields) })
  return await (await fetch(`${baseUrl}/api/rank?action=submit`, { method: 'POST', body })).json()
}

/** How many pixels of a canvas are drawn in roughly the given colour. */
async function pixelsOf (page: Page, canvasId: string, rgb: [number, number, number]): Promise<number> {
  return await page.evaluate(({ canvasId, rgb }) => {
    const canvas = document.getElementById(canvasId) as HTMLCanvasElement
    const { data } = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height)
    let count = 0
    for (let i = 0; i < data.length; i += 4) {
      if (data[i + 3]! > 200 && Math.abs(data[i]! - rgb[0]) < 12 && Math.abs(data[i + 1]! - rgb[1]) < 12 && Math.abs(data[i + 2]! - rgb[2]) < 12) count++
    }
    return count
  }, { canvasId, rgb })
}

/** Text whose contrast with the background behind it is below WCAG AA (4.5:1; 3:1 for large text). */
async function lowContrast (page: Page): Promise<string[]> {
  return await page.evaluate(() => {
    const parse = (color: string): number[] => (color.match(/[\d.]+/g) ?? []).map(Number)
    const luminance = ([r, g, b]: number[]): number => {
      const [R, G, B] = [r!, g!, b!].map(v => { const c = v / 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4 })
      return 0.2126 * R! + 0.7152 * G! + 0.0722 * B!
    }
    const background = (element: Element | null): number[] => {
      for (let at = element; at !== null; at = at.parentElement) {
        const color = parse(getComputedStyle(at).backgroundColor)
        if (color.length === 3 || (color[3] ?? 0) > 0.9) return color.slice(0, 3)
      }
      return [255, 255, 255]
    }
    const failures: string[] = []
    for (const element of Array.from(document.querySelectorAll('body *'))) {
      const own = Array.from(element.childNodes).some(node => node.nodeType === Node.TEXT_NODE && (node.textContent ?? '').trim() !== '')
      const style = getComputedStyle(element)
      if (!own || style.visibility === 'hidden' || style.display === 'none' || (element as HTMLElement).offsetParent === null) continue
      const [fore, back] = [luminance(parse(style.color)), luminance(background(element))]
      const ratio = (Math.max(fore, back) + 0.05) / (Math.min(fore, back) + 0.05)
      const size = parseFloat(style.fontSize)
      const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700)
      if (ratio < (large ? 3 : 4.5)) failures.push(`${element.tagName.toLowerCase()} "${(element.textContent ?? '').trim().slice(0, 30)}" ${ratio.toFixed(2)}:1`)
    }
    return failures
  })
}

t.test('the console is served as built: its policy, caching, and not_found for what is not there', async t => {
  const redirect = await fetch(`${baseUrl}/console`, { redirect: 'manual' })
  t.equal(redirect.status, 302)
  t.equal(redirect.headers.get('location'), '/console/')
  const page = await fetch(`${baseUrl}/console/`)
  t.equal(page.status, 200)
  const html = await page.text()
  t.match(html, /<title>Ranking console<\/title>/)
  t.equal(page.headers.get('cache-control'), 'no-store', 'the page is read afresh: it names the current bundle')
  t.match(page.headers.get('content-security-policy'), /script-src 'self';.*connect-src 'self'.*frame-ancestors 'none'/, 'own scripts only, this origin only, framed by nothing')
  t.notMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script')
  const bundle = /src="(\/console\/assets\/[^"]+\.js)"/.exec(html)?.[1]
  t.ok(bundle !== undefined, 'the bundle is named in the page')
  const asset = await fetch(`${baseUrl}${bundle ?? ''}`)
  t.equal(asset.status, 200)
  t.equal(asset.headers.get('cache-control'), 'public, max-age=31536000, immutable', 'a bundle is named by its content: cached for good')
  t.same(await (await fetch(`${baseUrl}/console/assets/nothing.js`)).json(), { ok: false, error: 'not_found', message: 'No such route.' })
  t.same(await (await fetch(`${baseUrl}/console/..%2f..%2fpackage.json`)).json(), { ok: false, error: 'not_found', message: 'No such route.' }, 'nothing outside the build')
})

t.test('an operator signs in, makes a game, a key and a score, watches it live, hides it and approves a held one', { timeout: BROWSER_TEST_TIMEOUT_MS }, async t => {
  const { page, problems, urls, context } = await signedIn(ADMIN)
  t.teardown(async () => { await context.close() })
  t.match(await page.locator('header .badge').innerText(), /ana · admin/, 'the token\'s name and role are shown')
  t.equal(await page.evaluate(() => localStorage.length), 0, 'nothing in local storage')
  t.equal(await page.evaluate(token => sessionStorage.getItem('ranking-console-token') === token, ADMIN), true, 'the token is kept for the tab')

  // Create a game, then approve it from the list.
  await page.getByText('Create a game').click()
  await page.getByLabel('Game id', { exact: true }).fill('space_race')
  await page.getByLabel('Name (optional)').fill('Space Race')
  await page.getByRole('button', { name: 'Create game' }).click()
  await page.getByText('Game space_race created').waitFor()
  const row = page.locator('tr', { hasText: 'space_race' })
  t.equal(await row.locator('.badge').innerText(), 'waiting')
  await page.getByRole('button', { name: 'Approve space_race' }).click()
  await page.getByText('space_race is approved.').waitFor()
  await row.locator('.badge', { hasText: 'approved' }).waitFor()
  t.pass('approved in one click')

  // An API error is a sentence, never JSON.
  await page.getByLabel('Game id', { exact: true }).fill('space_race')
  await page.getByRole('button', { name: 'Create game' }).click()
  const problem = await page.locator('.problem').first().innerText()
  t.match(problem, /already exists/i, `the refusal says why: ${problem}`)
  t.notMatch(problem, /^\s*[{[]|"ok"|"error"/, 'not raw JSON')

  // A key: its secret shown once.
  await row.getByRole('link', { name: 'space_race' }).click()
  await page.getByRole('link', { name: 'API keys' }).click()
  await page.getByRole('button', { name: 'Issue a new API key' }).click()
  const apiKey = await page.locator('#new-api-key').innerText()
  const secret = await page.locator('#new-api-secret').innerText()
  t.match(apiKey, /^rk_/, 'the key')
  t.ok(secret.length >= 32, 'and its secret, shown once')
  await page.getByRole('button', { name: 'Copy secret' }).waitFor()
  // Each live key leads to the examples of <ranking-board>, filled in with it.
  t.equal(await page.getByRole('link', { name: `Embed the board with ${apiKey}` }).getAttribute('href'), `/embed/?game=space_race&api_key=${apiKey}`)

  // A signed score through the API: on the live top 10 of the overview, then a new one pushed in.
  t.match(await submitSigned(apiKey, secret, 'space_race', 'vega', 120), { ok: true })
  await page.getByRole('link', { name: 'Overview' }).click()
  await page.locator('#live-top', { hasText: 'vega' }).waitFor()
  t.match(await submitSigned(apiKey, secret, 'space_race', 'altair', 300), { ok: true })
  await page.locator('#live-top tbody tr').first().filter({ hasText: 'altair' }).waitFor()
  t.pass('a new first place arrives on the live top 10 without a reload')

  // The charts draw data, not just axes.
  await page.locator('#chart-submissions').waitFor()
  await page.waitForFunction(() => /2 in the last hour/.test(document.getElementById('chart-submissions')?.getAttribute('aria-label') ?? ''))
  t.ok(await pixelsOf(page, 'chart-submissions', [0x1f, 0x5f, 0xbf]) > 30, 'submissions per minute: a bar is drawn')
  t.ok(await pixelsOf(page, 'chart-scores', [0x1f, 0x7a, 0x8c]) > 30, 'scores on the board: bars are drawn')
  t.ok(await pixelsOf(page, 'chart-players', [0x2b, 0x7a, 0x4b]) > 10, 'active players: the line is drawn')
  await page.screenshot({ path: join(folder, 'console-overview-desktop.png'), fullPage: true })

  // The board: hide a score.
  await page.getByRole('link', { name: 'Board', exact: true }).click()
  await page.locator('#board-table', { hasText: 'vega' }).waitFor()
  await page.getByRole('button', { name: 'Hide vega' }).click()
  await page.getByText('vega is hidden on every board of the game.').waitFor()
  await page.locator('tr', { hasText: 'vega' }).locator('.badge', { hasText: 'hidden' }).waitFor()
  t.equal(await page.locator('tr', { hasText: 'vega' }).locator('td').first().innerText(), 'hidden', 'hidden: no rank')
  await page.getByLabel('Around a player').fill('altair')
  await page.getByRole('button', { name: 'Show around' }).click()
  await page.locator('#around-title').waitFor()
  t.match(await page.locator('tr.mark').innerText(), /1\s+altair\s+300/, 'around a player')
  await page.screenshot({ path: join(folder, 'console-board-desktop.png'), fullPage: true })

  // A review rule through the settings; a held score approved in one click.
  await page.getByRole('link', { name: 'Settings' }).click()
  await page.getByLabel('Hold for review above').fill('1000')
  await page.getByRole('button', { name: 'Save settings' }).click()
  await page.getByText('Saved: review_above.').waitFor()
  // Guests: the play page's visitors may play at once.
  await page.getByLabel('Guests').selectOption('listed')
  await page.getByRole('button', { name: 'Save settings' }).click()
  await page.getByText('Saved: guests.').waitFor()
  // Runs, and browser games without a server: the settings the API and the CLI have.
  await page.getByLabel('Runs (proof of play)').selectOption('optional')
  await page.getByLabel('Most points per second of play').fill('50')
  await page.getByLabel('Browser games without a server').selectOption('on')
  await page.getByRole('button', { name: 'Save settings' }).click()
  await page.getByText(/^Saved: (?=.*\bruns\b)(?=.*max_score_rate)(?=.*submit_run)/).waitFor()
  t.pass('runs and submit_run saved from the console')
  t.match(await submitSigned(apiKey, secret, 'space_race', 'rigel', 5000), { ok: true, data: { held: true } })
  await page.getByRole('link', { name: 'Review' }).click()
  await page.locator('#review-table', { hasText: 'rigel' }).waitFor()
  // Held scores are shown as the board shows them (grouped digits in the browser's locale), not raw.
  const cell = await page.locator('#review-table td[data-label="Score"]').first().innerText()
  t.match(cell, /^5\D?000$/, `the held score as the board shows it: ${cell}`)
  await page.getByRole('button', { name: `Approve rigel's ${cell}` }).click()
  await page.getByText(`rigel's ${cell} is approved and on the boards.`).waitFor()
  await page.getByRole('link', { name: 'Board', exact: true }).click()
  await page.locator('#board-table', { hasText: 'rigel' }).waitFor()
  t.match(await page.locator('#board-table tbody tr').first().innerText(), /1\s+rigel\s+5,000/, 'the approved score leads the board')

  // The audit log names who did it.
  await page.getByRole('link', { name: 'Audit log' }).first().click()
  await page.locator('#audit-table', { hasText: 'review.approve' }).waitFor()
  t.match(await page.locator('#audit-table').innerText(), /ana \(http\)/, 'the audit log names the token')

  t.same(problems, [], 'no script errors, nothing blocked by the page\'s policy')
  t.same(urls.filter(url => url.includes(ADMIN)), [], 'the token is in no URL')
  t.same(await lowContrast(page), [], 'text is readable (WCAG AA contrast)')
})

t.test('webhooks: add one, send a test event, read the delivery log, send it again', { timeout: BROWSER_TEST_TIMEOUT_MS }, async t => {
  const receiver = await startReceiver()
  t.teardown(receiver.close)
  const { page, context, problems } = await signedIn(ADMIN)
  t.teardown(async () => { await context.close() })
  await page.goto(`${baseUrl}/console/#/games/space_race/webhooks`)
  await page.getByText('Add a webhook').click()
  await page.getByLabel('Receiver URL').fill(receiver.url)
  await page.getByLabel('What it is for (optional)').fill('scores to the studio')
  await page.getByLabel('score.best').check()
  await page.getByRole('button', { name: 'Add webhook' }).click()
  t.match(await page.locator('#webhook-secret').innerText(), /^whsec_/, 'the signing secret, shown once')
  await page.getByRole('button', { name: 'Send a test event' }).click()
  await receiver.waitForAccepted(1)
  t.match(JSON.parse(receiver.accepted()[0]!.body), { type: 'webhook.test' }, 'the receiver got the test event')
  await page.getByRole('button', { name: 'Deliveries' }).click()
  const delivered = page.locator('.deliveries tr', { hasText: 'webhook.test' })
  // The log is read when asked: Refresh until the attempt the receiver answered is recorded.
  await waitFor(async () => {
    if (await delivered.locator('.badge', { hasText: 'delivered' }).count() > 0) return true
    await page.getByRole('button', { name: 'Refresh' }).click()
    return false
  }, { what: 'the delivery log to say delivered', intervalMs: 100 })
  t.equal(await delivered.locator('.badge').innerText(), 'delivered', 'the log says delivered')
  await page.getByRole('button', { name: 'Send webhook.test again' }).click()
  await page.getByText('It is sent again, from now.').waitFor()
  const again = await receiver.waitForAccepted(2)
  t.equal(again[1]!.headers['webhook-id'], again[0]!.headers['webhook-id'], 'the same message, sent again')
  t.same(problems, [])
})

t.test('a new secret stays with its game: moving to another game\'s same tab, or back, does not show it', { timeout: BROWSER_TEST_TIMEOUT_MS }, async t => {
  const { page, context, problems } = await signedIn(ADMIN)
  t.teardown(async () => { await context.close() })
  for (const gameId of ['secret_a', 'secret_b']) {
    const made = await fetch(`${baseUrl}/admin/games`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: JSON.stringify({ game_id: gameId, approved: true }) })
    t.equal(made.status, 200, `${gameId} made`)
  }
  await page.goto(`${baseUrl}/console/#/games/secret_a/keys`)
  await page.getByRole('button', { name: 'Issue a new API key' }).click()
  await page.locator('#new-api-secret').waitFor()
  // The address bar: the same tab of another game.
  await page.goto(`${baseUrl}/console/#/games/secret_b/keys`)
  await page.locator('h1', { hasText: 'secret_b' }).waitFor()
  await page.getByRole('button', { name: 'Issue a new API key' }).waitFor()
  t.equal(await page.locator('#new-api-secret').count(), 0, 'another game\'s keys tab shows no secret')
  await page.goBack()
  await page.locator('h1', { hasText: 'secret_a' }).waitFor()
  await page.getByRole('button', { name: 'Issue a new API key' }).waitFor()
  t.equal(await page.locator('#new-api-secret').count(), 0, 'and back on its own game it is gone: shown once')

  await page.goto(`${baseUrl}/console/#/games/secret_a/webhooks`)
  await page.getByText('Add a webhook').click()
  await page.getByLabel('Receiver URL').fill('https://example.com/hook')
  await page.getByRole('button', { name: 'Add webhook' }).click()
  await page.locator('#webhook-secret').waitFor()
  await page.goto(`${baseUrl}/console/#/games/secret_b/webhooks`)
  await page.locator('h1', { hasText: 'secret_b' }).waitFor()
  await page.getByText('Add a webhook').waitFor()
  t.equal(await page.locator('#webhook-secret').count(), 0, 'nor does another game\'s webhooks tab show a webhook\'s secret')
  t.same(problems, [])
})

t.test('the board tab heads its score column by what the board keeps, and counts players in words', { timeout: BROWSER_TEST_TIMEOUT_MS }, async t => {
  const { page, context, problems } = await signedIn(ADMIN)
  t.teardown(async () => { await context.close() })
  const headers = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }
  const game = await fetch(`${baseUrl}/admin/games`, { method: 'POST', headers, body: JSON.stringify({ game_id: 'totals', approved: true }) })
  t.equal(game.status, 200, 'a game of its own')
  const made = await fetch(`${baseUrl}/admin/games/totals/boards`, { method: 'POST', headers, body: JSON.stringify({ board_id: 'coins', operator: 'sum' }) })
  t.equal(made.status, 200, await made.text())
  const key = (await (await fetch(`${baseUrl}/admin/keys`, { method: 'POST', headers, body: JSON.stringify({ game_id: 'totals' }) })).json()).data
  for (const [score, board] of [[3, 'coins'], [4, 'coins'], [5, 'default']] as const) {
    const fields = { api_key: key.api_key, game_id: 'totals', player_name: 'miner', score: String(score), ts: String(Math.floor(Date.now() / 1000)), board }
    const sent = await (await fetch(`${baseUrl}/api/rank?action=submit`, { method: 'POST', body: new URLSearchParams({ ...fields, sign: computeSignature(key.api_secret, fields) }) })).json()
    t.match(sent, { ok: true }, `${score} to ${board}`)
  }
  await page.goto(`${baseUrl}/console/#/games/totals/board/coins`)
  await page.getByText('1 visible player.').waitFor()
  t.match(await page.locator('#board-table tbody tr').first().innerText(), /miner\s+7\b/, 'the total of the two')
  t.equal(await page.locator('#board-table thead th').nth(2).innerText(), 'Total', 'a sum board keeps a total, not a best')
  await page.getByLabel('Which board').selectOption('')
  await page.waitForFunction(() => document.querySelector('#board-table thead th:nth-child(3)')?.textContent === 'Best')
  t.pass('the game\'s own board keeps a best')
  t.same(problems, [])
})

t.test('named boards: make one, read its entries with the board switch, hide a player there, archive it', { timeout: BROWSER_TEST_TIMEOUT_MS }, async t => {
  const { page, context, problems } = await signedIn(ADMIN)
  t.teardown(async () => { await context.close() })
  await page.goto(`${baseUrl}/console/#/games/space_race/boards`)
  await page.getByText('No boards besides the game\'s own.').waitFor()
  await page.getByText('Make a board').click()
  await page.getByLabel('Board id').fill('lap-1')
  await page.getByLabel('Name players see').fill('Lap of the moon')
  await page.getByLabel('Which scores are better').selectOption('asc')
  await page.getByLabel('Scores shown as').selectOption('time')
  t.equal(await page.getByLabel('Digits of the seconds shown').inputValue(), '3', 'a time shows ms by default')
  t.match(await page.locator('#board-score_format-hint').innerText(), /as 1:02\.345/, 'an example as pages will show it')
  await page.getByLabel('daily').check()
  // The game allows submit-run (settings, above): a lower-is-better board needs a floor for its times.
  await page.getByRole('button', { name: 'Make board' }).click()
  await page.getByText(/takes submit-run scores only with a floor for its times/).waitFor()
  t.pass('without a floor, the operator is told why')
  await page.getByLabel('Lowest score taken').fill('1000')
  await page.getByRole('button', { name: 'Make board' }).click()
  await page.getByText('The board lap-1 is made').waitFor()
  const row = page.locator('#boards-table tr', { hasText: 'lap-1' })
  t.match(await row.innerText(), /Lap of the moon[\s\S]*lower is better, best score kept[\s\S]*daily/, 'listed with what it does')

  // Scores on it, signed with the board (docs/interface.md#signature).
  const headers = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }
  const key = (await (await fetch(`${baseUrl}/admin/keys`, { method: 'POST', headers, body: JSON.stringify({ game_id: 'space_race' }) })).json()).data
  for (const [player, score] of [['deneb', 61_000], ['mira', 59_500]] as const) {
    const fields = { api_key: key.api_key, game_id: 'space_race', player_name: player, score: String(score), ts: String(Math.floor(Date.now() / 1000)), board: 'lap-1' }
    const answer = await (await fetch(`${baseUrl}/api/rank?action=submit`, { method: 'POST', body: new URLSearchParams({ ...fields, sign: computeSignature(key.api_secret, fields) }) })).json()
    t.match(answer, { ok: true, data: { board: 'lap-1' } })
  }
  await row.getByRole('link', { name: 'Entries' }).click()
  await page.locator('#board-table').waitFor()
  t.equal(await page.getByLabel('Which board').inputValue(), 'lap-1', 'the board switch shows the board linked to')
  t.same(await page.locator('#board-table tbody th').allInnerTexts(), ['mira', 'deneb'], 'its entries, lower first')
  t.same(await page.locator('#board-table tbody td.number:nth-child(3)').allInnerTexts(), ['0:59.500', '1:01.000'], 'as times, the board\'s format')
  await page.getByRole('button', { name: 'Hide mira' }).click()
  await page.getByText('mira is hidden on every board of the game.').waitFor()
  await page.getByRole('button', { name: 'Show mira' }).waitFor()
  t.equal(await page.locator('#board-table tr', { hasText: 'mira' }).locator('.badge').innerText(), 'hidden')
  await page.getByLabel('Which board').selectOption('')
  t.ok(page.url().endsWith('/board'), 'the hash follows the switch')
  await page.getByLabel('Which board').selectOption('lap-1')
  await page.getByRole('button', { name: 'Show mira' }).click()
  await page.getByRole('button', { name: 'Hide mira' }).waitFor()

  await page.goto(`${baseUrl}/console/#/games/space_race/boards`)
  await page.getByRole('button', { name: 'Archive lap-1' }).click()
  await page.getByText('lap-1 is archived').waitFor()
  t.equal(await page.locator('#boards-table tr', { hasText: 'lap-1' }).locator('.badge').innerText(), 'archived')
  await page.getByRole('button', { name: 'Change lap-1' }).click()
  t.ok(await page.getByLabel('Board id').isDisabled(), 'an id cannot change')
  await page.getByLabel('Which scores are better').selectOption('desc')
  await page.getByRole('button', { name: 'Save board' }).click()
  await page.getByText(/its order and operator can change only while it is empty/).waitFor()
  t.pass('a board with entries keeps its order, and the operator is told why')
  t.same(problems, [])
})

t.test('achievements: make one with a threshold, give it an icon, see how rare it is', { timeout: BROWSER_TEST_TIMEOUT_MS }, async t => {
  const { page, context, problems } = await signedIn(ADMIN)
  t.teardown(async () => { await context.close() })
  await page.goto(`${baseUrl}/console/#/games/space_race/achievements`)
  await page.getByText('No achievements yet.').waitFor()
  await page.getByText('Make an achievement').click()
  await page.getByLabel('Achievement id').fill('high-flyer')
  await page.getByLabel('Name players see').fill('High flyer')
  await page.getByLabel('Points').fill('25')
  await page.getByLabel('Unlocked when a board').selectOption('default')
  await page.getByLabel('Its stored score is').selectOption('at_least')
  await page.getByLabel('Threshold').fill('250')
  await page.getByRole('button', { name: 'Make achievement' }).click()
  await page.getByText('The achievement high-flyer is made.').waitFor()
  const row = page.locator('#achievements-table tr', { hasText: 'high-flyer' })
  t.match(await row.innerText(), /High flyer[\s\S]*25[\s\S]*the game's own board reaches 250/, 'listed with its threshold')
  t.ok(await page.locator('#rarity-chart').isVisible(), 'the rarity chart')
  await row.getByLabel('Icon for high-flyer').setInputFiles({ name: 'flyer.png', mimeType: 'image/png', buffer: Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000100000500010d0a2db40000000049454e44ae426082', 'hex') })
  await page.getByText('high-flyer has its icon.').waitFor()
  await row.locator('img.icon').waitFor()
  t.ok(await row.locator('img.icon').evaluate(image => (image as HTMLImageElement).complete && (image as HTMLImageElement).naturalWidth === 1), 'the icon is shown, served by the service')
  await row.getByLabel('Icon for high-flyer').setInputFiles({ name: 'not.png', mimeType: 'image/png', buffer: Buffer.from('<svg/>') })
  await page.getByText(/not a PNG, JPEG, GIF or WebP image/).waitFor()
  t.pass('a file that is not an image is refused with a sentence')

  // A score past the threshold unlocks it; the operator looks up who has it.
  const headers = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }
  const key = (await (await fetch(`${baseUrl}/admin/keys`, { method: 'POST', headers, body: JSON.stringify({ game_id: 'space_race' }) })).json()).data
  t.match(await submitSigned(key.api_key, key.api_secret, 'space_race', 'altair', 310), { ok: true, data: { unlocked: ['high-flyer'] } })
  await page.getByLabel('Player name').fill('altair')
  await page.getByRole('button', { name: 'Show their unlocks' }).click()
  await page.locator('#unlocks-table').waitFor()
  t.match(await page.locator('#unlocks-table tbody').innerText(), /High flyer\s+high-flyer\s+\S/, 'the player\'s unlock, with when')
  await page.getByLabel('Player name').fill('orion')
  await page.getByRole('button', { name: 'Show their unlocks' }).click()
  await page.getByText('orion has unlocked none of the achievements.').waitFor()
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download every unlock (CSV)' }).click()])
  t.equal(download.suggestedFilename(), 'space_race-unlocks.csv')
  const saved = await download.path()
  t.match(readFileSync(saved, 'utf8'), /^player_name,achievement_id,unlocked_at\r\naltair,high-flyer,\d{4}-/, 'every unlock, as CSV')
  t.same(problems, [])
})

t.test('users: create one, hide one, erase one after typing the name', { timeout: BROWSER_TEST_TIMEOUT_MS }, async t => {
  const { page, context } = await signedIn(ADMIN)
  t.teardown(async () => { await context.close() })
  await page.getByRole('link', { name: 'Users' }).click()
  await page.getByText('Create a user').click()
  await page.getByLabel('Username', { exact: true }).fill('bob')
  await page.getByRole('button', { name: 'Create user' }).click()
  await page.locator('#users-table', { hasText: 'bob' }).waitFor()
  await page.getByRole('button', { name: 'Hide bob' }).click()
  await page.getByText('bob is hidden on every board.').waitFor()
  // The confirmation is a modal dialog: the focus starts on Cancel, Escape closes it, nothing is erased.
  await page.getByRole('button', { name: 'Erase bob' }).click()
  await page.getByRole('alertdialog').waitFor()
  t.equal(await page.evaluate(() => document.activeElement?.textContent), 'Cancel', 'the focus starts on Cancel')
  await page.keyboard.press('Escape')
  await page.getByRole('alertdialog').waitFor({ state: 'hidden' })
  t.equal(await page.locator('#users-table', { hasText: 'bob' }).count(), 1, 'Escape cancels: bob is still there')
  await page.getByRole('button', { name: 'Erase bob' }).click()
  const erase = page.getByRole('button', { name: 'Erase for good' })
  t.ok(await erase.isDisabled(), 'erasing waits for the name to be typed')
  await page.getByLabel('Type bob to confirm').fill('bob')
  await erase.click()
  await page.getByText(/bob is erased everywhere/).waitFor()
  await page.getByRole('row', { name: /bob/ }).waitFor({ state: 'detached' })
  t.pass('gone from the list')

  // How each user signs in; guests, and only them (the form is still open).
  await page.getByLabel('Username', { exact: true }).fill('cy')
  await page.getByRole('button', { name: 'Create user' }).click()
  t.match(await page.getByRole('row', { name: /\bcy\b/ }).innerText(), /sessions made by an operator/, 'a user without a password')
  const guest = await fetch(`${baseUrl}/auth/guest`, { method: 'POST', body: new URLSearchParams({ game_id: 'space_race' }) }).then(async answer => await answer.json() as { data: { username: string } })
  await page.getByLabel('Show').selectOption('true')
  const row = page.getByRole('row', { name: new RegExp(guest.data.username) })
  await row.waitFor()
  t.match(await row.innerText(), /guest session[\s\S]*guest/, 'a guest, marked')
  t.equal(await page.getByRole('row', { name: /\bcy\b/ }).count(), 0, 'guests only')
  await page.screenshot({ path: join(folder, 'console-users-guests-desktop.png'), fullPage: true })
  // The audit log says what the erasure erased (counts, not a record "created").
  await page.getByRole('link', { name: 'Audit log' }).click()
  const erasure = page.getByRole('row', { name: /user\.erase/ }).first()
  await erasure.waitFor()
  t.match(await erasure.innerText(), /erased: user 1\b/, 'the erasure, in the audit log')
  t.notMatch(await erasure.innerText(), /created/)
})

t.test('a viewer sees everything and can change nothing', { timeout: BROWSER_TEST_TIMEOUT_MS }, async t => {
  const { page, context, problems } = await signedIn(VIEWER)
  t.teardown(async () => { await context.close() })
  t.match(await page.locator('header .badge').innerText(), /eve · viewer/)
  const approve = page.getByRole('button', { name: /Approve|Withdraw/ }).first()
  await approve.waitFor()
  t.ok(await approve.isDisabled(), 'approving is disabled')
  t.equal(await approve.getAttribute('title'), 'A viewer token can look but not change anything.', 'and says why')
  await page.getByRole('link', { name: 'space_race' }).click()
  await page.getByRole('link', { name: 'API keys' }).click()
  t.ok(await page.getByRole('button', { name: 'Issue a new API key' }).isDisabled(), 'issuing a key is disabled')
  await page.getByRole('link', { name: 'Settings' }).click()
  t.ok(await page.getByLabel('Name', { exact: true }).isDisabled(), 'settings are read-only')
  t.ok(await page.getByRole('button', { name: 'Save settings' }).isDisabled())
  await page.getByRole('link', { name: 'Board', exact: true }).click()
  await page.locator('#board-table').waitFor()
  t.ok(await page.getByRole('button', { name: 'Delete altair' }).isDisabled(), 'deleting an entry is disabled')
  // Even a write sent by hand with the viewer token is refused by the service.
  const refused = await page.evaluate(async token => await (await fetch('/admin/games/space_race', { method: 'PATCH', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{"approved":false}' })).json(), VIEWER)
  t.match(refused, { ok: false, error: 'forbidden' })
  t.same(problems, [])
})

t.test('a wrong token is refused with a sentence; signing out forgets the token', { timeout: BROWSER_TEST_TIMEOUT_MS }, async t => {
  const watched = await watchedPage(browser, VIEWPORTS[0][1])
  t.teardown(async () => { await watched.context.close() })
  const { page } = watched
  await page.goto(`${baseUrl}/console/`)
  // Keyboard only: the token field takes focus with Tab, Enter signs in.
  await page.keyboard.press('Tab')
  t.equal(await page.evaluate(() => document.activeElement?.id), 'token', 'Tab reaches the token field')
  await page.keyboard.type('not-a-token')
  await page.keyboard.press('Enter')
  t.match(await page.locator('.problem').innerText(), /not one of this service's operator tokens/)
  await page.getByLabel('Operator token').fill(ADMIN)
  await page.keyboard.press('Enter')
  await page.locator('header.top').waitFor()
  // Reloading keeps the tab signed in.
  await page.reload()
  await page.locator('header.top').waitFor()
  await page.keyboard.press('Tab')
  t.equal(await page.evaluate(() => document.activeElement?.textContent), 'Skip to the content', 'the first Tab offers to skip to the content')
  await page.getByRole('button', { name: 'Sign out' }).click()
  await page.getByLabel('Operator token').waitFor()
  t.equal(await page.evaluate(() => sessionStorage.length + localStorage.length), 0, 'signed out: the token is forgotten')
})
