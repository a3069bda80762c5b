-- Included by the board scripts. `moved()` is true when the board is no
-- longer what the caller chose its keys by (ARGV[1]), or the current season
-- is no longer ARGV[2] ('' for a board that is not the current season); the
-- caller then chooses again (leaderboard.ts). ARGV[1] is, for the game's own
-- board, the game's order ('desc' or 'asc', read as games-and-keys.ts reads
-- it, so a field written by hand means what it means there); for a named
-- board (docs/decisions.md#70), '<order> <operator> <state> <board id>',
-- checked against the game record's field board:<id>, gone with the board.
-- CHOSEN_ORDER is the order the caller chose by, ORDER_FIELD the record's
-- field that holds it. `clock()` is the Redis clock in ms. KEYS[1] is the
-- game's record.
--- @include "season-of"
local BOARD_ID = string.match(ARGV[1], ' ([^ ]+)$')
local CHOSEN = BOARD_ID and string.sub(ARGV[1], 1, -#BOARD_ID - 2) or ARGV[1]
local CHOSEN_ORDER = string.match(CHOSEN, '^%a+')
local ORDER_FIELD = BOARD_ID and 'board:' .. BOARD_ID or 'order'
local function movedFrom (stored)
  if BOARD_ID then
    if stored[1] ~= CHOSEN then return true end
  elseif (stored[1] == 'asc' and 'asc' or 'desc') ~= CHOSEN then
    return true
  end
  return ARGV[2] ~= '' and seasonOf(stored[2]) ~= tonumber(ARGV[2])
end
local function moved ()
  return movedFrom(redis.call('HMGET', KEYS[1], ORDER_FIELD, 'season'))
end
local function clock ()
  local time = redis.call('TIME')
  return tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
