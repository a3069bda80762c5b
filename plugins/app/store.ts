import fp from 'fastify-plugin'
import { createAdmin, type Admin } from '../../src/operations/index.js'
import { createAuditLog } from '../../src/store/audit.js'
import { createLeaderboard, type Leaderboard } from '../../src/store/leaderboard.js'
import { createPlaytime, type Playtime } from '../../src/store/playtime.js'
import { createRatings, type Ratings } from '../../src/store/ratings.js'
import { createRecordStore, type RecordStore } from '../../src/store/games-and-keys.js'
import { createActivity } from '../../src/store/activity.js'
import { createUserStore, type UserStore } from '../../src/store/users.js'
import { createRecordCache, type RecordCache } from '../../src/store/cache.js'
import { createReviewQueue } from '../../src/store/review.js'
import { createWebhookStore, type WebhookStore } from '../../src/store/webhooks.js'
import { createEvents } from '../../src/store/events.js'
import { createSignupChallenges, type SignupChallenges } from '../../src/store/signup-challenges.js'
import { createSigninFlows, type SigninFlows } from '../../src/store/signin-flows.js'
import { createRuns, type Runs } from '../../src/store/runs.js'
import { createBoardStore, type BoardStore } from '../../src/store/named-boards.js'
import { createAchievementStore, type AchievementStore } from '../../src/store/achievements.js'
import { createGamejoltStore, type GamejoltStore } from '../../src/store/gamejolt.js'
import { createGamesIndex, type GamesIndex } from '../../src/store/games-index.js'
import { gameFolders, hasFiles } from '../../src/lib/game-files.js'

declare module 'fastify' {
  interface FastifyInstance {
    records: RecordStore
    /** The games' named boards (docs/decisions/0070-named-boards-one-game-many-boards-in-its.md). */
    namedBoards: BoardStore
    achievements: AchievementStore
    users: UserStore
    leaderboard: Leaderboard
    ratings: Ratings
    playtime: Playtime
    admin: Admin
    webhooks: WebhookStore
    signupChallenges: SignupChallenges
    signinFlows: SigninFlows
    runs: Runs
    /** The games' Game Jolt API settings (docs/gamejolt.md). */
    gamejolt: GamejoltStore
    /** Every listed game's figures, ranked (GET /api/games, the front page). */
    gamesIndex: GamesIndex
    /** Resolves once this process has applied every cache invalidation published so far. */
    syncRecordCache: () => Promise<void>
    /** Hears every change of a key, game, user or session record, on any instance (no kind: changes may have been missed). */
    onRecordChange: RecordCache['onChange']
  }
}

export interface StoreOptions {
  /** Tests only: the clock of calendar periods, which the board scripts then take instead of the Redis clock. */
  clock?: () => number
}

/** The Redis-backed repositories and the operator operations built on them. */
export default fp<StoreOptions>(async (fastify, { clock }) => {
  const { redis, config } = fastify
  const { cache, close } = await createRecordCache(redis)
  fastify.addHook('onClose', close)
  fastify.decorate('syncRecordCache', async () => { await cache.sync(redis) })
  fastify.decorate('onRecordChange', cache.onChange.bind(cache))
  const records = createRecordStore(redis, cache)
  const namedBoards = createBoardStore(redis, cache)
  fastify.decorate('namedBoards', namedBoards)
  const achievements = createAchievementStore(redis, cache)
  fastify.decorate('achievements', achievements)
  const users = createUserStore(redis, cache)
  const activity = createActivity(redis)
  fastify.addHook('onClose', activity.close)
  const leaderboard = createLeaderboard(redis, { freshGame: async gameId => await records.game(gameId, { fresh: true }), freshBoards: async gameId => await namedBoards.boards(gameId, { fresh: true }), clock, activity })
  // A game's record changed (its season closed, its settings moved): its top pages go; all go when changes may have been missed.
  cache.onChange((kind, id) => { if (kind === undefined || kind === 'game') leaderboard.gameChanged(id) })
  fastify.decorate('records', records)
  fastify.decorate('users', users)
  fastify.decorate('leaderboard', leaderboard)
  // The games index keeps the platform's mean, which every weighted score leans on, and reads the games' rating figures.
  // (Both are called only once the index below exists.)
  const ratings = createRatings(redis, () => gamesIndex.priorNow(), { changed: gameId => { gamesIndex.touch(gameId, { now: true }) } })
  fastify.decorate('ratings', ratings)
  const folders = gameFolders(config.demo)
  const gamesIndex: GamesIndex = createGamesIndex(redis, { records, ratings, activity, prior: config.ratingPrior, hosted: async gameId => await hasFiles(folders, gameId), freshMs: config.gamesListFreshS * 1000 })
  fastify.decorate('gamesIndex', gamesIndex)
  // Before the onClose hooks (Redis's among them): its last write needs the connection.
  fastify.addHook('preClose', gamesIndex.close)
  // A game's record changed (created, renamed, listed, approved, deleted; or an operator's write to its ratings): its card follows.
  cache.onChange((kind, id) => { if (kind === 'game' && id !== undefined) gamesIndex.touch(id, { now: true }) })
  // Counted again at start when no instance did in the hour, in the background: a start never waits on the index.
  fastify.addHook('onReady', async () => { gamesIndex.rebuild().catch(() => {}) })
  const playtime = createPlaytime(redis, {
    count (gameId, player, field, amount, ms) {
      activity.count(gameId, player, field, amount, ms)
      gamesIndex.touch(gameId)
    }
  })
  fastify.decorate('playtime', playtime)
  const webhooks = createWebhookStore(redis)
  fastify.decorate('webhooks', webhooks)
  fastify.decorate('signupChallenges', createSignupChallenges(redis, { work: config.signupWork }))
  fastify.decorate('signinFlows', createSigninFlows(redis))
  fastify.decorate('runs', createRuns(redis))
  const gamejolt = createGamejoltStore(redis, cache)
  fastify.decorate('gamejolt', gamejolt)
  fastify.decorate('admin', createAdmin({ records, namedBoards, achievements, review: createReviewQueue(redis), webhooks, events: createEvents(redis), webhookAllowPrivate: config.webhooks.allowPrivate, users, leaderboard, sessionTtlS: config.sessionTtlS, guestTtlS: config.guestTtlS, sessionCookie: config.sessionCookie, audit: createAuditLog(redis, { retentionMs: config.auditRetentionMs }), ratings, playtime, activity, gamejolt }))
}, { name: 'store', dependencies: ['redis'] })
