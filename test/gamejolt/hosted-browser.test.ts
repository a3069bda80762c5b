import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import type { Frame, Page } from 'playwright-core'
import { admin, createGame, dataOf, top } from '../helpers/app.js'
import { BROWSER_TEST_TIMEOUT_MS, CHROMIUM, STEP_TIMEOUT_MS, VIEWPORTS, launchBrowser, screenshotFolder, watchedPage } from '../helpers/browser.js'
import { waitFor } from '../helpers/wait.js'
import type { Link } from '../helpers/gamejolt.js'
import { listeningApp } from '../helpers/listening.js'
import { gamejoltIdOf } from '../../src/rules/gamejolt-ids.js'
import { projectPath } from '../../src/lib/paths.js'

/*
 * A hosted HTML5 build that calls Game Jolt's own address, unchanged, on the
 * play page in real headless Chromium (docs/gamejolt.md#hosted-builds): the
 * published gamejolt-ts-sdk (its browser bundle, copied as npm ships it)
 * adds a score and unlocks a trophy over http://api.gamejolt.com, and the
 * game's own code opens and pings a session there, signed with SHA-1 as a
 * game would; the Game Jolt worker brings all of it to this service. Game
 * Jolt's names resolve to nothing in this browser, so no request can reach
 * the real Game Jolt: what arrives, the worker brought.
 */

const STRONG = 'correct horse battery staple'
const require = createRequire(import.meta.url)
const SDK_BUNDLE = join(require.resolve('gamejolt-ts-sdk/package.json'), '..', 'dist', 'index.js')
/** Chromium's name resolution: Game Jolt's names lead nowhere, and `more` rules after them. */
const resolving = (...more: string[]): string => `--host-resolver-rules=${['MAP gamejolt.com ~NOTFOUND', 'MAP *.gamejolt.com ~NOTFOUND', ...more].join(', ')}`

