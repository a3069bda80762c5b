-- The sum and count (KEYS[2]) and the user's own rating (KEYS[1], ARGV[1]),
-- one snapshot. Returns {sum, count, mine or ''}.
local s = redis.call('HMGET', KEYS[2], 'sum', 'count')
return {tonumber(s[1] or '0'), tonumber(s[2] or '0'), redis.call('HGET', KEYS[1], ARGV[1]) or ''}
