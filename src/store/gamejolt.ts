import { confirmWrites, readPipeline, type RedisClient as Redis } from './redis-client.js'
import { keys } from './keys.js'
import { changeRecord, type RecordCache } from './cache.js'
import { defineScript, luaScript } from './script-loader.js'
import { defineLimitedScript, type Limits } from './limits.js'
import { isGameId } from '../rules/fields.js'
import { MAX_GAMEJOLT_ID, storedGamejoltId } from '../rules/gamejolt-ids.js'
import { DEFAULT_BOARD } from '../rules/boards.js'
import { DATA_LIMITS, type DataLimits } from '../rules/gamejolt-data.js'

/**
 * Which game answers Game Jolt's API under which integer id, with which
 * private key (docs/gamejolt.md). The settings live in the game's slot
 * (keys.gamejolt); the integer id leads to the game through a record of its
 * own slot (keys.gamejoltGame), as an API key does. Both are cached in
 * process by the integer id, and every change tells every instance.
 */
export interface GamejoltLink {
  game_id: string
  gamejolt_game_id: number
  private_key: string
  /** The primary table's id (the game's own board): the operator's, else made of `default` (docs/gamejolt.md#ids). */
  primary_table_id: number
  /** The data store's limits for this game: the operator's, else DATA_LIMITS. */
  data_limits: DataLimits
}

const LIMIT_NAMES = Object.keys(DATA_LIMITS) as Array<keyof DataLimits>

/** An item of a data store as an operator lists it: its key and its data's size. */
export interface DataItemSize { key: string, bytes: number }

/** A refusal of a data store write (lua/gamejolt-data.lua). */
export type DataRefusal = 'none' | 'too_big' | 'owner_full' | 'game_full' | 'bytes_full' | 'not_numeric_stored' | 'not_numeric_value' | 'div_zero'

const RELEASE = luaScript('gamejolt-release')
const DATA = luaScript('gamejolt-data')
const MOVE = luaScript('gamejolt-data-move')

/** Keys in byte order, as Game Jolt's get-keys and an operator's listing give them. */
function sortedBytes (names: string[]): string[] {
  return names.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)))
}

