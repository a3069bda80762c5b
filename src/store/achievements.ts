import { readPipeline, type RedisClient as Redis } from './redis-client.js'
import { createHash } from 'node:crypto'
import { defineScript, luaScript } from './script-loader.js'
import { ENTRY_BUCKETS, TIME_DIGITS, keys } from './keys.js'
import { OUTBOX_MAX } from './events.js'
import { changeRecord, type RecordCache } from './cache.js'
import { fail } from '../errors.js'
import { invalidRun } from './runs.js'
import { DIFFICULTIES, ICON_TYPES, MAX_ACHIEVEMENTS, PLAYERS_FIELD, type Achievement, type AchievementIcon, type AchievementRule } from '../rules/achievements.js'
import { gamejoltIdOf, storedGamejoltId } from '../rules/gamejolt-ids.js'

/*
 * A game's achievements (docs/decisions/0071-achievements-settings-in-the-games-slot-unlocks-in.md): their settings, one JSON
 * value each in keys.achievements, read into the record cache (kind
 * 'achievements'); the thresholds the submit script reads, made again by
 * every write (lua/achievement-write.lua); each player's unlocks in their
 * bucket of keys.achieved and the counts rarity is worked out from.
 */

const WRITE = luaScript('achievement-write')
const UNLOCK = luaScript('achievement-unlock', { TIME_DIGITS, OUTBOX_MAX })
const TAKE_BACK = luaScript('achievement-take-back')

const safeInteger = (value: unknown): number | null => typeof value === 'number' && Number.isSafeInteger(value) ? value : null

function ruleOf (value: unknown): AchievementRule | null {
  if (typeof value !== 'object' || value === null) return null
  const rule = value as Record<string, unknown>
  const atLeast = safeInteger(rule.at_least)
  const atMost = safeInteger(rule.at_most)
  if (typeof rule.board !== 'string' || (atLeast === null) === (atMost === null)) return null
  return { board: rule.board, at_least: atLeast, at_most: atMost }
}

function iconOf (value: unknown): AchievementIcon | null {
  if (typeof value !== 'object' || value === null) return null
  const icon = value as Record<string, unknown>
  const type = ICON_TYPES.find(one => one === icon.content_type)
  if (type === undefined || typeof icon.bytes !== 'number' || typeof icon.etag !== 'string') return null
  return { content_type: type, bytes: icon.bytes, etag: icon.etag }
}

/** A stored achievement, read as the operations write it; a value that is not theirs (written by hand) reads as its default. */
export function achievementFromStored (achievementId: string, text: string): StoredAchievement {
  let parsed: unknown
  try { parsed = JSON.parse(text) } catch { parsed = {} }
  const stored = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, unknown>
  const points = safeInteger(stored.points)
  return {
    achievement_id: achievementId,
    name: typeof stored.name === 'string' && stored.name !== '' ? stored.name : achievementId,
    description: typeof stored.description === 'string' ? stored.description : '',
    points: points !== null && points >= 0 && points <= 1000 ? points : 0,
    hidden: stored.hidden === true,
    rule: ruleOf(stored.rule),
    min_run_seconds: Math.max(0, safeInteger(stored.min_run_seconds) ?? 0),
    difficulty: DIFFICULTIES.find(one => one === stored.difficulty) ?? 'bronze',
    gamejolt_id: storedGamejoltId(stored.gamejolt_id, achievementId),
    icon: iconOf(stored.icon),
    created_at: typeof stored.created_at === 'string' ? stored.created_at : '',
    since: safeInteger(stored.since) ?? 0
  }
}

/** As stored: the id is the field's name; the write script adds `since` (lua/achievement-write.lua), so nothing else may come last. */
function storedAchievement ({ achievement_id: id, since: _since, gamejolt_id: gamejoltId, ...settings }: Achievement & { since?: number }): string {
  // The trophy id is kept only when an operator set one: the made one follows from the id.
  return JSON.stringify(gamejoltId === gamejoltIdOf(id) ? settings : { ...settings, gamejolt_id: gamejoltId })
}

/** An achievement as the store keeps it: `since`, the ms (Redis clock) from which an unlock of it counts. */
export type StoredAchievement = Achievement & { since: number }

/** An icon's hash, its URL's version and ETag. */
export const iconEtag = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('base64url').slice(0, 16)

/** What a write answers besides success. */
export type AchievementWriteRefusal = 'no_game' | 'exists' | 'full' | 'no_achievement'

/** What an icon write does: keep the stored icon, take new bytes, or remove it. */
export type IconChange = 'keep' | 'clear' | Uint8Array

const ATTEMPTS = 3

