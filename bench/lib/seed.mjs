// What the scenarios run against, shared by all of them: one game (with an
// API key) per board size and users with sessions, through the admin API;
// the boards themselves, written straight into Redis; and a local mirror of
// each board, to check the seeding and to pick scores that do or do not
// improve a player's best.
import { setTimeout as sleep } from 'node:timers/promises'
import { PERIOD_KINDS, boardScopes, encode, keys, periodAt } from './compiled.mjs'
import { parseInfo } from './redis.mjs'
import { adminCall } from './service.mjs'
import { randInt, rng } from './random.mjs'
import { sizeLabel } from './format.mjs'

export const playerName = (i) => `bench_user_${i}`
/** The players of the Game Jolt row: guests of Game Jolt's kind, whose names no user has (bench_user_* are users). */
export const guestName = (i) => `bench_guest_${i}`
export const gameIdOf = (size) => `bench_${size}`

async function inParallel (count, concurrency, task) {
  const results = new Array(count)
  let next = 0
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, async () => {
    while (next < count) {
      const i = next++
      results[i] = await task(i)
    }
  }))
  return results
}

/** A game and an API key per board size: { [size]: { gameId, key } }. */
export async function createGames (base, sizes) {
  const games = {}
  for (const size of sizes) games[size] = await createGame(base, gameIdOf(size), `Bench ${sizeLabel(size)}`)
  return games
}

/**
 * The game of the Game Jolt row: one that takes guests, with Game Jolt's
 * API on, its board seeded with `size` guests (guestName). Its { board, link }.
 */
export async function gamejoltGame (base, redis, gameId, size) {
  await createGame(base, gameId, `Bench Game Jolt ${sizeLabel(size)}`, { guests: 'listed' })
  const link = await adminCall(base, 'PUT', `/admin/games/${gameId}/gamejolt`, {})
  return { board: await seedBoard(redis, gameId, size, { nameOf: guestName }), link, gameId }
}

/** The game of the rows with periods: daily, weekly and monthly boards in UTC. */
export const periodGameIdOf = (size) => `bench_periods_${size}`

/** One game (settings: extra game fields) and an API key for it: { gameId, key }. */
export async function createGame (base, gameId, name, settings = {}) {
  await adminCall(base, 'POST', '/admin/games', { game_id: gameId, name, developer: 'bench', approved: true, ...settings })
  return { gameId, key: await adminCall(base, 'POST', '/admin/keys', { game_id: gameId }) }
}

/** The key scopes of the current period boards (UTC) of a game that keeps all three kinds. */
export function currentPeriodScopes (now = Date.now()) {
  return PERIOD_KINDS.map(kind => {
    const period = periodAt(kind, 'UTC', now)
    return { kind, scope: boardScopes.period(kind, period.id), expiresInMs: period.resetsAt - now + 86_400_000 * 400 }
  })
}

/** Users playerName(0..count-1), a session each; their Cookie header values, in order. */
export async function createSessions (base, count) {
  await inParallel(count, 32, i => adminCall(base, 'POST', '/admin/users', { username: playerName(i) }))
  let cookieName = 'sid'
  const sessions = await inParallel(count, 32, async i => {
    const session = await adminCall(base, 'POST', '/admin/sessions', { username: playerName(i) })
    cookieName = session.cookie_name
    return session.session_id
  })
  return sessions.map(id => `${cookieName}=${id}`)
}

/**
 * Writes `size` entries straight into the board zset and the entries hash,
 * in the stored form of the scripts (encode), 1,000 entries per HSET/ZADD and
 * 10,000 per pipeline. Returns the local mirror of the board.
 */
