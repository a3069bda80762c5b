import type { Redis } from 'ioredis'
import { fail } from '../envelope.js'
import { keys } from '../keys.js'
import { TS_TOLERANCE_S } from '../params.js'
import { defineScript } from './scripts.js'

/*
 * Board order (DECISIONS.md section 2): best score descending, then earlier
 * achievement time (server clock, ms), then player_name by UTF-8 bytes.
 *
 * Why not ZADD GT + ZREVRANK on member = player_name: scores use the whole
 * exact range of a double (±2^53-1), so the time cannot be folded into the
 * score, and ZREVRANK breaks ties by member in *descending* byte order, the
 * opposite of the name rule. So the tie-breakers go into the member and the
 * direction is flipped instead:
 *
 *   score  = -best            (ascending order of -best = descending best)
 *   member = 13-digit ms time ++ player_name
 *
 * ZRANK/ZRANGE (ascending, ties by member bytes ascending) then give exactly
 * the board order, and ranks are unique. Because the member changes when the
 * best improves, "best only" is a compare-and-swap in the script (the ZADD GT
 * idea, written out), kept atomic with the entry hash.
 *
 * The entries hash keeps every stored best ("best|ms"), hidden or not; the
 * board holds only the visible ones, so hidden players are not counted and
 * push nobody down. A player is hidden when named in the board's own hidden
 * set or in the board's copy of the hidden users; both live in the game's
 * slot, so every script decides visibility atomically.
 */

const TIME_DIGITS = 13

/**
 * The stored forms the scripts write, for bulk loading (bench/) outside the
 * scripts: the board member, its score, and the entries-hash value.
 */
export const encode = {
  member: (ms: number, player: string): string => `${String(ms).padStart(TIME_DIGITS, '0')}${player}`,
  boardScore: (best: number): string => String(negate(String(best))),
  entry: (best: number, ms: number): string => `${best}|${String(ms).padStart(TIME_DIGITS, '0')}`
}

/**
 * One submit, atomically: the replay and deletion checks of a signed submit,
 * the game's caps, compare-and-store, rank, count.
 *
 * Returns {outcome, improved 0/1, best text, best ms text, rank or -1,
 * visible total}; outcome is 'ok', 'replay' (this signed request was already
 * accepted: nothing stored, the current standing), 'stale' (signed before the
 * player's entry was deleted), 'full_entries' or 'full_meta' (a cap of the
 * game would be passed: nothing stored).
 */
const SUBMIT = `
local board, entries, metas, hidden, hiddenUsers, usage, seen, deleted = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8]
local player, score, negated, meta, hasMeta = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local maxEntries, maxMetaBytes, ts, seenUntil = tonumber(ARGV[6]), tonumber(ARGV[7]), ARGV[8], ARGV[9]
local entry = redis.call('HGET', entries, player)
local best, ms
if entry then
  local bar = string.find(entry, '|', 1, true)
  best, ms = string.sub(entry, 1, bar - 1), string.sub(entry, bar + 1)
end
local function answer (outcome, improved)
  local rank = entry and redis.call('ZRANK', board, ms .. player)
  return {outcome, improved, best, ms, rank or -1, redis.call('ZCARD', board)}
end

if ts ~= '' then
  local deletedAt = redis.call('GET', deleted)
  if deletedAt and tonumber(ts) < tonumber(deletedAt) then return {'stale'} end
  if redis.call('EXISTS', seen) == 1 then
    -- Accepted before; its entry gone since means an operator deleted it.
    if not entry then return {'stale'} end
    return answer('replay', 0)
  end
end
if entry and tonumber(score) <= tonumber(best) then
  if ts ~= '' then redis.call('SET', seen, '1', 'PXAT', seenUntil) end
  return answer('ok', 0)
end

local oldMeta = redis.call('HSTRLEN', metas, player)
local newMeta = 0
if hasMeta == '1' then newMeta = #meta end
local metaBytes = tonumber(redis.call('HGET', usage, 'meta_bytes') or '0')
local entryCount
if not entry then
  -- Every stored entry, hidden ones too. A game from before the count was
  -- kept starts from its board plus its hidden players (an upper bound).
  entryCount = tonumber(redis.call('HGET', usage, 'entries') or
    (redis.call('ZCARD', board) + redis.call('SCARD', hidden) + redis.call('SCARD', hiddenUsers)))
  if entryCount >= maxEntries then return {'full_entries'} end
end
if newMeta > oldMeta and metaBytes + newMeta - oldMeta > maxMetaBytes then return {'full_meta'} end
if ts ~= '' then redis.call('SET', seen, '1', 'PXAT', seenUntil) end
if entryCount then redis.call('HSET', usage, 'entries', entryCount + 1) end

if entry then redis.call('ZREM', board, ms .. player) end
local now = redis.call('TIME')
ms = string.format('%0${TIME_DIGITS}.0f', tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000))
best = score
entry = best .. '|' .. ms
redis.call('HSET', entries, player, entry)
if hasMeta == '1' then redis.call('HSET', metas, player, meta) else redis.call('HDEL', metas, player) end
if newMeta ~= oldMeta then redis.call('HSET', usage, 'meta_bytes', math.max(0, metaBytes + newMeta - oldMeta)) end
if redis.call('SISMEMBER', hidden, player) == 0 and redis.call('SISMEMBER', hiddenUsers, player) == 0 then
  redis.call('ZADD', board, negated, ms .. player)
end
return answer('ok', 1)
`

