import t from 'tap'
import { admin, createGame, dataOf, submit } from '../helpers/app.js'
import { join } from 'node:path'
import { VIEWPORTS, consoleSignedIn, launchBrowser, screenshotFolder } from '../helpers/browser.js'
import { listeningApp } from '../helpers/listening.js'

/*
 * The operator console's pages at a desktop's size and a phone's (390x844),
 * in Chromium: none scrolls sideways, none has a script error; a screenshot
 * of each (test/console.test.ts drives what the pages do).
 */

const ADMIN = 'console-admin-token-0123456789abcdef'
const { app, baseUrl } = await listeningApp(t, { ADMIN_TOKENS: `ana:admin:${ADMIN}` })
const folder = screenshotFolder(t)
const browser = await launchBrowser(t)

// A game with a long name, a few entries (one hidden, one with meta), a held score and a webhook: every page has rows.
const game = await createGame(app, { gameId: 'space_race' })
dataOf(await admin(app, 'PATCH', '/admin/games/space_race', { name: 'Space Race: the long-named championship of the outer rim', review_above: 1000, runs: 'optional' }))
for (const [player, score] of [['vega', 120], ['altair', 300], ['a_player_with_a_rather_long_na', 250]] as const) dataOf(await submit(app, game, { player, score, meta: '{"ship":"falcon","lap_times":[61.2,59.8,60.4]}' }))
dataOf(await submit(app, game, { player: 'rigel', score: 5000 }))
dataOf(await admin(app, 'PATCH', '/admin/games/space_race/players/vega', { hidden: true }))
dataOf(await admin(app, 'POST', '/admin/users', { username: 'bob' }))
dataOf(await admin(app, 'POST', '/admin/games/space_race/boards', { board_id: 'lap-of-the-outer-rim-circuit', name: 'The long lap of the outer rim circuit, reversed', order: 'asc', periods: ['daily', 'weekly'] }))
dataOf(await admin(app, 'POST', '/admin/games/space_race/boards', { board_id: 'coins', operator: 'sum' }))
dataOf(await admin(app, 'POST', '/admin/games/space_race/achievements', { achievement_id: 'ace-of-the-outer-rim-circuit', name: 'Ace of the outer rim circuit, the long way round', points: 100, rule: { board: 'lap-of-the-outer-rim-circuit', at_most: 62_000 } }))
dataOf(await admin(app, 'POST', '/admin/games/space_race/achievements', { achievement_id: 'secret', hidden: true }))
dataOf(await submit(app, game, { player: 'altair', score: 61_250, board: 'lap-of-the-outer-rim-circuit' }))

const signedIn = async (viewport: { width: number, height: number }) => await consoleSignedIn(browser, baseUrl, ADMIN, viewport)

// About ten times the 13 s it takes on an idle machine: 18 pages, each read whole before it is measured.
t.test('every page fits a phone (390x844) and a desktop: no sideways scrolling', { timeout: 140_000 }, async t => {
  for (const [size, viewport] of VIEWPORTS) {
    const { page, context, overflow, problems, settled } = await signedIn(viewport)
    for (const [name, hash] of [['games', '#/games'], ['overview', '#/games/space_race'], ['board', '#/games/space_race/board'], ['boards', '#/games/space_race/boards'], ['achievements', '#/games/space_race/achievements'], ['named-board', '#/games/space_race/board/lap-of-the-outer-rim-circuit'], ['review', '#/games/space_race/review'], ['keys', '#/games/space_race/keys'], ['webhooks', '#/games/space_race/webhooks'], ['settings', '#/games/space_race/settings'], ['users', '#/users'], ['audit', '#/audit']]) {
      await page.goto(`${baseUrl}/console/${hash}`)
      await page.locator('main h1').first().waitFor()
      // What the page shows is read before it is measured ('networkidle' never comes: the live board keeps its stream open).
      await settled()
      t.equal(await overflow(), 0, `${name} at ${size}: no sideways scrolling`)
      if (size === 'phone' || name !== 'overview') await page.screenshot({ path: join(folder, `console-${name}-${size}.png`), fullPage: true })
      if (name === 'achievements') {
        await page.getByLabel('Player name').fill('altair')
        await page.getByRole('button', { name: 'Show their unlocks' }).click()
        await page.locator('#unlocks-table').waitFor()
        t.ok(await page.locator('#unlocks-table').isVisible(), `a player's unlocks at ${size}`)
        t.equal(await overflow(), 0, `a player's unlocks at ${size}: no sideways scrolling`)
        await page.locator('#unlocks-table').screenshot({ path: join(folder, `console-unlocks-${size}.png`) })
        // The game keeps runs: an achievement may ask for play (its min_run_seconds).
        await page.getByText('Make an achievement').click()
        const play = page.getByLabel('Seconds of play it needs')
        t.ok(await play.isVisible(), `the play an unlock needs, at ${size}`)
        t.equal(await play.inputValue(), '0', 'none asked by default')
        t.equal(await overflow(), 0, `the achievement form at ${size}: no sideways scrolling`)
        await page.locator('details.card').first().screenshot({ path: join(folder, `console-achievement-form-${size}.png`) })
      }
    }
    t.same(problems, [], `${size}: no script errors`)
    await context.close()
  }
})