export async function seedBoard (redis, gameId, size, { scope = '', from, expiresInMs, nameOf = playerName } = {}) {
  const best = from?.best ?? new Float64Array(size)
  const ms = from?.ms ?? new Float64Array(size)
  const now = Date.now()
  const boardKey = keys.board(gameId, scope)
  const touched = new Set([boardKey])
  const CHUNK = 1000
  const BATCH = 10_000
  const inFlight = []
  for (let start = 0; start < size; start += BATCH) {
    const pipeline = redis.pipeline()
    for (let chunk = start; chunk < Math.min(size, start + BATCH); chunk += CHUNK) {
      const buckets = new Map()
      const zset = []
      for (let i = chunk; i < Math.min(size, chunk + CHUNK); i++) {
        // A period board gets the mirror it is given (`from`): every player, the same bests.
        const score = from === undefined ? randInt(1_000_000) : best[i]
        const time = from === undefined ? now - randInt(30 * 86_400_000) : ms[i]
        best[i] = score
        ms[i] = time
        const name = nameOf(i)
        // Entries are spread over hashes by a hash of the name (keys.entries).
        const entriesKey = keys.entries(gameId, name, scope)
        touched.add(entriesKey)
        let fields = buckets.get(entriesKey)
        if (fields === undefined) buckets.set(entriesKey, fields = [])
        fields.push(name, encode.entry(score, time))
        zset.push(encode.boardScore(score), encode.member(time, name))
      }
      for (const [entriesKey, fields] of buckets) pipeline.hset(entriesKey, ...fields)
      pipeline.zadd(boardKey, ...zset)
    }
    inFlight.push(pipeline.exec().then(results => {
      for (const [error] of results) if (error) throw error
    }))
    if (inFlight.length >= 4) await inFlight.shift()
  }
  await Promise.all(inFlight)
  // A period board's keys expire, as the submit script leaves them (the expiry costs memory too).
  if (expiresInMs !== undefined) {
    const pipeline = redis.pipeline()
    for (const key of touched) pipeline.pexpire(key, expiresInMs)
    for (const [error] of await pipeline.exec()) if (error) throw error
  }
  return { gameId, size, best, ms }
}

/**
 * A game with all three periods, seeded full: the all-time board, then each
 * current period board with every player on it too (the most a period board
 * holds), and the bytes per entry of each, from INFO memory growth.
 */
export async function seedPeriodGame (redis, gameId, size) {
  const perEntry = {}
  let before = await memoryInfo(redis)
  const board = await seedBoard(redis, gameId, size)
  await sleep(200)
  let after = await memoryInfo(redis)
  perEntry.all = (Number(after.used_memory) - Number(before.used_memory)) / size
  for (const { kind, scope, expiresInMs } of currentPeriodScopes()) {
    before = after
    await seedBoard(redis, gameId, size, { scope, from: board, expiresInMs })
    await sleep(200)
    after = await memoryInfo(redis)
    perEntry[kind] = (Number(after.used_memory) - Number(before.used_memory)) / size
  }
  return { board, memory: { size, perEntry } }
}

/** INFO memory's fields: taken before seeding, for measureMemory. */
export async function memoryInfo (redis) {
  return parseInfo(await redis.info('memory')).fields
}

/** Bytes per entry of the board just seeded: INFO memory growth since `before`, and MEMORY USAGE. */
export async function measureMemory (redis, gameId, size, before) {
  await sleep(200)
  const after = await memoryInfo(redis)
  const boardBytes = await redis.call('MEMORY', 'USAGE', keys.board(gameId), 'SAMPLES', '5000')
  // The entries are spread over many small hashes: add up every bucket's size.
  let entriesBytes = 0
  const bucketKeys = new Set()
  for (let i = 0; i < size; i++) bucketKeys.add(keys.entries(gameId, playerName(i)))
  const bucketList = [...bucketKeys]
  for (let i = 0; i < bucketList.length; i += 500) {
    const pipeline = redis.pipeline()
    for (const key of bucketList.slice(i, i + 500)) pipeline.call('MEMORY', 'USAGE', key, 'SAMPLES', '0')
    for (const [error, bytes] of await pipeline.exec()) {
      if (error) throw error
      entriesBytes += Number(bytes)
    }
  }
  return {
    size,
    usedBefore: Number(before.used_memory),
    usedAfter: Number(after.used_memory),
    perEntry: (Number(after.used_memory) - Number(before.used_memory)) / size,
    boardPerEntry: boardBytes / size,
    entriesPerEntry: entriesBytes / size,
    encodings: [await redis.object('ENCODING', keys.board(gameId)), await redis.object('ENCODING', keys.entries(gameId, playerName(0)))]
  }
}