/** Returns {best text or '', ms text or '', rank or -1, visible total}. */
const ME = `
local entry = redis.call('HGET', KEYS[2], ARGV[1])
local total = redis.call('ZCARD', KEYS[1])
if not entry then return {'', '', -1, total} end
local bar = string.find(entry, '|', 1, true)
local best, ms = string.sub(entry, 1, bar - 1), string.sub(entry, bar + 1)
local rank = redis.call('ZRANK', KEYS[1], ms .. ARGV[1])
return {best, ms, rank or -1, total}
`

/** Returns {visible total, member, -score, member, -score, ...}, one snapshot. */
const TOP = `
local page = redis.call('ZRANGE', KEYS[1], ARGV[1], ARGV[2], 'WITHSCORES')
table.insert(page, 1, redis.call('ZCARD', KEYS[1]))
return page
`

/**
 * Sets ('1'), clears ('0') or keeps ('') a player's flag in the board's own
 * hidden set (ARGV[2]) and in the board's copy of hidden users (ARGV[3]),
 * then puts the entry on or off the board. Returns 0 when the player has no
 * entry (the flags are set all the same).
 */
const SET_VISIBILITY = `
local board, entries, hidden, hiddenUsers = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local player, boardHidden, userHidden = ARGV[1], ARGV[2], ARGV[3]
if boardHidden == '1' then redis.call('SADD', hidden, player) elseif boardHidden == '0' then redis.call('SREM', hidden, player) end
if userHidden == '1' then redis.call('SADD', hiddenUsers, player) elseif userHidden == '0' then redis.call('SREM', hiddenUsers, player) end
local entry = redis.call('HGET', entries, player)
if not entry then return 0 end
local bar = string.find(entry, '|', 1, true)
local best, member = string.sub(entry, 1, bar - 1), string.sub(entry, bar + 1) .. player
if redis.call('SISMEMBER', hidden, player) == 1 or redis.call('SISMEMBER', hiddenUsers, player) == 1 then
  redis.call('ZREM', board, member)
else
  local negated = best
  if string.sub(best, 1, 1) == '-' then negated = string.sub(best, 2) elseif best ~= '0' then negated = '-' .. best end
  redis.call('ZADD', board, negated, member)
end
return 1
`

