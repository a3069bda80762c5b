-- Included by the scripts that delete a player's entries (delete-entry.lua,
-- erase-player.lua) and by the submit that must not bring one back
-- (submit.lua; docs/interface.md#replays-and-deleted-entries). A deletion's
-- time is in ms by the Redis clock, kept in the player's deleted key and as
-- the game's deleted_at, and always later than the game's previous deletion:
-- so deleted_at orders every deletion of the game, and a replay marker that
-- keeps the deleted_at of its moment tells a deletion since from one before.
-- deletionMs reads a stored time: one kept before ms were (in seconds) too.
local function deletionMs (value)
  local at = tonumber(value or '')
  if at and at > 0 and at < 1e11 then return at * 1000 end
  return at
end
local function markDeletion (game, deleted, keepSeconds)
  local time = redis.call('TIME')
  local at = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
  local previous = deletionMs(redis.call('HGET', game, 'deleted_at'))
  if previous and at <= previous then at = previous + 1 end
  local text = string.format('%.0f', at)
  redis.call('SET', deleted, text, 'EX', keepSeconds)
  redis.call('HSET', game, 'deleted_at', text)
end