/** One player's unlocks: achievement id -> when (ms), only those at or after the achievement was made. */
export type Unlocks = Map<string, number>

/** How many achieved buckets a walk over every player reads in one pipeline, and how many fields of each an HSCAN step asks for: a few thousand players a round trip. */
const BUCKETS_PER_READ = 32
const FIELDS_PER_SCAN = 100

/** A player's field of keys.achieved ("<id> <ms>" lines: lua/includes/achievements.lua) as the unlocks that count. */
function unlocksOf (field: string | null, achievements: Map<string, StoredAchievement>): Unlocks {
  const unlocks: Unlocks = new Map()
  for (const line of (field ?? '').split('\n')) {
    const [id, ms] = line.split(' ')
    const achievement = achievements.get(id ?? '')
    if (achievement === undefined || ms === undefined) continue
    if (Number(ms) >= achievement.since) unlocks.set(achievement.achievement_id, Number(ms))
  }
  return unlocks
}

export function createAchievementStore (redis: Redis, cache?: RecordCache) {
  const writeScript = defineScript<number>(redis, 'achievementWrite', WRITE, { writes: true })
  const unlockScript = defineScript<[string, string?, number?]>(redis, 'achievementUnlock', UNLOCK, { writes: true })
  const takeBackScript = defineScript<[string, string?]>(redis, 'achievementTakeBack', TAKE_BACK, { writes: true })

  async function write (gameId: string, op: 'create' | 'update' | 'delete', id: string, settings: string, icon: IconChange, before = ''): Promise<number> {
    const iconArgs: Array<string | Buffer> = icon === 'keep' ? ['', ''] : icon === 'clear' ? ['clear', ''] : ['set', Buffer.from(icon)]
    return await changeRecord(redis, cache, 'achievements', gameId, async () => await writeScript(
      [keys.game(gameId), keys.achievements(gameId), keys.achievementRules(gameId), keys.achievementIcon(gameId, id), keys.achievementCounts(gameId)],
      [op, id, settings, MAX_ACHIEVEMENTS, ...iconArgs as string[], before]))
  }

  return {
    /** The game's achievements by id (from the cache unless `fresh`), in id order. */
    async achievements (gameId: string, { fresh = false } = {}): Promise<Map<string, StoredAchievement>> {
      const cached = fresh ? undefined : cache?.get<Map<string, StoredAchievement>>('achievements', gameId)
      if (cached !== undefined) return cached
      const stamp = cache?.stamp() ?? 0
      const stored = await redis.hgetall(keys.achievements(gameId))
      const achievements = new Map(Object.keys(stored).sort().map(id => [id, achievementFromStored(id, stored[id] as string)]))
      cache?.set('achievements', gameId, achievements, stamp)
      return achievements
    },

    /** Adds an achievement (with its icon's bytes, when given); the stored one, or why not. */
    async create (gameId: string, achievement: Achievement, icon?: Uint8Array): Promise<Achievement | AchievementWriteRefusal> {
      const made = await write(gameId, 'create', achievement.achievement_id, storedAchievement(achievement), icon ?? 'keep')
      if (made === 1) return achievement
      return made === 0 ? 'no_game' : made === -1 ? 'exists' : 'full'
    },

    /** Replaces an achievement's settings with `change(before)`'s, and its icon as `icon` says; made again when another write came between. */
    async update (gameId: string, id: string, change: (before: Achievement) => Achievement, icon: IconChange = 'keep'): Promise<{ before: Achievement, after: Achievement } | AchievementWriteRefusal> {
      for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
        const stored = await redis.hget(keys.achievements(gameId), id)
        if (stored === null) return 'no_achievement'
        const before = achievementFromStored(id, stored)
        const after = change(before)
        const written = await write(gameId, 'update', id, storedAchievement(after), icon, stored)
        if (written === 1) return { before, after }
        if (written === 0) return 'no_game'
        if (written === -3) return 'no_achievement'
      }
      throw new Error(`achievement ${id} of game ${gameId} kept changing`)
    },

    /** Deletes an achievement and its icon; its unlocks no longer count (one made again with its id starts anew). */
    async remove (gameId: string, id: string): Promise<boolean> {
      return await write(gameId, 'delete', id, '', 'keep') === 1
    },

    /** An achievement's icon: its bytes, or null. */
    async icon (gameId: string, id: string): Promise<Buffer | null> {
      return await redis.getBuffer(keys.achievementIcon(gameId, id))
    },

    /**
     * The game unlocks an achievement for a player (with the run it was
     * earned in: `run`, started with the game's keys when `byKey`, by
     * session otherwise): whether it was unlocked now, and when it was; null
     * for no such achievement. run_required and invalid_run as a submit's.
     */
    async unlock (gameId: string, id: string, player: string, { run, byKey = false }: { run?: string, byKey?: boolean } = {}): Promise<{ unlocked: boolean, at: number } | null> {
      const [outcome, at, verified] = await unlockScript([keys.game(gameId), keys.achievements(gameId), keys.achieved(gameId, player), keys.achievementCounts(gameId), keys.events(gameId), keys.playerRuns(gameId, player, byKey), keys.hiddenPlayers(gameId), keys.boardHiddenUsers(gameId), keys.live(gameId)], [id, player, run ?? ''])
      if (outcome === 'unknown') return null
      if (outcome === 'run_required') fail('run_required', 'This unlock needs the run_id of the run it was earned in (action=run-start): the game requires runs, or the achievement asks for verified play.')
      if (outcome === 'invalid_run') invalidRun(String(at))
      if (outcome === 'play_required') {
        const needed = Number(at) - Number(verified)
        fail('play_required', `This achievement needs ${String(at)} s of the run's verified play, and the run has ${String(verified)} s: ${needed} more second${needed === 1 ? '' : 's'} of play are needed (report it, then unlock).`)
      }
      return { unlocked: outcome === 'unlocked', at: Number(at) }
    },

    /**
     * Takes back a player's unlock (Game Jolt's remove-achieved): whether
     * there was one, and when it had been; null for no such achievement.
     */
    async takeBack (gameId: string, id: string, player: string): Promise<{ taken: boolean, at: number | null } | null> {
      const [outcome, at] = await takeBackScript([keys.achievements(gameId), keys.achieved(gameId, player), keys.achievementCounts(gameId)], [id, player])
      if (outcome === 'unknown') return null
      return { taken: outcome === 'taken', at: at === undefined ? null : Number(at) }
    },

    /** What a player unlocked (counted from when each achievement was made), and the counts rarity comes from. */
    async progress (gameId: string, player: string | undefined, achievements: Map<string, StoredAchievement>): Promise<{ unlocks: Unlocks, counts: Map<string, number>, players: number }> {
      const [field, counts] = await Promise.all([
        player === undefined ? null : redis.hget(keys.achieved(gameId, player), player),
        redis.hgetall(keys.achievementCounts(gameId))
      ])
      const unlocks = unlocksOf(field, achievements)
      const numbers = new Map(Object.entries(counts).map(([id, count]) => [id, Number(count)]))
      return { unlocks, counts: numbers, players: numbers.get(PLAYERS_FIELD) ?? 0 }
    },

    /**
     * Every player's unlocks that count (`player`: only theirs), a batch of
     * players at a time, in no particular order: the game's achieved
     * buckets walked with HSCAN, BUCKETS_PER_READ of them a pipeline, so a
     * game of millions of players is read in pieces, never whole.
     */
    async * everyUnlock (gameId: string, achievements: Map<string, StoredAchievement>, player?: string): AsyncGenerator<Array<[player: string, unlocks: Unlocks]>> {
      if (player !== undefined) {
        const unlocks = unlocksOf(await redis.hget(keys.achieved(gameId, player), player), achievements)
        if (unlocks.size > 0) yield [[player, unlocks]]
        return
      }
      // A bucket walked in more than one step may give a field twice (HSCAN's rule): its names are kept until its walk ends.
      let walks: Array<{ bucket: number, cursor: string, seen?: Set<string> }> = Array.from({ length: ENTRY_BUCKETS }, (_, bucket) => ({ bucket, cursor: '0' }))
      while (walks.length > 0) {
        const reading = walks.slice(0, BUCKETS_PER_READ)
        const replies = await readPipeline(redis, pipeline => { for (const { bucket, cursor } of reading) pipeline.hscan(keys.achievedBucket(gameId, bucket), cursor, 'COUNT', FIELDS_PER_SCAN) }) as Array<[string, string[]]>
        const found: Array<[string, Unlocks]> = []
        const going: typeof walks = []
        replies.forEach(([next, fields], i) => {
          const walk = reading[i]!
          const more = next !== '0'
          if (more || walk.seen !== undefined) walk.seen ??= new Set()
          for (let f = 0; f + 1 < fields.length; f += 2) {
            const name = fields[f] as string
            if (walk.seen?.has(name) === true) continue
            walk.seen?.add(name)
            const unlocks = unlocksOf(fields[f + 1] ?? null, achievements)
            if (unlocks.size > 0) found.push([name, unlocks])
          }
          if (more) going.push({ ...walk, cursor: next })
        })
        walks = [...going, ...walks.slice(BUCKETS_PER_READ)]
        if (found.length > 0) yield found
      }
    }
  }
}

export type AchievementStore = ReturnType<typeof createAchievementStore>
