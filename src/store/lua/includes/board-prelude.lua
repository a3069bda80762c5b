-- Included by the board scripts. `moved()` is true when the board is no
-- longer what the caller chose its keys by (ARGV[1]), or the current season
-- is no longer ARGV[2] ('' for a board that is not the current season); the
-- caller then chooses again (board-reads.ts, board-writes.ts). ARGV[1] is, for the game's own
-- board, the game's order ('desc' or 'asc', read as games-and-keys.ts reads
-- it, so a field written by hand means what it means there); for a named
-- board (docs/decisions/0070-named-boards-one-game-many-boards-in-its.md), '<order> <operator> <state> <board id>',
-- checked against the game record's field board:<id>, gone with the board.
-- CHOSEN_ORDER is the order the caller chose by, ORDER_FIELD the record's
-- field that holds it (board-check.lua). KEYS[1] is the game's record.
--- @include "board-check"
local BOARD_ID, CHOSEN, CHOSEN_ORDER, ORDER_FIELD = boardChosenBy(ARGV[1])
local function movedFrom (stored)
  return chosenMoved(BOARD_ID, CHOSEN, ARGV[2], stored)
end
local function moved ()
  return movedFrom(redis.call('HMGET', KEYS[1], ORDER_FIELD, 'season'))
end
