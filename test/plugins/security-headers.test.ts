import t from 'tap'
import { request as httpRequest } from 'node:http'
import type { LightMyRequestResponse } from 'fastify'
import { safeNext } from '../../src/routes/play/index.js'
import { admin, buildTestApp, createGame, dataOf, formBody, get } from '../helpers/app.js'
import { listeningApp } from '../helpers/listening.js'
import { rawRequest } from '../helpers/raw-http.js'

/*
 * Item 9 of the hardening issue: security headers from helmet (plugins/external/security-headers.ts).
 * Nothing frames the API or the login page; only the play page frames a
 * game, and only the service's own origin frames the play page; answers
 * with a session id or a secret are never cached.
 */

const { app } = await buildTestApp(t)
const game = await createGame(app, { gameId: 'demo' })

function csp (response: LightMyRequestResponse): Record<string, string> {
  const directives: Record<string, string> = {}
  for (const part of String(response.headers['content-security-policy'] ?? '').split(';')) {
    const [name, ...values] = part.trim().split(/\s+/)
    if (name !== undefined && name !== '') directives[name] = values.join(' ')
  }
  return directives
}

/** Helmet's headers that only a document reads: pages send them, JSON answers and files do not. */
const DOCUMENT_HEADERS = {
  'origin-agent-cluster': '?1',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0'
}

function documentHeaders (t: Pick<typeof import('tap').default, 'equal'>, response: LightMyRequestResponse, what: string, page: boolean): void {
  for (const [name, value] of Object.entries(DOCUMENT_HEADERS)) t.equal(response.headers[name], page ? value : undefined, `${what}: ${name} ${page ? value : 'absent'}`)
}

function common (t: Pick<typeof import('tap').default, 'equal'>, response: LightMyRequestResponse, what: string): void {
  t.equal(response.headers['x-content-type-options'], 'nosniff', `${what}: nosniff`)
  t.equal(response.headers['referrer-policy'], 'no-referrer', `${what}: Referrer-Policy`)
  t.equal(response.headers['strict-transport-security'], undefined, `${what}: no HSTS outside production`)
}

t.test('JSON answers, errors and static assets: nothing may frame, run or load them', async t => {
  const answers: Array<[string, LightMyRequestResponse]> = [
    ['top', await get(app, '/api/rank', { action: 'top', api_key: game.apiKey, game_id: game.gameId })],
    ['healthz', await get(app, '/healthz')],
    ['not_found', await get(app, '/no/such/route')],
    ['payload_too_large', await app.inject({ method: 'POST', url: '/api/rank?action=submit', payload: 'x'.repeat(20_000), headers: { 'content-type': 'application/x-www-form-urlencoded' } })],
    ['a static asset', await get(app, '/static/play.css')]
  ]
  for (const [what, response] of answers) {
    common(t, response, what)
    t.equal(response.headers['x-frame-options'], 'DENY', `${what}: X-Frame-Options`)
    t.match(csp(response), { 'default-src': "'none'", 'frame-ancestors': "'none'" }, `${what}: CSP`)
    documentHeaders(t, response, what, false)
    t.equal(response.headers['cross-origin-opener-policy'], undefined, `${what}: no Cross-Origin-Opener-Policy`)
  }
})

