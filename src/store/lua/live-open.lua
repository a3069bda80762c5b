-- Takes a place for a live stream among its subject's (KEYS[1]: stream ->
-- when its lease ends, ms) when fewer than ARGV[3] leases are current at
-- ARGV[1]: the stream ARGV[4] holds it for ARGV[2] ms (renewed while it is
-- open; a process that dies frees its places when their leases end).
-- Returns 1 when taken, 0 when the subject has no place left.
local streams, now, lease, most, stream = KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
redis.call('ZREMRANGEBYSCORE', streams, '-inf', now)
if redis.call('ZCARD', streams) >= most then return 0 end
redis.call('ZADD', streams, now + lease, stream)
redis.call('PEXPIRE', streams, lease)
return 1
