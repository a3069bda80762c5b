-- A player's achievements in one game (docs/decisions/0071-achievements-settings-in-the-games-slot-unlocks-in.md): the player's
-- field in keys.achieved holds "<id> <ms>" pairs, one per line ('' for a
-- player the game's achievements know but who has unlocked none). A pair
-- from before the achievement was made (`since`, ms: an achievement deleted
-- and made again with the same id) does not count. keys.achievementCounts
-- counts each achievement's players and, in PLAYERS_FIELD, every player
-- known: rarity's denominator.
local PLAYERS_FIELD = '#players'
-- When (ms, as text) the player's field says `id` was unlocked, at or after `since`; nil when it was not.
local function unlockedAt (field, id, since)
  for unlockId, ms in string.gmatch(field or '', '([^ \n]+) (%d+)') do
    if unlockId == id and tonumber(ms) >= since then return ms end
  end
  return nil
end
-- The player's field, the player counted among the game's players the first time.
local function knownPlayer (achieved, counts, player)
  local field = redis.call('HGET', achieved, player)
  if field then return field end
  redis.call('HSET', achieved, player, '')
  redis.call('HINCRBY', counts, PLAYERS_FIELD, 1)
  return ''
end
-- Unlocks `id` for the player at `now` (ms) unless it is unlocked already; true when it was unlocked now.
-- Never stamped before `since` (an approved held score takes the time it was
-- submitted, which may be before the achievement was made): it would not count.
local function unlock (achieved, counts, player, id, since, now)
  now = math.max(now, since)
  local field = knownPlayer(achieved, counts, player)
  if unlockedAt(field, id, since) then return false end
  local kept = {}
  for unlockId, ms in string.gmatch(field, '([^ \n]+) (%d+)') do
    if unlockId ~= id then kept[#kept + 1] = unlockId .. ' ' .. ms end
  end
  kept[#kept + 1] = id .. ' ' .. string.format('%.0f', now)
  redis.call('HSET', achieved, player, table.concat(kept, '\n'))
  redis.call('HINCRBY', counts, id, 1)
  return true
end
-- Tells the game's live streams (its channel, in its slot) that a player
-- unlocked `ids` at `now`: "achievement [player, ms, ids]" (src/live/unlocks.ts).
local function announceUnlocks (live, player, ids, now)
  redis.call('SPUBLISH', live, 'achievement ' .. cjson.encode({player, string.format('%.0f', now), ids}))
end
-- The thresholds a board's stored value reaches (keys.achievementRules: "<id> >= <value> <since>" or
-- "<id> <= <value> <since>" per line): unlocks each, and returns the ids unlocked now.
local function reachAchievements (rules, achieved, counts, player, value, now)
  local unlocked = {}
  knownPlayer(achieved, counts, player)
  if not rules or value == nil then return unlocked end
  local reached = tonumber(value)
  for id, op, threshold, since in string.gmatch(rules, '([^ \n]+) ([<>]=) (%-?%d+) (%d+)') do
    local limit = tonumber(threshold)
    if (op == '>=' and reached >= limit) or (op == '<=' and reached <= limit) then
      if unlock(achieved, counts, player, id, tonumber(since), now) then unlocked[#unlocked + 1] = id end
    end
  end
  -- In id order (achievement-write.lua writes them so; rules written before it did may not be).
  table.sort(unlocked)
  return unlocked
end
