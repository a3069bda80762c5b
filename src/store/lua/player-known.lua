--- @include "pending-field"
-- Whether a name is a player's in one game (docs/interface.md#sign-up: a
-- new account may not take it): hidden on the game's boards, with a held
-- score pending on one of the boards given, or with an entry on any board
-- given (every season and kept period). A game's named boards are asked in
-- calls of their own (docs/decisions/0070-named-boards-one-game-many-boards-in-its.md).
-- KEYS: hidden, review players, then the player's entries hash of every board.
-- ARGV: player, then the id of each board given ('' for the game's own).
-- Returns 1 when the name is in use, else 0.
local player = ARGV[1]
if redis.call('SISMEMBER', KEYS[1], player) == 1 then return 1 end
for i = 2, #ARGV do
  if redis.call('HEXISTS', KEYS[2], pendingField(player, ARGV[i])) == 1 then return 1 end
end
for i = 3, #KEYS do
  if redis.call('HEXISTS', KEYS[i], player) == 1 then return 1 end
end
return 0