export function createGamejoltStore (redis: Redis, cache?: RecordCache) {
  const release = defineScript<number>(redis, 'rankGamejoltRelease', RELEASE, { writes: true })
  const dataScript = defineLimitedScript<[string, (string | number)?]>(redis, 'rankGamejoltData', DATA, { writes: true })
  const moveScript = defineScript<number>(redis, 'rankGamejoltDataMove', MOVE, { writes: true })

  /** The game's settings as stored, or null when its API is off. */
  async function settingsOf (gameId: string): Promise<GamejoltLink | null> {
    const hash = await redis.hgetall(keys.gamejolt(gameId))
    const id = Number(hash.gamejolt_game_id)
    if (!Number.isSafeInteger(id) || id < 1 || hash.private_key === undefined) return null
    const dataLimits: DataLimits = { ...DATA_LIMITS }
    for (const name of LIMIT_NAMES) {
      const set = Number(hash[name])
      if (Number.isSafeInteger(set) && set > 0) dataLimits[name] = set
    }
    return { game_id: gameId, gamejolt_game_id: id, private_key: hash.private_key, primary_table_id: storedGamejoltId(Number(hash.primary_table_id), DEFAULT_BOARD), data_limits: dataLimits }
  }

  /** Gives up an integer id, only while it still leads to this game. */
  async function releaseId (gamejoltGameId: number, gameId: string): Promise<void> {
    await changeRecord(redis, cache, 'gamejolt', String(gamejoltGameId), async () => await release([keys.gamejoltGame(gamejoltGameId)], [gameId]))
  }

  return {
    /** The game a request's integer game_id names, with its key; null for an id no game has. */
    async byGamejoltId (gamejoltGameId: number): Promise<GamejoltLink | null> {
      if (!Number.isSafeInteger(gamejoltGameId) || gamejoltGameId < 1 || gamejoltGameId > MAX_GAMEJOLT_ID) return null
      const cached = cache?.get<GamejoltLink>('gamejolt', String(gamejoltGameId))
      if (cached !== undefined) return cached
      const stamp = cache?.stamp() ?? 0
      const gameId = await redis.get(keys.gamejoltGame(gamejoltGameId))
      if (gameId === null || !isGameId(gameId)) return null
      const link = await settingsOf(gameId)
      // An id the game gave up (its settings name another) leads nowhere.
      if (link === null || link.gamejolt_game_id !== gamejoltGameId) return null
      cache?.set('gamejolt', String(gamejoltGameId), link, stamp)
      return link
    },

    /** The game's Game Jolt settings, read afresh (operators); null when its API is off. */
    async ofGame (gameId: string): Promise<GamejoltLink | null> {
      return await settingsOf(gameId)
    },

    /**
     * Takes an integer id for the game: true when it is the game's now,
     * false when another game has it. Taking it is one SET NX, so two games
     * cannot both take one id.
     */
    async claimId (gamejoltGameId: number, gameId: string): Promise<boolean> {
      const key = keys.gamejoltGame(gamejoltGameId)
      const taken = await redis.set(key, gameId, 'NX') === 'OK'
      if (taken) await confirmWrites(redis, [key])
      return taken || await redis.get(key) === gameId
    },

    /** A free integer id, taken for the game: the next of the sequence that no game has. */
    async claimFreeId (gameId: string): Promise<number> {
      for (;;) {
        const id = await redis.incr(keys.gamejoltSequence())
        if (id > MAX_GAMEJOLT_ID) throw new Error('the Game Jolt game ids are used up')
        if (await this.claimId(id, gameId)) return id
      }
    },

    /**
     * Writes the game's settings (after claimId), then gives up the id it
     * had before, if another: that id and the old key stop working at once
     * on every instance.
     */
    async setLink (link: GamejoltLink, previous: GamejoltLink | null): Promise<void> {
      await changeRecord(redis, cache, 'gamejolt', String(link.gamejolt_game_id), async () => {
        await redis.hset(keys.gamejolt(link.game_id), 'gamejolt_game_id', String(link.gamejolt_game_id), 'private_key', link.private_key, 'primary_table_id', String(link.primary_table_id),
          ...LIMIT_NAMES.flatMap(name => [name, String(link.data_limits[name])]))
        await confirmWrites(redis, [keys.gamejolt(link.game_id)])
      })
      if (previous !== null && previous.gamejolt_game_id !== link.gamejolt_game_id) await releaseId(previous.gamejolt_game_id, link.game_id)
    },

    /** Turns the game's API off: its settings and its id go. */
    async removeLink (link: GamejoltLink): Promise<void> {
      await changeRecord(redis, cache, 'gamejolt', String(link.gamejolt_game_id), async () => {
        await redis.del(keys.gamejolt(link.game_id))
        await confirmWrites(redis, [keys.gamejolt(link.game_id)])
      })
      await releaseId(link.gamejolt_game_id, link.game_id)
    },

    /** Gives up an id claimed for a change that was then refused. */
    releaseId,

    /** One item of the game's data store (a user's with `owner`), or null. */
    async dataItem (gameId: string, key: string, owner?: string): Promise<string | null> {
      return await redis.hget(keys.gamejoltData(gameId, owner), key)
    },

    /** The keys of the game's data store (a user's with `owner`), in byte order. */
    async dataKeys (gameId: string, owner?: string): Promise<string[]> {
      return sortedBytes(await redis.hkeys(keys.gamejoltData(gameId, owner)))
    },

    /** What the game's data store holds: its usage over every owner, and how many items the global store and each user's hold (users in name order). */
    async dataOwners (gameId: string): Promise<{ usage: { items: number, bytes: number }, owners: Array<{ owner: string | null, items: number }> }> {
      const [usage, global, owners] = await readPipeline(redis, pipeline => pipeline
        .hmget(keys.gamejoltDataUsage(gameId), 'items', 'bytes')
        .hlen(keys.gamejoltData(gameId))
        .hgetall(keys.gamejoltDataOwners(gameId))) as [Array<string | null>, number, Record<string, string>]
      return {
        usage: { items: Number(usage[0] ?? 0), bytes: Number(usage[1] ?? 0) },
        owners: [{ owner: null, items: global }, ...sortedBytes(Object.keys(owners)).map(owner => ({ owner, items: Number(owners[owner]) }))]
      }
    },

    /** A page of one store's items in key order (after `after`), with each one's size: never their data, which may be megabytes each. */
    async dataItems (gameId: string, owner: string | undefined, after: string, count: number): Promise<{ items: DataItemSize[], next: string | null }> {
      const key = keys.gamejoltData(gameId, owner)
      const names = sortedBytes(await redis.hkeys(key)).filter(name => Buffer.compare(Buffer.from(name), Buffer.from(after)) > 0)
      const page = names.slice(0, count)
      const sizes = page.length === 0 ? [] : await readPipeline(redis, pipeline => { for (const name of page) pipeline.hstrlen(key, name) }) as number[]
      return { items: page.map((name, i) => ({ key: name, bytes: sizes[i] as number })), next: names.length > count ? page[page.length - 1] as string : null }
    },

    /**
     * A guest's items become the user's (a claim, docs/gamejolt.md#data-store):
     * one the user has under the same key keeps the user's data (the guest's
     * goes). One script call; answers how many items moved.
     */
    async moveOwner (gameId: string, guest: string, user: string): Promise<number> {
      return await moveScript([keys.gamejoltData(gameId, guest), keys.gamejoltData(gameId, user), keys.gamejoltDataUsage(gameId), keys.gamejoltDataOwners(gameId)], [guest, user])
    },

    /**
     * Erases what the game keeps of a user for Game Jolt's API (an erasure):
     * their data store items (the game's usage follows) and their open
     * session. Returns how many items went.
     */
    async eraseOwner (gameId: string, owner: string): Promise<number> {
      const key = keys.gamejoltData(gameId, owner)
      const items = await redis.hgetall(key)
      const names = Object.keys(items)
      const bytes = names.reduce((sum, name) => sum + Buffer.byteLength(name) + Buffer.byteLength(items[name] as string), 0)
      await readPipeline(redis, pipeline => {
        if (names.length > 0) pipeline.del(key).hincrby(keys.gamejoltDataUsage(gameId), 'items', -names.length).hincrby(keys.gamejoltDataUsage(gameId), 'bytes', -bytes)
        pipeline.hdel(keys.gamejoltDataOwners(gameId), owner).hdel(keys.gamejoltSessions(gameId), owner)
      })
      await confirmWrites(redis, [key])
      return names.length
    },

    /**
     * Sets, updates (Game Jolt's operations) or removes one item, within the
     * limits, in one script call: the item's data now, or the refusal.
     */
    async writeData (gameId: string, owner: string | undefined, write: { op: 'set' | 'update' | 'remove', key: string, data?: string, operation?: string }, limits: DataLimits = DATA_LIMITS, rateLimits?: Limits): Promise<{ data: string } | { refused: DataRefusal, bytes?: number }> {
      const [outcome, value] = await dataScript([keys.gamejoltData(gameId, owner), keys.gamejoltDataUsage(gameId), keys.gamejoltDataOwners(gameId)],
        [write.op, write.key, write.data ?? '', write.operation ?? '', limits.item_bytes, limits.items_per_user, limits.items_per_game, limits.game_bytes, owner ?? ''], rateLimits)
      if (outcome === 'ok') return { data: String(value ?? '') }
      return { refused: outcome as DataRefusal, ...(value === undefined ? {} : { bytes: Number(value) }) }
    }
  }
}

export type GamejoltStore = ReturnType<typeof createGamejoltStore>
