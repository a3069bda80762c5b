-- Puts a guest (ARGV[1]) in a game's copy of hidden users (KEYS[2]), and
-- marks the game's record (KEYS[1]) as hiding someone when it exists
-- (`hides`: the submit script skips the hidden sets while it is 0).
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HSET', KEYS[1], 'hides', 1) end
return redis.call('SADD', KEYS[2], ARGV[1])
