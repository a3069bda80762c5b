// `npm run bench:script`: what the submit and top scripts cost Redis, without
// HTTP: the store's own calls (dist/src/store/leaderboard.js, with the two
// rate-limit counters of a signed submit) and the minimal design's script
// (bench/minimal.mjs: ZADD GT, ZREVRANK, ZSCORE), each run for N calls, 50 at
// a time, on one redis-server of its own, in alternating rounds. Redis CPU per
// call is the INFO cpu delta over N; only redis-server is measured, so the
// figures barely move with the rest of the box (bench:cost and bench measure
// the whole request).
//
// Options: --calls=20000, --rounds=3.
import { randomBytes } from 'node:crypto'
import { ensureBuild, ensureDependencies } from '../scripts/runtime.mjs'

const argv = process.argv.slice(2)
const flag = (name, fallback) => Number(argv.find(arg => arg.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback)
const CALLS = flag('calls', 20_000)
const ROUNDS = flag('rounds', 3)
const CONCURRENCY = 50
const PLAYERS = 1000

ensureDependencies()
ensureBuild()

const { BUDGETS, budgetLine } = await import('./lib/budgets.mjs')
const { fmt, markdownTable } = await import('./lib/format.mjs')
const { cleanupSync, stopProcess } = await import('./lib/processes.mjs')
const { diffStats, redisClient, redisStats, startRedis } = await import('./lib/redis.mjs')
const { keys } = await import('./lib/compiled.mjs')
const { createLeaderboard } = await import('../dist/src/store/leaderboard.js')
const { createRecordStore, DEFAULT_CAPS } = await import('../dist/src/store/games-and-keys.js')
const { createActivity } = await import('../dist/src/store/activity.js')
const { createBoardStore } = await import('../dist/src/store/named-boards.js')
const { DEFAULT_BOARD_SETTINGS } = await import('../dist/src/rules/boards.js')
const { createAchievementStore } = await import('../dist/src/store/achievements.js')
const { DEFAULT_FAIR_PLAY, DEFAULT_PERIODS, DEFAULT_RUNS } = await import('../dist/src/rules/games.js')
const { playerName } = await import('./lib/seed.mjs')
const { randInt } = await import('./lib/random.mjs')

const MINIMAL_SUBMIT = `
local changed = redis.call('ZADD', KEYS[1], 'GT', 'CH', ARGV[1], ARGV[2])
return { changed, redis.call('ZREVRANK', KEYS[1], ARGV[2]), redis.call('ZSCORE', KEYS[1], ARGV[2]) }`
const MINIMAL_TOP = `
return { redis.call('ZCARD', KEYS[1]), redis.call('ZREVRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1, 'WITHSCORES') }`

/** Runs `call(i)` CALLS times, CONCURRENCY at once; returns Redis CPU µs and commands per call. */
async function measure (redis, call) {
  for (let i = 0; i < 500; i++) await call(i) // warm: scripts loaded, caches filled
  const before = await redisStats(redis)
  let next = 0
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < CALLS) await call(next++)
  }))
  const delta = diffStats(before, await redisStats(redis))
  return { us: delta.cpuUs / CALLS, commands: delta.total / CALLS }
}

