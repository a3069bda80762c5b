-- One submit, atomically: the replay and deletion checks of a signed submit,
-- the game's caps, compare-and-store, rank, count; on the all-time board
-- (its current season) and on the board of each current period.
--
-- KEYS: game, board, entries, metas, hidden, hidden users, usage, seen,
-- deleted; then a board and an entries bucket per period.
-- ARGV: order, season (what the caller chose the keys by; moved() checks
-- them), player, score, board score (-score for desc, score for asc), meta,
-- has meta, max entries, max meta bytes, ts, seen until, at (the instant in
-- ms; '' for the Redis clock), the number of periods; then per period its
-- start, its reset and when its keys expire (ms).
--
-- Returns {'moved'} (the game's order or season changed: choose again),
-- {'period', ms} (the instant is outside a period named: choose them at ms),
-- {'stale'} (signed before the player's entry was deleted), {'closed'} (this
-- signed request was accepted in a season closed since), {'full_entries'}
-- or {'full_meta'} (a cap of the game would be passed: nothing stored); or
-- {outcome, improved 0/1, best, best ms, rank or -1, visible total, then per
-- period: improved 0/1, best or '', rank or -1}, outcome 'ok' or 'replay'
-- (this signed request was accepted before: nothing stored, the standing).
local board, entries, metas, hidden, hiddenUsers, usage, seen, deleted = KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8], KEYS[9]
local player, score, boardScore, meta, hasMeta = ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7]
local maxEntries, maxMetaBytes, ts, seenUntil, at = tonumber(ARGV[8]), tonumber(ARGV[9]), ARGV[10], ARGV[11], ARGV[12]
local periodCount = tonumber(ARGV[13])
if moved() then return {'moved'} end

local now
if at ~= '' then now = tonumber(at) elseif periodCount > 0 then now = clock() end
for i = 1, periodCount do
  local arg = 13 + 3 * (i - 1)
  if now < tonumber(ARGV[arg + 1]) or now >= tonumber(ARGV[arg + 2]) then return {'period', string.format('%.0f', now)} end
end

local lower = ARGV[1] == 'asc'
local function better (a, b)
  if lower then return tonumber(a) < tonumber(b) end
  return tonumber(a) > tonumber(b)
end
local function split (entry)
  local bar = string.find(entry, '|', 1, true)
  return string.sub(entry, 1, bar - 1), string.sub(entry, bar + 1)
end
local visible
local function isVisible ()
  if visible == nil then
    visible = redis.call('SISMEMBER', hidden, player) == 0 and redis.call('SISMEMBER', hiddenUsers, player) == 0
  end
  return visible
end

local entry = redis.call('HGET', entries, player)
local best, ms
if entry then best, ms = split(entry) end

-- The period boards: stored when `store` and the score is better there,
-- whatever the all-time best; appended to `result` as the answer gives them.
local function periods (result, store)
  for i = 1, periodCount do
    local periodBoard, periodEntries = KEYS[8 + 2 * i], KEYS[9 + 2 * i]
    local periodEntry = redis.call('HGET', periodEntries, player)
    local periodBest, periodMs
    if periodEntry then periodBest, periodMs = split(periodEntry) end
    local improved = 0
    if store and (not periodEntry or better(score, periodBest)) then
      if periodEntry then redis.call('ZREM', periodBoard, periodMs .. player) end
      periodBest, periodMs = score, string.format('%0' .. TIME_DIGITS .. '.0f', now)
      redis.call('HSET', periodEntries, player, periodBest .. '|' .. periodMs)
      if isVisible() then redis.call('ZADD', periodBoard, boardScore, periodMs .. player) end
      local ttl = tonumber(ARGV[13 + 3 * i]) - now
      redis.call('PEXPIRE', periodEntries, ttl)
      -- Never later than any of its buckets (keep_periods may have changed): a board member always has its entry.
      redis.call('PEXPIRE', periodBoard, ttl, 'LT')
      improved = 1
    end
    table.insert(result, improved)
    table.insert(result, periodBest or '')
    table.insert(result, periodBest and (redis.call('ZRANK', periodBoard, periodMs .. player) or -1) or -1)
  end
  return result
end
local function answer (outcome, improved, store)
  local rank = entry and redis.call('ZRANK', board, ms .. player)
  return periods({outcome, improved, best, ms, rank or -1, redis.call('ZCARD', board)}, store)
end

if ts ~= '' then
  local deletedAt = redis.call('GET', deleted)
  if deletedAt and tonumber(ts) < tonumber(deletedAt) then return {'stale'} end
  if redis.call('EXISTS', seen) == 1 then
    -- Accepted before; its entry gone since means an operator deleted it, or the season closed.
    if not entry then
      if deletedAt then return {'stale'} end
      return {'closed'}
    end
    return answer('replay', 0, false)
  end
end
if entry and not better(score, best) then
  if ts ~= '' then redis.call('SET', seen, '1', 'PXAT', seenUntil) end
  return answer('ok', 0, true)
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
now = now or clock()
ms = string.format('%0' .. TIME_DIGITS .. '.0f', now)
best = score
entry = best .. '|' .. ms
redis.call('HSET', entries, player, entry)
if hasMeta == '1' then redis.call('HSET', metas, player, meta) else redis.call('HDEL', metas, player) end
if newMeta ~= oldMeta then redis.call('HSET', usage, 'meta_bytes', math.max(0, metaBytes + newMeta - oldMeta)) end
if isVisible() then redis.call('ZADD', board, boardScore, ms .. player) end
return answer('ok', 1, true)
