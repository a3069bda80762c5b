import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import type { Page } from 'playwright-core'
import t from 'tap'
import { admin, createGame, dataOf } from '../helpers/app.js'
import { listeningApp } from '../helpers/listening.js'
import { BROWSER_TEST_TIMEOUT_MS, VIEWPORTS, launchBrowser, screenshotFolder, watchedPage } from '../helpers/browser.js'

/*
 * The games ranked, as people see them (docs/ratings.md#the-front-page,
 * docs/embed.md#games), in Chromium at desktop and phone size: the front
 * page's three lists of cards, and <ranking-games> on a page of another
 * origin under a strict Content-Security-Policy, walking on with "More
 * games". The two hosted games are the demo and the Phaser example (DEMO);
 * a third game is played elsewhere: on the element's list, not a card of
 * the front page.
 */

const folder = screenshotFolder(t)
const LONG_NAME = 'The Extraordinarily Long-Named Adventure of the Night Sky Cartographers'

async function userCookie (app: FastifyInstance, username: string): Promise<string> {
  dataOf(await admin(app, 'POST', '/admin/users', { username }))
  return `sid=${String(dataOf(await admin(app, 'POST', '/admin/sessions', { username })).session_id)}`
}

async function playAndRate (app: FastifyInstance, cookie: string, gameId: string, seconds: number, stars: number): Promise<void> {
  const headers = { 'content-type': 'application/x-www-form-urlencoded', cookie }
  dataOf(await app.inject({ method: 'POST', url: '/api/playtime', payload: `game_id=${gameId}&seconds=${seconds}`, headers }))
  dataOf(await app.inject({ method: 'POST', url: `/api/rate?game_id=${gameId}`, payload: `stars=${stars}`, headers }))
}

/** What an element shows: its heading, each card's text, its status line and whether "More games" is there. */
async function shown (page: Page, selector: string) {
  return await page.evaluate((selector) => {
    const root = document.querySelector(selector)?.shadowRoot
    if (root == null) return null
    return {
      heading: root.querySelector('h2')?.textContent ?? '',
      cards: Array.from(root.querySelectorAll('li')).map(card => card.textContent?.replace(/\s+/g, ' ').trim() ?? ''),
      links: Array.from(root.querySelectorAll('li a')).map(link => link.getAttribute('href')),
      status: root.querySelector('.status')?.textContent?.replace(/\s+/g, ' ').trim() ?? '',
      more: root.querySelector('button') !== null
    }
  }, selector)
}

