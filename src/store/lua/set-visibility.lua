-- Sets ('1'), clears ('0') or keeps ('') a player's flag in the board's own
-- hidden set (ARGV[2]) and in the board's copy of hidden users (ARGV[3]),
-- then puts the entry on or off the board. Returns 0 when the player has no
-- entry (the flags are set all the same).
local board, entries, hidden, hiddenUsers = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local player, boardHidden, userHidden = ARGV[1], ARGV[2], ARGV[3]
if boardHidden == '1' then redis.call('SADD', hidden, player) elseif boardHidden == '0' then redis.call('SREM', hidden, player) end
if userHidden == '1' then redis.call('SADD', hiddenUsers, player) elseif userHidden == '0' then redis.call('SREM', hiddenUsers, player) end
local entry = redis.call('HGET', entries, player)
if not entry then return 0 end
local bar = string.find(entry, '|', 1, true)
local best, member = string.sub(entry, 1, bar - 1), string.sub(entry, bar + 1) .. player
if redis.call('SISMEMBER', hidden, player) == 1 or redis.call('SISMEMBER', hiddenUsers, player) == 1 then
  redis.call('ZREM', board, member)
else
  local negated = best
  if string.sub(best, 1, 1) == '-' then negated = string.sub(best, 2) elseif best ~= '0' then negated = '-' .. best end
  redis.call('ZADD', board, negated, member)
end
return 1
