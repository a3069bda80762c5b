-- The game's caps (max_entries, max_meta_bytes), checked before an entry is
-- stored and kept in the season's usage hash (keys.usage). `room` is the
-- entry about to be stored: {board, hidden, hiddenUsers, usage, metas,
-- player, meta (nil: none sent), metasKept (the game record's `metas` is not
-- '0': it may have stored one), isNew (the player has no entry yet),
-- maxEntries, maxMetaBytes}.
--
-- checkRoom(room): 'full_entries' or 'full_meta' when a cap would be passed
-- (nothing written), else nil, the new entry counted. A game from before the
-- count was kept starts from its board plus its hidden players (an upper
-- bound). A game that never stored a meta (`metas` 0 in its record:
-- create-game.lua; the first one stored turns it on) has none to look at,
-- and the meta bytes stored are read only when this changes them.
local function checkRoom (room)
  room.oldMeta = 0
  if room.metasKept then room.oldMeta = redis.call('HSTRLEN', room.metas, room.player) end
  room.newMeta = room.meta and #room.meta or 0
  if room.newMeta ~= room.oldMeta then room.metaBytes = tonumber(redis.call('HGET', room.usage, 'meta_bytes') or '0') end
  local entryCount
  if room.isNew then
    entryCount = tonumber(redis.call('HGET', room.usage, 'entries') or
      (redis.call('ZCARD', room.board) + redis.call('SCARD', room.hidden) + redis.call('SCARD', room.hiddenUsers)))
    if entryCount >= room.maxEntries then return 'full_entries' end
  end
  if room.newMeta > room.oldMeta and room.metaBytes + room.newMeta - room.oldMeta > room.maxMetaBytes then return 'full_meta' end
  if entryCount then redis.call('HSET', room.usage, 'entries', entryCount + 1) end
  return nil
end
-- storeMeta(room, game): the entry's meta stored beside it (or the old one
-- gone), and the bytes counted; the first meta of the game turns `metas` on.
local function storeMeta (room, game)
  if room.meta then
    redis.call('HSET', room.metas, room.player, room.meta)
    if not room.metasKept then redis.call('HSET', game, 'metas', 1) end
  elseif room.oldMeta > 0 then
    redis.call('HDEL', room.metas, room.player)
  end
  if room.newMeta ~= room.oldMeta then redis.call('HSET', room.usage, 'meta_bytes', math.max(0, room.metaBytes + room.newMeta - room.oldMeta)) end
end
