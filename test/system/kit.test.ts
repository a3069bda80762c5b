import { join } from 'node:path'
import type { Frame } from 'playwright-core'
import t from 'tap'
import { admin, buildTestApp, createGame, dataOf, get, submit } from '../helpers/app.js'
import { listeningApp } from '../helpers/listening.js'
import { BROWSER_TEST_TIMEOUT_MS, VIEWPORTS, launchBrowser, screenshotFolder, watchedPage } from '../helpers/browser.js'
import { waitFor } from '../helpers/wait.js'

/*
 * The kit for hosted games (/sdk/platform.js, docs/kit.md) as a game uses
 * it: inside the play page's frame (the demo game loads it), a signed-in
 * player, a run, a submit, an unlock, and the events a game shows messages
 * for; and outside the play page, where it submits nothing.
 */

/** Runs `body` in the game's frame with the kit's platform as `platform` (sent as source text: no outer names). */
async function inGame<T> (frame: Frame, body: string): Promise<T> {
  return await frame.evaluate(`(async () => { const platform = await window.RankingPlatform.ready(); ${body} })()`) as T
}

t.test('a game in the play page: the player, a run, submit, unlock, and the events for its messages', { timeout: 2 * BROWSER_TEST_TIMEOUT_MS }, async t => {
  const { app, baseUrl } = await listeningApp(t)
  const game = await createGame(app, { gameId: 'demo' })
  dataOf(await admin(app, 'PATCH', '/admin/games/demo', { runs: 'optional' }))
  dataOf(await admin(app, 'POST', '/admin/games/demo/achievements', { achievement_id: 'first', name: 'First score', rule: { board: 'default', at_least: 1 } }))
  dataOf(await admin(app, 'POST', '/admin/games/demo/achievements', { achievement_id: 'secret', name: 'Found it' }))
  dataOf(await admin(app, 'POST', '/admin/games/demo/achievements', { achievement_id: 'stayer', name: 'Stayed a while', min_run_seconds: 2 }))
  dataOf(await admin(app, 'POST', '/admin/games/demo/boards', { board_id: 'coins', name: 'Coins' }))
  dataOf(await admin(app, 'POST', '/admin/users', { username: 'kim', password: 'kim-password-1' }))

  const browser = await launchBrowser(t)
  const { page, problems } = await watchedPage(browser, { width: 1280, height: 800 })
  await page.goto(`${baseUrl}/login?next=/play/demo`)
  await page.fill('input[name=username]', 'kim')
  await page.fill('input[name=password]', 'kim-password-1')
  await Promise.all([page.waitForURL(`${baseUrl}/play/demo`), page.click('form.login button[type=submit]')])
  const frame = page.frameLocator('#game')
  await frame.locator('#target').waitFor()
  const game$ = page.frames().find(candidate => candidate.url().endsWith('/games/demo/'))
  if (game$ === undefined) throw new Error('no game frame')

  const about = await inGame(game$, `
    window.kitEvents = []
    for (const type of ['best', 'achievement', 'overtaken']) platform.on(type, (detail) => window.kitEvents.push([type, type === 'achievement' ? detail.achievement_id : detail]))
    return { hosted: platform.hosted, player: platform.player, canSubmit: platform.canSubmit, runs: platform.runs, boards: platform.boards, shown: platform.formatScore(12345) }`)
  t.same(about, { hosted: true, player: { name: 'kim', guest: false }, canSubmit: true, runs: 'optional', boards: [{ id: 'coins', name: 'Coins', periods: [], order: 'desc', format: { type: 'integer', decimals: 0, unit: '' } }], shown: '12,345' }, 'who plays, and what the game keeps')

  const played = await inGame<{ run: { run_id: string, started_at: string } | null, answer: { ok: boolean, data: unknown } }>(game$, `
    const run = await platform.startRun()
    const answer = await platform.submit(500, { meta: { level: 2 } })
    return { run, answer }`)
  t.match(played.run, { run_id: /\S/, started_at: /Z$/, expires_at: /Z$/ }, 'a run, started by the page')
  t.same(played.answer, { ok: true, data: { score: 500, improved: true, best_score: 500, rank: 1, total_players: 1, is_dev_record: false, is_admin_record: false, unlocked: ['first'] } }, 'the score, through the kit')
  // The run took the score: it cannot take another.
  const again = await inGame<{ ok: boolean, error?: string }>(game$, `
    return await (await fetch('/api/rank?action=submit-self', { method: 'POST', body: new URLSearchParams({ game_id: 'demo', score: '600', run_id: ${JSON.stringify(played.run?.run_id)} }) })).json()`)
  t.equal(again.error, 'invalid_run', 'the run was used')
  const entry = dataOf(await admin(app, 'GET', '/admin/games/demo/players/kim'))
  t.match(entry, { best_score: 500, meta: '{"level":2}' }, 'the entry keeps the meta the game gave')

  const events = async (): Promise<unknown[]> => await game$.evaluate('window.kitEvents') as unknown[]
  await waitFor(async () => (await events()).length >= 2, { what: 'the best and achievement events' })
  t.same(await events(), [['best', { score: 500, rank: 1, board: 'default' }], ['achievement', 'first']], 'a new best, then the achievement the page saw')

  const unlocked = await inGame<{ ok: boolean, data: { unlocked: boolean } }>(game$, 'return await platform.unlock(\'secret\')')
  t.match(unlocked, { ok: true, data: { achievement_id: 'secret', player_name: 'kim', unlocked: true } })
  await waitFor(async () => (await events()).length >= 3, { what: 'the unlock\'s event' })
  t.same((await events())[2], ['achievement', 'secret'])
  // An achievement that asks for 2 s of the run's play: the kit reports the play (the page's own report is 30 s off) before it unlocks.
  // Five seconds after the run began: each report credits whole seconds, so two of them may leave up to two behind.
  const sinceRun = Date.now() - Date.parse(played.run?.started_at ?? '')
  if (sinceRun < 5000) await new Promise(resolve => setTimeout(resolve, 5000 - sinceRun))
  const stayer = await inGame<{ ok: boolean }>(game$, 'return await platform.unlock(\'stayer\')')
  t.match(stayer, { ok: true, data: { achievement_id: 'stayer', unlocked: true } }, `unlocked with the play reported just before${stayer.ok ? '' : `: ${JSON.stringify(stayer)}`}`)
  await waitFor(async () => (await events()).length >= 4, { what: 'the second unlock\'s event' })
  t.same((await events())[3], ['achievement', 'stayer'])

  // Someone passes the player: the play page's live board changes, its standing falls, the game hears of it.
  t.equal((await submit(app, game, { player: 'zed', score: 900 })).json().ok, true)
  await waitFor(async () => (await events()).length >= 5, { what: 'the overtaken event' })
  t.same((await events())[4], ['overtaken', { rank: 2, previous: 1, board: 'default' }])
  await frame.locator('#message').filter({ hasText: 'Someone passed you: you are number 2 now.' }).waitFor()
  t.pass('the demo game shows it as a message')
  // Another board's rank is not someone passing them: first on coins, second on the game's own, the page switching between them.
  t.match(await inGame(game$, 'return await platform.submit(5, { board: \'coins\' })'), { ok: true, data: { board: 'coins', rank: 1 } })
  await waitFor(async () => (await events()).length >= 6, { what: 'the best on coins' })
  t.same((await events())[5], ['best', { score: 5, rank: 1, board: 'coins' }])
  await page.selectOption('#board-choice', 'coins')
  await page.locator('#my-rank').filter({ hasText: 'rank 1 of 1' }).waitFor()
  await page.selectOption('#board-choice', '')
  await page.locator('#my-rank').filter({ hasText: 'rank 2 of 2' }).waitFor()
  t.equal((await submit(app, game, { player: 'amy', score: 1, board: 'coins' })).json().ok, true, 'a change on another board')
  await new Promise(resolve => setTimeout(resolve, 1500))
  t.equal((await events()).length, 6, 'no overtaken event for a switch of board')
  t.same(problems, [])
})

