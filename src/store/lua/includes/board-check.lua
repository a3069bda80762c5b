--- @include "season-of"
-- What a board script's caller chose a board by (its first argument, see
-- board-prelude.lua): the named board's id (nil for the game's own), the
-- choice without the id, the board's order, and the game record's field
-- that holds what the choice is checked against.
local function boardChosenBy (chosenBy)
  local boardId = string.match(chosenBy, ' ([^ ]+)$')
  local chosen = boardId and string.sub(chosenBy, 1, -#boardId - 2) or chosenBy
  return boardId, chosen, string.match(chosen, '^%a+'), boardId and 'board:' .. boardId or 'order'
end
-- Whether a board is no longer what it was chosen by, or the current season
-- no longer `season` ('' for keys that are not the current season's), as
-- the record has them now: `stored` = {the board's field, the season}.
local function chosenMoved (boardId, chosen, season, stored)
  if boardId then
    if stored[1] ~= chosen then return true end
  elseif (stored[1] == 'asc' and 'asc' or 'desc') ~= chosen then
    return true
  end
  return season ~= '' and seasonOf(stored[2]) ~= tonumber(season)
end
-- The Redis clock in ms.
local function clock ()
  local time = redis.call('TIME')
  return tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
