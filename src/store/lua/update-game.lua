--- @include "season-of"
-- Sets fields of a game's record (KEYS[1]) when it exists, like
-- update-hash.lua, and its board order (ARGV[1], '' keeps it) only while the
-- game has never stored an entry: still in its first season, with an entry
-- count of 0 in its usage (KEYS[2]), or, for a game from before the count
-- was kept, nothing on its board (KEYS[3]) nor hidden (KEYS[4], KEYS[5]).
-- Returns 1 when updated, 0 when the game does not exist, -1 when the order
-- cannot change (nothing is set).
local game, usage, board, hidden, hiddenUsers = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
if redis.call('EXISTS', game) == 0 then return 0 end
local order = ARGV[1]
if order ~= '' and order ~= (redis.call('HGET', game, 'order') == 'asc' and 'asc' or 'desc') then
  local entries = tonumber(redis.call('HGET', usage, 'entries') or
    (redis.call('ZCARD', board) + redis.call('SCARD', hidden) + redis.call('SCARD', hiddenUsers)))
  if seasonOf(redis.call('HGET', game, 'season')) ~= 1 or entries > 0 then return -1 end
  redis.call('HSET', game, 'order', order)
end
if #ARGV > 1 then redis.call('HSET', game, unpack(ARGV, 2)) end
return 1
