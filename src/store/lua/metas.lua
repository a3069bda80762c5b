-- The metas of many players of one board, in one call: KEYS[i] is the meta
-- bucket of the player ARGV[i] (or another of the player's bucket hashes:
-- keys.entryRun). Returns, for each, the value or false.
local metas = {}
for i = 1, #ARGV do metas[i] = redis.call('HGET', KEYS[i], ARGV[i]) end
return metas
