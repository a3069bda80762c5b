import { readPipeline, type RedisClient as Redis } from './redis-client.js'
import { ENTRY_BUCKETS, TIME_DIGITS, keys } from './keys.js'
import { defineScript, luaScript } from './script-loader.js'
import { boardView, type BoardRef } from './board-choice.js'
import type { GameRecord } from '../rules/games.js'
import { boardScoreOf, compareStored, isoFromMs, rankOrNull, scoreOf, type ListPlace, type ListedEntry, type SearchPlace } from './board-format.js'

/*
 * Listing a board for operators: every entry, hidden ones included where
 * their scores put them, page by page in board order, or by name prefix.
 * Reads only: the leaderboard (leaderboard.ts) spreads these into its own.
 */

const METAS = luaScript('metas')

/** The names hidden on a game's boards: by the game, and as users. */
interface HiddenNames {
  onGame: Set<string>
  users: Set<string>
}

/**
 * How many stored entries one search page looks at, about: the walk reads
 * as many buckets as hold that many on average (the whole board when it is
 * no bigger, so a small board's page is never empty with a cursor), and
 * never fewer than SEARCH_MIN_BUCKETS_PER_PAGE. A rare prefix on a board of
 * millions then ends its page early, with a cursor.
 */
const SEARCH_ENTRIES_PER_PAGE = 200_000
const SEARCH_MIN_BUCKETS_PER_PAGE = 512
/** Buckets read in one round trip. */
const SEARCH_BUCKETS_PER_CALL = 128

/** A MATCH pattern for names beginning with `prefix`, ASCII letters either case. */
function prefixPattern (prefix: string): string {
  let pattern = ''
  for (const char of prefix) {
    if (/[A-Za-z]/.test(char)) pattern += `[${char.toLowerCase()}${char.toUpperCase()}]`
    else pattern += /[*?[\]\\]/.test(char) ? `\\${char}` : char
  }
  return `${pattern}*`
}

/** An entry's run (keys.entryRun: "ms|score|verified"): its verified seconds while it is this entry's (the same ms and score), else null. */
function runOfEntry (stored: string | null | undefined, entry: string): number | null {
  if (stored === null || stored === undefined) return null
  const [ms, score, verified] = stored.split('|')
  const bar = entry.indexOf('|')
  return ms === entry.slice(bar + 1) && score === entry.slice(0, bar) ? Number(verified) : null
}