t.test('outside the play page the kit answers at once, as nobody, and submits nothing', { timeout: BROWSER_TEST_TIMEOUT_MS }, async t => {
  const { app, baseUrl } = await listeningApp(t)
  await createGame(app, { gameId: 'demo' })
  const browser = await launchBrowser(t)
  const { page, problems } = await watchedPage(browser, { width: 390, height: 844 })
  await page.goto(`${baseUrl}/games/demo/`)
  const alone = await inGame(page.mainFrame(), `
    const answer = await platform.submit(10)
    return { hosted: platform.hosted, player: platform.player, canSubmit: platform.canSubmit, run: await platform.startRun(), answer }`)
  t.match(alone, { hosted: false, player: null, canSubmit: false, run: null, answer: { ok: false, error: 'not_logged_in' } })
  t.same(problems, [])
})

t.test('the example games are served only with the demo data on', async t => {
  const { app } = await buildTestApp(t)
  await createGame(app, { gameId: 'phaser' })
  t.equal((await get(app, '/games/phaser/')).json().error, 'not_found', 'an operator\'s own game called phaser gets no example files')
  t.match((await get(app, '/play/phaser')).body, 'src="/play/phaser/unavailable"', 'its play page frames the unavailable page')
  const demo = await buildTestApp(t, { DEMO: 'true' })
  t.equal((await get(demo.app, '/games/phaser/')).statusCode, 200, 'with DEMO on, the example')
})

