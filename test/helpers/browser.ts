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
