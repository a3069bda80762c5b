import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import type { FastifyInstance } from 'fastify'
import type { Page } from 'playwright-core'
import t from 'tap'
import { buildApp } from '../../src/app.js'
import { projectPath } from '../../src/lib/paths.js'
import { admin, createGame, get, submit } from '../helpers/app.js'
import { baseUrlOf, listeningApp } from '../helpers/listening.js'
import { BROWSER_TEST_TIMEOUT_MS, launchBrowser, screenshotFolder, watchedPage } from '../helpers/browser.js'
import { waitFor } from '../helpers/wait.js'

/*
 * <ranking-board> (docs/embed.md) as another site uses it: a page of another
 * origin, served with a strict Content-Security-Policy (scripts and
 * connections to the service only, no inline style), includes the script
 * from the service and writes the element. Checked in Chromium at desktop,
 * phone and 320 px, light and dark: the board renders in its format, goes
 * live, shows a player's neighbourhood, and reconnects by itself after the
 * service restarts.
 */

const folder = screenshotFolder(t)
/** A player name as long as names go (30 characters). */
const LONG_NAME = 'a_player_with_a_rather_long_nm'
const SIZES = [['desktop', { width: 1280, height: 800 }], ['phone', { width: 390, height: 844 }], ['narrow', { width: 320, height: 640 }]] as const

/** What an element shows: each table's caption and rows (rank, name, score), its status line, its live region. */
async function shown (page: Page, selector: string) {
  return await page.evaluate((selector) => {
    const root = document.querySelector(selector)?.shadowRoot
    if (root == null) return null
    const tables = Array.from(root.querySelectorAll('table')).map(table => ({
      caption: table.caption?.textContent ?? '',
      rows: Array.from(table.tBodies[0]?.rows ?? []).map(row => ({ cells: Array.from(row.cells).map(cell => cell.textContent?.trim() ?? ''), current: row.getAttribute('aria-current') === 'true' }))
    }))
    return { tables, status: root.querySelector('.status')?.textContent?.replace(/\s+/g, ' ').trim() ?? '', announced: root.querySelector('[aria-live]')?.textContent ?? '' }
  }, selector)
}

/** A page of another site (another host name and port than the service's), served with `headers`; its address. */
async function otherSite (t: { teardown: (fn: () => unknown) => void }, page: string, headers: Record<string, string> = {}, files: Record<string, string> = {}): Promise<string> {
  const site = createServer((request, response) => {
    const file = files[request.url ?? '']
    if (file !== undefined) response.writeHead(200, { 'content-type': 'text/css' }).end(file)
    else response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...headers }).end(page)
  })
  await new Promise<void>(resolve => site.listen(0, '127.0.0.1', resolve))
  t.teardown(() => { site.close() })
  return `http://localhost:${(site.address() as AddressInfo).port}/`
}

