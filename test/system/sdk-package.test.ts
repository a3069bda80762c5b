import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { isAbsolute, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gunzipSync } from 'node:zlib'
import type { Page } from 'playwright-core'
import t from 'tap'
import { createGame, submit } from '../helpers/app.js'
import { listeningApp } from '../helpers/listening.js'
import { CHROMIUM, launchBrowser } from '../helpers/browser.js'

/*
 * The SDK as its users get it: `npm pack` in sdk/ (which builds it), the
 * tarball installed into a fresh project without any network, the README's
 * example run there with plain node against a real service, the published
 * types checked from a TypeScript consumer, and the same built module
 * imported by a page in headless Chromium.
 *
 * The example is the first ```js block of README.md that imports from the
 * package. SDK_EXAMPLE_README=<path> (absolute, or relative to the
 * repository root; e.g. sdk/README.md) reads it from another file instead.
 */

const PACKAGE = '@ranking-service/sdk'
const ROOT = resolve(fileURLToPath(import.meta.url), '../../..')
const SDK_DIR = join(ROOT, 'sdk')
const EXAMPLE_README = process.env.SDK_EXAMPLE_README ?? 'README.md'

interface Run { code: number | null, stdout: string, stderr: string, tookMs: number, killed: boolean }

/**
 * Runs a program without blocking this process (the service under test lives
 * in it). `timeoutMs` only stops a program that would never end: generous,
 * as a busy machine runs npm, node and tsc several times slower, and below
 * the budget of the test that runs it, so a program stopped is reported with
 * what it wrote.
 */
async function run (command: string, args: string[], options: { cwd: string, env: NodeJS.ProcessEnv, timeoutMs: number }): Promise<Run> {
  const started = Date.now()
  return await new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    let killed = false
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk })
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk })
    const timer = setTimeout(() => { killed = true; child.kill('SIGKILL') }, options.timeoutMs)
    child.on('error', error => { clearTimeout(timer); reject(error) })
    child.on('close', code => { clearTimeout(timer); resolve({ code, stdout, stderr, tookMs: Date.now() - started, killed }) })
  })
}

function describe (what: string, result: Run): string {
  const ended = result.killed ? `was stopped after ${result.tookMs} ms` : `exited ${String(result.code)} after ${result.tookMs} ms`
  return `${what} ${ended}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`
}

const work = mkdtempSync(join(tmpdir(), 'ranking-sdk-package-'))
t.teardown(() => { rmSync(work, { recursive: true, force: true }) })

/**
 * A user's environment, not this test run's: no npm_* settings of an outer
 * `npm test` (npm_config_local_prefix would point npm at this repository),
 * no tap loaders or coverage in NODE_OPTIONS.
 */
function userEnv (extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [name, value] of Object.entries(process.env)) {
    if (/^npm_/i.test(name) || /^_?TAP/i.test(name) || ['NODE_OPTIONS', 'NODE_V8_COVERAGE', 'NODE_PATH'].includes(name)) continue
    env[name] = value
  }
  return { ...env, ...extra }
}

/**
 * npm with no way to reach a registry: --offline, an unroutable registry
 * should anything still try, an empty cache and no user npmrc of this machine.
 */
const npmEnv = userEnv({
  npm_config_offline: 'true',
  npm_config_registry: 'http://127.0.0.1:9/',
  npm_config_cache: join(work, 'npm-cache'),
  npm_config_userconfig: join(work, 'npmrc'),
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false'
})

interface TarEntry { path: string, content: Buffer }

/** The regular files of a .tgz (ustar, as npm writes it). */
function readTarball (file: string): TarEntry[] {
  const data = gunzipSync(readFileSync(file))
  const entries: TarEntry[] = []
  const text = (start: number, length: number): string => data.subarray(start, start + length).toString('utf8').replace(/\0.*$/s, '')
  for (let offset = 0; offset + 512 <= data.length;) {
    const name = text(offset, 100)
    if (name === '') break
    const size = parseInt(text(offset + 124, 12).trim() || '0', 8)
    const type = text(offset + 156, 1)
    const prefix = text(offset + 345, 155)
    if (type === '0' || type === '') entries.push({ path: prefix === '' ? name : `${prefix}/${name}`, content: data.subarray(offset + 512, offset + 512 + size) })
    offset += 512 + Math.ceil(size / 512) * 512
  }
  return entries
}

