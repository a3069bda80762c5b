-- Included by the board scripts. `moved()` is true when the game's order
-- (ARGV[1]) or current season (ARGV[2], '' for a board that is not the
-- current season) is no longer what the caller chose the keys by (read as
-- games-and-keys.ts reads them, so a field written by hand means what it
-- means there); the caller then chooses again (leaderboard.ts). `clock()`
-- is the Redis clock in ms. KEYS[1] is the game's record.
--- @include "season-of"
local function movedFrom (stored)
  return (stored[1] == 'asc' and 'asc' or 'desc') ~= ARGV[1] or (ARGV[2] ~= '' and seasonOf(stored[2]) ~= tonumber(ARGV[2]))
end
local function moved ()
  return movedFrom(redis.call('HMGET', KEYS[1], 'order', 'season'))
end
local function clock ()
  local time = redis.call('TIME')
  return tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
