import { Cluster } from 'ioredis'
import { confirmWrites, readPipeline, type RedisClient as Redis } from './redis-client.js'
import { boardScopes, keys, API_KEY_PATTERN } from './keys.js'
import { isGameId } from '../rules/fields.js'
import { changeRecord, type RecordCache } from './cache.js'
import { hashScripts } from './script-loader.js'
import { createNameIndex } from './name-index.js'
import { averageRating } from './ratings.js'
import { MAX_KEEP_PERIODS, PERIOD_KINDS, isTimeZone, periodsSinceOf, storedPeriodsSince, type PeriodKind } from '../rules/periods.js'
import { DEFAULT_FAIR_PLAY, DEFAULT_PERIODS, DEFAULT_RATINGS, DEFAULT_RUNS, FAIR_PLAY_SETTINGS, MAX_RATING_PLAY_S, RATING_SETTINGS, GUEST_POLICIES, MAX_NOTIFY_TOP, MAX_RUN_TTL_S, RUN_POLICIES, RUN_SETTINGS, SUBMIT_RUN_POLICIES, type GameChanges, type GameRecord, type GameStats, type KeyRecord } from '../rules/games.js'
import { displayFields, displayFromStored } from '../rules/score-format.js'

/**
 * The caps of a game that does not set its own: far above a real game (ten
 * million players; a gigabyte of meta, about 500 bytes for each of two
 * million players), there so that one key holder cannot fill Redis.
 */
export const DEFAULT_CAPS = { max_entries: 10_000_000, max_meta_bytes: 1_073_741_824 } as const

type Hash = Record<string, string>

/**
 * The kinds named in a list or a comma list (as stored, or as an operator
 * sends them), in PERIOD_KINDS order; anything else is left out.
 */
export function periodsOf (names: string | readonly string[] | undefined): PeriodKind[] {
  const named = new Set(typeof names === 'string' ? names.split(',') : names ?? [])
  return PERIOD_KINDS.filter(kind => named.has(kind))
}

const wholeNumber = (text: string | undefined, fallback: number, max: number): number =>
  /^\d{1,9}$/.test(text ?? '') && Number(text) <= max ? Number(text) : fallback

/** A stored score bound or threshold: a safe integer, else (unset, '', written by hand) null. */
const scoreOrNull = (text: string | undefined): number | null =>
  /^-?\d{1,16}$/.test(text ?? '') && Number.isSafeInteger(Number(text)) ? Number(text) : null

/** A stored max_score_rate: a positive number, else null. */
const rateOrNull = (text: string | undefined): number | null =>
  /^\d{1,13}(\.\d{1,6})?$/.test(text ?? '') && Number(text) > 0 ? Number(text) : null

/** A stored review_factor: a number above 1, else null. */
const factorOrNull = (text: string | undefined): number | null =>
  /^\d{1,7}(\.\d{1,6})?$/.test(text ?? '') && Number(text) > 1 ? Number(text) : null

