-- The metas of many players of one board, in one call: KEYS[i] is the meta
-- bucket of the player ARGV[i]. Returns, for each, the meta or false.
local metas = {}
for i = 1, #ARGV do metas[i] = redis.call('HGET', KEYS[i], ARGV[i]) end
return metas
