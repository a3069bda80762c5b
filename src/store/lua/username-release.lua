-- Gives up a username's folded form (username-claim.lua), only if the
-- username still holds it: a user made since under another letter case keeps it.
-- KEYS: the folded names. ARGV: the folded form, the username. Returns 1 when released.
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then return redis.call('HDEL', KEYS[1], ARGV[1]) end
return 0
