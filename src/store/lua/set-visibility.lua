-- Sets ('1'), clears ('0') or keeps ('') a player's flag in the game's own
-- hidden set (ARGV[2]) and in the game's copy of hidden users (ARGV[3]),
-- then puts the player's entry on or off each board given: every board of
-- the game, its seasons and its periods, so a flag applies to all of them.
-- KEYS: hidden, hidden users, then a board and the player's entries bucket
-- for each board. ARGV: player, the two flags, the game's order.
-- Returns 0 when the player has no entry on the first board (the flags are
-- set all the same, and the other boards are seen to), else 1.
local hidden, hiddenUsers = KEYS[1], KEYS[2]
local player, boardHidden, userHidden, order = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
if boardHidden == '1' then redis.call('SADD', hidden, player) elseif boardHidden == '0' then redis.call('SREM', hidden, player) end
if userHidden == '1' then redis.call('SADD', hiddenUsers, player) elseif userHidden == '0' then redis.call('SREM', hiddenUsers, player) end
local hide = redis.call('SISMEMBER', hidden, player) == 1 or redis.call('SISMEMBER', hiddenUsers, player) == 1
local found = 0
for i = 3, #KEYS, 2 do
  local board, entries = KEYS[i], KEYS[i + 1]
  local entry = redis.call('HGET', entries, player)
  if entry then
    if i == 3 then found = 1 end
    local bar = string.find(entry, '|', 1, true)
    local best, member = string.sub(entry, 1, bar - 1), string.sub(entry, bar + 1) .. player
    if hide then
      redis.call('ZREM', board, member)
    else
      -- The board score: -best in desc order (string negation keeps every digit), best in asc.
      local boardScore = best
      if order ~= 'asc' then
        if string.sub(best, 1, 1) == '-' then boardScore = string.sub(best, 2) elseif best ~= '0' then boardScore = '-' .. best end
      end
      redis.call('ZADD', board, boardScore, member)
      -- A period's board expires with its entries; one made here starts without an expiry.
      local ttl = redis.call('PTTL', entries)
      if ttl > 0 and redis.call('PTTL', board) == -1 then redis.call('PEXPIRE', board, ttl) end
    end
  end
end
return found