// Pack once (npm pack runs the package's prepack, which builds dist/), then
// install the tarball into a new project, as a user does.
const packDir = join(work, 'pack')
mkdirSync(packDir)
// A few seconds each on an idle machine; the file's own bound (600 s) is the backstop.
const packed = await run('npm', ['pack', '--pack-destination', packDir], { cwd: SDK_DIR, env: npmEnv, timeoutMs: 120_000 })
if (packed.code !== 0) throw new Error(describe('npm pack', packed))
t.comment(`npm pack took ${packed.tookMs} ms`)
const tarballs = readdirSync(packDir).filter(name => name.endsWith('.tgz'))
if (tarballs.length !== 1) throw new Error(`npm pack made ${tarballs.join(', ') || 'no tarball'}`)
const tarball = join(packDir, tarballs[0]!)

const project = join(work, 'project')
mkdirSync(project)
writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'sdk-user', version: '1.0.0', private: true, type: 'module' }, null, 2))
const installed = await run('npm', ['install', '--no-audit', '--no-fund', '--offline', tarball], { cwd: project, env: npmEnv, timeoutMs: 120_000 })
if (installed.code !== 0) throw new Error(describe('npm install', installed))
t.comment(`npm install took ${installed.tookMs} ms`)
const installedDir = join(project, 'node_modules', ...PACKAGE.split('/'))

