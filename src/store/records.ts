import { Cluster } from 'ioredis'
import { confirmWrites, type RedisClient as Redis } from './redis-client.js'
import { keys, API_KEY_PATTERN } from './keys.js'
import { isGameId } from '../http/params.js'
import { changeRecord, type RecordCache } from './cache.js'
import { hashScripts } from './scripts.js'

/** A game as operators see it (docs/interface.md#operator-api), with its storage caps. */
export interface GameRecord {
  game_id: string
  name: string
  developer: string | null
  approved: boolean
  created_at: string
  /** Most players the board keeps; a new player past it is quota_exceeded. */
  max_entries: number
  /** Most bytes of meta the game keeps over all its entries. */
  max_meta_bytes: number
}

/**
 * The caps of a game that does not set its own: far above a real game (ten
 * million players; a gigabyte of meta, about 500 bytes for each of two
 * million players), there so that one key holder cannot fill Redis.
 */
export const DEFAULT_CAPS = { max_entries: 10_000_000, max_meta_bytes: 1_073_741_824 } as const

export interface KeyRecord {
  api_key: string
  game_id: string
  secret: string
  revoked: boolean
  created_at: string
  /**
   * This key's own limit per (key, address) and window, when an operator set
   * one (a game server that signs for all its players from one address);
   * null: the global RATE_LIMIT_MAX. The key's total is it times
   * RATE_LIMIT_KEY_MULTIPLE either way.
   */
  rate_limit: number | null
}

type Hash = Record<string, string>

function gameFromHash (gameId: string, hash: Hash): GameRecord | null {
  if (hash.created_at === undefined) return null
  return {
    game_id: gameId,
    name: hash.name ?? gameId,
    developer: hash.developer === undefined || hash.developer === '' ? null : hash.developer,
    approved: hash.approved === '1',
    created_at: hash.created_at,
    max_entries: hash.max_entries === undefined ? DEFAULT_CAPS.max_entries : Number(hash.max_entries),
    max_meta_bytes: hash.max_meta_bytes === undefined ? DEFAULT_CAPS.max_meta_bytes : Number(hash.max_meta_bytes)
  }
}

function keyFromHash (apiKey: string, hash: Hash): KeyRecord | null {
  if (hash.game_id === undefined || hash.secret === undefined) return null
  // Only what the admin module writes counts; anything else in the field (written by hand) means the global limit.
  const rateLimit = /^[1-9][0-9]{0,9}$/.test(hash.rate_limit ?? '') ? Number(hash.rate_limit) : null
  return { api_key: apiKey, game_id: hash.game_id, secret: hash.secret, revoked: hash.revoked === '1', created_at: hash.created_at as string, rate_limit: rateLimit }
}

/** A key's rate_limit as stored: empty for the global limit. */
function rateLimitField (rateLimit: number | null): string {
  return rateLimit === null ? '' : String(rateLimit)
}

/**
 * Several hashes in one round trip: a pipeline on one Redis; on a cluster,
 * where a pipeline must stay in one slot, the reads go out together to
 * the nodes that own them.
 */
async function readHashes (redis: Redis, hashKeys: string[]): Promise<Hash[]> {
  if (redis instanceof Cluster) return await Promise.all(hashKeys.map(async key => await redis.hgetall(key)))
  const pipeline = redis.pipeline()
  for (const key of hashKeys) pipeline.hgetall(key)
  const replies = (await pipeline.exec()) ?? []
  for (const [error] of replies) if (error !== null) throw error
  return replies.map(([, value]) => value as Hash)
}

/**
 * Game and key records in Redis hashes (layout in keys.ts). With a cache,
 * records found are kept in process and every write here invalidates them
 * on every instance (store/cache.ts).
 */
