-- Removes every trace of a player from every board given, and remembers when
-- (Redis clock, seconds; for ARGV[2] seconds), so signed submits made before
-- then cannot bring an entry back.
-- The live boards are told.
-- KEYS: hidden, deleted, the live channel, then for each of ARGV[3] seasons its board, the
-- player's entries and meta buckets and its usage; then for each period its
-- board and the player's entries bucket.
-- ARGV: player, how long deleted is kept, the number of seasons.
-- Returns how many boards held an entry (0: none did, nothing is remembered).
local hidden, deleted, live = KEYS[1], KEYS[2], KEYS[3]
local player, seasons = ARGV[1], tonumber(ARGV[3])
local removed = 0
local function remove (board, entries)
  local entry = redis.call('HGET', entries, player)
  if not entry then return false end
  local bar = string.find(entry, '|', 1, true)
  redis.call('ZREM', board, string.sub(entry, bar + 1) .. player)
  redis.call('HDEL', entries, player)
  removed = removed + 1
  return true
end
for i = 0, seasons - 1 do
  local board, entries, metas, usage = KEYS[4 + 4 * i], KEYS[5 + 4 * i], KEYS[6 + 4 * i], KEYS[7 + 4 * i]
  if remove(board, entries) then
    local metaLength = redis.call('HSTRLEN', metas, player)
    if metaLength > 0 then
      redis.call('HDEL', metas, player)
      redis.call('HSET', usage, 'meta_bytes', math.max(0, tonumber(redis.call('HGET', usage, 'meta_bytes') or '0') - metaLength))
    end
    local entryCount = redis.call('HGET', usage, 'entries')
    if entryCount then redis.call('HSET', usage, 'entries', math.max(0, tonumber(entryCount) - 1)) end
  end
end
for i = 4 + 4 * seasons, #KEYS, 2 do remove(KEYS[i], KEYS[i + 1]) end
if removed == 0 then return 0 end
redis.call('SPUBLISH', live, 'deleted')
redis.call('SREM', hidden, player)
redis.call('SET', deleted, redis.call('TIME')[1], 'EX', ARGV[2])
return removed