t.test('the element on another origin under a strict CSP: formats, live, around, light and dark, 320 px to desktop, reconnects after a restart', { timeout: 6 * BROWSER_TEST_TIMEOUT_MS }, async t => {
  const { app, baseUrl, config } = await listeningApp(t)
  const game = await createGame(app)
  t.equal((await admin(app, 'PATCH', `/admin/games/${game.gameId}`, { name: 'Sky Run' })).json().ok, true)
  t.equal((await admin(app, 'POST', `/admin/games/${game.gameId}/boards`, { board_id: 'lap', name: 'Lap 1', order: 'asc', score_format: 'time' })).json().ok, true)
  for (let i = 1; i <= 12; i++) t.equal((await submit(app, game, { player: `p${String(i).padStart(2, '0')}`, score: i * 1000 + 234 })).json().ok, true)
  t.equal((await submit(app, game, { player: 'bob', score: 62345, board: 'lap' })).json().ok, true)
  // The widest a row gets: a name of 30 characters beside the biggest score, in a format with a unit.
  t.equal((await admin(app, 'POST', `/admin/games/${game.gameId}/boards`, { board_id: 'coins', name: 'Coins', score_format: 'decimal', score_unit: 'coins' })).json().ok, true)
  t.equal((await submit(app, game, { player: LONG_NAME, score: Number.MAX_SAFE_INTEGER, board: 'coins' })).json().ok, true)

  // The other site: its own origin (another host name and port), its own strict policy.
  const policy = `default-src 'none'; script-src ${baseUrl}; connect-src ${baseUrl}; style-src 'self'; base-uri 'none'`
  const siteUrl = await otherSite(t, `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/site.css">
<script src="${baseUrl}/embed/board.js" defer></script></head>
<body><h1>A fan site</h1>
<ranking-board id="main" game="${game.gameId}" api-key="${game.apiKey}" limit="5" around="p02" locale="en-US" live></ranking-board>
<ranking-board id="lap" game="${game.gameId}" api-key="${game.apiKey}" board="lap"></ranking-board>
<ranking-board id="coins" game="${game.gameId}" api-key="${game.apiKey}" board="coins" locale="en_US"></ranking-board>
</body></html>`, { 'content-security-policy': policy }, { '/site.css': ':root { color-scheme: light dark; font-family: sans-serif } body { margin: 8px; background: Canvas; color: CanvasText } ranking-board { margin-bottom: 12px }' })

  const browser = await launchBrowser(t)
  for (const scheme of ['light', 'dark'] as const) {
    for (const [size, viewport] of SIZES) {
      const { page, problems, overflow, context } = await watchedPage(browser, viewport)
      await page.emulateMedia({ colorScheme: scheme })
      await page.goto(siteUrl)
      await waitFor(async () => (await shown(page, '#main'))?.tables.length === 2 && (await shown(page, '#lap'))?.tables[0]?.rows.length === 1, { what: `the boards at ${size}, ${scheme}` })
      const main = await shown(page, '#main')
      const [top, around] = main?.tables ?? []
      t.same(top?.rows.map(row => row.cells), [['1', 'p12', '12,234'], ['2', 'p11', '11,234'], ['3', 'p10', '10,234'], ['4', 'p09', '9,234'], ['5', 'p08', '8,234']], `${size}, ${scheme}: the top 5, scores grouped`)
      t.equal(top?.caption, 'Sky Run', 'captioned with the board\'s name')
      t.equal(around?.caption, 'Around p02')
      t.same(around?.rows.map(row => [row.cells[1], row.current]), [['p04', false], ['p03', false], ['p02', true], ['p01', false]], 'the player\'s neighbourhood, their row marked')
      await waitFor(async () => /Live/.test((await shown(page, '#main'))?.status ?? ''), { what: 'the live mark' })
      t.match((await shown(page, '#main'))?.status, /12 players.*Live/)
      const lap = await shown(page, '#lap')
      t.same(lap?.tables[0], { caption: 'Lap 1', rows: [{ cells: ['1', 'bob', '1:02.345'], current: false }] }, 'a named board in its time format')
      await waitFor(async () => (await shown(page, '#coins'))?.tables[0]?.rows.length === 1, { what: 'the coins board' })
      t.same((await shown(page, '#coins'))?.tables[0]?.rows[0]?.cells, ['1', LONG_NAME, '90,071,992,547,409.91\u00a0coins'], 'a long name and the biggest score, in full; a locale the browser does not know (en_US) is its own')
      t.ok(await overflow() <= 0, `${size}: nothing scrolls sideways`)
      const box = await page.locator('#main').boundingBox()
      t.ok(box !== null && box.x >= 0 && box.x + box.width <= viewport.width, `${size}: the element fits the width`)
      // Every cell is inside its element, and every text inside its cell: a long name wraps, a score takes its width.
      const outside = await page.evaluate(() => Array.from(document.querySelectorAll('ranking-board')).flatMap(board => {
        const box = board.getBoundingClientRect()
        return Array.from(board.shadowRoot?.querySelectorAll('td, th') ?? [])
          .filter(cell => cell.getBoundingClientRect().right > box.right + 0.5 || cell.scrollWidth > cell.clientWidth + 0.5)
          .map(cell => `${board.id}: ${cell.textContent ?? ''}`)
      }))
      t.same(outside, [], `${size}: every cell inside its element, every text inside its cell`)
      const background = await page.evaluate(() => getComputedStyle(document.querySelector('#main') as Element).backgroundColor)
      t.equal(background, scheme === 'light' ? 'rgb(255, 255, 255)' : 'rgb(22, 27, 34)', `${scheme}: follows the page's scheme`)
      t.same(problems, [], `${size}, ${scheme}: no script error, nothing the page's policy refused`)
      await page.screenshot({ path: join(folder, `embed-${size}-${scheme}.png`), fullPage: true })
      await context.close()
    }
  }

  // Live: a new leader shows without a reload, and the live region says so once.
  const { page, problems, context } = await watchedPage(browser, { width: 1280, height: 800 })
  await page.goto(siteUrl)
  await waitFor(async () => /Live/.test((await shown(page, '#main'))?.status ?? ''), { what: 'the live mark' })
  t.equal((await shown(page, '#main'))?.announced, '', 'nothing said as the board first shows')
  t.equal((await submit(app, game, { player: 'p13', score: 50000 })).json().ok, true)
  await waitFor(async () => (await shown(page, '#main'))?.tables[0]?.rows[0]?.cells[1] === 'p13', { what: 'the new leader, live' })
  const after = await shown(page, '#main')
  t.equal(after?.tables[0]?.rows[0]?.cells[2], '50,000')
  t.equal(after?.announced, 'p13 now leads.', 'the live region speaks of the lead, not of every frame')

  // The service restarts (another process on the same address, the same Redis): the element reconnects by itself.
  const restarted: FastifyInstance = await buildApp(config)
  t.teardown(async () => { await restarted.close() })
  const port = Number(new URL(baseUrl).port)
  await app.close()
  await waitFor(async () => /Reconnecting/.test((await shown(page, '#main'))?.status ?? ''), { what: 'the element to notice the service is gone' })
  await restarted.listen({ port, host: '127.0.0.1' })
  t.equal(baseUrlOf(restarted), baseUrl)
  await waitFor(async () => /Live/.test((await shown(page, '#main'))?.status ?? ''), { what: 'the stream again after the restart', timeoutMs: 60_000 })
  t.equal((await submit(restarted, game, { player: 'p14', score: 60000 })).json().ok, true)
  await waitFor(async () => (await shown(page, '#main'))?.tables[0]?.rows[0]?.cells[1] === 'p14', { what: 'a change after the restart, live' })
  t.pass('live again after the service restarted')
  t.same(problems, [], 'no script error across the restart')
  await context.close()
})

