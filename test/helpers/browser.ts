import { mkdirSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type Browser } from 'playwright-core'

/** Debian's chromium package; `npm test` installs it (README, "The two commands"). */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

/** Headless Chromium for one test, closed when the test ends; playwright-core downloads no browser. */
export async function launchBrowser (t: { teardown: (fn: () => unknown) => void }): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']
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

/**
 * A page at `viewport` that records script errors and blocked content (a
 * Content-Security-Policy violation is reported on the console), and tells
 * how far its content overflows sideways.
 */
export async function watchedPage (browser: Awaited<ReturnType<typeof launchBrowser>>, viewport: { width: number, height: number }) {
  const context = await browser.newContext({ viewport })
  // A step that cannot happen fails in 15 s and names itself, well before the file's timeout.
  context.setDefaultTimeout(15_000)
  const page = await context.newPage()
  const problems: string[] = []
  page.on('pageerror', error => { problems.push(error.message) })
  page.on('console', message => { if (/Content Security Policy|Refused to/i.test(message.text())) problems.push(message.text()) })
  const overflow = async (): Promise<number> => await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
  return { context, page, problems, overflow }
}