t.test('the front page and <ranking-games> show the games ranked, at desktop and phone size', { timeout: 4 * BROWSER_TEST_TIMEOUT_MS }, async t => {
  const { app, baseUrl } = await listeningApp(t, { DEMO: 'true', RATING_PRIOR_MEAN: '5.5' })
  for (const [gameId, name] of [['demo', 'Asteroids'], ['phaser', 'Star catcher']] as const) {
    await createGame(app, { gameId })
    dataOf(await admin(app, 'PATCH', `/admin/games/${gameId}`, { name }))
  }
  const elsewhere = await createGame(app)
  dataOf(await admin(app, 'PATCH', `/admin/games/${elsewhere.gameId}`, { name: LONG_NAME }))
  const ann = await userCookie(app, 'ann')
  const bob = await userCookie(app, 'bob')
  await playAndRate(app, ann, 'demo', 300, 9)
  await playAndRate(app, bob, 'demo', 300, 8)
  await playAndRate(app, ann, 'phaser', 120, 6)
  await playAndRate(app, ann, elsewhere.gameId, 300, 10)
  await playAndRate(app, bob, elsewhere.gameId, 300, 10)
  await app.syncRecordCache()
  await app.gamesIndex.flush()

  // The other site: its own origin and a strict policy (the service's scripts and reads only, no inline style).
  const policy = `default-src 'none'; script-src ${baseUrl}; connect-src ${baseUrl}; style-src 'self'; base-uri 'none'`
  const site = createServer((request, response) => {
    if (request.url === '/site.css') {
      response.writeHead(200, { 'content-type': 'text/css' }).end(':root { color-scheme: light dark; font-family: sans-serif } body { margin: 8px; background: Canvas; color: CanvasText } ranking-games { margin-bottom: 12px }')
      return
    }
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': policy }).end(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/site.css">
<script src="${baseUrl}/embed/v1/games.js" defer></script></head>
<body><h1>A portal</h1>
<ranking-games id="top" limit="2" locale="en-US"></ranking-games>
<ranking-games id="played" sort="most_played" heading="Played this week" locale="en-US"></ranking-games>
</body></html>`)
  })
  await new Promise<void>(resolve => site.listen(0, '127.0.0.1', resolve))
  t.teardown(() => { site.close() })
  const siteUrl = `http://localhost:${(site.address() as AddressInfo).port}/`

  const browser = await launchBrowser(t)
  for (const [size, viewport] of VIEWPORTS) {
    const { page, problems, overflow, settled } = await watchedPage(browser, viewport)

    await page.goto(`${baseUrl}/`)
    for (const selector of ['h1', '#top-rated h2', '#most-played h2', '#new h2', '#top-rated a[href="/play/demo"]', '#top-rated a[href="/play/phaser"]', '#new a[href="/play/demo"]']) {
      t.ok(await page.locator(selector).isVisible(), `${size} front page: ${selector} is visible`)
    }
    const topCards = await page.locator('#top-rated li.card').allInnerTexts()
    t.match(topCards[0], /Asteroids\s+★ 3\.0 \(2 ratings\)\s+10 min played · 2 players/, `${size}: the best card first, its stars, ratings, play and players`)
    t.match(topCards[1], /Star catcher/, `${size}: then the other hosted game`)
    t.equal(topCards.length, 2, `${size}: a game played elsewhere is not a card of the front page`)
    t.equal(await page.locator('#top-rated li.card p.rating').first().getAttribute('aria-label'), 'Rated 3.0 out of 5 from 2 ratings', `${size}: the rating as a screen reader hears it`)
    // The whole card is the link: a click on its figures plays.
    const card = await page.locator('#most-played li.card').first().boundingBox()
    t.ok(card !== null && card.width >= Math.min(200, viewport.width - 40), `${size}: a card is wide enough to read (${String(card?.width)} px)`)
    t.ok(await overflow() <= 0, `${size} front page: nothing overflows sideways`)
    await page.screenshot({ path: join(folder, `front-games-${size}.png`), fullPage: true })
    // (A click at the point, not on the element: the link's overlay, not the text under it, is what takes it.)
    const facts = await page.locator('#top-rated li.card p.facts').first().boundingBox()
    await Promise.all([page.waitForURL(`${baseUrl}/play/demo`, { waitUntil: 'commit' }), page.mouse.click((facts?.x ?? 0) + 5, (facts?.y ?? 0) + 5)])
    t.pass(`${size}: a click on a card's facts opens its play page`)

    await page.goto(siteUrl)
    await page.waitForFunction(() => document.querySelector('#top')?.shadowRoot?.querySelectorAll('li').length === 2)
    await settled()
    const top = await shown(page, '#top')
    t.equal(top?.heading, 'Top rated', `${size} element: the list's name`)
    t.match(top?.cards[0], `${LONG_NAME} ★ 3.1 (2 ratings) 10 min played · 2 players`, `${size} element: a game played elsewhere is on the public list, by its weighted score`)
    t.same(top?.links, [`${baseUrl}/play/demo`], `${size} element: a game without a play page here is no link`)
    t.equal(top?.status, '2 of 3 More games', `${size} element: how many, and more`)
    await page.locator('#top').locator('button').click()
    await page.waitForFunction(() => document.querySelector('#top')?.shadowRoot?.querySelectorAll('li').length === 3)
    const walked = await shown(page, '#top')
    t.match(walked?.cards[2], 'Star catcher', `${size} element: "More games" walks on`)
    t.equal(walked?.more, false, `${size} element: no more after the last`)
    const played = await shown(page, '#played')
    t.equal(played?.heading, 'Played this week', `${size} element: a heading of the page's own`)
    t.match(played?.cards[0], /played this week/, `${size} element: most played shows this week's play`)
    t.ok(await overflow() <= 0, `${size} element: nothing overflows sideways`)
    t.same(problems, [], `${size}: no script error, nothing the policy refused`)
    await page.screenshot({ path: join(folder, `games-element-${size}.png`), fullPage: true })
    await page.context().close()
  }
})
