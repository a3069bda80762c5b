--- @include "board-prelude"
--- @include "boards-changed"
--- @include "read-entry"
-- A batch of imported entries (docs/guide.md#export-and-import), each stored
-- as a submit would store it in the current season, best-only, but with the
-- time it was achieved elsewhere, so ties break as they did there: a line
-- replaces a stored best when its score is better, or equal and earlier.
-- No review, no events; the game's caps hold. The live boards are told once.
-- On a named board whose operator is latest or sum (docs/decisions/0070-named-boards-one-game-many-boards-in-its.md), a
-- line is the entry's value (a total, as an export of such a board gives
-- it): it replaces the stored one when it was achieved later.
-- KEYS: game, board, hidden, hidden users, usage, live, the boards version, then per entry its
-- entries and meta buckets.
-- ARGV: order, season (moved() checks them), max entries, max meta bytes,
-- then per entry: player, score, board score, achieved ms (13 digits), meta,
-- has meta.
-- Returns {'moved'}, or per entry one of 'new', 'improved', 'unchanged',
-- 'full_entries', 'full_meta'.
local board, hidden, hiddenUsers, usage, live = KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local FIRST_ENTRY_KEY, FIRST_ENTRY_ARG, ENTRY_ARGS = 8, 5, 6
if moved() then return {'moved'} end
local maxEntries, maxMetaBytes = tonumber(ARGV[3]), tonumber(ARGV[4])
local lower = CHOSEN_ORDER == 'asc'
local bestOnly = not BOARD_ID or string.match(CHOSEN, '^%a+ (%a+)') == 'best'
local function better (a, b)
  if lower then return tonumber(a) < tonumber(b) end
  return tonumber(a) > tonumber(b)
end
local entryCount = tonumber(redis.call('HGET', usage, 'entries') or
  (redis.call('ZCARD', board) + redis.call('SCARD', hidden) + redis.call('SCARD', hiddenUsers)))
local metaBytes = tonumber(redis.call('HGET', usage, 'meta_bytes') or '0')
-- The game's record says once that it has stored a meta (metas: see submit.lua).
local metaStored = false
local outcomes, changedTop = {}, false
local count = (#ARGV - FIRST_ENTRY_ARG + 1) / ENTRY_ARGS
for i = 0, count - 1 do
  local arg = FIRST_ENTRY_ARG + ENTRY_ARGS * i
  local player, score, boardScore, ms, meta, hasMeta = ARGV[arg], ARGV[arg + 1], ARGV[arg + 2], ARGV[arg + 3], ARGV[arg + 4], ARGV[arg + 5]
  local entries, metas = KEYS[FIRST_ENTRY_KEY + 2 * i], KEYS[FIRST_ENTRY_KEY + 1 + 2 * i]
  local best, oldMs = readEntry(entries, player)
  local entry = best ~= nil
  local outcome
  -- Best-only: better, or equal and earlier; a latest or sum board's value: achieved later.
  local replaces = true
  if entry and bestOnly then
    replaces = better(score, best) or (tonumber(score) == tonumber(best) and ms < oldMs)
  elseif entry then
    replaces = ms > oldMs
  end
  if not replaces then
    outcome = 'unchanged'
  else
    local oldMeta = redis.call('HSTRLEN', metas, player)
    local newMeta = hasMeta == '1' and #meta or 0
    if not entry and entryCount >= maxEntries then
      outcome = 'full_entries'
    elseif newMeta > oldMeta and metaBytes + newMeta - oldMeta > maxMetaBytes then
      outcome = 'full_meta'
    else
      if entry then
        redis.call('ZREM', board, oldMs .. player)
        outcome = 'improved'
      else
        entryCount = entryCount + 1
        outcome = 'new'
      end
      redis.call('HSET', entries, player, score .. '|' .. ms)
      if hasMeta == '1' then
        redis.call('HSET', metas, player, meta)
        metaStored = true
      else
        redis.call('HDEL', metas, player)
      end
      metaBytes = math.max(0, metaBytes + newMeta - oldMeta)
      if redis.call('SISMEMBER', hidden, player) == 0 and redis.call('SISMEMBER', hiddenUsers, player) == 0 then
        redis.call('ZADD', board, boardScore, ms .. player)
        changedTop = true
      end
    end
  end
  outcomes[i + 1] = outcome
end
redis.call('HSET', usage, 'entries', entryCount, 'meta_bytes', metaBytes)
if changedTop then redis.call('SPUBLISH', live, 'imported') end
boardsChanged(KEYS[7])
if metaStored then redis.call('HSET', KEYS[1], 'metas', 1) end
return outcomes