t.test('the tarball holds the built module, its types, package.json and README only', async t => {
  const entries = readTarball(tarball)
  const paths = entries.map(entry => entry.path).sort()
  t.ok(paths.every(path => path.startsWith('package/')), 'everything under package/')
  const files = paths.map(path => path.slice('package/'.length))
  for (const needed of ['dist/index.js', 'dist/index.d.ts', 'dist/answers.d.ts', 'dist/format.js', 'dist/format.d.ts', 'dist/platform.js', 'dist/platform.d.ts', 'dist/board.js', 'dist/board.d.ts', 'package.json', 'README.md']) t.ok(files.includes(needed), `has ${needed}`)
  t.same(files.filter(file => /\.[cm]?tsx?$/.test(file) && !file.endsWith('.d.ts')), [], 'no TypeScript sources')
  t.same(files.filter(file => /(^|\/)(tests?|__tests__)\/|\.test\.|\.spec\./.test(file)), [], 'no tests')
  t.same(files.filter(file => !/^(dist\/[^/]+\.(js|d\.ts)|package\.json|README\.md|LICENSE(\.\w+)?)$/.test(file)), [], 'nothing else (no maps, no config, no node_modules)')

  const manifest = JSON.parse(entries.find(entry => entry.path === 'package/package.json')!.content.toString('utf8'))
  // Only the element's module does something as it loads: it defines <ranking-board>.
  t.match(manifest, { name: PACKAGE, type: 'module', sideEffects: ['./dist/board.js'], engines: { node: '>=20' }, exports: { '.': { types: './dist/index.d.ts', import: './dist/index.js' }, './board': { types: './dist/board.d.ts', import: './dist/board.js' }, './platform': { types: './dist/platform.d.ts', import: './dist/platform.js' } } })
  for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies', 'bundleDependencies']) t.equal(manifest[field], undefined, `no ${field}`)

  // For browsers as much as Node: nothing imported but the package's own format.js (which imports nothing), no Node globals;
  // the element's module has Lit bundled in (the package has no dependencies).
  for (const file of ['index.js', 'format.js', 'platform.js', 'board.js']) {
    const code = entries.find(entry => entry.path === `package/dist/${file}`)!.content.toString('utf8')
    const imported = [...code.matchAll(/(?:^|[;}])\s*(?:import|export)\s*[^;]*?\sfrom\s*["']([^"']+)["']/gm)].map(match => match[1])
    t.same(imported, file === 'index.js' || file === 'platform.js' ? ['./format.js'] : [], `dist/${file} imports nothing else`)
    t.notMatch(code, /\bimport\s*\(|\brequire\s*\(/, `dist/${file} loads nothing at run time`)
    t.notMatch(code, /\bnode:|\bprocess\.|\bBuffer\b|\b__dirname\b/, `dist/${file} uses no Node built-ins`)
  }
  t.ok(existsSync(join(installedDir, 'dist', 'index.js')), 'npm installed it offline')
})

t.test('the README example runs with plain node against the service', { timeout: 40_000 }, async t => {
  const readme = isAbsolute(EXAMPLE_README) ? EXAMPLE_README : join(ROOT, EXAMPLE_README)
  const blocks = [...readFileSync(readme, 'utf8').matchAll(/^```js\n([\s\S]*?)^```$/gm)].map(match => match[1]!)
  const example = blocks.find(block => block.includes(`from '${PACKAGE}'`))
  if (example === undefined) throw new Error(`${readme} has no \`\`\`js block importing from '${PACKAGE}' (SDK_EXAMPLE_README=<path> reads another file)`)
  writeFileSync(join(project, 'example.mjs'), example)

  const { app, baseUrl } = await listeningApp(t)
  const game = await createGame(app)
  // Someone is already on the board, above the example's player.
  t.match((await submit(app, game, { player: 'bob', score: 9000 })).json(), { ok: true })

  const result = await run(process.execPath, ['example.mjs'], {
    cwd: project,
    env: userEnv({ RANKING_URL: baseUrl, RANKING_API_KEY: game.apiKey, RANKING_API_SECRET: game.apiSecret, RANKING_GAME_ID: game.gameId }),
    timeoutMs: 30_000
  })
  t.equal(result.code, 0, describe('the example', result))
  t.equal(result.stderr, '', 'nothing on stderr')
  const printed = result.stdout.trim().split('\n').map(line => JSON.parse(line))
  t.same(printed[0], { score: 4200, improved: true, best_score: 4200, rank: 2 }, 'submit')
  t.match(printed[1], { game_id: game.gameId, total: 2, items: [{ rank: 1, player_name: 'bob', score: 9000 }, { rank: 2, player_name: 'alice', score: 4200, created_at: /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/ }] }, 'top')
  t.equal(printed[1].items.length, 2)
  t.same(printed[2], { player_name: 'alice', best_score: 4200, rank: 2 }, 'me')
  t.equal(printed.length, 3)
})

t.test('the published types work for a TypeScript user, and ErrorCode matches the service', { timeout: 50_000 }, async t => {
  writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', lib: ['ES2022', 'DOM'], types: [], strict: true, noEmit: true, skipLibCheck: false },
    files: ['consumer.ts']
  }))
  writeFileSync(join(project, 'consumer.ts'), [
    `import { createRankingClient, RankingError, hmacSha256Hex, signatureBase, type ErrorCode, type RankingClient, type SubmitResult, type TopResult, type Standing, type BoardItem } from '${PACKAGE}'`,
    `import { RankingBoardElement, EMBED_VERSION, type RankingBoard } from '${PACKAGE}/board'`,
    `import { ready, type Platform, type PlatformAnswer, type PlatformSubmitted } from '${PACKAGE}/platform'`,
    `import { formatScore } from '${PACKAGE}/format'`,
    'export function embed (): string {',
    '  const board: RankingBoard = new RankingBoardElement()',
    '  board.apiKey = \'k\'',
    '  board.live = true',
    '  const found: RankingBoard | null = document.querySelector(\'ranking-board\')',
    '  // @ts-expect-error limit is a number',
    '  board.limit = \'10\'',
    '  return EMBED_VERSION + String(found?.game) + formatScore(1, { type: \'time\', decimals: 3, unit: \'\' })',
    '}',
    'export async function hosted (): Promise<number | null> {',
    '  const platform: Platform = await ready()',
    '  await platform.startRun()',
    '  platform.on(\'achievement\', (item) => { console.log(item.name) })',
    '  const answer: PlatformAnswer<PlatformSubmitted> = await platform.submit(10, { board: \'lap\' })',
    '  return answer.ok ? answer.data.rank : null',
    '}',
    'const client: RankingClient = createRankingClient({ baseUrl: \'https://games.example.com\', apiKey: \'k\', apiSecret: \'s\', clockOffsetMs: 0 })',
    'export async function use (): Promise<number> {',
    '  const result: SubmitResult = await client.submit({ gameId: \'g\', playerName: \'p\', score: 1n, meta: { level: 1 } })',
    '  const board: TopResult = await client.top({ gameId: \'g\', limit: 10 })',
    '  const first: BoardItem | undefined = board.items[0]',
    '  const mine: Standing = await client.me({ gameId: \'g\', playerName: \'p\' })',
    '  const sign: string = await hmacSha256Hex(\'s\', signatureBase({ api_key: \'k\', game_id: \'g\', player_name: \'p\', score: \'1\', ts: \'1\' }))',
    '  try { await client.syncClock() } catch (error) { if (error instanceof RankingError) { const code: ErrorCode = error.code; return code.length + (error.retryAfter ?? 0) } }',
    '  // @ts-expect-error not a code of the service',
    '  const wrong: ErrorCode = \'no_such_code\'',
    '  return (result.best_score ?? 0) + (first?.score ?? 0) + (mine.rank ?? 0) + sign.length + wrong.length + client.clockOffsetMs',
    '}',
    ''
  ].join('\n'))
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc')
  const checked = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: project, env: userEnv(), timeoutMs: 40_000 })
  t.equal(checked.code, 0, describe('tsc in the user project', checked))

  // The SDK writes the service's error codes out (the package stands alone);
  // they must stay the ones the service documents in its OpenAPI document.
  const types = readFileSync(join(installedDir, 'dist', 'answers.d.ts'), 'utf8')
  const union = /export type ErrorCode =([^;]*);/.exec(types)?.[1] ?? ''
  const sdkCodes = [...union.matchAll(/'([a-z_]+)'/g)].map(match => match[1]).sort()
  const { baseUrl } = await listeningApp(t)
  const document = await (await fetch(`${baseUrl}/docs/json`)).json() as { info: { description: string } }
  const serviceCodes = [...document.info.description.matchAll(/^\| `([a-z_]+)` \|/gm)].map(match => match[1])
  t.ok(serviceCodes.length > 10, `${serviceCodes.length} codes in the service's table`)
  t.same(sdkCodes, [...serviceCodes, 'network_error'].sort(), 'ErrorCode is the service\'s codes plus network_error')
})

