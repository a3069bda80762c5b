import { mkdirSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type Browser, type Request } from 'playwright-core'
import { waitFor } from './wait.js'

/** Debian's chromium package; `npm test` installs it (README, "The two commands"). */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

/**
 * How long one browser step (a click, a navigation, an element to appear)
 * may take before it fails, naming itself. A step takes well under a second
 * on an idle machine and a few seconds on a busy one, so 30 s only stops a
 * step that cannot happen. A subtest that drives Chromium has a budget of
 * its own well above this (at least BROWSER_TEST_TIMEOUT_MS), so a stuck
 * step fails by its name, not by the subtest's timeout.
 */
export const STEP_TIMEOUT_MS = 30_000

/** The least budget of a subtest that drives Chromium: a few steps' bound, so one stuck step fails by its name first. */
export const BROWSER_TEST_TIMEOUT_MS = 4 * STEP_TIMEOUT_MS

/** Headless Chromium for one test, closed when the test ends; playwright-core downloads no browser. `extraArgs`: more command-line switches. */
export async function launchBrowser (t: { teardown: (fn: () => unknown) => void }, extraArgs: string[] = []): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', ...extraArgs]
  })
  t.teardown(async () => { await browser.close() })
  return browser
}

/** Where screenshots go: SCREENSHOT_DIR, or a new temporary folder (printed). */
export function screenshotFolder (t: { comment: (message: string) => void }): string {
  const folder = process.env.SCREENSHOT_DIR ?? mkdtempSync(join(tmpdir(), 'ranking-screens-'))
  mkdirSync(folder, { recursive: true })
  t.comment(`screenshots in ${folder}`)
  return folder
}

/** Pages are checked at desktop size and at a phone's (390x844). */
export const VIEWPORTS = [['desktop', { width: 1280, height: 800 }], ['phone', { width: 390, height: 844 }]] as const

/** A live board's stream (Server-Sent Events) stays open for as long as the page shows it. */
function isStream (request: Request): boolean {
  return request.headers().accept === 'text/event-stream'
}

/** How long a page must have asked for nothing to count as settled: Playwright's own 'networkidle' quiet time. */
const QUIET_MS = 500

/**
 * A page at `viewport` that records script errors and blocked content (a
 * Content-Security-Policy violation is reported on the console), and tells
 * how far its content overflows sideways. `settled()` waits until the page
 * has read what it shows: no request in flight but live streams, and none
 * for QUIET_MS (Playwright's 'networkidle' never comes while a live board
 * keeps its stream open).
 */
export async function watchedPage (browser: Awaited<ReturnType<typeof launchBrowser>>, viewport: { width: number, height: number }) {
  const context = await browser.newContext({ viewport })
  // A step that cannot happen fails in STEP_TIMEOUT_MS and names itself, well before the subtest's budget.
  context.setDefaultTimeout(STEP_TIMEOUT_MS)
  const page = await context.newPage()
  const problems: string[] = []
  page.on('pageerror', error => { problems.push(error.message) })
  page.on('console', message => { if (/Content Security Policy|Refused to/i.test(message.text())) problems.push(message.text()) })
  const inFlight = new Set<Request>()
  let lastActivity = Date.now()
  page.on('request', request => { if (!isStream(request)) { inFlight.add(request); lastActivity = Date.now() } })
  const done = (request: Request): void => { if (inFlight.delete(request)) lastActivity = Date.now() }
  page.on('requestfinished', done)
  page.on('requestfailed', done)
  const overflow = async (): Promise<number> => await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
  const settled = async (): Promise<void> => {
    await waitFor(() => inFlight.size === 0 && Date.now() - lastActivity >= QUIET_MS, {
      what: () => `${page.url()} to settle (in flight: ${[...inFlight].map(request => request.url()).join(', ') || 'nothing'})`,
      timeoutMs: STEP_TIMEOUT_MS
    })
  }
  return { context, page, problems, overflow, settled }
}

/** A watched page (watchedPage) of the operator console at `baseUrl`, signed in with the operator token `token`. */
export async function consoleSignedIn (browser: Awaited<ReturnType<typeof launchBrowser>>, baseUrl: string, token: string, viewport: { width: number, height: number }) {
  const watched = await watchedPage(browser, viewport)
  await watched.page.goto(`${baseUrl}/console`)
  await watched.page.getByLabel('Operator token').fill(token)
  await watched.page.getByRole('button', { name: 'Sign in' }).click()
  await watched.page.locator('header.top').waitFor()
  return watched
}
