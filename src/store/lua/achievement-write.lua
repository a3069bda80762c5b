-- Writes one of a game's achievements (docs/decisions/0071-achievements-settings-in-the-games-slot-unlocks-in.md) and makes the
-- thresholds the submit script reads (KEYS[3]) again from all of them, and
-- the game's record's count `achievements` (the submit script checks
-- thresholds and counts players only while it is above 0), in one step.
-- KEYS: the game's record, its achievements, their thresholds, this one's
-- icon, their counts.
-- ARGV: 'create', 'update' or 'delete'; the id; the settings (JSON; '' to
-- delete); the most a game may have; what to do with the icon: '' keep it,
-- 'set' (ARGV[6], its bytes), 'clear'; for an update, the settings it was
-- made from (ARGV[7]: another write since, and it is made again).
-- The settings come without `since`, the ms from which an unlock counts
-- (lua/includes/achievements.lua): a new achievement's is now by the Redis
-- clock, the clock unlocks are stamped by; a changed one keeps its own.
-- Returns 1 when written, 0 (no such game), -1 (the id is taken), -2 (the
-- game has its most), -3 (no such achievement), -4 (changed meanwhile).
--- @include "board-check"
local game, achievements, rules, icon, counts = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local op, id, settings = ARGV[1], ARGV[2], ARGV[3]
if redis.call('EXISTS', game) == 0 then return 0 end
local exists = redis.call('HEXISTS', achievements, id) == 1
if op == 'create' then
  if exists then return -1 end
  if redis.call('HLEN', achievements) >= tonumber(ARGV[4]) then return -2 end
elseif not exists then
  return -3
elseif op == 'update' and redis.call('HGET', achievements, id) ~= ARGV[7] then
  return -4
end
if op ~= 'delete' then
  local since
  if op == 'create' then
    since = clock()
  else
    since = tonumber(cjson.decode(redis.call('HGET', achievements, id)).since) or 0
  end
  -- Appended to the JSON text as it is: decoding and encoding it again would round its large numbers (cjson keeps 14 digits).
  settings = string.sub(settings, 1, -2) .. string.format(',"since":%.0f}', since)
end
if op == 'delete' then
  redis.call('HDEL', achievements, id)
  redis.call('DEL', icon)
  -- Its players' pairs stay in their fields and no longer count (unlockedAt: made again, it starts anew).
  redis.call('HDEL', counts, id)
else
  redis.call('HSET', achievements, id, settings)
  if ARGV[5] == 'set' then redis.call('SET', icon, ARGV[6]) elseif ARGV[5] == 'clear' then redis.call('DEL', icon) end
end
-- The thresholds, by board, from every achievement that has one, in id
-- order (so a submit that reaches several unlocks them in that order).
local byBoard = {}
local all = redis.call('HGETALL', achievements)
local ids, settingsOf = {}, {}
for i = 1, #all, 2 do
  ids[#ids + 1] = all[i]
  settingsOf[all[i]] = all[i + 1]
end
table.sort(ids)
for _, achievementId in ipairs(ids) do
  local achievement = cjson.decode(settingsOf[achievementId])
  local rule = achievement.rule
  if type(rule) == 'table' then
    local since = achievement.since or 0
    local line
    if type(rule.at_least) == 'number' then line = string.format('%s >= %.0f %.0f', achievementId, rule.at_least, since) end
    if type(rule.at_most) == 'number' then line = string.format('%s <= %.0f %.0f', achievementId, rule.at_most, since) end
    if line then
      local board = rule.board or 'default'
      byBoard[board] = byBoard[board] or {}
      table.insert(byBoard[board], line)
    end
  end
end
redis.call('DEL', rules)
for board, lines in pairs(byBoard) do redis.call('HSET', rules, board, table.concat(lines, '\n')) end
redis.call('HSET', game, 'achievements', redis.call('HLEN', achievements))
return 1
