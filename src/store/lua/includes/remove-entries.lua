-- removeEntries(player, first, seasons): removes a player's entry from each
-- board given in KEYS from index `first`: for each of `seasons` seasons its
-- board, the player's entries and meta buckets and its usage (whose counts
-- follow); then for each period its board and the player's entries bucket.
-- Returns how many boards held an entry, and how many metas went.
local function removeEntries (player, first, seasons)
  local removed, metas = 0, 0
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
    local board, entries, meta, usage = KEYS[first + 4 * i], KEYS[first + 1 + 4 * i], KEYS[first + 2 + 4 * i], KEYS[first + 3 + 4 * i]
    if remove(board, entries) then
      local metaLength = redis.call('HSTRLEN', meta, player)
      if metaLength > 0 then
        redis.call('HDEL', meta, player)
        metas = metas + 1
        redis.call('HSET', usage, 'meta_bytes', math.max(0, tonumber(redis.call('HGET', usage, 'meta_bytes') or '0') - metaLength))
      end
      local entryCount = redis.call('HGET', usage, 'entries')
      if entryCount then redis.call('HSET', usage, 'entries', math.max(0, tonumber(entryCount) - 1)) end
    end
  end
  for i = first + 4 * seasons, #KEYS, 2 do remove(KEYS[i], KEYS[i + 1]) end
  return removed, metas
end
