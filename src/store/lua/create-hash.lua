-- Creates a hash only when the key does not exist yet. Returns 1 when created.
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1
