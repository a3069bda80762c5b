import t from 'tap'
import { RankingError, createRankingClient, hmacSha256Hex, signatureBase } from '../sdk/index.js'
import { computeSignature } from '../src/http/signature.js'
import { createGame } from './helpers/app.js'
import { listeningApp } from './helpers/listening.js'

async function rankingError (promise: Promise<unknown>): Promise<RankingError> {
  try {
    await promise
  } catch (error) {
    if (error instanceof RankingError) return error
    throw error
  }
  throw new Error('expected a RankingError')
}

t.test('the WebCrypto signature equals the server\'s', async t => {
  const fields = { api_key: 'rk_1', game_id: 'g', player_name: 'Zoë 🎮', score: '007', ts: '1700000000' }
  t.equal(signatureBase(fields), 'rk_1|g|Zoë 🎮|007|1700000000')
  t.equal(await hmacSha256Hex('secret', signatureBase(fields)), computeSignature('secret', fields))
})

t.test('submit, top and me against the real service', async t => {
  const { app, baseUrl } = await listeningApp(t)
  const game = await createGame(app)
  const client = createRankingClient({ baseUrl: `${baseUrl}/`, apiKey: game.apiKey, apiSecret: game.apiSecret })

  t.same(await client.submit({ gameId: game.gameId, playerName: 'Zoë 🎮', score: 1200, meta: { level: 3 } }), { score: 1200, improved: true, best_score: 1200, rank: 1 })
  t.same(await client.submit({ gameId: game.gameId, playerName: 'bob', score: 900n }), { score: 900, improved: true, best_score: 900, rank: 2 })
  t.same(await client.submit({ gameId: game.gameId, playerName: 'bob', score: '800', meta: '{"raw":true}' }), { score: 800, improved: false, best_score: 900, rank: 2 })

  const board = await client.top({ gameId: game.gameId, limit: 1, offset: 1 })
  t.equal(board.game_id, game.gameId)
  t.equal(board.total, 2)
  t.match(board.items, [{ rank: 2, player_name: 'bob', score: 900, created_at: /Z$/ }])
  t.equal(board.items.length, 1)
  t.same(await client.me({ gameId: game.gameId, playerName: 'Zoë 🎮' }), { player_name: 'Zoë 🎮', best_score: 1200, rank: 1 })
  t.same(await client.me({ gameId: game.gameId, playerName: 'nobody' }), { player_name: 'nobody', best_score: null, rank: null })
})

t.test('errors are typed RankingErrors with the service\'s code', async t => {
  // Counted: the bad signature and the unknown game (missing_param is answered before the limit).
  const { app, baseUrl } = await listeningApp(t, { RATE_LIMIT_MAX: '2' })
  const game = await createGame(app)
  const wrongSecret = createRankingClient({ baseUrl, apiKey: game.apiKey, apiSecret: 'f'.repeat(64) })
  t.match(await rankingError(wrongSecret.submit({ gameId: game.gameId, playerName: 'p', score: 1 })), { code: 'invalid_signature', message: 'The signature does not match.' })

  const readOnly = createRankingClient({ baseUrl, apiKey: game.apiKey })
  t.match(await rankingError(readOnly.submit({ gameId: game.gameId, playerName: 'p', score: 1 })), { code: 'missing_param' }, 'submit without a secret fails before any request')
  t.match(await rankingError(readOnly.top({ gameId: 'no_such_game' })), { code: 'invalid_game' })
  t.match(await rankingError(readOnly.me({ gameId: game.gameId, playerName: '' })), { code: 'missing_param' })
  const limited = await rankingError(readOnly.top({ gameId: game.gameId }))
  t.equal(limited.code, 'rate_limited')
  t.ok(limited.retryAfter !== undefined && limited.retryAfter >= 1 && limited.retryAfter <= 60, `retryAfter ${String(limited.retryAfter)}`)

  const nowhere = createRankingClient({ baseUrl: 'http://127.0.0.1:1', apiKey: game.apiKey })
  t.match(await rankingError(nowhere.top({ gameId: game.gameId })), { code: 'network_error' })
  const notJson = createRankingClient({ baseUrl: `${baseUrl}/static/play.css?`, apiKey: game.apiKey, fetch: async () => new Response('<html>', { status: 502 }) })
  t.match(await rankingError(notJson.top({ gameId: game.gameId })), { code: 'network_error', message: /HTTP 502/ })
})

t.test('a player whose clock is wrong: clockOffsetMs, or syncClock against the service', async t => {
  const { app, baseUrl } = await listeningApp(t)
  const game = await createGame(app)
  const tenMinutes = 10 * 60 * 1000
  // The player's clock is ten minutes fast (the service, in this process, keeps the true one).
  const fastClock = (): number => Date.now() + tenMinutes
  const credentials = { baseUrl, apiKey: game.apiKey, apiSecret: game.apiSecret, now: fastClock }

  const naive = createRankingClient(credentials)
  t.match(await rankingError(naive.submit({ gameId: game.gameId, playerName: 'p', score: 1 })), { code: 'expired_ts' })

  const corrected = createRankingClient({ ...credentials, clockOffsetMs: -tenMinutes })
  t.match(await corrected.submit({ gameId: game.gameId, playerName: 'p', score: 2 }), { improved: true })

  const synced = createRankingClient(credentials)
  const offset = await synced.syncClock()
  t.ok(Math.abs(offset + tenMinutes) < 2000, `measured offset ${offset} ms`)
  t.equal(synced.clockOffsetMs, offset)
  t.match(await synced.submit({ gameId: game.gameId, playerName: 'p', score: 3 }), { improved: true, best_score: 3 })
})
