import type { RedisClient as Redis } from './redis-client.js'
import { defineScript, luaScript, scriptSender, type ScriptArg } from './script-loader.js'

/**
 * Rate-limit counters in Redis: fixed windows, one key per counted subject,
 * in the format of @fastify/rate-limit's RedisStore (a number with a TTL).
 * The counting rule is lua/includes/limits.lua, and only there: the hot
 * path counts inside the action's own script call (defineLimitedScript and
 * packedLimits, below),
 * everything else through `count` here (@fastify/rate-limit too, through a
 * store of plugins/app/rate-limit.ts, which says which limits exist and what
 * they count).
 */

/**
 * A script whose call also takes rate-limit counters: they are counted
 * first, in the same call, and when one is over its max the script's own
 * work does not run. The script's file counts them itself (its work is a
 * function it hands to `limited`, lua/includes/limits.lua); the counters
 * are appended to its keys and arguments, as `trailingCounters` there reads
 * them. Answers what the work answered; the counts go to `limits.settle`.
 */
export function defineLimitedScript<T> (redis: Redis, name: string, lua: string, options: { writes?: boolean } = {}): (keys: string[], args: ScriptArg[], limits?: Limits) => Promise<T> {
  const send = scriptSender<[number[], T?]>(redis, name, lua, options)
  const windowEnds = windowEndsOf(redis)
  return async (keys, args, limits) => {
    const counters = limits?.counters ?? []
    // numkeys, the action's keys, the counters' keys; its arguments, each counter's max, window and whether its end is known, how many counters
    const call: ScriptArg[] = [keys.length + counters.length, ...keys]
    for (const counter of counters) call.push(counter.key)
    call.push(...args)
    const sent = Date.now()
    for (const counter of counters) call.push(counter.max, counter.windowMs, windowEnds.knows(counter.key, sent) ? 1 : 0)
    call.push(counters.length)
    const [counts, result] = await send(call)
    settleLimits(windowEnds, limits, counts)
    return result as T
  }
}

/**
 * The counters of a packed call (a script that reads its call from one
 * argument): each {key, max, window, known} as lua/includes/limits.lua's
 * countLimits takes it, and what to do with the counts it answers.
 */
export function packedLimits (redis: Redis, limits: Limits | undefined): { counters: Array<[string, number, number, boolean]>, settle: (counts: number[]) => void } {
  const windowEnds = windowEndsOf(redis)
  const sent = Date.now()
  return {
    counters: (limits?.counters ?? []).map(counter => [counter.key, counter.max, counter.windowMs, windowEnds.knows(counter.key, sent)]),
    settle: (counts) => { settleLimits(windowEnds, limits, counts) }
  }
}

function settleLimits (windowEnds: WindowEnds, limits: Limits | undefined, counts: number[]): void {
  if (limits === undefined) return
  if (counts.length > 0) windowEnds.settle(limits.counters, counts, Date.now())
  limits.settle(counts)
}

/**
 * When each counter's window ends (ms, this process's clock), as this
 * process saw it begin or read it: a counter whose end is known is counted
 * without a PTTL (its headers are made from the end kept here), one command
 * of every limited request. Within a second of the end it is read again, so
 * a window that another instance saw end and begin again is learned afresh.
 */
const KNOWN_ENDS_MAX = 100_000
const MARGIN_MS = 1000

class WindowEnds {
  private readonly ends = new Map<string, number>()

  knows (key: string, now: number): boolean {
    return (this.ends.get(key) ?? 0) > now + MARGIN_MS
  }

  /** Puts each counter's ttl in `counts` (-1: from the end kept here) and keeps the ends learned. */
  settle (counters: Counter[], counts: number[], now: number): void {
    for (let i = 0; 2 * i + 1 < counts.length; i++) {
      const counter = counters[i] as Counter
      const ttl = counts[2 * i + 1] as number
      if (ttl < 0) {
        counts[2 * i + 1] = Math.max(1, (this.ends.get(counter.key) ?? now + counter.windowMs) - now)
        continue
      }
      this.ends.delete(counter.key)
      if (this.ends.size >= KNOWN_ENDS_MAX) this.ends.delete(this.ends.keys().next().value as string)
      this.ends.set(counter.key, now + ttl)
    }
  }
}

/** One WindowEnds per Redis client: the counters of one deployment. */
const windowEndsByClient = new WeakMap<Redis, WindowEnds>()
function windowEndsOf (redis: Redis): WindowEnds {
  let ends = windowEndsByClient.get(redis)
  if (ends === undefined) {
    ends = new WindowEnds()
    windowEndsByClient.set(redis, ends)
  }
  return ends
}

/** One counter to count: its Redis key, and the window's max and length. */
export interface Counter {
  key: string
  max: number
  windowMs: number
}

/** What a counter said: x-ratelimit-* and Retry-After are made of this. */
export interface LimitState {
  max: number
  remaining: number
  /** Whole seconds until the window ends, at least 1. */
  ttlInSeconds: number
  exceeded: boolean
}

/**
 * The counters a script call takes, and what to do with their counts:
 * `settle` gets {current, ttl ms, ...} of the counters counted (the count
 * stops at the first one over its max) and throws when that one is over.
 */
export interface Limits {
  counters: Counter[]
  settle: (counts: number[]) => void
}

export function limitState (counter: Counter, current: number, ttlMs: number): LimitState {
  return {
    max: counter.max,
    remaining: Math.max(0, counter.max - current),
    ttlInSeconds: Math.max(1, Math.ceil(ttlMs / 1000)),
    exceeded: current > counter.max
  }
}

const PEEK = luaScript('limit-peek')

export function createLimitStore (redis: Redis) {
  const countOnly = defineLimitedScript<undefined>(redis, 'rankLimits', luaScript('count-limits'))
  const peekScript = defineScript<[number, number]>(redis, 'rankLimitPeek', PEEK)

  return {
    /** Counts the counters (and settles them), without other work: for requests refused before their action. */
    async count (limits: Limits): Promise<void> {
      await countOnly([], [], limits)
    },

    /** A counter's count and ms left in its window, without counting ({0, 0} when absent). */
    async peek (key: string): Promise<{ current: number, ttl: number }> {
      const [current, ttl] = await peekScript([key], [])
      return { current, ttl }
    }
  }
}