/** Returns {best, ms, meta or false-as-'', board hidden 0/1, rank or -1, has meta 0/1} or {} when absent. */
const ENTRY = `
local board, entries, metas, hidden = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local entry = redis.call('HGET', entries, ARGV[1])
if not entry then return {} end
local bar = string.find(entry, '|', 1, true)
local best, ms = string.sub(entry, 1, bar - 1), string.sub(entry, bar + 1)
local meta = redis.call('HGET', metas, ARGV[1])
local rank = redis.call('ZRANK', board, ms .. ARGV[1])
return {best, ms, meta or '', redis.call('SISMEMBER', hidden, ARGV[1]), rank or -1, meta and 1 or 0}
`

/**
 * Removes every trace of a player from one board, and remembers when (Redis
 * clock, seconds; for ARGV[2] seconds), so signed submits made before then
 * cannot bring the entry back. Returns 0 when there was no entry.
 */
const DELETE_ENTRY = `
local board, entries, metas, hidden, usage, deleted = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local entry = redis.call('HGET', entries, ARGV[1])
if not entry then return 0 end
local bar = string.find(entry, '|', 1, true)
redis.call('ZREM', board, string.sub(entry, bar + 1) .. ARGV[1])
redis.call('HDEL', entries, ARGV[1])
local metaLength = redis.call('HSTRLEN', metas, ARGV[1])
if metaLength > 0 then
  redis.call('HDEL', metas, ARGV[1])
  redis.call('HSET', usage, 'meta_bytes', math.max(0, tonumber(redis.call('HGET', usage, 'meta_bytes') or '0') - metaLength))
end
redis.call('SREM', hidden, ARGV[1])
local entryCount = redis.call('HGET', usage, 'entries')
if entryCount then redis.call('HSET', usage, 'entries', math.max(0, tonumber(entryCount) - 1)) end
redis.call('SET', deleted, redis.call('TIME')[1], 'EX', ARGV[2])
return 1
`

/** A board entry as operators see it (DECISIONS.md section 5). */
export interface BoardEntry {
  player_name: string
  best_score: number
  created_at: string
  meta: string | null
  /** The entry's own (per-board) flag. */
  hidden: boolean
  /** null when the entry or its user is hidden. */
  rank: number | null
}

/** What bounds the storage of one game (its record's settings, or the defaults). */
export interface GameCaps {
  maxEntries: number
  maxMetaBytes: number
}

/** A signed submit's `ts` and `sign`: what makes a replay recognisable. */
export interface Signed {
  ts: string
  sign: string
}

export interface SubmitResult {
  improved: boolean
  bestScore: number
  /** 1-based; null while the player is hidden. */
  rank: number | null
  totalPlayers: number
}

export interface PlayerStanding {
  bestScore: number | null
  rank: number | null
  totalPlayers: number
}

export interface BoardItem {
  rank: number
  player_name: string
  score: number
  created_at: string
}

/** -0 and 0 are both 0 in JSON, but keep the number plain. */
function negate (text: string): number {
  return 0 - Number(text)
}

function isoFromMs (ms: string): string {
  return new Date(Number(ms)).toISOString()
}

function rankOrNull (zeroBased: number): number | null {
  return zeroBased < 0 ? null : zeroBased + 1
}

