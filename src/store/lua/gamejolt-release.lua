-- Gives up a Game Jolt game id (store/gamejolt.ts), only while it still
-- leads to the game giving it up: another game may have taken it since.
-- KEYS: the id's record. ARGV: the game_id. Returns 1 when released.
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
