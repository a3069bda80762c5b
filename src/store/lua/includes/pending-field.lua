-- The field of a player's pending held score in the game's review players
-- hash: one pending score per player and board (docs/decisions/0070-named-boards-one-game-many-boards-in-its.md). The
-- default board's is the player's name, as before named boards; a named
-- board's adds its id after a newline, which no player name holds.
local function pendingField (player, boardId)
  if boardId == nil or boardId == '' then return player end
  return player .. '\n' .. boardId
end