/** The game's page: the SDK from its own folder, then the game's code, with its Game Jolt id and key as a build carries them. */
function gamePage (link: Link, trophyId: number, score: number): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Cookie Jolt</title>
<style>body { font: 16px system-ui, sans-serif; background: #1d2b3a; color: #f4f4f4; margin: 0; padding: 1rem } h1 { margin: 0 0 .5rem }</style>
</head><body>
<h1>Cookie Jolt</h1>
<p>An HTML5 build that calls Game Jolt with gamejolt-ts-sdk.</p>
<ol id="log"></ol>
<script src="gamejolt-sdk.js"></script>
<script>
const KEY = ${JSON.stringify(link.private_key)}
const GAME_ID = ${link.gamejolt_game_id}
const api = GamejoltSDK.create(KEY, GAME_ID)
const log = (text) => { const item = document.createElement('li'); item.textContent = text; document.querySelector('#log').append(item) }
const hex = (bytes) => [...new Uint8Array(bytes)].map(byte => byte.toString(16).padStart(2, '0')).join('')
// Sessions are not in the SDK: the game's own code calls Game Jolt, signed with SHA-1.
async function session (action) {
  const url = 'http://api.gamejolt.com/api/game/v1_2/sessions/' + action + '/?game_id=' + GAME_ID + '&username=' + api.username + '&user_token=' + api.token
  const signature = hex(await crypto.subtle.digest('SHA-1', new TextEncoder().encode(url + KEY)))
  const answer = (await (await fetch(url + '&signature=' + signature)).json()).response
  if (answer.success !== 'true') throw new Error(answer.message)
}
window.ping = () => session('ping')
;(async () => {
  if (api.username === null) { log('Not signed in.'); document.body.dataset.state = 'anonymous'; return }
  try {
    log('Hello, ' + api.username + '.')
    await api.scores.add({ score: '${score} cookies', sort: ${score} })
    log('Score sent: ${score} cookies.')
    const trophy = (await api.trophies.fetch({ trophy_id: ${trophyId} })).trophies[0]
    if (trophy.achieved === 'false') await api.trophies.addAchieved(${trophyId})
    log('Trophy: ' + trophy.title + '.')
    await session('open')
    log('Session open.')
    document.body.dataset.state = 'ready'
  } catch (error) {
    log('Failed: ' + error.message)
    document.body.dataset.state = 'failed'
  }
})()
</script>
</body></html>
`
}

/** The game's frame, once its page has run: what it logged, and the worker that controls it. */
async function playedGame (page: Page): Promise<{ frame: Frame, log: string[], controller: string | null }> {
  const body = page.frameLocator('#game').locator('body[data-state]')
  await body.waitFor()
  const frame = page.frames().find(candidate => candidate.url().includes('/games/')) as Frame
  const log = await frame.locator('#log li').allTextContents()
  const controller = await frame.evaluate(() => navigator.serviceWorker?.controller?.scriptURL ?? null)
  return { frame, log, controller }
}

/** A hosted game `gameId` with Game Jolt's API on, whose page runs the SDK (gamePage); its folder goes when the test ends. */
async function hostedGame (t: { teardown: (fn: () => unknown) => void }, app: Parameters<typeof admin>[0], gameId: string) {
  const game = await createGame(app, { gameId })
  dataOf(await admin(app, 'PATCH', `/admin/games/${gameId}`, { name: 'Cookie Jolt', guests: 'listed' }))
  const link = dataOf(await admin(app, 'PUT', `/admin/games/${gameId}/gamejolt`, {})) as Link
  dataOf(await admin(app, 'POST', `/admin/games/${gameId}/achievements`, { achievement_id: 'cookie', name: 'Cookie Magnet', description: 'Eat a cookie.' }))
  await app.syncRecordCache()
  const folder = projectPath('public', 'games', gameId)
  mkdirSync(folder, { recursive: true })
  t.teardown(() => { rmSync(folder, { recursive: true, force: true }) })
  copyFileSync(SDK_BUNDLE, join(folder, 'gamejolt-sdk.js'))
  writeFileSync(join(folder, 'index.html'), gamePage(link, gamejoltIdOf('cookie'), 4321))
  return { game, link, folder }
}

async function playtime (app: Parameters<typeof admin>[0], gameId: string): Promise<number> {
  return dataOf(await admin(app, 'GET', `/admin/games/${gameId}`)).playtime_seconds
}

t.test('a hosted build calling Game Jolt runs unchanged on the play page: scores, trophies, sessions, a guest too', { timeout: 4 * BROWSER_TEST_TIMEOUT_MS }, async t => {
  t.ok(existsSync(CHROMIUM), `Chromium at ${CHROMIUM} (apt-get install chromium)`)
  // The page's own play-time reports come every 300 s, so what is credited here is the sessions'.
  const { app, baseUrl } = await listeningApp(t, { PLAYTIME_REPORT_S: '300' })
  const gameId = `gj_hosted_${process.pid}`
  const { game, folder } = await hostedGame(t, app, gameId)
  dataOf(await admin(app, 'POST', '/admin/users', { username: 'ann', password: STRONG }))
  t.ok(readFileSync(join(folder, 'gamejolt-sdk.js')).equals(readFileSync(SDK_BUNDLE)), 'the SDK as npm ships it')
  t.match(readFileSync(SDK_BUNDLE, 'utf8'), 'this.m_baseUrl="http://api.gamejolt.com/api/game"', 'which calls Game Jolt at its own address')
  const shots = screenshotFolder(t)

  const browser = await launchBrowser(t, [resolving()])
  const [, desktop] = VIEWPORTS[0]
  const { page, problems } = await watchedPage(browser, desktop)
  const warnings: string[] = []
  page.on('console', message => { if (message.type() === 'warning' || message.type() === 'error') warnings.push(message.text()) })

  // Signed in on the login page, back on the play page.
  await page.goto(`${baseUrl}/login?next=${encodeURIComponent(`/play/${gameId}`)}`)
  await page.fill('input[name=username]', 'ann')
  await page.fill('input[name=password]', STRONG)
  await Promise.all([page.waitForURL(`${baseUrl}/play/${gameId}`, { waitUntil: 'load' }), page.click('form.login button[type=submit]')])
  const played = await playedGame(page)
  t.same(played.log, ['Hello, ann.', 'Score sent: 4321 cookies.', 'Trophy: Cookie Magnet.', 'Session open.'], 'the game ran through: its calls to Game Jolt were answered here')
  t.equal(played.controller, `${baseUrl}/gamejolt-worker.js`, 'the Game Jolt worker controls the game\'s frame')
  const toast = page.locator('#toasts .toast')
  await toast.waitFor()
  t.equal(await toast.innerText(), 'Achievement unlocked: Cookie Magnet', 'the trophy the game unlocked through Game Jolt\'s API shows as a toast on the play page')
  t.match(await page.locator('#game').getAttribute('src'), new RegExp(`^/games/${gameId}/\\?gjapi_username=ann&gjapi_token=[a-z0-9]{26}$`), 'framed with the player\'s name and game token')
  t.match(dataOf(await top(app, game)), { total: 1, items: [{ rank: 1, player_name: 'ann', score: 4321 }] }, 'the score is on the board, as our API reads it')
  await page.locator('#board li').filter({ hasText: 'ann — 4,321' }).waitFor()
  const achievements = dataOf(await app.inject({ method: 'GET', url: `/api/rank?action=achievements&api_key=${game.apiKey}&game_id=${gameId}&player_name=ann` }))
  t.match(achievements.items, [{ achievement_id: 'cookie', unlocked_at: /^\d{4}-/ }], 'the trophy unlocked')
  // A ping some seconds after the open credits them as play time.
  t.equal(await playtime(app, gameId), 0)
  await sleep(2500)
  await played.frame.evaluate(async () => { await (window as unknown as { ping: () => Promise<void> }).ping() })
  const credited = await playtime(app, gameId)
  t.ok(credited >= 2 && credited <= 30, `play time credited by the session's ping: ${credited} s`)
  await page.screenshot({ path: join(shots, 'play-desktop.png') })

  // At a phone's size, played again (the trophy already had: the game asks first).
  const [, phone] = VIEWPORTS[1]
  await page.setViewportSize(phone)
  await page.reload()
  t.same((await playedGame(page)).log, ['Hello, ann.', 'Score sent: 4321 cookies.', 'Trophy: Cookie Magnet.', 'Session open.'])
  await page.locator('#board li').filter({ hasText: 'ann — 4,321' }).waitFor()
  await page.screenshot({ path: join(shots, 'play-phone.png'), fullPage: true })
  t.same(problems, [], 'no script error or blocked request')
  t.same(warnings, [], 'no warning: the worker started')
  await page.context().close()

  // A visitor who plays as the platform's guest: the game gets the guest's name and a game token of its own.
  const visitor = await watchedPage(browser, desktop)
  await visitor.page.goto(`${baseUrl}/play/${gameId}`)
  t.same((await playedGame(visitor.page)).log, ['Not signed in.'], 'a visitor: the game is told of no player')
  await Promise.all([visitor.page.waitForEvent('load'), visitor.page.click('#play-as-guest')])
  const guest = await playedGame(visitor.page)
  const guestName = /^Hello, (guest-\d{6})\.$/.exec(guest.log[0] ?? '')?.[1] ?? ''
  t.same(guest.log, [`Hello, ${guestName}.`, 'Score sent: 4321 cookies.', 'Trophy: Cookie Magnet.', 'Session open.'], 'the guest plays through Game Jolt\'s API too')
  t.match(dataOf(await top(app, game)).items, [{ player_name: 'ann', score: 4321 }, { player_name: guestName, score: 4321 }], 'on the guest\'s own entry')
  await visitor.page.locator('#board li').filter({ hasText: `${guestName} — 4,321` }).waitFor()
  const guestToast = visitor.page.locator('#toasts .toast')
  await guestToast.waitFor()
  t.equal(await guestToast.innerText(), 'Achievement unlocked: Cookie Magnet', 'the guest sees the toast too')
  await visitor.page.screenshot({ path: join(shots, 'play-guest-desktop.png') })
  const guestAchievements = dataOf(await app.inject({ method: 'GET', url: `/api/rank?action=achievements&api_key=${game.apiKey}&game_id=${gameId}&player_name=${guestName}` }))
  t.match(guestAchievements.items, [{ achievement_id: 'cookie', unlocked_at: /^\d{4}-/ }], 'the guest\'s trophy unlocked')
  const before = await playtime(app, gameId)
  await sleep(2500)
  await guest.frame.evaluate(async () => { await (window as unknown as { ping: () => Promise<void> }).ping() })
  t.ok(await playtime(app, gameId) >= before + 2, 'the guest\'s session credits play time')

  // The API turned off: the page frames the game at once, and the worker this browser had goes.
  const registered = async (): Promise<string[]> => await visitor.page.evaluate(async () => (await navigator.serviceWorker.getRegistrations()).map(registration => new URL(registration.scope).pathname))
  t.same(await registered(), [`/games/${gameId}/`], 'registered for the game\'s folder only')
  dataOf(await admin(app, 'DELETE', `/admin/games/${gameId}/gamejolt`))
  await visitor.page.reload()
  t.equal(await visitor.page.locator('#game').getAttribute('src'), `/games/${gameId}/`)
  await waitFor(async () => (await registered()).length === 0, { what: 'the worker to be unregistered', timeoutMs: STEP_TIMEOUT_MS })
  t.same(visitor.problems, [])
  await visitor.context.close()
})