t.test('the element\'s script: one file, versioned, cross-origin, under its size budget; wrong attributes say so', { timeout: 2 * BROWSER_TEST_TIMEOUT_MS }, async t => {
  const { app, baseUrl } = await listeningApp(t)
  const built = readFileSync(projectPath('dist', 'web', 'embed', 'board.js'))
  t.ok(gzipSync(built).length < 15 * 1024, `board.js is ${gzipSync(built).length} bytes gzipped, under 15 KB`)
  for (const path of ['/embed/board.js', '/embed/v1/board.js']) {
    const script = await get(app, path)
    t.equal(script.statusCode, 200, path)
    t.match(script.headers['content-type'], /^application\/javascript|^text\/javascript/)
    t.equal(script.headers['cross-origin-resource-policy'], 'cross-origin', `${path}: other sites may load it`)
    t.match(script.headers['cache-control'], /max-age=300/)
    t.equal(script.body, built.toString(), `${path}: the built element`)
  }
  for (const path of ['/embed/.build-stamp', '/embed/v2/board.js', '/embed/format.js', '/embed/board.js.map', '/embed/v1/']) {
    t.equal((await get(app, path)).json().error, 'not_found', `${path}: nothing else`)
  }

  // A page that gets the attributes wrong reads why on the element, not in a console.
  const game = await createGame(app)
  const browser = await launchBrowser(t)
  const { page, problems } = await watchedPage(browser, { width: 390, height: 844 })
  await page.goto(await otherSite(t, `<!doctype html><script src="${baseUrl}/embed/board.js"></script>
<ranking-board id="nokey" game="${game.gameId}"></ranking-board>
<ranking-board id="badkey" game="${game.gameId}" api-key="nope" live></ranking-board>
<ranking-board id="badboard" game="${game.gameId}" api-key="${game.apiKey}" board="no-such"></ranking-board>
<script>
  // Added to the page first, given its attributes a moment later, as a script of the page's may do.
  const late = document.createElement('ranking-board')
  late.id = 'late'
  document.body.append(late)
  setTimeout(() => { late.setAttribute('game', ${JSON.stringify(game.gameId)}); late.apiKey = ${JSON.stringify(game.apiKey)} }, 100)
</script>`))
  let seen: unknown
  await waitFor(async () => { seen = await shown(page, '#badboard'); return !/Loading/.test((seen as { status: string } | null)?.status ?? 'Loading') }, { what: () => `the elements to answer (${JSON.stringify([seen, problems])})` })
  t.match((await shown(page, '#nokey'))?.status, /Set the game and api-key attributes/)
  await waitFor(async () => /API key/i.test((await shown(page, '#badkey'))?.status ?? ''), { what: 'the bad key\'s message' })
  t.match((await shown(page, '#badboard'))?.status, /board/i)
  await waitFor(async () => (await shown(page, '#late'))?.status === 'No scores yet.', { what: 'the element given its attributes after it was on the page' })
  t.pass('attributes set after the element is on the page are read')
  // A wrong key cannot get better by waiting: the element stops (no live mark) and asks nothing more.
  t.notMatch((await shown(page, '#badkey'))?.status, /Live|Reconnecting/, 'the live mark is gone')
  let asked = 0
  page.on('request', request => { if (request.url().includes('api_key=nope')) asked++ })
  await new Promise(resolve => setTimeout(resolve, 7_000))
  t.equal(asked, 0, 'nothing asked with the wrong key in 7 s (a retry would come after 5)')
  const version = await page.evaluate(() => (customElements.get('ranking-board') as unknown as { version: string }).version)
  t.match(version, /^1\.\d+\.\d+$/, 'the element of major version 1, as /embed/v1/ says')
  t.same(problems, [])
})

