-- Removes every trace of a player from one board, and remembers when (Redis
-- clock, seconds; for ARGV[2] seconds), so signed submits made before then
-- cannot bring the entry back. Returns 0 when there was no entry.
local board, entries, metas, hidden, usage, deleted = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local entry = redis.call('HGET', entries, ARGV[1])
if not entry then return 0 end
local bar = string.find(entry, '|', 1, true)
redis.call('ZREM', board, string.sub(entry, bar + 1) .. ARGV[1])
redis.call('HDEL', entries, ARGV[1])
local metaLength = redis.call('HSTRLEN', metas, ARGV[1])
if metaLength > 0 then
  redis.call('HDEL', metas, ARGV[1])
  redis.call('HSET', usage, 'meta_bytes', math.max(0, tonumber(redis.call('HGET', usage, 'meta_bytes') or '0') - metaLength))
end
redis.call('SREM', hidden, ARGV[1])
local entryCount = redis.call('HGET', usage, 'entries')
if entryCount then redis.call('HSET', usage, 'entries', math.max(0, tonumber(entryCount) - 1)) end
redis.call('SET', deleted, redis.call('TIME')[1], 'EX', ARGV[2])
return 1
