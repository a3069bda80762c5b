import type { RedisClient as Redis } from '../store/redis-client.js'
import { keys } from '../store/keys.js'
import { defineScript, luaScript } from '../store/script-loader.js'
import { fail } from '../errors.js'

/*
 * The caps on open live streams, over every instance
 * (docs/interface.md#live-boards): each cap is a set of leases in Redis, one
 * a stream, taken when it opens (live-open.lua), renewed while it is open and
 * freed when it ends.
 */

/** A stream's place among its subject's streams lasts this long without renewal (a process that dies frees it then). */
const LEASE_MS = 60_000
export const RENEW_EVERY_MS = 20_000

const LIVE_OPEN = luaScript('live-open')

/** A cap a stream counts against: a set of leases (keys.ts) and how many it holds; all of one stream's in one slot. */
export interface LivePlace {
  key: string
  max: number
  /** The rate_limited message when this one is full. */
  full: string
}

/**
 * The caps a stream counts against, over every instance (docs/interface.md#live-boards):
 * an API key's streams, and within them one client address's share, so an
 * address (the api_key is public) cannot take a key's whole cap from the
 * real dashboards; a client address's on the play page, over every game;
 * an operator token's.
 */
export const livePlaces = {
  apiKey: (apiKey: string, address: string, perKey: number, perAddress: number): LivePlace[] => [
    { key: keys.keyLiveStreams(apiKey), max: perKey, full: `At most ${perKey} live streams may be open at once for one key; close one first.` },
    { key: keys.keyAddressLiveStreams(apiKey, address), max: perAddress, full: `At most ${perAddress} live streams may be open at once for one key from one address; close one first.` }
  ],
  page: (address: string, perAddress: number): LivePlace[] => [
    { key: keys.addressLiveStreams(address), max: perAddress, full: `At most ${perAddress} live boards may be open at once from one address; close one first.` }
  ],
  operator: (name: string, perToken: number): LivePlace[] => [
    { key: keys.operatorLiveStreams(name), max: perToken, full: `At most ${perToken} live streams may be open at once for one operator token; close one first.` }
  ]
}

/** A stream's hold on its places: the lease sets, and its member name in each. */
interface Holder {
  leases: string[]
  member: string
}

export function createLeases (redis: Redis) {
  const openScript = defineScript<number>(redis, 'rankLiveOpen', LIVE_OPEN, { writes: true })

  return {
    /** Takes a place for `member` in each of `places` (rate_limited, with that cap's message, when one has none left). */
    async take (places: LivePlace[], member: string): Promise<void> {
      const full = await openScript(places.map(place => place.key), [Date.now(), LEASE_MS, member, ...places.map(place => place.max)])
      if (full !== 0) fail('rate_limited', places[full - 1]?.full)
    },

    /** Frees a stream's places. */
    free ({ leases, member }: Holder): void {
      for (const lease of leases) redis.zrem(lease, member).catch(() => {})
    },

    /**
     * Renews the leases of `holders` (every RENEW_EVERY_MS at least), each
     * set in two commands for all of this process's streams in it, the set
     * kept alive as long as its leases (never shortened: GT).
     */
    renew (holders: Iterable<Holder>): void {
      const until = Date.now() + LEASE_MS
      const membersOf = new Map<string, string[]>()
      for (const { leases, member } of holders) {
        for (const lease of leases) {
          const members = membersOf.get(lease)
          if (members === undefined) membersOf.set(lease, [member])
          else members.push(member)
        }
      }
      for (const [lease, members] of membersOf) {
        redis.zadd(lease, 'XX', ...members.flatMap(member => [until, member])).catch(() => {})
        redis.pexpire(lease, LEASE_MS, 'GT').catch(() => {})
      }
    }
  }
}