let redisServer
let redis
let activity
try {
  redisServer = await startRedis()
  redis = redisClient(redisServer.port)
  const records = createRecordStore(redis)
  activity = createActivity(redis)
  const leaderboard = createLeaderboard(redis, { freshGame: async gameId => await records.game(gameId), activity })
  const gameId = 'script_cost'
  const createdAt = new Date().toISOString()
  // A plain game, as the operations' createGame makes it with no settings given.
  await records.createGame({ game_id: gameId, name: 'Script cost', developer: 'bench', approved: true, created_at: createdAt, ...DEFAULT_CAPS, ...DEFAULT_PERIODS, periods: [], ...DEFAULT_FAIR_PLAY, guests: 'off', ...DEFAULT_RUNS, season: 1, season_started_at: createdAt })
  const game = await records.game(gameId)
  if (game === null) throw new Error('the game was not made')
  // The same game but for runs 'optional' (and no run sent): the same work, by the full submit script (lua/submit.lua, not submit-plain.lua).
  await records.createGame({ ...game, game_id: `${gameId}_full`, runs: 'optional' })
  const fullGame = await records.game(`${gameId}_full`)
  if (fullGame === null) throw new Error('the game was not made')
  // Named boards of the plain game (docs/decisions/0070-named-boards-one-game-many-boards-in-its.md): a best one and a sum one, seeded like its own board.
  const namedBoards = createBoardStore(redis)
  for (const [boardId, operator] of [['level', 'best'], ['coins', 'sum']]) {
    const made = await namedBoards.create(gameId, { board_id: boardId, name: boardId, ...DEFAULT_BOARD_SETTINGS, operator, periods: [], created_at: createdAt })
    if (typeof made === 'string') throw new Error(`the board ${boardId} was not made: ${made}`)
  }
  const boards = await namedBoards.boards(gameId, { fresh: true })
  const level = boards.get('level')
  const coins = boards.get('coins')
  // The plain game again, with achievements (docs/decisions/0071-achievements-settings-in-the-games-slot-unlocks-in.md): three thresholds on its own board, far above the scores (checked, none reached).
  await records.createGame({ ...game, game_id: `${gameId}_achievements` })
  const achievementsGame = await records.game(`${gameId}_achievements`)
  if (achievementsGame === null) throw new Error('the game was not made')
  const achievementStore = createAchievementStore(redis)
  for (const [i, threshold] of [1e9, 2e9, 3e9].entries()) {
    const made = await achievementStore.create(achievementsGame.game_id, { achievement_id: `a${i}`, name: `a${i}`, description: '', points: 0, hidden: false, rule: { board: 'default', at_least: threshold, at_most: null }, icon: null, created_at: createdAt })
    if (typeof made === 'string') throw new Error(`the achievement was not made: ${made}`)
  }
  const minimalBoard = `minimal:{game:${gameId}}:board`
  redis.defineCommand('minimalSubmit', { numberOfKeys: 1, lua: MINIMAL_SUBMIT })
  redis.defineCommand('minimalTop', { numberOfKeys: 1, lua: MINIMAL_TOP })
  // The counters of a signed submit (plugins/app/rate-limit.ts): per (key, address) and the key's total.
  const counters = [
    { key: keys.rateLimitCounter('apiKey', keys.apiKeyLimitSubject(gameId, 'rk_bench', '127.0.0.1')), max: 1e12, windowMs: 3_600_000 },
    { key: keys.rateLimitCounter('apiKeyTotal', keys.apiKeyLimitSubject(gameId, 'rk_bench')), max: 1e12, windowMs: 3_600_000 }
  ]
  const limits = () => ({ counters })
  const readLimits = () => ({ counters: counters.slice(0, 1) })
  for (let i = 0; i < PLAYERS; i++) {
    const score = randInt(1_000_000)
    for (const seeded of [game, fullGame]) await leaderboard.submit(seeded, playerName(i), score, undefined, { signed: { ts: String(Math.floor(Date.now() / 1000)), sign: randomBytes(32).toString('hex') } })
    for (const board of [level, coins]) await leaderboard.submit(game, playerName(i), score, undefined, { board })
    await leaderboard.submit(achievementsGame, playerName(i), score, undefined, { signed: { ts: String(Math.floor(Date.now() / 1000)), sign: randomBytes(32).toString('hex') } })
    await redis.zadd(minimalBoard, score, playerName(i))
  }
  // About half the submits raise a best (as the bench's scenarios): a score around the player's own.
  const score = () => randInt(1_100_000)
  const cases = {
    // As the submit action sends it: its answer has no total (submit-self's has).
    'submit (service script)': async () => {
      const ts = String(Math.floor(Date.now() / 1000))
      await leaderboard.submit(game, playerName(randInt(PLAYERS)), score(), undefined, { signed: { ts, sign: randomBytes(32).toString('hex') }, limits: limits(), total: false })
    },
    'submit, full script (runs optional, no run sent)': async () => {
      const ts = String(Math.floor(Date.now() / 1000))
      await leaderboard.submit(fullGame, playerName(randInt(PLAYERS)), score(), undefined, { signed: { ts, sign: randomBytes(32).toString('hex') }, limits: limits() })
    },
    'submit, game with achievements (3 thresholds, none reached)': async () => {
      const ts = String(Math.floor(Date.now() / 1000))
      await leaderboard.submit(achievementsGame, playerName(randInt(PLAYERS)), score(), undefined, { signed: { ts, sign: randomBytes(32).toString('hex') }, limits: limits() })
    },
    'submit, named board (best)': async () => {
      const ts = String(Math.floor(Date.now() / 1000))
      await leaderboard.submit(game, playerName(randInt(PLAYERS)), score(), undefined, { signed: { ts, sign: randomBytes(32).toString('hex') }, limits: limits(), board: level })
    },
    'submit, named board (sum)': async () => {
      const ts = String(Math.floor(Date.now() / 1000))
      await leaderboard.submit(game, playerName(randInt(PLAYERS)), randInt(100), undefined, { signed: { ts, sign: randomBytes(32).toString('hex') }, limits: limits(), board: coins })
    },
    'submit, 2 boards in one call (own + best)': async () => {
      const ts = String(Math.floor(Date.now() / 1000))
      await leaderboard.submitMany(game, playerName(randInt(PLAYERS)), [{ board: undefined, score: score() }, { board: level, score: score() }], undefined, { signed: { ts, sign: randomBytes(32).toString('hex') }, limits: limits() })
    },
    'submit, 3 boards in one call (own + best + sum)': async () => {
      const ts = String(Math.floor(Date.now() / 1000))
      await leaderboard.submitMany(game, playerName(randInt(PLAYERS)), [{ board: undefined, score: score() }, { board: level, score: score() }, { board: coins, score: randInt(100) }], undefined, { signed: { ts, sign: randomBytes(32).toString('hex') }, limits: limits() })
    },
    'submit, session mode (no replay marker)': async () => {
      await leaderboard.submit(game, playerName(randInt(PLAYERS)), score(), undefined, { limits: readLimits() })
    },
    'submit (minimal script)': async () => { await redis.minimalSubmit(minimalBoard, score(), playerName(randInt(PLAYERS))) },
    'top20, unchanged (service)': async () => { await leaderboard.top(game, leaderboard.choose(game, {}), 0, 20, readLimits()) },
    'top20 (minimal script)': async () => { await redis.minimalTop(minimalBoard, 20) }
  }
  const rows = {}
  for (let round = 1; round <= ROUNDS; round++) {
    for (const [name, call] of Object.entries(cases)) {
      const figure = await measure(redis, call)
      ;(rows[name] ??= []).push(figure)
      console.log(`bench: round ${round}: ${name}: ${fmt(figure.us, 1)} µs, ${fmt(figure.commands, 2)} commands per call`)
    }
  }
  const mean = (name, key) => rows[name].reduce((sum, row) => sum + row[key], 0) / rows[name].length
  console.log(`\n${ROUNDS} rounds of ${CALLS} calls, ${CONCURRENCY} at once, a board of ${PLAYERS}; Redis CPU from INFO cpu, commands from INFO stats\n`)
  console.log(markdownTable(['call', 'Redis µs per call', 'commands per call', 'per round (µs)'], Object.keys(cases).map(name => [
    name, fmt(mean(name, 'us'), 1), fmt(mean(name, 'commands'), 2), rows[name].map(row => fmt(row.us, 1)).join(', ')
  ]), ['l', 'r', 'r', 'l']))
  const submitUs = mean('submit (service script)', 'us')
  const submitCommands = mean('submit (service script)', 'commands')
  const topUs = mean('top20, unchanged (service)', 'us')
  console.log('')
  console.log(budgetLine(submitUs <= BUDGETS.plainSubmit.us, `Redis CPU per signed submit, plain game, without HTTP: ${fmt(submitUs, 1)} µs (budget <= ${BUDGETS.plainSubmit.us})`))
  console.log(budgetLine(submitCommands <= BUDGETS.plainSubmit.commands, `Redis commands per signed submit, plain game: ${fmt(submitCommands, 2)} (budget <= ${BUDGETS.plainSubmit.commands})`))
  console.log(budgetLine(topUs <= BUDGETS.unchangedTop20.us, `Redis CPU per top20 of an unchanged board, without HTTP: ${fmt(topUs, 1)} µs (budget <= ${BUDGETS.unchangedTop20.us})`))
} catch (error) {
  console.error(`bench: ${error.stack ?? error}`)
  process.exitCode = 1
} finally {
  await activity?.close?.()
  redis?.disconnect()
  await stopProcess(redisServer?.child)
  cleanupSync()
}
