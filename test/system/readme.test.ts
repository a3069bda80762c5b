import { spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import t from 'tap'
import { projectRoot } from '../../src/lib/paths.js'
import { seedDemo } from '../../src/operations/demo.js'
import { readmeExports } from '../../src/server.js'
import { ADMIN_TOKEN } from '../helpers/app.js'
import { listeningApp } from '../helpers/listening.js'
import { BROWSER_TEST_TIMEOUT_MS, launchBrowser, watchedPage } from '../helpers/browser.js'
import { waitFor } from '../helpers/wait.js'

/*
 * The README's shell examples, run in order in one shell, as a newcomer
 * pastes them after `npm start` and the `export` line it prints: against a
 * service this test starts (with the demo data `npm start` makes), so the
 * README cannot rot. Blocks fenced `sh no-test` are not examples to run (the
 * two commands themselves); blocks fenced `sh docker` run where a Docker
 * daemon answers, and are reported as skipped elsewhere. The block fenced
 * `html embed` is put on a page in Chromium, pointed at the test's service.
 */

interface Block { info: string, code: string }

function fencedBlocks (markdown: string): Block[] {
  return [...markdown.matchAll(/^```([^\n]*)\n([\s\S]*?)^```$/gm)].map(match => ({ info: (match[1] ?? '').trim(), code: match[2] ?? '' }))
}

const blocks = fencedBlocks(readFileSync(join(projectRoot, 'README.md'), 'utf8'))
const dockerAnswers = spawnSync('docker', ['info'], { stdio: 'ignore' }).status === 0

t.test('the README has the examples this test runs', async t => {
  t.ok(blocks.filter(block => block.info === 'sh').length >= 4, 'shell examples')
  t.ok(blocks.some(block => block.info === 'js' && block.code.includes("from '@ranking-service/sdk'")), 'the SDK example (test/sdk-package.test.ts runs it)')
  t.ok(blocks.some(block => block.info === 'js receiver' && block.code.includes("from 'standardwebhooks'")), 'the webhook receiver (test/webhook-receiver.test.ts runs it)')
  t.ok(blocks.some(block => block.info === 'html embed'), 'the embed snippet')
  for (const block of blocks) t.ok(['sh', 'sh no-test', 'sh docker', 'js', 'js receiver', 'html embed'].includes(block.info), `a block fenced "${block.info}" is one this test knows`)
})

t.test('every shell block of the README runs, in order, after npm start', { timeout: 300_000 }, async t => {
  // As npm start runs it (development): a webhook may point at this machine.
  const { app, baseUrl, redis } = await listeningApp(t, { WEBHOOK_ALLOW_PRIVATE: 'true' })
  await seedDemo(app)
  const scratch = mkdtempSync(join(tmpdir(), 'ranking-readme-'))
  t.teardown(() => { rmSync(scratch, { recursive: true, force: true }) })
  // Each answer on a line of its own, so the test can read them (curl prints none after a JSON answer).
  writeFileSync(join(scratch, '.curlrc'), 'write-out = "\\n"\n')

  const runnable = blocks.filter(block => block.info === 'sh' || (block.info === 'sh docker' && dockerAnswers))
  if (!dockerAnswers) t.pass(`${blocks.filter(block => block.info === 'sh docker').length} docker block(s) not run: no Docker daemon answers here`, { skip: true })
  const script = [
    'set -euo pipefail',
    readmeExports(baseUrl, ADMIN_TOKEN),
    ...runnable.map((block, index) => `echo "::block ${index}::"\n${block.code}`)
  ].join('\n')
  const child = spawn('bash', ['-c', script], {
    cwd: projectRoot,
    // The CLI talks to this test's Redis; npm pack writes into the scratch folder.
    env: { ...process.env, REDIS_URL: redis.url, TMPDIR: scratch, CURL_HOME: scratch, NODE_ENV: 'development' },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let out = ''
  let err = ''
  child.stdout.on('data', (chunk: Buffer) => { out += chunk.toString() })
  child.stderr.on('data', (chunk: Buffer) => { err += chunk.toString() })
  const [code] = await once(child, 'exit') as [number]
  t.equal(code, 0, `the blocks ran to the end (stderr: ${err.slice(-2000)})`)
  t.equal(out.match(/::block \d+::/g)?.length, runnable.length, 'every block ran')

  // Every answer of the service the examples print is a success.
  const envelopes = out.split('\n').filter(line => line.startsWith('{"ok":')).map(line => JSON.parse(line))
  t.ok(envelopes.length >= 8, `${envelopes.length} answers printed`)
  t.same(envelopes.filter(envelope => envelope.ok !== true), [], 'no example answered an error')
  t.match(out, '{"ok":true,"data":{"score":1234,"improved":true,"best_score":1234,"rank":1}}', 'the signed submit, as the README shows it')
  t.match(out, '{"ok":true,"data":{"score":4200,"improved":true,"best_score":4200,"rank":1,', 'alice submits with her session')
  t.match(out, /ranking-service-sdk-0\.1\.0\.tgz/, 'the SDK was packed')
  t.match(out, /"game_id": "space"/, 'the CLI made the game')
  t.equal(await app.redis.hget('rank:{game:space}:game', 'approved'), '0', 'and updated it')
})

t.test('the README\'s embed snippet shows the demo game\'s board on a page', { timeout: BROWSER_TEST_TIMEOUT_MS }, async t => {
  const { app, baseUrl } = await listeningApp(t)
  const demo = await seedDemo(app)
  const snippet = blocks.find(block => block.info === 'html embed')?.code ?? ''
  t.match(snippet, 'http://127.0.0.1:3000/', 'the snippet names the service as npm start serves it')
  // The page as a site would write it, pointed at this test's service and the demo game's key.
  const page$ = snippet.replaceAll('http://127.0.0.1:3000', baseUrl).replaceAll('rk_…', demo.apiKey)
  const browser = await launchBrowser(t)
  const { page, problems } = await watchedPage(browser, { width: 390, height: 844 })
  const site = createServer((_request, response) => { response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><meta charset="utf-8">${page$}`) })
  await new Promise<void>(resolve => site.listen(0, '127.0.0.1', resolve))
  t.teardown(() => { site.close() })
  await page.goto(`http://localhost:${(site.address() as AddressInfo).port}/`)
  await waitFor(async () => await page.evaluate(() => /Live/.test(document.querySelector('ranking-board')?.shadowRoot?.textContent ?? '')), { what: 'the snippet\'s board, live' })
  t.match(await page.evaluate(() => document.querySelector('ranking-board')?.shadowRoot?.querySelector('caption')?.textContent), 'Reaction (demo game)', 'the demo game\'s board')
  t.same(problems, [])
})
