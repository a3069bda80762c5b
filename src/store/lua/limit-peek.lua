-- Reads a rate-limit counter (lua/includes/limits.lua) without counting it.
-- Returns {current, ttl ms}: {0, 0} when absent; a ttl of 0 when it has none.
local current = redis.call('GET', KEYS[1])
if not current then return {0, 0} end
return {tonumber(current), math.max(0, redis.call('PTTL', KEYS[1]))}
