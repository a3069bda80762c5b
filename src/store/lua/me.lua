-- Returns {best text or '', ms text or '', rank or -1, visible total}.
local entry = redis.call('HGET', KEYS[2], ARGV[1])
local total = redis.call('ZCARD', KEYS[1])
if not entry then return {'', '', -1, total} end
local bar = string.find(entry, '|', 1, true)
local best, ms = string.sub(entry, 1, bar - 1), string.sub(entry, bar + 1)
local rank = redis.call('ZRANK', KEYS[1], ms .. ARGV[1])
return {best, ms, rank or -1, total}
