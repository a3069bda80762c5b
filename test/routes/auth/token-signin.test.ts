import t from 'tap'
import { createServer, type Server } from 'node:http'
import { randomUUID } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { SignJWT, exportJWK, exportSPKI, generateKeyPair, type CryptoKey, type JWK } from 'jose'
import { admin, buildTestApp, createGame, dataOf, errorOf, formBody, submit } from '../../helpers/app.js'
import { waitFor } from '../../helpers/wait.js'

/*
 * POST /auth/token (docs/signin.md#signed-tokens): a platform signs a
 * short-lived JWT for its player and the service signs them in, verifying
 * with jose against a JWKS server this test runs, a configured public key,
 * or a shared secret. Hostile tokens get invalid_token, never a session.
 */

const ISSUER = 'https://platform.example'
const FORM = { 'content-type': 'application/x-www-form-urlencoded' }
const SECRET = 'a-shared-secret-of-at-least-32-characters!'

interface KeyPair { privateKey: CryptoKey, publicKey: CryptoKey, kid: string }
async function keyPair (kid: string, alg = 'RS256'): Promise<KeyPair> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true })
  return { privateKey, publicKey, kid }
}

/** A JWKS server on a free port; what it answers can change (keys, garbage, an error, nothing). */
async function jwksServer (t: { teardown: (fn: () => unknown) => void }): Promise<{ url: string, serve: (answer: { keys?: JWK[], status?: number, body?: string }) => void, fetches: () => number, close: () => Promise<void> }> {
  let answer: { keys?: JWK[], status?: number, body?: string } = { keys: [] }
  let fetches = 0
  const server: Server = createServer((request, response) => {
    fetches++
    response.writeHead(answer.status ?? 200, { 'content-type': 'application/json' })
    response.end(answer.body ?? JSON.stringify({ keys: answer.keys ?? [] }))
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const close = async (): Promise<void> => { if (server.listening) await new Promise(resolve => server.close(resolve)) }
  t.teardown(close)
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`, serve: (next) => { answer = next }, fetches: () => fetches, close }
}

async function publicJwk (pair: KeyPair, alg = 'RS256'): Promise<JWK> {
  return { ...await exportJWK(pair.publicKey), kid: pair.kid, alg, use: 'sig' }
}

interface Claims { sub?: string, name?: unknown, iss?: string, aud?: string, expiresIn?: string | number, [claim: string]: unknown }
async function signed (pair: KeyPair | Uint8Array, claims: Claims = {}, alg = 'RS256'): Promise<string> {
  const { sub = 'player-1', iss = ISSUER, aud = 'ranking-service', expiresIn = '5m', ...rest } = claims
  // A random jti, as the docs ask of a platform: two tokens minted in one second for one player differ.
  let jwt = new SignJWT({ jti: randomUUID(), ...rest }).setProtectedHeader(pair instanceof Uint8Array ? { alg } : { alg, kid: pair.kid }).setIssuedAt().setIssuer(iss).setAudience(aud).setExpirationTime(expiresIn)
  if (sub !== '') jwt = jwt.setSubject(sub)
  return await jwt.sign(pair instanceof Uint8Array ? pair : pair.privateKey)
}

async function signIn (app: FastifyInstance, token: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return await app.inject({ method: 'POST', url: '/auth/token', payload: formBody({ token }), headers: { ...FORM, ...headers } })
}

function cookieOf (answer: LightMyRequestResponse): string {
  const header = answer.headers['set-cookie']
  const line = Array.isArray(header) ? header[0] : header
  return (line ?? '').split(';')[0] as string
}

const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url')

t.test('off unless the operator sets it up', async t => {
  const { app } = await buildTestApp(t)
  const answer = await signIn(app, 'x')
  t.equal(errorOf(answer), 'forbidden')
  t.match(answer.json().message, /TOKEN_SIGNIN_ISSUER/)
})

t.test('a JWKS: the first sign-in makes the user, later ones find it by the subject whatever its name', async t => {
  const jwks = await jwksServer(t)
  const first = await keyPair('k1')
  jwks.serve({ keys: [await publicJwk(first)] })
  const { app } = await buildTestApp(t, { TOKEN_SIGNIN_ISSUER: ISSUER, TOKEN_SIGNIN_JWKS_URL: jwks.url })
  const answer = await signIn(app, await signed(first, { sub: 'p-17', name: 'José Lee' }))
  t.same(dataOf(answer), { username: 'Jose_Lee', is_admin: false }, 'the name claim, by the name rules')
  t.match(answer.headers['cache-control'], /no-store/)
  const cookie = cookieOf(answer)
  t.match(cookie, /^sid=.{20,}/)
  const game = await createGame(app)
  const stored = await app.inject({ method: 'POST', url: '/api/rank?action=submit-self', payload: formBody({ game_id: game.gameId, score: '12' }), headers: { ...FORM, cookie } })
  t.match(dataOf(stored), { score: 12 }, 'the session plays')
  const user = dataOf(await admin(app, 'GET', '/admin/users/Jose_Lee'))
  t.same(user.sign_in, [{ method: 'token', issuer: ISSUER, subject: 'p-17' }], 'operators see how the user signs in')
  t.match(dataOf(await admin(app, 'GET', '/admin/audit?action=user.create')).items, [{ actor: 'player', target: 'Jose_Lee' }])

  // A token signs in once: a copy of it (a log, a shared address) signs nobody in.
  const once = await signed(first, { sub: 'p-17', name: 'José Lee' })
  t.equal(dataOf(await signIn(app, once)).username, 'Jose_Lee')
  const replayed = await signIn(app, once)
  t.equal(errorOf(replayed), 'invalid_token', 'a token used again')
  t.match(replayed.json().message, /used before/)
  // Renamed at the platform: still the same user.
  t.same(dataOf(await signIn(app, await signed(first, { sub: 'p-17', name: 'Jo' }))), { username: 'Jose_Lee', is_admin: false })
  // Another player with the same name: the next free name.
  t.same(dataOf(await signIn(app, await signed(first, { sub: 'p-18', name: 'José Lee' }))).username, 'Jose_Lee-2')
  // A name some game's player has is taken too; a guest's prefix is never given.
  await submit(app, game, { player: 'Rex', score: 5 })
  t.same(dataOf(await signIn(app, await signed(first, { sub: 'p-19', name: 'Rex' }))).username, 'Rex-2')
  t.same(dataOf(await signIn(app, await signed(first, { sub: 'p-20', name: 'guest-123456' }))).username, '123456')
  t.same(dataOf(await signIn(app, await signed(first, { sub: 'p-21', name: '  ' }))).username, 'player', 'nothing usable: player')
  t.same(dataOf(await signIn(app, await signed(first, { sub: 'p-22' }))).username, 'player-2', 'no name claim at all')
  t.equal(jwks.fetches(), 1, 'the JWKS is fetched once and kept')

  // The platform rotates its key: a token with the new kid fetches the JWKS again.
  const second = await keyPair('k2')
  jwks.serve({ keys: [await publicJwk(second)] })
  const rotated = async (): Promise<string> => await signed(second, { sub: 'p-17', name: 'José Lee' })
  let found: LightMyRequestResponse | undefined
  await waitFor(async () => (found = await signIn(app, await rotated())).json().ok === true, { what: 'the rotated key is found', timeoutMs: 15_000, intervalMs: 500 })
  t.same(dataOf(found as LightMyRequestResponse).username, 'Jose_Lee')
  t.equal(errorOf(await signIn(app, await signed(first, { sub: 'p-17' }))), 'invalid_token', 'a key the platform dropped signs nobody in')

  // An erased user's identity goes with them: the next sign-in makes a new user.
  await admin(app, 'DELETE', '/admin/users/Jose_Lee?erase=true')
  t.same(dataOf(await signIn(app, await rotated())).username, 'Jose_Lee')
  t.same(dataOf(await admin(app, 'GET', '/admin/users/Jose_Lee')).sign_in, [{ method: 'token', issuer: ISSUER, subject: 'p-17' }])
})

t.test('hostile tokens get invalid_token saying why, never a session', async t => {
  const jwks = await jwksServer(t)
  const good = await keyPair('k1')
  const forger = await keyPair('k1')
  jwks.serve({ keys: [await publicJwk(good)] })
  const { app } = await buildTestApp(t, { TOKEN_SIGNIN_ISSUER: ISSUER, TOKEN_SIGNIN_JWKS_URL: jwks.url, TOKEN_SIGNIN_MAX_LIFETIME_S: '600' })
  const pem = await exportSPKI(good.publicKey)
  const [header = '', payload = ''] = (await signed(good)).split('.')
  const cases: Array<[string, string, RegExp]> = [
    ['a wrong signature', await signed(forger), /signature does not hold/],
    ['another audience', await signed(good, { aud: 'another-service' }), /aud claim/],
    ['another issuer', await signed(good, { iss: 'https://evil.example' }), /iss claim/],
    ['expired', await signed(good, { expiresIn: Math.floor(Date.now() / 1000) - 120 }), /expired/],
    ['alg none', `${b64({ alg: 'none', typ: 'JWT' })}.${payload}.AAAA`, /algorithm/],
    ['alg none, with no signature at all', `${b64({ alg: 'none', typ: 'JWT' })}.${payload}.`, /not a signed JWT/],
    ['HS256 with the public key as its secret', await signed(new TextEncoder().encode(pem), {}, 'HS256'), /algorithm/],
    ['no sub', await signed(good, { sub: '' }), /sub claim/],
    ['living too long', await signed(good, { expiresIn: '2h' }), /lives too long/],
    ['a kid the JWKS lacks', await signed(await keyPair('k9')), /no key/],
    ['not a JWT', 'abc.def', /not a signed JWT/],
    ['a header that is not JSON', `${Buffer.from('{not json').toString('base64url')}.${payload}.sig`, /not a signed JWT/],
    ['a payload that is not JSON', `${header}.${Buffer.from('[1,').toString('base64url')}.sig`, /signature|not a signed JWT/]
  ]
  for (const [what, token, why] of cases) {
    const answer = await signIn(app, token)
    t.equal(errorOf(answer), 'invalid_token', what)
    t.match(answer.json().message, why, what)
    t.equal(answer.headers['set-cookie'], undefined, `${what}: no session`)
  }
  // Claims that try the prototype: read as data, never as the object's own.
  const proto = await signIn(app, await signed(good, { sub: 'p-1', name: { toString: 'x' }, ['__proto__' as string]: { is_admin: true }, constructor: 'x' }))
  t.same(dataOf(proto), { username: 'player', is_admin: false })
  // Sizes: a token over 8192 characters is refused before it is parsed; one of 1 MB is past the body limit.
  t.equal(errorOf(await signIn(app, 'a'.repeat(9000))), 'invalid_param')
  t.equal(errorOf(await signIn(app, 'a'.repeat(1_000_000))), 'payload_too_large')
  t.equal(errorOf(await app.inject({ method: 'POST', url: '/auth/token', payload: '', headers: FORM })), 'missing_param')
  t.equal(errorOf(await app.inject({ method: 'POST', url: `/auth/token?token=${await signed(good)}`, payload: '', headers: FORM })), 'invalid_param', 'never in the URL')
  t.equal(errorOf(await signIn(app, await signed(good), { origin: 'https://evil.example' })), 'forbidden_origin')
  t.equal(dataOf(await admin(app, 'GET', '/admin/users')).items.length, 1, 'only the one prototype-trying player was made')
})

/** P-256's group order: an ECDSA signature (r, s) has a twin (r, n - s) that verifies as well. */
const P256_ORDER = BigInt('0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551')

/** An ES256 token with its signature's twin (r, n - s): the same header and payload, another signature text. */
function ecdsaTwin (token: string): string {
  const [header, payload, signature] = token.split('.') as [string, string, string]
  const bytes = Buffer.from(signature, 'base64url')
  const s = BigInt(`0x${bytes.subarray(32).toString('hex')}`)
  const twin = Buffer.from((P256_ORDER - s).toString(16).padStart(64, '0'), 'hex')
  return `${header}.${payload}.${Buffer.concat([bytes.subarray(0, 32), twin]).toString('base64url')}`
}

/** The same text with its last character's unused bits set: base64url decoders read it as the same bytes. */
function strayBits (part: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
  const last = alphabet.indexOf(part.at(-1) as string)
  return part.slice(0, -1) + (alphabet[last | 1] as string)
}

t.test('a spent token signs nobody in again, however its signature is written (docs/security.md, "Who a player is")', async t => {
  const shared = await buildTestApp(t, { TOKEN_SIGNIN_ISSUER: ISSUER, TOKEN_SIGNIN_SECRET: SECRET })
  const hs256 = await signed(new TextEncoder().encode(SECRET), { sub: 'p-50', name: 'Vic' }, 'HS256')
  t.equal(dataOf(await signIn(shared.app, hs256)).username, 'Vic', 'the token, once')
  const [header, payload, signature] = hs256.split('.') as [string, string, string]
  // A 32-byte HMAC is 43 characters: the last carries 4 bits that decode to nothing.
  t.not(strayBits(signature), signature)
  t.same(Buffer.from(strayBits(signature), 'base64url'), Buffer.from(signature, 'base64url'), 'the stray bits decode to the same signature')
  const rewritten: Array<[string, string, RegExp]> = [
    ['sent again', hs256, /used before/],
    ['with = padding after the signature', `${hs256}=`, /not a signed JWT/],
    ['with a space inside the signature', `${header}.${payload}.${signature.slice(0, 10)} ${signature.slice(10)}`, /not a signed JWT/],
    ['with the last character\'s unused bits set', `${header}.${payload}.${strayBits(signature)}`, /not written as its signer wrote it/],
    ['with a stray bit in the payload', `${header}.${strayBits(payload)}.${signature}`, /not written as its signer wrote it|signature/],
    ['in standard base64', `${header}.${payload}.${Buffer.from(signature, 'base64url').toString('base64')}`, /not a signed JWT/]
  ]
  for (const [what, token, why] of rewritten) {
    const answer = await signIn(shared.app, token)
    t.equal(errorOf(answer), 'invalid_token', what)
    t.match(answer.json().message, why, what)
    t.equal(answer.headers['set-cookie'], undefined, `${what}: no session`)
  }

  // ES256 from a JWKS: the signature's twin verifies, and is the same token spent.
  const jwks = await jwksServer(t)
  const pair = await keyPair('ec-1', 'ES256')
  jwks.serve({ keys: [await publicJwk(pair, 'ES256')] })
  const { app } = await buildTestApp(t, { TOKEN_SIGNIN_ISSUER: ISSUER, TOKEN_SIGNIN_JWKS_URL: jwks.url })
  const es256 = await signed(pair, { sub: 'p-51', name: 'Ecd' }, 'ES256')
  const twin = ecdsaTwin(es256)
  t.not(twin, es256)
  const fresh = await signed(pair, { sub: 'p-52', name: 'Twin' }, 'ES256')
  t.equal(dataOf(await signIn(app, ecdsaTwin(fresh))).username, 'Twin', 'a twin is a valid signature: an unspent token signs in by it')
  t.equal(dataOf(await signIn(app, es256)).username, 'Ecd')
  const again = await signIn(app, twin)
  t.equal(errorOf(again), 'invalid_token', 'the twin of a spent token')
  t.match(again.json().message, /used before/)
  t.equal(again.headers['set-cookie'], undefined)
  t.equal(errorOf(await signIn(app, fresh)), 'invalid_token', 'and the token whose twin was spent')
})

t.test('a JWKS that is down, failing or answering garbage: unavailable, never a session', async t => {
  const good = await keyPair('k1')
  for (const [what, answer] of [['an error status', { status: 500, body: 'oops' }], ['not JSON', { body: '<html>' }], ['not a key set', { body: '{"keys":"no"}' }], ['down', null]] as const) {
    const jwks = await jwksServer(t)
    if (answer === null) await jwks.close()
    else jwks.serve(answer)
    const { app } = await buildTestApp(t, { TOKEN_SIGNIN_ISSUER: ISSUER, TOKEN_SIGNIN_JWKS_URL: jwks.url })
    const refused = await signIn(app, await signed(good))
    t.equal(errorOf(refused), 'unavailable', what)
    t.match(refused.json().message, /JWKS/, what)
    t.equal(refused.headers['set-cookie'], undefined)
  }
})

t.test('a configured public key, or a shared HS256 secret', async t => {
  const pair = await keyPair('any', 'ES256')
  const pem = (await exportSPKI(pair.publicKey)).replace(/\n/g, '\\n')
  const { app } = await buildTestApp(t, { TOKEN_SIGNIN_ISSUER: ISSUER, TOKEN_SIGNIN_PUBLIC_KEY: pem, TOKEN_SIGNIN_AUDIENCE: 'games.example', TOKEN_SIGNIN_NAME_CLAIM: 'nick' })
  t.same(dataOf(await signIn(app, await signed(pair, { aud: 'games.example', nick: 'ann' }, 'ES256'))), { username: 'ann', is_admin: false }, 'a PEM key (\\n for its line breaks), its own audience and name claim')
  t.equal(errorOf(await signIn(app, await signed(pair, { nick: 'ann' }, 'ES256'))), 'invalid_token', 'the default audience is not this one')
  const secret = new TextEncoder().encode(SECRET)
  const shared = await buildTestApp(t, { TOKEN_SIGNIN_ISSUER: ISSUER, TOKEN_SIGNIN_SECRET: SECRET })
  t.same(dataOf(await signIn(shared.app, await signed(secret, { name: 'bo' }, 'HS256'))), { username: 'bo', is_admin: false })
  t.equal(errorOf(await signIn(shared.app, await signed(secret, { name: 'bo' }, 'HS512'))), 'invalid_token', 'HS256 only')
  t.equal(errorOf(await signIn(shared.app, await signed(pair, { name: 'bo' }, 'ES256'))), 'invalid_token', 'no public-key token where a secret is set')
})

t.test('a guest who signs in with a token keeps its play', async t => {
  const { app } = await buildTestApp(t, { TOKEN_SIGNIN_ISSUER: ISSUER, TOKEN_SIGNIN_SECRET: SECRET })
  const game = await createGame(app)
  await admin(app, 'PATCH', `/admin/games/${game.gameId}`, { guests: 'listed' })
  const guest = await app.inject({ method: 'POST', url: '/auth/guest', payload: formBody({ game_id: game.gameId }), headers: FORM })
  const guestCookie = cookieOf(guest)
  await app.inject({ method: 'POST', url: '/api/rank?action=submit-self', payload: formBody({ game_id: game.gameId, score: '33' }), headers: { ...FORM, cookie: guestCookie } })
  const answer = await signIn(app, await signed(new TextEncoder().encode(SECRET), { name: 'cleo' }, 'HS256'), { cookie: guestCookie })
  t.same(dataOf(answer), { username: 'cleo', is_admin: false })
  const board = dataOf(await app.inject({ method: 'GET', url: `/play/${game.gameId}/board` })).items
  t.match(board, [{ player_name: 'cleo', score: 33 }])
})

t.test('a player signed in through the platform sees and deletes their account by typing their name', async t => {
  const { app } = await buildTestApp(t, { TOKEN_SIGNIN_ISSUER: ISSUER, TOKEN_SIGNIN_SECRET: SECRET })
  const token = async (): Promise<string> => await signed(new TextEncoder().encode(SECRET), { sub: 'p-40', name: 'dana' }, 'HS256')
  const cookie = cookieOf(await signIn(app, await token()))
  const account = dataOf(await app.inject({ method: 'GET', url: '/auth/account', headers: { cookie } }))
  t.same(account.sign_in, [{ method: 'token', issuer: ISSUER, subject: 'p-40' }], 'they see how they sign in')
  const remove = async (fields: Record<string, string>): Promise<LightMyRequestResponse> => await app.inject({ method: 'DELETE', url: '/auth/account', payload: formBody(fields), headers: { ...FORM, cookie } })
  t.equal(errorOf(await remove({})), 'missing_param', 'no password to give: the username is asked')
  t.equal(errorOf(await remove({ username: 'Dana' })), 'invalid_credentials', 'exactly')
  t.match(dataOf(await remove({ username: 'dana' })), { user: 1 })
  t.equal(errorOf(await admin(app, 'GET', '/admin/users/dana')), 'not_found')
  t.match(dataOf(await admin(app, 'GET', '/admin/audit?action=user.erase')).items, [{ actor: 'player' }], 'audited as the player\'s')
  // Their identity went with them: the platform's next sign-in makes a new account.
  t.same(dataOf(await signIn(app, await token())).username, 'dana')
})
