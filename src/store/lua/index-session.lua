-- Adds a session id to its user's index (KEYS[1]) with its expiry (ARGV[2],
-- ms), drops the ids that have expired by now (ARGV[3]), and lets the index
-- itself expire with its last session.
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[3])
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
redis.call('PEXPIREAT', KEYS[1], last[2])
return 1
