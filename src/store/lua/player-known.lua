-- Whether a name is a player's in one game (docs/interface.md#sign-up: a
-- new account may not take it): hidden on the game's boards, with a held
-- score, or with an entry on any board (every season and kept period).
-- KEYS: hidden, review players, then the player's entries hash of every board.
-- ARGV: player.
-- Returns 1 when the name is in use, else 0.
local player = ARGV[1]
if redis.call('SISMEMBER', KEYS[1], player) == 1 then return 1 end
if redis.call('HEXISTS', KEYS[2], player) == 1 then return 1 end
for i = 3, #KEYS do
  if redis.call('HEXISTS', KEYS[i], player) == 1 then return 1 end
end
return 0
