import { userInfo } from 'node:os'
import type { RedisClient as Redis } from '../store/redis-client.js'
import { createAdmin, type AdminOperations } from '../operations/index.js'
import { createAuditLog } from '../store/audit.js'
import { loadConfig, type Config } from '../config.js'
import { runningManagedRedis, startManagedRedis, type ManagedRedis } from '../lib/managed-redis.js'
import { closeRedis, connectRedis, setWriteConcern } from '../store/redis-client.js'
import { createLeaderboard } from '../store/leaderboard.js'
import { createRecordStore } from '../store/games-and-keys.js'
import { priorNow } from '../rules/ratings.js'
import { markGamesChanged, platformMeanOf } from '../store/games-index.js'
import { createRatings } from '../store/ratings.js'
import { createPlaytime } from '../store/playtime.js'
import { createActivity } from '../store/activity.js'
import { createUserStore } from '../store/users.js'
import { createReviewQueue } from '../store/review.js'
import { createWebhookStore } from '../store/webhooks.js'
import { createEvents } from '../store/events.js'
import { createBoardStore } from '../store/named-boards.js'
import { createAchievementStore } from '../store/achievements.js'
import { createGamejoltStore } from '../store/gamejolt.js'
import type { CliIo } from './io.js'

/** Who runs the command, for the audit log: the OS user (or USER, or the uid, where the system has no name for it). */
function osUser (env: CliIo['env']): string {
  try {
    return userInfo().username
  } catch {
    return env.USER ?? String(process.getuid?.() ?? 'unknown')
  }
}

/** Connects to REDIS_URL, or to the managed redis-server (starting it when it is not running). */
export async function connect (env: CliIo['env']): Promise<{ redis: Redis, managed: ManagedRedis | undefined }> {
  const config = loadConfig(env)
  let url = config.redisUrl
  let managed: ManagedRedis | undefined
  url ??= await runningManagedRedis(config.dataDir)
  if (url === undefined) {
    managed = await startManagedRedis(config.dataDir)
    url = managed.url
  }
  try {
    // Errors are reported through the failed command instead.
    const redis = await connectRedis(url, 5000, client => { client.on('error', () => {}) })
    setWriteConcern(redis, config.writeConcern)
    return { redis, managed }
  } catch (error) {
    await managed?.stop()
    throw error
  }
}

/** Closes the connection, and stops the redis-server if the command started it. */
export async function disconnect ({ redis, managed }: { redis: Redis, managed: ManagedRedis | undefined }): Promise<void> {
  await closeRedis(redis)
  await managed?.stop()
}

/** The admin operations on the connection, with the stores and settings the service gives them, as the OS user (`cli:<name>`). */
export async function operationsOf (redis: Redis, config: Config, env: CliIo['env']): Promise<AdminOperations> {
  // The weighted figures the CLI prints lean on the platform's mean as the service's games index last wrote it.
  const platformMean = await platformMeanOf(redis)
  const records = createRecordStore(redis)
  const activity = createActivity(redis)
  const namedBoards = createBoardStore(redis)
  const admin = createAdmin({
    records,
    namedBoards,
    achievements: createAchievementStore(redis),
    review: createReviewQueue(redis),
    webhooks: createWebhookStore(redis),
    events: createEvents(redis),
    webhookAllowPrivate: config.webhooks.allowPrivate,
    users: createUserStore(redis),
    leaderboard: createLeaderboard(redis, { freshGame: async gameId => await records.game(gameId), freshBoards: async gameId => await namedBoards.boards(gameId), activity }),
    sessionTtlS: config.sessionTtlS,
    guestTtlS: config.guestTtlS,
    sessionCookie: config.sessionCookie,
    audit: createAuditLog(redis, { retentionMs: config.auditRetentionMs }),
    // A rating the CLI removes moves the games list, which the service's instances write: they are told.
    ratings: createRatings(redis, priorNow(config.ratingPrior, () => platformMean), { changed: async gameId => { await markGamesChanged(redis, [gameId]) } }),
    playtime: createPlaytime(redis, activity),
    activity,
    gamejolt: createGamejoltStore(redis)
  })
  return admin.as({ name: `cli:${osUser(env)}`, via: 'cli' })
}
