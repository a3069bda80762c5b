import type { RedisClient as Redis } from './redis-client.js'
import { defineScript, luaScript, scriptSender, type ScriptArg } from './script-loader.js'

/**
 * Rate-limit counters in Redis: fixed windows, one key per counted subject,
 * in the format of @fastify/rate-limit's RedisStore (a number with a TTL).
 * The counting rule is lua/includes/limits.lua, and only there: the hot
 * path counts inside the action's own script call (defineLimitedScript and
 * definePackedScript, below), everything else through `count` here (@fastify/rate-limit too, through a
 * store of plugins/app/rate-limit.ts, which says which limits exist and what
 * they count).
 */

/**
 * A script whose call also takes rate-limit counters: they are counted
 * first, in the same call, and when one is over its max the script's own
 * work does not run. The script's file counts them itself (its work is a
 * function it hands to `limited`, lua/includes/limits.lua); the counters
 * are appended to its keys and arguments, as `trailingCounters` there reads
 * them. Answers what the work answered; the counts are left in
 * `limits.counts` (countedIn), and LimitReached is thrown when the work did
 * not run. Limits counted already are not counted again (a script called
 * again for a game whose settings moved).
 */
export function defineLimitedScript<T> (redis: Redis, name: string, lua: string, options: { writes?: boolean } = {}): (keys: string[], args: ScriptArg[], limits?: Limits) => Promise<T> {
  const send = scriptSender<[number[], T?]>(redis, name, lua, options)
  const windowEnds = windowEndsOf(redis)
  return async (keys, args, limits) => {
    const counters = uncounted(limits)?.counters ?? []
    // numkeys, the action's keys, the counters' keys; its arguments, each counter's max, window and whether its end is known, how many counters
    const call: ScriptArg[] = [keys.length + counters.length, ...keys]
    for (const counter of counters) call.push(counter.key)
    call.push(...args)
    const sent = Date.now()
    for (const counter of counters) call.push(counter.max, counter.windowMs, windowEnds.knows(counter.key, sent) ? 1 : 0)
    call.push(counters.length)
    const [counts, result] = await send(call)
    if (counters.length > 0) countedIn(windowEnds, limits as Limits, counts)
    return result as T
  }
}

/** A counter as lua/includes/limits.lua's countLimits takes it in a packed call: key, max, window (ms), whether its end is known. */
export type PackedCounter = [string, number, number, boolean]

/** A packed call (one argument the script decodes), made with the counters it carries. */
export type PackedCall = (counters: PackedCounter[]) => { keys: string[], args: string[] }

/** Sends a packed script's call, with the limits it counts. */
export type PackedScript<T> = (build: PackedCall, limits?: Limits) => Promise<T>

/**
 * A script that reads its call from one packed argument, rate-limit
 * counters included (the script counts them first, with countLimits, and
 * answers {counts} or {counts, what its work answered}). Answers what the
 * work answered; as for defineLimitedScript, the counts are left in
 * `limits.counts`, LimitReached is thrown when the work did not run, and
 * limits counted already are not counted again.
 */
export function definePackedScript<T> (redis: Redis, name: string, lua: string, options: { writes?: boolean } = {}): PackedScript<T> {
  const send = scriptSender<[number[], T?]>(redis, name, lua, options)
  const windowEnds = windowEndsOf(redis)
  return async (build, limits) => {
    const counters = uncounted(limits)?.counters ?? []
    const sent = Date.now()
    const call = build(counters.map(counter => [counter.key, counter.max, counter.windowMs, windowEnds.knows(counter.key, sent)]))
    const [counts, result] = await send([call.keys.length, ...call.keys, ...call.args])
    if (counters.length > 0) countedIn(windowEnds, limits as Limits, counts)
    return result as T
  }
}

/** The limits when they are still to be counted. */
const uncounted = (limits: Limits | undefined): Limits | undefined => limits?.counts === undefined ? limits : undefined

/**
 * Thrown by a limited call whose count went over a counter's max: its work
 * did not run. The counts are in the limits; whoever asked for the work
 * refuses the request (plugins/app/rate-limit.ts settles them).
 */
export class LimitReached extends Error {
  constructor () {
    super('a rate limit was reached; the work did not run')
  }
}

/** The counts of a call kept in its limits (ttl from the ends known here); LimitReached when the last counted is over its max. */
function countedIn (windowEnds: WindowEnds, limits: Limits, counts: number[]): void {
  windowEnds.settle(limits.counters, counts, Date.now())
  limits.counts = counts
  if (overLimit(limits)) throw new LimitReached()
}

/** Whether the last counter counted went over its max (the count stops there): limitState's rule. */
function overLimit ({ counters, counts = [] }: Limits): boolean {
  const last = counts.length / 2 - 1
  return last >= 0 && limitState(counters[last] as Counter, counts[2 * last] as number, 0).exceeded
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
 * The counters a request counts, and once a script call counted them, what
 * they said: {current, ttl ms, current, ttl ms, ...} of the counters
 * counted (the count stops at the first one over its max).
 */
export interface Limits {
  counters: Counter[]
  counts?: number[]
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
    /**
     * Counts the counters, without other work: their counts are left in
     * `limits`, for the caller to judge (there is no work to hold back, so
     * a count over a max is not LimitReached here).
     */
    async count (limits: Limits): Promise<void> {
      try {
        await countOnly([], [], limits)
      } catch (error) {
        if (!(error instanceof LimitReached)) throw error
      }
    },

    /** A counter's count and ms left in its window, without counting ({0, 0} when absent). */
    async peek (key: string): Promise<{ current: number, ttl: number }> {
      const [current, ttl] = await peekScript([key], [])
      return { current, ttl }
    }
  }
}