export function createRecordStore (redis: Redis, cache?: RecordCache) {
  const { createHash, createGame, updateHash } = hashScripts(redis)

  return {
    /**
     * The key and the game of an API-key request: from the cache, or in one
     * round trip. A value that cannot name a record (bad form) is simply not found.
     */
    async keyAndGame (apiKey: string, gameId: string): Promise<{ key: KeyRecord | null, game: GameRecord | null }> {
      const validKey = API_KEY_PATTERN.test(apiKey)
      const validGame = isGameId(gameId)
      let key = validKey ? cache?.get<KeyRecord>('key', apiKey) ?? null : null
      let game = validGame ? cache?.get<GameRecord>('game', gameId) ?? null : null
      const readKey = validKey && key === null
      const readGame = validGame && game === null
      if (!readKey && !readGame) return { key, game }
      const stamp = cache?.stamp() ?? 0
      const reads = [...(readKey ? [keys.apiKey(apiKey)] : []), ...(readGame ? [keys.game(gameId)] : [])]
      const replies = await readHashes(redis, reads)
      if (readKey) {
        key = keyFromHash(apiKey, replies[0] as Hash)
        if (key !== null) cache?.set('key', apiKey, key, stamp)
      }
      if (readGame) {
        game = gameFromHash(gameId, replies[readKey ? 1 : 0] as Hash)
        if (game !== null) cache?.set('game', gameId, game, stamp)
      }
      return { key, game }
    },

    async game (gameId: string): Promise<GameRecord | null> {
      if (!isGameId(gameId)) return null
      const cached = cache?.get<GameRecord>('game', gameId)
      if (cached !== undefined) return cached
      const stamp = cache?.stamp() ?? 0
      const game = gameFromHash(gameId, await redis.hgetall(keys.game(gameId)))
      if (game !== null) cache?.set('game', gameId, game, stamp)
      return game
    },

    /**
     * Creates the game; null when it exists already. The game joins the
     * index and copies the hidden users before its record exists, so no
     * request can use a board that hide walks would miss.
     */
    async createGame (game: GameRecord): Promise<GameRecord | null> {
      await redis.sadd(keys.games(), game.game_id)
      const hiddenUsers = await redis.smembers(keys.hiddenUsers())
      if (hiddenUsers.length > 0) await redis.sadd(keys.boardHiddenUsers(game.game_id), ...hiddenUsers)
      await confirmWrites(redis, [keys.games(), keys.boardHiddenUsers(game.game_id)])
      const created = await changeRecord(redis, cache, 'game', game.game_id, async () => await createGame([keys.game(game.game_id), keys.usage(game.game_id)], [
        'name', game.name, 'developer', game.developer ?? '', 'approved', game.approved ? '1' : '0', 'created_at', game.created_at,
        'max_entries', String(game.max_entries), 'max_meta_bytes', String(game.max_meta_bytes)
      ]))
      return created === 0 ? null : game
    },

    /** Updates the given fields; null when the game does not exist. */
    async updateGame (gameId: string, changes: Partial<Pick<GameRecord, 'name' | 'developer' | 'approved' | 'max_entries' | 'max_meta_bytes'>>): Promise<GameRecord | null> {
      const fields: string[] = []
      if (changes.name !== undefined) fields.push('name', changes.name)
      if (typeof changes.developer === 'string') fields.push('developer', changes.developer)
      if (changes.approved !== undefined) fields.push('approved', changes.approved ? '1' : '0')
      if (changes.max_entries !== undefined) fields.push('max_entries', String(changes.max_entries))
      if (changes.max_meta_bytes !== undefined) fields.push('max_meta_bytes', String(changes.max_meta_bytes))
      if (await changeRecord(redis, cache, 'game', gameId, async () => await updateHash([keys.game(gameId)], fields)) === 0) return null
      return await this.game(gameId)
    },

    /** Read afresh, not from the cache (operators and the demo seed). */
    async key (apiKey: string): Promise<KeyRecord | null> {
      if (!API_KEY_PATTERN.test(apiKey)) return null
      return keyFromHash(apiKey, await redis.hgetall(keys.apiKey(apiKey)))
    },

    async createKey (key: KeyRecord): Promise<KeyRecord | null> {
      const created = await createHash([keys.apiKey(key.api_key)], [
        'game_id', key.game_id, 'secret', key.secret, 'revoked', key.revoked ? '1' : '0', 'created_at', key.created_at,
        'rate_limit', rateLimitField(key.rate_limit)
      ])
      if (created === 0) return null
      await redis.sadd(keys.gameKeys(key.game_id), key.api_key)
      await confirmWrites(redis, [keys.gameKeys(key.game_id)])
      return key
    },

    async revokeKey (apiKey: string): Promise<KeyRecord | null> {
      return await this.updateKey(apiKey, { revoked: true })
    },

    /** Updates the given fields (a rate_limit of null: back to the global limit); null when the key does not exist. */
    async updateKey (apiKey: string, changes: Partial<Pick<KeyRecord, 'revoked' | 'rate_limit'>>): Promise<KeyRecord | null> {
      if (!API_KEY_PATTERN.test(apiKey)) return null
      const fields: string[] = []
      if (changes.revoked !== undefined) fields.push('revoked', changes.revoked ? '1' : '0')
      if (changes.rate_limit !== undefined) fields.push('rate_limit', rateLimitField(changes.rate_limit))
      if (await changeRecord(redis, cache, 'key', apiKey, async () => await updateHash([keys.apiKey(apiKey)], fields)) === 0) return null
      return await this.key(apiKey)
    },

    async gameIds (): Promise<string[]> {
      return await redis.smembers(keys.games())
    },

    /** The api_keys issued for a game, in no particular order. */
    async gameKeys (gameId: string): Promise<string[]> {
      return await redis.smembers(keys.gameKeys(gameId))
    }
  }
}

export type RecordStore = ReturnType<typeof createRecordStore>
