-- One submit, atomically: the replay and deletion checks of a signed submit,
-- the game's caps, compare-and-store, rank, count.
--
-- Returns {outcome, improved 0/1, best text, best ms text, rank or -1,
-- visible total}; outcome is 'ok', 'replay' (this signed request was already
-- accepted: nothing stored, the current standing), 'stale' (signed before the
-- player's entry was deleted), 'full_entries' or 'full_meta' (a cap of the
-- game would be passed: nothing stored).
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
ms = string.format('%0' .. TIME_DIGITS .. '.0f', tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000))
best = score
entry = best .. '|' .. ms
redis.call('HSET', entries, player, entry)
if hasMeta == '1' then redis.call('HSET', metas, player, meta) else redis.call('HDEL', metas, player) end
if newMeta ~= oldMeta then redis.call('HSET', usage, 'meta_bytes', math.max(0, metaBytes + newMeta - oldMeta)) end
if redis.call('SISMEMBER', hidden, player) == 0 and redis.call('SISMEMBER', hiddenUsers, player) == 0 then
  redis.call('ZADD', board, negated, ms .. player)
end
return answer('ok', 1)
