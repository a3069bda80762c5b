import { confirmWrites, type RedisClient as Redis } from './redis-client.js'
import { keys } from './keys.js'
import { changeRecord, type RecordCache } from './cache.js'
import { defineScript, luaScript } from './script-loader.js'
import { isGameId } from '../rules/fields.js'

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
}

/** The largest Game Jolt game id: clients keep ids in 32-bit integers. */
export const MAX_GAMEJOLT_ID = 2_147_483_647

const RELEASE = luaScript('gamejolt-release')

export function createGamejoltStore (redis: Redis, cache?: RecordCache) {
  const release = defineScript<number>(redis, 'rankGamejoltRelease', RELEASE, { writes: true })

  /** The game's settings as stored, or null when its API is off. */
  async function settingsOf (gameId: string): Promise<GamejoltLink | null> {
    const hash = await redis.hgetall(keys.gamejolt(gameId))
    const id = Number(hash.gamejolt_game_id)
    if (!Number.isSafeInteger(id) || id < 1 || hash.private_key === undefined) return null
    return { game_id: gameId, gamejolt_game_id: id, private_key: hash.private_key }
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
        await redis.hset(keys.gamejolt(link.game_id), 'gamejolt_game_id', String(link.gamejolt_game_id), 'private_key', link.private_key)
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
    releaseId
  }
}

export type GamejoltStore = ReturnType<typeof createGamejoltStore>