t.test('a game without Game Jolt\'s API: no worker, the frame loads at once as before', { timeout: BROWSER_TEST_TIMEOUT_MS }, async t => {
  const { app, baseUrl } = await listeningApp(t)
  await createGame(app, { gameId: 'demo' })
  const browser = await launchBrowser(t, [resolving()])
  const { page, problems, context } = await watchedPage(browser, VIEWPORTS[0][1])
  await page.goto(`${baseUrl}/play/demo`)
  await page.frameLocator('#game').locator('#target').waitFor()
  t.equal(await page.locator('#game').getAttribute('src'), '/games/demo/')
  t.same(await page.evaluate(async () => (await navigator.serviceWorker.getRegistrations()).map(registration => registration.scope)), [], 'no worker registered')
  const frame = page.frames().find(candidate => candidate.url().includes('/games/demo/')) as Frame
  t.equal(await frame.evaluate(() => navigator.serviceWorker.controller), null, 'nothing controls the game')
  // And without the worker Game Jolt's address leads nowhere in this browser: the calls above were the worker's.
  const call = await frame.evaluate(async () => await fetch('http://api.gamejolt.com/api/game/v1_2/time/').then(() => 'answered', () => 'failed'))
  t.equal(call, 'failed', 'a call to Game Jolt without the worker fails here')
  t.same(problems, [])
  await context.close()
})

t.test('not a secure context: no worker, a console warning, and the game loads all the same', { timeout: BROWSER_TEST_TIMEOUT_MS }, async t => {
  const { app, baseUrl } = await listeningApp(t)
  const gameId = `gj_insecure_${process.pid}`
  await hostedGame(t, app, gameId)
  // Plain HTTP to a name other than localhost: no service workers there.
  const browser = await launchBrowser(t, [resolving('MAP play.example 127.0.0.1')])
  const { page, problems, context } = await watchedPage(browser, VIEWPORTS[0][1])
  const warnings: string[] = []
  page.on('console', message => { if (message.type() === 'warning' && message.text().startsWith('Game Jolt API:')) warnings.push(message.text()) })
  await page.goto(`http://play.example:${new URL(baseUrl).port}/play/${gameId}`)
  t.equal(await page.evaluate(() => window.isSecureContext), false)
  const played = await playedGame(page)
  t.same(played.log, ['Not signed in.'], 'the game loaded')
  t.equal(played.controller, null)
  t.match(warnings, [/^Game Jolt API: this page is not a secure context/], 'the page says why Game Jolt\'s calls are not sent here')
  t.same(problems, [])
  await context.close()
})