t.test('answers given before any route is found carry the same headers', { timeout: 30_000 }, async t => {
  // A path Fastify cannot decode never reaches a route or its hooks (Fastify's frameworkErrors).
  const badUrl = await app.inject({ method: 'GET', url: '/play/%E0%A4%A' })
  t.equal(badUrl.json().error, 'not_found', 'a malformed URL is answered in the envelope')
  common(t, badUrl, 'a malformed URL')
  t.equal(badUrl.headers['x-frame-options'], 'DENY')
  t.match(csp(badUrl), { 'default-src': "'none'", 'frame-ancestors': "'none'" })
  // Bytes Node cannot parse as HTTP are answered straight on the socket (clientErrorHandler).
  const { baseUrl } = await listeningApp(t)
  const garbage = await rawRequest(Number(new URL(baseUrl).port), 'GET / HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n')
  t.equal(JSON.parse(garbage.body).error, 'invalid_body', 'unparseable HTTP is answered in the envelope')
  t.equal(garbage.headers['x-content-type-options'], 'nosniff', 'unparseable HTTP: nosniff')
  t.equal(garbage.headers['x-frame-options'], 'DENY', 'unparseable HTTP: X-Frame-Options')
  t.match(garbage.headers['content-security-policy'], "default-src 'none'", 'unparseable HTTP: CSP')
  t.equal(garbage.headers['referrer-policy'], 'no-referrer')
  // HTTP/1.1 without a Host header: Node's own bare 400 before, the envelope and its headers now.
  const hostless = await rawRequest(Number(new URL(baseUrl).port), 'GET /healthz HTTP/1.1\r\n\r\n')
  t.equal(hostless.status, 200)
  t.same(JSON.parse(hostless.body), { ok: false, error: 'invalid_body', message: 'An HTTP/1.1 request must carry a Host header.' }, 'a request without Host is answered in the envelope')
  t.equal(hostless.headers['x-content-type-options'], 'nosniff', 'without Host: nosniff')
  t.equal(hostless.headers['x-frame-options'], 'DENY', 'without Host: X-Frame-Options')
  t.equal(hostless.headers['referrer-policy'], 'no-referrer', 'without Host: Referrer-Policy')
  // An Expect Node does not meet: its 417, in the envelope, with the same headers.
  const expect = await rawRequest(Number(new URL(baseUrl).port), 'POST /api/rank?action=submit HTTP/1.1\r\nHost: x\r\nExpect: <script>x</script>\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 5\r\n\r\n', ['a=b&c'])
  t.equal(expect.status, 417, 'an unknown Expect: 417 Expectation Failed')
  t.same(JSON.parse(expect.body), { ok: false, error: 'invalid_param', message: 'The Expect header asks for something this service does not do (it understands only 100-continue); send the request without it.' }, 'in the envelope, the header not repeated back')
  t.equal(expect.headers['x-content-type-options'], 'nosniff', 'unknown Expect: nosniff')
  t.equal(expect.headers['x-frame-options'], 'DENY', 'unknown Expect: X-Frame-Options')
  t.match(expect.headers['content-security-policy'], "default-src 'none'", 'unknown Expect: CSP')
  t.equal(expect.headers['referrer-policy'], 'no-referrer', 'unknown Expect: Referrer-Policy')
  t.match(expect.headers['content-type'], /^application\/json/)
  // Expect: 100-continue is Node's to meet, as before: the client is told to go on, and the route answers.
  const continued = await new Promise<{ status: number | undefined, body: string, continued: boolean }>((resolve, reject) => {
    let toldToContinue = false
    const request = httpRequest({ host: '127.0.0.1', port: Number(new URL(baseUrl).port), method: 'POST', path: '/api/rank?action=submit', headers: { expect: '100-continue', 'content-type': 'application/x-www-form-urlencoded' } })
    request.on('continue', () => { toldToContinue = true; request.end('a=b') })
    request.on('response', response => {
      let body = ''
      response.on('data', (part: Buffer) => { body += part.toString() })
      response.on('end', () => { resolve({ status: response.statusCode, body, continued: toldToContinue }) })
    })
    request.on('error', reject)
  })
  t.ok(continued.continued, '100 Continue came first')
  t.equal(continued.status, 200)
  t.equal(JSON.parse(continued.body).error, 'missing_param', 'then the route\'s own answer')
  const http10 = await rawRequest(Number(new URL(baseUrl).port), 'GET /healthz HTTP/1.0\r\n\r\n')
  t.same(JSON.parse(http10.body), { ok: true, data: { redis: 'up' } }, 'HTTP/1.0 needs no Host')
})

t.test('API-key answers may be read cross-origin; session answers stay same-origin', async t => {
  t.equal((await get(app, '/api/rank', { action: 'me', api_key: game.apiKey, game_id: game.gameId, player_name: 'x' })).headers['cross-origin-resource-policy'], 'cross-origin')
  t.equal((await get(app, '/api/rank', { action: 'me-self', game_id: game.gameId })).headers['cross-origin-resource-policy'], 'same-origin')
})

