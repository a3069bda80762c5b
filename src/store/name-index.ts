import type { RedisClient as Redis } from './redis-client.js'

/*
 * A name index: a sorted set (every score 0) beside a set of ids, so the ids
 * can be listed in order, from a cursor, by prefix, at the cost of one page
 * whatever its place (ZRANGE BYLEX). Ids are ASCII (game ids, usernames), so
 * byte order is the order operators read. Written beside the set when an id
 * is added; the ids of a store from before the index are copied in the first
 * time a listing finds it short.
 */

/** How many ids one backfill step copies. */
const BACKFILL_STEP = 1000

export function createNameIndex (redis: Redis, setKey: string, indexKey: string) {
  async function backfillIfShort (): Promise<void> {
    const [indexed, all] = await Promise.all([redis.zcard(indexKey), redis.scard(setKey)])
    if (indexed >= all) return
    let cursor = '0'
    do {
      const [next, ids] = await redis.sscan(setKey, cursor, 'COUNT', BACKFILL_STEP)
      if (ids.length > 0) await redis.zadd(indexKey, ...ids.flatMap(id => [0, id]))
      cursor = next
    } while (cursor !== '0')
  }

  return {
    async add (id: string): Promise<void> {
      await redis.zadd(indexKey, 0, id)
    },

    async remove (id: string): Promise<void> {
      await redis.zrem(indexKey, id)
    },

    /** Up to `count` ids in byte order, after `after` (exclusive, '' for the first), beginning with `prefix`. */
    async page (after: string, prefix: string, count: number): Promise<string[]> {
      await backfillIfShort()
      const min = after !== '' && after >= prefix ? Buffer.from(`(${after}`) : Buffer.from(`[${prefix}`)
      const max = prefix === '' ? '+' : Buffer.concat([Buffer.from(`[${prefix}`), Buffer.from([0xff])])
      return await redis.zrangebylex(indexKey, min, max, 'LIMIT', 0, count)
    }
  }
}

export type NameIndex = ReturnType<typeof createNameIndex>
