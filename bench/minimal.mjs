// The minimal service: the least a hand-written server does for the two
// requests the service is held to (a signed submit, the top of a board),
// run as its own process like bench/floor.mjs, so the harness loads it with
// the same client, the same requests and the same settings as the service.
// The service must reach 0.9x of it (bench/RESULTS.md, Targets).
//
//   MINIMAL_KEYS='[{"api_key":"..","api_secret":"..","game_id":"..","board":".."}]' \
//   node bench/minimal.mjs <port> <redisPort> <workers>
//
// MINIMAL_KEYS: its API keys, each with its game and that game's sorted set
// (score = best score, member = player name; seeded by the harness). With
// workers > 1 that many node:cluster workers share the port, as the service
// does with WORKERS.
//
// It does strictly less than the service: the key's secret from a Map, the
// HMAC check, one EVALSHA per request on a connection with auto-pipelining.
// No rate limit, no key or game lookup in Redis, no ts window or replay
// check, no security headers, no CORS, no logging, no response schema.
import cluster from 'node:cluster'
import { createHmac, timingSafeEqual } from 'node:crypto'
import formbody from '@fastify/formbody'
import Fastify from 'fastify'
import { Redis } from 'ioredis'

const port = Number(process.argv[2])
const redisPort = Number(process.argv[3])
const workers = Number(process.argv[4] ?? 1)

// The best score stays (GT); CH makes ZADD count an improved best as well as a new player.
const SUBMIT = `
local changed = redis.call('ZADD', KEYS[1], 'GT', 'CH', ARGV[1], ARGV[2])
return { changed, redis.call('ZREVRANK', KEYS[1], ARGV[2]), redis.call('ZSCORE', KEYS[1], ARGV[2]) }`
const TOP = `
return { redis.call('ZCARD', KEYS[1]), redis.call('ZREVRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1, 'WITHSCORES') }`

const failure = (reply, status, error) => reply.code(status).send({ ok: false, error })

/** The signature of sdk/index.ts (signatureBase, hmac), compared in constant time as src/rules/signature.ts does. */
function signatureMatches (secret, apiKey, gameId, playerName, score, ts, sign) {
  const expected = Buffer.from(createHmac('sha256', secret).update(`${apiKey}|${gameId}|${playerName}|${score}|${ts}`, 'utf8').digest('hex'), 'utf8')
  const given = Buffer.from(sign, 'utf8')
  return given.length === expected.length && timingSafeEqual(given, expected)
}

async function serve () {
  const keys = new Map(JSON.parse(process.env.MINIMAL_KEYS).map(key => [key.api_key, key]))
  const redis = new Redis({ port: redisPort, host: '127.0.0.1', enableAutoPipelining: true })
  redis.defineCommand('minimalSubmit', { numberOfKeys: 1, lua: SUBMIT })
  redis.defineCommand('minimalTop', { numberOfKeys: 1, lua: TOP })

  const fastify = Fastify({ logger: false })
  await fastify.register(formbody)

  fastify.post('/api/rank', async (request, reply) => {
    if (request.query.action !== 'submit') return failure(reply, 404, 'unknown_action')
    const { api_key: apiKey, game_id: gameId, player_name: playerName, score, ts, sign } = request.body ?? {}
    if (![apiKey, gameId, playerName, score, ts, sign].every(value => typeof value === 'string')) return failure(reply, 400, 'missing_param')
    const key = keys.get(apiKey)
    if (key === undefined || key.game_id !== gameId) return failure(reply, 401, 'invalid_key')
    if (!signatureMatches(key.api_secret, apiKey, gameId, playerName, score, ts, sign)) return failure(reply, 401, 'invalid_signature')
    const value = Number(score)
    if (!/^-?\d+$/.test(score) || !Number.isSafeInteger(value)) return failure(reply, 400, 'invalid_score')
    const [changed, rank, best] = await redis.minimalSubmit(key.board, value, playerName)
    return { ok: true, data: { score: value, improved: changed === 1, best_score: Number(best), rank: rank + 1 } }
  })

  fastify.get('/api/rank', async (request, reply) => {
    const { action, api_key: apiKey, game_id: gameId, limit = '20' } = request.query
    if (action !== 'top') return failure(reply, 404, 'unknown_action')
    const key = keys.get(apiKey)
    if (key === undefined || key.game_id !== gameId) return failure(reply, 401, 'invalid_key')
    const count = Number(limit)
    if (!Number.isInteger(count) || count < 1 || count > 100) return failure(reply, 400, 'invalid_param')
    const [total, flat] = await redis.minimalTop(key.board, count)
    const items = []
    for (let i = 0; i < flat.length; i += 2) items.push({ rank: i / 2 + 1, player_name: flat[i], score: Number(flat[i + 1]) })
    return { ok: true, data: { game_id: gameId, total, items } }
  })

  await fastify.listen({ port, host: '127.0.0.1' })

  const stop = () => {
    fastify.close().then(() => redis.quit()).then(() => process.exit(0), () => process.exit(1))
  }
  process.once('SIGTERM', stop)
  process.once('SIGINT', stop)
}

if (workers > 1 && cluster.isPrimary) {
  // The primary only forks; a worker that dies is not replaced: this process
  // ends, and the harness sees it and stops the run.
  for (let i = 0; i < workers; i++) cluster.fork()
  let stopping = false
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return
    console.error(`minimal: worker ${worker.id} exited (${signal ?? code})`)
    process.exit(1)
  })
  // The workers are in this process group: the harness's SIGTERM reaches them too.
  const stop = () => { stopping = true; process.exit(0) }
  process.once('SIGTERM', stop)
  process.once('SIGINT', stop)
} else {
  await serve()
}
