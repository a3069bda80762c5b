--- @include "boards-changed"
-- Removes a named board (ARGV[1]) from a game's boards (KEYS[2]) and its
-- field from the game's record (KEYS[1]), so a board script chosen by it
-- answers moved (docs/decisions/0070-named-boards-one-game-many-boards-in-its.md), and bumps the game's boards version
-- (KEYS[3]), so no top page of it is served again. Returns 1, or 0 when
-- there was no such board.
if redis.call('HDEL', KEYS[2], ARGV[1]) == 0 then return 0 end
redis.call('HDEL', KEYS[1], 'board:' .. ARGV[1])
boardsChanged(KEYS[3])
return 1