t.test('the example game made with Phaser plays a round through the kit, at desktop and phone size', { timeout: 2 * BROWSER_TEST_TIMEOUT_MS }, async t => {
  // The example games are demo content: served with the demo data on.
  const { app, baseUrl } = await listeningApp(t, { DEMO: 'true' })
  await createGame(app, { gameId: 'phaser' })
  dataOf(await admin(app, 'PATCH', '/admin/games/phaser', { runs: 'optional' }))
  dataOf(await admin(app, 'POST', '/admin/users', { username: 'ivy', password: 'ivy-password-1' }))
  const browser = await launchBrowser(t)
  const folder = screenshotFolder(t)
  for (const [size, viewport] of VIEWPORTS) {
    const { page, problems, context } = await watchedPage(browser, viewport)
    await page.goto(`${baseUrl}/login?next=/play/phaser`)
    await page.fill('input[name=username]', 'ivy')
    await page.fill('input[name=password]', 'ivy-password-1')
    await Promise.all([page.waitForURL(`${baseUrl}/play/phaser`), page.click('form.login button[type=submit]')])
    await page.frameLocator('#game').locator('canvas').waitFor()
    const frame = page.frames().find(candidate => candidate.url().endsWith('/games/phaser/'))
    if (frame === undefined) throw new Error('no game frame')
    await frame.waitForFunction('window.game?.scene.getScene("play")?.centre !== undefined')
    t.match(await frame.evaluate('window.game.scene.getScene("play").centre.text'), /^Hello ivy!/, `${size}: the game greets the player the kit names`)
    const canvas = await page.frameLocator('#game').locator('canvas').boundingBox()
    t.ok(canvas !== null && canvas.width > 100 && canvas.width <= viewport.width, `${size}: the game's canvas fits the frame (${canvas?.width ?? 0} px)`)

    // A round: started by a tap as a player would, three stars caught, then the end of the round (not 20 s of waiting).
    await page.frameLocator('#game').locator('canvas').click()
    await frame.waitForFunction('window.game.scene.getScene("play").playing === true')
    const points = size === 'desktop' ? 3 : 5
    const ended = await frame.evaluate(`(async () => { const scene = window.game.scene.getScene('play'); for (let i = 0; i < ${points}; i++) scene.catchStar(); await scene.endRound(); return scene.centre.text })()`) as string
    t.match(ended, new RegExp(`^Score ${points * 10} — rank 1`), `${size}: the round's score went through the kit`)
    await page.locator('#board li').filter({ hasText: `ivy — ${points * 10}` }).waitFor()
    await frame.waitForFunction(`window.game.scene.getScene('play').banner.text === 'New best: ${points * 10}, rank 1!'`)
    t.pass(`${size}: the play page's board shows it, the game its banner`)
    await page.screenshot({ path: join(folder, `phaser-${size}.png`) })
    t.same(problems, [])
    await context.close()
  }
})