export function createBoardListing (redis: Redis) {
  const metasScript = defineScript<Array<string | null>>(redis, 'rankMetas', METAS)

  /** Who is hidden on the game's boards: its own hidden set and its copy of the hidden users (both short: operators' decisions). */
  async function hiddenNames (gameId: string): Promise<HiddenNames> {
    const [onGame, users] = await readPipeline(redis, pipeline => { pipeline.smembers(keys.hiddenPlayers(gameId)).smembers(keys.boardHiddenUsers(gameId)) }) as [string[], string[]]
    return { onGame: new Set(onGame), users: new Set(users) }
  }

  /** The hidden entries of a board, in board order: those of the hidden names that have one. */
  async function hiddenEntries (game: GameRecord, board: BoardRef, hidden: HiddenNames): Promise<Array<{ score: string, member: string, player: string }>> {
    const gameId = game.game_id
    const names = [...new Set([...hidden.onGame, ...hidden.users])]
    if (names.length === 0) return []
    const stored = await readPipeline(redis, pipeline => { for (const name of names) pipeline.hget(keys.entries(gameId, name, board.scope), name) }) as Array<string | null>
    const found: Array<{ score: string, member: string, player: string }> = []
    names.forEach((player, i) => {
      const entry = stored[i]
      if (entry === null || entry === undefined) return
      const bar = entry.indexOf('|')
      found.push({ score: boardScoreOf(Number(entry.slice(0, bar)), game.order), member: entry.slice(bar + 1) + player, player })
    })
    return found.sort((a, b) => compareStored(a.score, a.member, b.score, b.member))
  }

  /** The listed form of entries found, with their meta (one round trip; none on a period board, which keeps no meta) and flags. */
  async function listed (game: GameRecord, board: BoardRef, hidden: HiddenNames, found: Array<{ player: string, entry: string, rank: number | null }>): Promise<ListedEntry[]> {
    const gameId = game.game_id
    // One script call for the page's metas, and the entries' runs while the game keeps runs: a pipeline of one HGET each cost the export most of its time and memory.
    const players = found.map(({ player }) => player)
    const withRuns = game.runs !== 'off'
    const values = board.period !== undefined || found.length === 0
      ? []
      : await metasScript([...players.map(player => keys.meta(gameId, player, board.scope)), ...(withRuns ? players.map(player => keys.entryRun(gameId, player, board.scope)) : [])], withRuns ? [...players, ...players] : players)
    return found.map(({ player, entry, rank }, i) => {
      const bar = entry.indexOf('|')
      const ms = entry.slice(bar + 1)
      return {
        rank,
        player_name: player,
        best_score: Number(entry.slice(0, bar)),
        created_at: isoFromMs(ms),
        meta: values[i] ?? null,
        run_verified_seconds: runOfEntry(values[players.length + i], entry),
        hidden: hidden.onGame.has(player),
        hidden_user: hidden.users.has(player)
      }
    })
  }

  return {
    /**
     * A page of a board in board order, hidden entries included where their
     * scores put them (rank null), from `place` (null: the top). Visible
     * entries are read by rank, so a page costs the same at the top and at
     * the bottom of a board of any size; hidden ones are found through the
     * hidden lists, which are short. `next` is null after the last entry.
     */
    async entriesPage (game: GameRecord, board: BoardRef, place: ListPlace | null, limit: number): Promise<{ total: number, items: ListedEntry[], next: ListPlace | null }> {
      game = boardView(game, board)
      const gameId = game.game_id
      const boardKey = keys.board(gameId, board.scope)
      const [rankOfLast, total] = await readPipeline(redis, pipeline => {
        pipeline.zrank(boardKey, place?.lastVisible === undefined || place.lastVisible === '' ? '\u0000' : place.lastVisible).zcard(boardKey)
      }) as [number | null, number]
      // Where the last visible entry listed is now, or (it moved or left) the rank the page before ended at.
      const visibleFrom = place === null ? 0 : rankOfLast !== null && place.lastVisible !== '' ? rankOfLast + 1 : place.visibleFrom
      const page = await redis.zrange(boardKey, visibleFrom, visibleFrom + limit, 'WITHSCORES')
      const names = await hiddenNames(gameId)
      const hidden = (await hiddenEntries(game, board, names)).filter(entry => place === null || compareStored(entry.score, entry.member, place.lastScore, place.lastMember) > 0)
      const merged: Array<{ score: string, member: string, player: string, rank: number | null }> = []
      let v = 0
      let h = 0
      const visibleCount = page.length / 2
      while (merged.length < limit && (v < visibleCount || h < hidden.length)) {
        const nextHidden = hidden[h]
        const visibleScore = page[2 * v + 1] as string
        const visibleMember = page[2 * v] as string
        if (nextHidden !== undefined && (v >= visibleCount || compareStored(nextHidden.score, nextHidden.member, visibleScore, visibleMember) < 0)) {
          merged.push({ ...nextHidden, rank: null })
          h++
        } else {
          merged.push({ score: visibleScore, member: visibleMember, player: visibleMember.slice(TIME_DIGITS), rank: visibleFrom + v + 1 })
          v++
        }
      }
      const last = merged[merged.length - 1]
      const lastVisible = [...merged].reverse().find(entry => entry.rank !== null)
      const more = v < visibleCount || h < hidden.length
      const next = more && last !== undefined
        ? { visibleFrom: visibleFrom + v, lastVisible: lastVisible?.member ?? place?.lastVisible ?? '', lastScore: last.score, lastMember: last.member }
        : null
      const items = await listed(game, board, names, merged.map(({ player, score, member, rank }) => ({ player, rank, entry: `${scoreOf(score, game.order)}|${member.slice(0, TIME_DIGITS)}` })))
      return { total, items, next }
    },

    /**
     * The entries of a board whose names begin with `prefix` (ASCII letters
     * either case), hidden ones too: read bucket by bucket (no index of names
     * is kept, so submits pay nothing for it), each page at most
     * SEARCH_BUCKETS_PER_PAGE buckets. Names come sorted within a bucket,
     * not across the board; each carries its rank. `next` is null after the
     * last bucket.
     */
    async entriesMatching (game: GameRecord, board: BoardRef, prefix: string, place: SearchPlace | null, limit: number): Promise<{ total: number, items: ListedEntry[], next: SearchPlace | null }> {
      game = boardView(game, board)
      const gameId = game.game_id
      const pattern = prefixPattern(prefix)
      const found: Array<{ player: string, entry: string }> = []
      let bucket = place?.bucket ?? 0
      let after = place?.after ?? ''
      const total = await redis.zcard(keys.board(gameId, board.scope))
      const bucketsPerPage = Math.max(SEARCH_MIN_BUCKETS_PER_PAGE, Math.floor(SEARCH_ENTRIES_PER_PAGE / Math.max(1, total / ENTRY_BUCKETS)))
      const end = Math.min(ENTRY_BUCKETS, bucket + bucketsPerPage)
      let next: SearchPlace | null = null
      while (bucket < end && next === null) {
        const batch = Array.from({ length: Math.min(SEARCH_BUCKETS_PER_CALL, end - bucket) }, (_, i) => bucket + i)
        const scanned = await readPipeline(redis, pipeline => { for (const one of batch) pipeline.hscan(keys.entriesBucket(gameId, one, board.scope), '0', 'MATCH', pattern, 'COUNT', 1000) }) as Array<[string, string[]]>
        for (const [i, one] of batch.entries()) {
          const [cursor, fields] = scanned[i] as [string, string[]]
          // A bucket past the compact encoding is scanned in more than one call.
          for (let more = cursor; more !== '0';) {
            const [nextCursor, moreFields] = await redis.hscan(keys.entriesBucket(gameId, one, board.scope), more, 'MATCH', pattern, 'COUNT', 1000)
            fields.push(...moreFields)
            more = nextCursor
          }
          const matches: Array<{ player: string, entry: string }> = []
          for (let f = 0; f < fields.length; f += 2) matches.push({ player: fields[f] as string, entry: fields[f + 1] as string })
          matches.sort((a, b) => Buffer.compare(Buffer.from(a.player, 'utf8'), Buffer.from(b.player, 'utf8')))
          let takenHere = after
          for (const [m, match] of matches.entries()) {
            // A bucket scanned while Redis resized it may name a field twice.
            if (m > 0 && matches[m - 1]?.player === match.player) continue
            if (after !== '' && Buffer.compare(Buffer.from(match.player, 'utf8'), Buffer.from(after, 'utf8')) <= 0) continue
            // Full, and this bucket has more: the next page begins here.
            if (found.length === limit) { next = { bucket: one, after: takenHere }; break }
            found.push(match)
            takenHere = match.player
          }
          if (next !== null) break
          after = ''
          bucket = one + 1
        }
      }
      if (next === null && bucket < ENTRY_BUCKETS) next = { bucket, after: '' }
      // The page in name order (the cursor is the walk's place, not the page's order).
      found.sort((a, b) => Buffer.compare(Buffer.from(a.player, 'utf8'), Buffer.from(b.player, 'utf8')))
      // Each entry's rank: its member's on the board (none while hidden).
      const ranks = await readPipeline(redis, pipeline => {
        for (const { player, entry } of found) pipeline.zrank(keys.board(gameId, board.scope), entry.slice(entry.indexOf('|') + 1) + player)
      }) as Array<number | null>
      return { total, items: await listed(game, board, await hiddenNames(gameId), found.map((one, i) => ({ ...one, rank: rankOrNull(ranks[i] ?? -1) }))), next }
    }
  }
}