function gameFromHash (gameId: string, hash: Hash): GameRecord | null {
  if (hash.created_at === undefined) return null
  const season = wholeNumber(hash.season, 1, 1e9)
  const periods = periodsOf(hash.periods)
  return {
    game_id: gameId,
    name: hash.name ?? gameId,
    developer: hash.developer === undefined || hash.developer === '' ? null : hash.developer,
    approved: hash.approved === '1',
    created_at: hash.created_at,
    max_entries: hash.max_entries === undefined ? DEFAULT_CAPS.max_entries : Number(hash.max_entries),
    max_meta_bytes: hash.max_meta_bytes === undefined ? DEFAULT_CAPS.max_meta_bytes : Number(hash.max_meta_bytes),
    // Only what the admin module writes counts; anything else in a field (written by hand) is its default.
    order: hash.order === 'asc' ? 'asc' : 'desc',
    periods,
    periods_since: periodsSinceOf(hash.periods_since, periods),
    timezone: isTimeZone(hash.timezone) ? hash.timezone as string : DEFAULT_PERIODS.timezone,
    keep_periods: wholeNumber(hash.keep_periods, DEFAULT_PERIODS.keep_periods, MAX_KEEP_PERIODS),
    season: season === 0 ? 1 : season,
    season_started_at: hash.season_started_at ?? hash.created_at,
    score_min: scoreOrNull(hash.score_min),
    score_max: scoreOrNull(hash.score_max),
    review_above: scoreOrNull(hash.review_above),
    review_below: scoreOrNull(hash.review_below),
    review_factor: factorOrNull(hash.review_factor),
    notify_top: wholeNumber(hash.notify_top, DEFAULT_FAIR_PLAY.notify_top, MAX_NOTIFY_TOP) || DEFAULT_FAIR_PLAY.notify_top,
    guests: GUEST_POLICIES.find(policy => policy === hash.guests) ?? 'off',
    runs: RUN_POLICIES.find(policy => policy === hash.runs) ?? DEFAULT_RUNS.runs,
    min_run_seconds: wholeNumber(hash.min_run_seconds, DEFAULT_RUNS.min_run_seconds, MAX_RUN_TTL_S),
    max_score_rate: rateOrNull(hash.max_score_rate),
    implausible: hash.implausible === 'refuse' ? 'refuse' : 'hold',
    run_ttl_s: wholeNumber(hash.run_ttl_s, DEFAULT_RUNS.run_ttl_s, MAX_RUN_TTL_S) || DEFAULT_RUNS.run_ttl_s,
    submit_run: SUBMIT_RUN_POLICIES.find(policy => policy === hash.submit_run) ?? DEFAULT_RUNS.submit_run,
    rating_full_weight_seconds: wholeNumber(hash.rating_full_weight_seconds, DEFAULT_RATINGS.rating_full_weight_seconds, MAX_RATING_PLAY_S) || DEFAULT_RATINGS.rating_full_weight_seconds,
    rating_min_play_seconds: wholeNumber(hash.rating_min_play_seconds, DEFAULT_RATINGS.rating_min_play_seconds, MAX_RATING_PLAY_S),
    listed: hash.listed !== '0',
    ...displayFromStored(hash)
  }
}

/**
 * The game of an id in the games index whose record is not written yet
 * (createGame indexes it first): default settings, one season, no entries.
 */