export function createLeaderboard (redis: Redis) {
  const submitScript = defineScript<[string, number?, string?, string?, number?, number?]>(redis, 'rankSubmit', 8, SUBMIT)
  const meScript = defineScript<[string, string, number, number]>(redis, 'rankMe', 2, ME)
  const topScript = defineScript<[number, ...string[]]>(redis, 'rankTop', 1, TOP)
  const visibilityScript = defineScript<number>(redis, 'rankSetVisibility', 4, SET_VISIBILITY)
  const entryScript = defineScript<[string, string, string, number, number, number] | []>(redis, 'rankEntry', 4, ENTRY)
  const deleteScript = defineScript<number>(redis, 'rankDeleteEntry', 6, DELETE_ENTRY)
  const entryKeys = (gameId: string, player: string): string[] => [keys.board(gameId), keys.entries(gameId, player), keys.meta(gameId, player), keys.hiddenPlayers(gameId)]

  return {
    /**
     * One atomic script call: replay and deletion checks (signed submits),
     * the game's caps, compare, store, rank, count. A replay answers the
     * current standing with improved false; a refusal is expired_ts or
     * quota_exceeded, and stores nothing.
     */
    async submit (gameId: string, player: string, score: number, meta: string | undefined, caps: GameCaps, signed?: Signed): Promise<SubmitResult> {
      const [outcome, improved, best, , rank, total] = await submitScript(
        [...entryKeys(gameId, player), keys.boardHiddenUsers(gameId), keys.usage(gameId),
          keys.seenSubmission(gameId, signed?.sign ?? ''), keys.deletedPlayer(gameId, player)],
        [player, String(score), String(negate(String(score))), meta ?? '', meta === undefined ? '0' : '1',
          caps.maxEntries, caps.maxMetaBytes, signed?.ts ?? '', signed === undefined ? 0 : (Number(signed.ts) + TS_TOLERANCE_S + 1) * 1000]
      )
      if (outcome === 'stale') fail('expired_ts', 'This submission was signed before its entry was deleted; sign a new one.')
      if (outcome === 'full_entries') fail('quota_exceeded', `This game's board is full (max_entries ${caps.maxEntries}); an operator can raise it.`)
      if (outcome === 'full_meta') fail('quota_exceeded', `This game's meta storage is full (max_meta_bytes ${caps.maxMetaBytes}); submit without meta, or ask an operator to raise it.`)
      return { improved: improved === 1, bestScore: Number(best), rank: rankOrNull(rank ?? -1), totalPlayers: total ?? 0 }
    },

    async standing (gameId: string, player: string): Promise<PlayerStanding> {
      const [best, , rank, total] = await meScript([keys.board(gameId), keys.entries(gameId, player)], [player])
      return { bestScore: best === '' ? null : Number(best), rank: rankOrNull(rank), totalPlayers: total }
    },

    async top (gameId: string, offset: number, limit: number): Promise<{ total: number, items: BoardItem[] }> {
      const [total, ...page] = await topScript([keys.board(gameId)], [offset, offset + limit - 1])
      const items: BoardItem[] = []
      for (let i = 0; i < page.length; i += 2) {
        const member = page[i] as string
        items.push({
          rank: offset + i / 2 + 1,
          player_name: member.slice(TIME_DIGITS),
          score: negate(page[i + 1] as string),
          created_at: isoFromMs(member.slice(0, TIME_DIGITS))
        })
      }
      return { total, items }
    },

    /**
     * Sets the board's own hidden flag of a player and/or the board's copy of
     * the user's flag (undefined keeps either), then puts the entry on or off
     * the board. Returns false when the player has no entry on this board.
     */
    async setVisibility (gameId: string, player: string, flags: { boardHidden?: boolean, userHidden?: boolean }): Promise<boolean> {
      const flag = (value: boolean | undefined): string => value === undefined ? '' : value ? '1' : '0'
      return await visibilityScript(
        [keys.board(gameId), keys.entries(gameId, player), keys.hiddenPlayers(gameId), keys.boardHiddenUsers(gameId)],
        [player, flag(flags.boardHidden), flag(flags.userHidden)]
      ) === 1
    },

    async entry (gameId: string, player: string): Promise<BoardEntry | null> {
      const reply = await entryScript(entryKeys(gameId, player), [player])
      if (reply.length === 0) return null
      const [best, ms, meta, boardHidden, rank, hasMeta] = reply
      return {
        player_name: player,
        best_score: Number(best),
        created_at: isoFromMs(ms),
        meta: hasMeta === 1 ? meta : null,
        hidden: boardHidden === 1,
        rank: rankOrNull(rank)
      }
    },

    async deleteEntry (gameId: string, player: string): Promise<boolean> {
      // Remembered as long as a submit signed before the deletion could still arrive.
      return await deleteScript([...entryKeys(gameId, player), keys.usage(gameId), keys.deletedPlayer(gameId, player)], [player, 2 * TS_TOLERANCE_S + 1]) === 1
    }
  }
}

export type Leaderboard = ReturnType<typeof createLeaderboard>
