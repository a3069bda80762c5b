--- @include "achievements"
-- Takes back an achievement a player unlocked (Game Jolt's
-- trophies/remove-achieved: docs/gamejolt.md#trophies): the pair leaves the
-- player's field and the achievement's count goes down by one, so rarity
-- follows. A threshold the player's stored score still reaches unlocks it
-- again on their next stored score, as it would have the first time.
-- KEYS: the game's achievements, the player's achieved bucket, the counts.
-- ARGV: the achievement's id, the player.
-- Returns {'unknown'} (no such achievement), {'not_unlocked'} or {'taken', ms} (when it had been unlocked).
local achievements, achieved, counts = KEYS[1], KEYS[2], KEYS[3]
local id, player = ARGV[1], ARGV[2]
local settings = redis.call('HGET', achievements, id)
if not settings then return {'unknown'} end
local since = tonumber(cjson.decode(settings).since) or 0
local field = redis.call('HGET', achieved, player)
local at = unlockedAt(field, id, since)
if not at then return {'not_unlocked'} end
local kept = {}
for unlockId, ms in string.gmatch(field, '([^ \n]+) (%d+)') do
  if unlockId ~= id then kept[#kept + 1] = unlockId .. ' ' .. ms end
end
redis.call('HSET', achieved, player, table.concat(kept, '\n'))
if tonumber(redis.call('HINCRBY', counts, id, -1)) < 0 then redis.call('HSET', counts, id, 0) end
return {'taken', at}