t.test('the play page: framed only by its own origin, its inline script allowed by nonce, never cached', async t => {
  const page = await get(app, '/play/demo')
  common(t, page, 'play page')
  t.equal(page.headers['x-frame-options'], 'SAMEORIGIN')
  documentHeaders(t, page, 'play page', true)
  t.equal(page.headers['cross-origin-opener-policy'], 'same-origin')
  const policy = csp(page)
  t.equal(policy['frame-ancestors'], "'self'")
  t.equal(policy['frame-src'], "'self'", 'it frames games from its own origin only')
  const nonce = /<script nonce="([0-9a-f]{32})">window\.__platform/.exec(page.body)?.[1]
  t.ok(nonce, 'the inline script carries a nonce')
  t.equal(policy['script-src'], `'self' 'nonce-${nonce}'`)
  t.not(/<script nonce="([0-9a-f]{32})">/.exec((await get(app, '/play/demo')).body)?.[1], nonce, 'a new nonce for every page')
  t.equal(page.headers['cache-control'], 'no-store')
  t.notMatch(page.body, /<form|type="password"/, 'no login form beside the game')
  t.match(page.body, '<a id="login" href="/login?next=%2Fplay%2Fdemo">Log in</a>')
})

t.test('a hosted game: framed by the play page only', async t => {
  const files = await get(app, '/games/demo/')
  t.equal(files.statusCode, 200)
  t.equal(files.headers['x-frame-options'], 'SAMEORIGIN')
  documentHeaders(t, files, 'a hosted game', true)
  t.equal(files.headers['cross-origin-opener-policy'], undefined, 'a game may open what it likes')
  t.same(csp(files), { 'default-src': "* data: blob: 'unsafe-inline' 'unsafe-eval'", 'frame-ancestors': "'self'" }, 'what the game itself runs is the operator\'s to review')
})

t.test('the login page: framed by nothing, never cached, back to a path on this site only', async t => {
  const page = await get(app, '/login', { next: '/play/demo' })
  t.equal(page.headers['x-frame-options'], 'DENY')
  documentHeaders(t, page, 'login page', true)
  t.equal(csp(page)['frame-ancestors'], "'none'")
  t.equal(page.headers['cache-control'], 'no-store')
  t.match(page.body, 'data-next="/play/demo"')
  t.match(page.body, 'type="password"')
  t.match((await get(app, '/login', { next: '//evil.example/x' })).body, 'data-next="/"', 'another site is never the way back: the front page instead')
  for (const next of ['//evil.example', '/\\evil.example', 'https://evil.example', 'javascript:alert(1)', '/ok\nx', '', ' /x', 'x'.repeat(600)]) {
    t.equal(safeNext(next), undefined, JSON.stringify(next.slice(0, 40)))
  }
  for (const next of ['/play/demo', '/play/demo?x=1#y', '/']) t.equal(safeNext(next), next)
})

t.test('answers with a session id or a secret are never cached', async t => {
  dataOf(await admin(app, 'POST', '/admin/users', { username: 'cachey', password: 'pw' }))
  const login = await app.inject({ method: 'POST', url: '/auth/login', payload: formBody({ username: 'cachey', password: 'pw' }), headers: { 'content-type': 'application/x-www-form-urlencoded' } })
  t.equal(login.headers['cache-control'], 'no-store', 'login')
  const key = await admin(app, 'POST', '/admin/keys', { game_id: game.gameId })
  t.equal(key.headers['cache-control'], 'no-store', 'a new api_secret')
  const session = await admin(app, 'POST', '/admin/sessions', { username: 'cachey' })
  t.equal(session.headers['cache-control'], 'no-store', 'a new session id')
  const logout = await app.inject({ method: 'POST', url: '/auth/logout', payload: '', headers: { 'content-type': 'application/x-www-form-urlencoded' } })
  t.match(String(logout.headers['set-cookie']), /^sid=;/, 'logout clears the cookie')
  t.equal(logout.headers['cache-control'], 'no-store', 'an answer that sets a cookie is no-store, whatever its route says')
  t.equal((await get(app, '/healthz')).headers['cache-control'], undefined, 'other answers are left to HTTP')
})

t.test('production adds Strict-Transport-Security', { timeout: 30_000 }, async t => {
  const production = await buildTestApp(t, { NODE_ENV: 'production', LOG_LEVEL: 'silent' })
  t.equal((await get(production.app, '/healthz')).headers['strict-transport-security'], 'max-age=31536000; includeSubDomains')
})