/**
 * A page in headless Chromium that has imported the installed package's
 * dist/index.js as `window.rankingSdk`. The page is served from an origin of
 * its own (another port), like a game on its own site, so the service's real
 * CORS policy applies: Access-Control-Allow-Origin: * on the API-key actions.
 * http://127.0.0.1 is a secure context, so crypto.subtle is there.
 */
async function sdkPage (t: { teardown: (fn: () => unknown) => void }, serviceUrl: string): Promise<{ page: Page, pageErrors: string[], pageOrigin: string }> {
  // The package's modules as a site serves them (index.js imports ./format.js beside it).
  const modules = new Map(['index.js', 'format.js', 'board.js'].map(file => [`/sdk/${file}`, readFileSync(join(installedDir, 'dist', file))]))
  const html = '<!doctype html><meta charset="utf-8"><title>game</title><link rel="icon" href="data:,"><script type="module">import * as sdk from "/sdk/index.js"; window.rankingSdk = sdk</script>'
  const pageServer: Server = createServer((request, response) => {
    const code = modules.get(request.url ?? '')
    if (request.url === '/') response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html)
    else if (code !== undefined) response.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(code)
    else response.writeHead(404).end()
  })
  await new Promise<void>(resolve => pageServer.listen(0, '127.0.0.1', resolve))
  t.teardown(async () => { await new Promise(resolve => pageServer.close(resolve)) })
  const pageOrigin = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}`
  if (pageOrigin === new URL(serviceUrl).origin) throw new Error('the page must be on another origin than the service')

  const browser = await launchBrowser(t)
  const page = await browser.newPage()
  const pageErrors: string[] = []
  page.on('pageerror', error => { pageErrors.push(error.message) })
  page.on('console', message => { if (message.type() === 'error') pageErrors.push(message.text()) })
  await page.goto(`${pageOrigin}/`)
  await page.waitForFunction(() => 'rankingSdk' in window)
  return { page, pageErrors, pageOrigin }
}

// Each launches Chromium: about 2 s on an idle machine.
t.test('a page on another origin imports the built module and submits, reads the top and me', { timeout: 30_000 }, async t => {
  t.ok(existsSync(CHROMIUM), `Chromium at ${CHROMIUM} (apt-get install chromium)`)
  const { app, baseUrl } = await listeningApp(t)
  const game = await createGame(app)
  const { page, pageErrors } = await sdkPage(t, baseUrl)
  t.equal(await page.evaluate(() => window.isSecureContext), true, 'a secure context')

  const settings = { baseUrl, apiKey: game.apiKey, apiSecret: game.apiSecret, gameId: game.gameId }
  // Plain arrow functions without inner named functions: they are sent to the page as source text.
  const answers = await page.evaluate(async ({ baseUrl, apiKey, apiSecret, gameId }) => {
    // The module the page imported (the test does not import the SDK itself).
    const sdk = (window as any).rankingSdk
    const client = sdk.createRankingClient({ baseUrl, apiKey, apiSecret })
    const first = await client.submit({ gameId, playerName: 'Zoë 🎮', score: 1200, meta: { level: 3 } })
    const second = await client.submit({ gameId, playerName: 'bob', score: 900n })
    const top = await client.top({ gameId, limit: 10 })
    const me = await client.me({ gameId, playerName: 'Zoë 🎮' })
    const nobody = await client.me({ gameId, playerName: 'nobody' })
    const wrong = sdk.createRankingClient({ baseUrl, apiKey, apiSecret: 'f'.repeat(64) })
    const error = await wrong.submit({ gameId, playerName: 'p', score: 1 }).then(() => null, (error: unknown) => error)
    const typed = error instanceof sdk.RankingError ? { code: error.code, name: error.name } : String(error)
    return { first, second, top, me, nobody, typed }
  }, settings)
  t.same(answers.first, { score: 1200, improved: true, best_score: 1200, rank: 1 }, 'submit from the page')
  t.same(answers.second, { score: 900, improved: true, best_score: 900, rank: 2 }, 'submit of a bigint')
  t.match(answers.top, { game_id: game.gameId, total: 2, items: [{ rank: 1, player_name: 'Zoë 🎮', score: 1200, created_at: /Z$/ }, { rank: 2, player_name: 'bob', score: 900 }] }, 'top from the page')
  t.same(answers.me, { player_name: 'Zoë 🎮', best_score: 1200, rank: 1 }, 'me from the page')
  t.same(answers.nobody, { player_name: 'nobody', best_score: null, rank: null })
  t.same(answers.typed, { code: 'invalid_signature', name: 'RankingError' }, 'a RankingError with the service\'s code')

  // The element, as the package ships it (an ES module, Lit inside), on the same page: the board the page just wrote.
  const board = await page.evaluate(async ({ baseUrl, apiKey, gameId }) => {
    await import('/sdk/board.js' as string)
    const element = document.createElement('ranking-board')
    element.setAttribute('service', baseUrl)
    element.setAttribute('game', gameId)
    element.setAttribute('api-key', apiKey)
    document.body.append(element)
    const deadline = Date.now() + 20_000
    while ((element.shadowRoot?.querySelectorAll('tbody tr').length ?? 0) < 2 && Date.now() < deadline) await new Promise(resolve => setTimeout(resolve, 50))
    return Array.from(element.shadowRoot?.querySelectorAll('tbody tr') ?? []).map(row => row.textContent?.replace(/\s+/g, ' ').trim())
  }, settings)
  t.same(board, ['1 Zoë 🎮 1,200', '2 bob 900'], 'the package\'s <ranking-board> shows the board')
  t.same(pageErrors, [], 'no errors on the page')
})

t.test('across origins: rate limits and syncClock reach the page as RankingErrors', { timeout: 30_000 }, async t => {
  const { app, baseUrl } = await listeningApp(t, { RATE_LIMIT_MAX: '1' })
  const game = await createGame(app)
  const { page, pageErrors } = await sdkPage(t, baseUrl)
  const answers = await page.evaluate(async ({ baseUrl, apiKey, gameId }) => {
    const sdk = (window as any).rankingSdk
    const client = sdk.createRankingClient({ baseUrl, apiKey })
    const board = await client.top({ gameId })
    const limited = await client.top({ gameId }).then(() => null, (error: any) => ({ typed: error instanceof sdk.RankingError, code: error.code, retryAfter: error.retryAfter ?? null }))
    const clock = await client.syncClock().then((offset: number) => ({ offset }), (error: any) => ({ typed: error instanceof sdk.RankingError, code: error.code }))
    return { board, limited, clock }
  }, { baseUrl, apiKey: game.apiKey, gameId: game.gameId })
  t.match(answers.board, { game_id: game.gameId, total: 0, items: [] })
  t.match(answers.limited, { typed: true, code: 'rate_limited' }, 'rate_limited as a RankingError')
  // The API-key actions expose Retry-After to other origins.
  t.ok(typeof answers.limited?.retryAfter === 'number' && answers.limited.retryAfter >= 1, `retryAfter readable across origins (${String(answers.limited?.retryAfter)})`)
  // /healthz answers no other origin (CORS is for the API-key actions only,
  // docs/guide.md): a page elsewhere cannot measure the clock with
  // syncClock() and gets a network_error RankingError; it passes
  // clockOffsetMs instead. Node and same-origin pages can.
  t.match(answers.clock, { typed: true, code: 'network_error' }, 'syncClock from another origin fails as a RankingError')
  t.ok(pageErrors.every(text => /CORS policy|net::ERR_FAILED/.test(text)), 'no other errors on the page')
})