/** The 1-based rank of player i by the board rule, counted over the mirror. */
function expectedRank (board, i) {
  const { best, ms, size } = board
  const name = playerName(i)
  let rank = 1
  for (let j = 0; j < size; j++) {
    if (best[j] > best[i] || (best[j] === best[i] && (ms[j] < ms[i] || (ms[j] === ms[i] && playerName(j) < name)))) rank++
  }
  return rank
}

/** Checks a seeded board through the service's `me` (a few players) and `top` (the total). */
export async function verifySeed (service, board, apiKey, boardId) {
  const base = `${service.base}/api/rank?api_key=${apiKey}&game_id=${board.gameId}${boardId === undefined ? '' : `&board=${boardId}`}`
  const samples = [0, board.size - 1, randInt(board.size), randInt(board.size), randInt(board.size)]
  for (const i of samples) {
    const answer = await (await fetch(`${base}&action=me&player_name=${playerName(i)}`)).json()
    const rank = expectedRank(board, i)
    if (answer.ok !== true || answer.data.best_score !== board.best[i] || answer.data.rank !== rank) {
      throw new Error(`seed check failed on ${board.gameId} for ${playerName(i)}: expected best ${board.best[i]} rank ${rank}, got ${JSON.stringify(answer)}`)
    }
  }
  const top = await (await fetch(`${base}&action=top&limit=1`)).json()
  if (top.ok !== true || top.data.total !== board.size) throw new Error(`seed check failed on ${board.gameId}: top total ${JSON.stringify(top.data?.total)}, expected ${board.size}`)
}

/**
 * `size` submits for random players among the first `users` of the board:
 * about half improve the player's best (by 1..1000), the others are at or
 * below it. `commit(sent)` moves the mirror's bests forward for the first
 * `sent` of them, the ones that were sent.
 */
export function scoreMix (board, users, size) {
  const pending = new Map()
  const players = new Int32Array(size)
  const scores = new Float64Array(size)
  for (let k = 0; k < size; k++) {
    const i = randInt(users)
    const current = pending.get(i) ?? board.best[i]
    const score = rng() < 0.5 ? current + 1 + randInt(1000) : randInt(current + 1)
    if (score > current) pending.set(i, score)
    players[k] = i
    scores[k] = score
  }
  const commit = (sent) => {
    for (let k = 0; k < Math.min(sent, players.length); k++) {
      const i = players[k]
      if (scores[k] > board.best[i]) board.best[i] = scores[k]
    }
  }
  return { players, scores, commit }
}

/**
 * A game's own board and its named board `lap` with the same players and
 * bests (docs/decisions/0070-named-boards-one-game-many-boards-in-its.md), and the bytes per entry of each, from INFO
 * memory growth: a named board's keys are the own board's with a longer
 * scope, so the two should be within a few bytes.
 */
export async function seedNamedGame (redis, gameId, size) {
  let before = await memoryInfo(redis)
  const board = await seedBoard(redis, gameId, size)
  await sleep(200)
  let after = await memoryInfo(redis)
  const perEntry = { own: (Number(after.used_memory) - Number(before.used_memory)) / size }
  before = after
  const named = await seedBoard(redis, gameId, size, { scope: boardScopes.named('lap'), from: board })
  await sleep(200)
  after = await memoryInfo(redis)
  perEntry.named = (Number(after.used_memory) - Number(before.used_memory)) / size
  return { board, named, memory: { size, perEntry } }
}