t.test('/embed/: the examples, filled in for a game, at desktop and phone size', { timeout: 2 * BROWSER_TEST_TIMEOUT_MS }, async t => {
  const { app, baseUrl } = await listeningApp(t)
  const game = await createGame(app)
  for (let i = 1; i <= 7; i++) await submit(app, game, { player: `player${i}`, score: i * 10 })
  const browser = await launchBrowser(t)
  for (const [size, viewport] of [['desktop', { width: 1280, height: 800 }], ['phone', { width: 390, height: 844 }]] as const) {
    const { page, problems, overflow, context } = await watchedPage(browser, viewport)
    await page.goto(`${baseUrl}/embed/?game=${game.gameId}&api_key=${game.apiKey}&around=player1`)
    // The page's script fills the examples in after load: wait for all three, not for every one of none.
    await waitFor(async () => await page.evaluate(() => {
      const boards = Array.from(document.querySelectorAll('ranking-board'))
      return boards.length === 3 && boards.every(board => (board.shadowRoot?.querySelectorAll('tbody tr').length ?? 0) >= 5)
    }), { what: `the examples' boards at ${size}` })
    t.equal(await page.locator('ranking-board').count(), 3, 'three examples')
    const snippets = await page.locator('.example pre').allTextContents()
    t.ok(snippets.every(snippet => snippet.includes(`${baseUrl}/embed/v1/board.js`) && snippet.includes(`api-key="${game.apiKey}"`)), 'each snippet loads the versioned script, with the game\'s key')
    t.match(snippets[1], /around="player1"/)
    t.ok(await overflow() <= 0, `${size}: nothing scrolls sideways`)
    t.same(problems, [])
    await page.screenshot({ path: join(folder, `embed-examples-${size}.png`), fullPage: true })
    await context.close()
  }
})
