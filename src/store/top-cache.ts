import type { BoardItem } from '../../sdk/answers.js'

/**
 * Top pages kept in the process (a top list costs Redis almost
 * nothing while its board is unchanged). A page is served again only after
 * the top script found the game's boards version (keys.boardsVersion) still
 * the one it was read at, in the same call that counts the rate limits: so a
 * read that starts after any instance answered a write sees that write, as
 * without the cache (every script that writes a board bumps the version:
 * lua/includes/boards-changed.lua). What the version cannot see is left to
 * this process: a page lives no longer than its board (a period board
 * expires), and every page goes when the connection to Redis is lost (a
 * restart or a failover may bring back an older version number) or when the
 * game's record changes.
 */
export interface TopPage {
  total: number
  items: BoardItem[]
}

interface Cached {
  version: string
  page: TopPage
  /** ms since epoch; Infinity for a board without an expiry. */
  expiresAt: number
}

/** Pages kept at most; the oldest goes first. */
const MAX_PAGES = 10_000

export class TopCache {
  private readonly pages = new Map<string, Cached>()

  constructor (private readonly now: () => number = Date.now) {}

  private static keyOf (gameId: string, scope: string, offset: number, limit: number): string {
    return `${gameId}\n${scope}\n${offset}\n${limit}`
  }

  /** The page kept, with the version it was read at (for the top script to compare); undefined when none is kept or its board has expired. */
  get (gameId: string, scope: string, offset: number, limit: number): Cached | undefined {
    const key = TopCache.keyOf(gameId, scope, offset, limit)
    const cached = this.pages.get(key)
    if (cached === undefined) return undefined
    if (cached.expiresAt <= this.now()) {
      this.pages.delete(key)
      return undefined
    }
    return cached
  }

  /** Keeps a page read at `version`; `ttlMs` is its board's PTTL (below 0: no expiry, or no board). */
  set (gameId: string, scope: string, offset: number, limit: number, version: string, ttlMs: number, page: TopPage): void {
    const key = TopCache.keyOf(gameId, scope, offset, limit)
    this.pages.delete(key)
    if (this.pages.size >= MAX_PAGES) this.pages.delete(this.pages.keys().next().value as string)
    this.pages.set(key, { version, page, expiresAt: ttlMs >= 0 ? this.now() + ttlMs : Infinity })
  }

  /** Forgets one game's pages (its record changed), or every page. */
  forget (gameId?: string): void {
    if (gameId === undefined) {
      this.pages.clear()
      return
    }
    const prefix = `${gameId}\n`
    for (const key of this.pages.keys()) if (key.startsWith(prefix)) this.pages.delete(key)
  }
}