export function gameInTheMaking (gameId: string): GameRecord {
  return gameFromHash(gameId, { created_at: '' }) as GameRecord
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

/** The period and fair-play settings as stored, '' for a cleared one (order goes through updateGame's own check). */
function settingFields (game: GameChanges): string[] {
  const fields: string[] = []
  if (game.periods !== undefined) fields.push('periods', game.periods.join(','))
  if (game.periods_since !== undefined) fields.push('periods_since', storedPeriodsSince(game.periods_since))
  if (game.timezone !== undefined) fields.push('timezone', game.timezone)
  if (game.keep_periods !== undefined) fields.push('keep_periods', String(game.keep_periods))
  if (game.guests !== undefined) fields.push('guests', game.guests)
  for (const name of RUN_SETTINGS) {
    const value = game[name]
    if (value !== undefined) fields.push(name, value === null ? '' : String(value))
  }
  for (const name of FAIR_PLAY_SETTINGS) {
    const value = game[name]
    if (value !== undefined) fields.push(name, value === null ? '' : String(value))
  }
  for (const name of RATING_SETTINGS) {
    const value = game[name]
    if (value !== undefined) fields.push(name, typeof value === 'boolean' ? (value ? '1' : '0') : String(value))
  }
  fields.push(...displayFields(game))
  return fields
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
  const { createHash, createGame, updateHash, updateGame, closeSeason } = hashScripts(redis)
  const gameIndex = createNameIndex(redis, keys.games(), keys.gameIndex())

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

    /** The game, from the cache unless `fresh` (a script found the cached record out of date). */
    async game (gameId: string, { fresh = false } = {}): Promise<GameRecord | null> {
      if (!isGameId(gameId)) return null
      const cached = fresh ? undefined : cache?.get<GameRecord>('game', gameId)
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
      await gameIndex.add(game.game_id)
      const hiddenUsers = await redis.smembers(keys.hiddenUsers())
      if (hiddenUsers.length > 0) await redis.sadd(keys.boardHiddenUsers(game.game_id), ...hiddenUsers)
      await confirmWrites(redis, [keys.games(), keys.gameIndex(), keys.boardHiddenUsers(game.game_id)])
      const created = await changeRecord(redis, cache, 'game', game.game_id, async () => await createGame([keys.game(game.game_id), keys.usage(game.game_id), keys.boardHiddenUsers(game.game_id), keys.hiddenPlayers(game.game_id)], [
        'name', game.name, 'developer', game.developer ?? '', 'approved', game.approved ? '1' : '0', 'created_at', game.created_at,
        'max_entries', String(game.max_entries), 'max_meta_bytes', String(game.max_meta_bytes),
        'order', game.order, ...settingFields(game)
      ]))
      return created === 0 ? null : game
    },

    /**
     * Updates the given fields; null when the game does not exist. A new
     * `order` is refused ('has_entries') unless the game has never stored an
     * entry, checked in the same script that sets it: a board's stored
     * scores are kept in its order.
     */
    async updateGame (gameId: string, changes: GameChanges): Promise<GameRecord | null | 'has_entries'> {
      const fields: string[] = []
      if (changes.name !== undefined) fields.push('name', changes.name)
      if (typeof changes.developer === 'string') fields.push('developer', changes.developer)
      if (changes.approved !== undefined) fields.push('approved', changes.approved ? '1' : '0')
      if (changes.max_entries !== undefined) fields.push('max_entries', String(changes.max_entries))
      if (changes.max_meta_bytes !== undefined) fields.push('max_meta_bytes', String(changes.max_meta_bytes))
      fields.push(...settingFields(changes))
      const gameKeys = [keys.game(gameId), keys.usage(gameId), keys.board(gameId), keys.hiddenPlayers(gameId), keys.boardHiddenUsers(gameId)]
      const updated = await changeRecord(redis, cache, 'game', gameId, async () => await updateGame(gameKeys, [changes.order ?? '', ...fields]))
      if (updated === 0) return null
      if (updated === -1) return 'has_entries'
      return await this.game(gameId, { fresh: true })
    },

    /**
     * Closes the game's current season (still `game.season`, or the one the
     * record has by then): it stays where it is, under its number, and the
     * next begins, in one script, at the Redis clock's now. Every instance forgets its cached record,
     * and a board script called with the old season answers "moved".
     * Returns the closed season's number, or null when the game does not exist.
     */
    async closeSeason (game: GameRecord): Promise<number | null> {
      for (let attempt = 1; attempt <= 3; attempt++) {
        const gameId = game.game_id
        const closed = await changeRecord(redis, cache, 'game', gameId, async () =>
          await closeSeason([keys.game(gameId), keys.seasons(gameId), keys.usage(gameId, boardScopes.season(game.season + 1)), keys.board(gameId, boardScopes.season(game.season)), keys.events(gameId), keys.live(gameId), keys.boardsVersion(gameId)], [String(game.season)]))
        if (closed >= 0) return closed === 0 ? null : closed
        const fresh = await this.game(gameId, { fresh: true })
        if (fresh === null) return null
        game = fresh
      }
      throw new Error(`the season of game ${game.game_id} kept changing`)
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

    /** Up to `count` game ids in id order after `after` ('' for the first), beginning with `prefix`. */
    async gameIdsPage (after: string, prefix: string, count: number): Promise<string[]> {
      return await gameIndex.page(after, prefix, count)
    },

    /**
     * What a listing shows of a game beside its record, in one round trip to
     * its slot: entries stored in its current season (hidden ones too), visible
     * players, ratings, total play time.
     */
    async gameStats (game: GameRecord): Promise<GameStats> {
      const gameId = game.game_id
      const scope = boardScopes.season(game.season)
      const [entries, players, [sum, count], total] = await readPipeline(redis, pipeline => {
        pipeline.hget(keys.usage(gameId, scope), 'entries').zcard(keys.board(gameId, scope)).hmget(keys.ratingStats(gameId), 'sum', 'count').hget(keys.playtime(gameId), 'total')
      }) as [string | null, number, [string | null, string | null], string | null]
      const ratings = Number(count ?? 0)
      return {
        entries: entries === null ? players : Number(entries),
        players,
        rating_avg: averageRating(Number(sum ?? 0), ratings),
        rating_count: ratings,
        playtime_seconds: Number(total ?? 0)
      }
    },

    /** The api_keys issued for a game, in no particular order. */
    async gameKeys (gameId: string): Promise<string[]> {
      return await redis.smembers(keys.gameKeys(gameId))
    }
  }
}

export type RecordStore = ReturnType<typeof createRecordStore>
