-- Returns {best, ms, meta or false-as-'', board hidden 0/1, rank or -1, has meta 0/1} or {} when absent.
local board, entries, metas, hidden = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local entry = redis.call('HGET', entries, ARGV[1])
if not entry then return {} end
local bar = string.find(entry, '|', 1, true)
local best, ms = string.sub(entry, 1, bar - 1), string.sub(entry, bar + 1)
local meta = redis.call('HGET', metas, ARGV[1])
local rank = redis.call('ZRANK', board, ms .. ARGV[1])
return {best, ms, meta or '', redis.call('SISMEMBER', hidden, ARGV[1]), rank or -1, meta and 1 or 0}
