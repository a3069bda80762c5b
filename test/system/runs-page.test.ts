import { existsSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { ADMIN_TOKEN, admin, createGame, dataOf } from '../helpers/app.js'
import { BROWSER_TEST_TIMEOUT_MS, CHROMIUM, VIEWPORTS, launchBrowser, screenshotFolder, watchedPage } from '../helpers/browser.js'
import { listeningApp } from '../helpers/listening.js'

/*
 * Runs on the play page (docs/interface.md#runs), in real Chromium: the demo
 * game starts a run through the page, the page reports its play, the game
 * submits with it and the score is on the board; a scripted cheater who posts
 * a high score after two seconds of play is held, and the review queue shows
 * its run, in the console too.
 */

const PASSWORD = 'correct horse battery staple'

t.test('the demo game plays through a run at desktop and phone size; a cheater\'s score is held with its run', { timeout: BROWSER_TEST_TIMEOUT_MS * 2 }, async t => {
  t.ok(existsSync(CHROMIUM), `Chromium at ${CHROMIUM}`)
  const { app, baseUrl } = await listeningApp(t)
  await createGame(app, { gameId: 'demo' })
  // 2000 points per verified second: three honest rounds (at least 2.1 s of waiting) always fit; 9000 after about 2 s does not.
  dataOf(await admin(app, 'PATCH', '/admin/games/demo', { runs: 'optional', max_score_rate: 2000 }))
  const folder = screenshotFolder(t)
  const browser = await launchBrowser(t)
  for (const [size, viewport] of VIEWPORTS) {
    const username = `runner_${size}`
    dataOf(await admin(app, 'POST', '/admin/users', { username, password: PASSWORD }))
    const { context, page, problems } = await watchedPage(browser, viewport)
    await page.goto(`${baseUrl}/login?next=/play/demo`)
    await page.fill('input[name=username]', username)
    await page.fill('input[name=password]', PASSWORD)
    await Promise.all([page.waitForURL(`${baseUrl}/play/demo`, { waitUntil: 'load' }), page.click('form.login button[type=submit]')])
    const frame = page.frameLocator('#game')
    await frame.locator('#target').click()
    for (let round = 0; round < 3; round++) {
      await frame.locator('#target[data-state="go"]').waitFor()
      await frame.locator('#target').click()
    }
    await frame.locator('#result').filter({ hasText: /New best! Rank \d+\./ }).waitFor()
    await page.locator('#board li').filter({ hasText: new RegExp(`${username} — \\d+`) }).waitFor()
    t.pass(`${size}: the score of a run is on the board`)
    await page.screenshot({ path: join(folder, `run-played-${size}.png`), fullPage: true })
    t.same(problems, [], `${size}: no script errors or blocked content`)

    if (size === 'desktop') {
      // The cheater: a run, two seconds, then a score no two seconds of Reaction can reach, from the console.
      const held = await page.evaluate(async () => {
        const post = async (url: string, fields: Record<string, string>) => await (await fetch(url, { method: 'POST', body: new URLSearchParams(fields), credentials: 'include' })).json()
        const run = await post('/api/rank?action=run-start-self', { game_id: 'demo' })
        await new Promise(resolve => setTimeout(resolve, 2000))
        await post('/api/playtime', { game_id: 'demo', seconds: '300', run_id: run.data.run_id })
        return await post('/api/rank?action=submit-self', { game_id: 'demo', score: '9000', run_id: run.data.run_id })
      })
      t.match(held, { ok: true, data: { held: true } }, 'held, not on the board')
      const queue = dataOf(await admin(app, 'GET', '/admin/games/demo/review'))
      t.match(queue.items, [{ player_name: username, score: 9000, rule: 'run_rate' }], 'the review queue shows it')
      const verified = queue.items[0]?.run?.verified_seconds as number
      t.ok(verified >= 2 && verified <= 4, `with its run: ${verified} s of verified play, about the two seconds played`)
    }
    // The console's review page shows the cheater's score with its run: the verified play, then its timeline.
    await page.goto(`${baseUrl}/console/#/games/demo/review`)
    await page.getByLabel('Operator token').fill(ADMIN_TOKEN)
    await page.getByRole('button', { name: 'Sign in' }).click()
    const row = page.locator('#review-table tbody tr').filter({ hasText: 'runner_desktop' })
    await row.waitFor()
    const summary = row.locator('.run-timeline summary')
    t.match(await summary.innerText(), /^\d s of verified play$/, `${size}: the console shows the held score's verified play`)
    await summary.click()
    const timeline = row.locator('.run-timeline ol')
    await timeline.waitFor()
    t.match(await timeline.innerText(), /Run began[\s\S]*\+\d s: \d s of play[\s\S]*\+\d s: the score came/, `${size}: and, opened, when the run began, its play was reported and the score came`)
    t.ok(await timeline.isVisible(), `${size}: the timeline is on screen`)
    await page.screenshot({ path: join(folder, `run-review-${size}.png`), fullPage: true })
    await context.close()
  }
})
