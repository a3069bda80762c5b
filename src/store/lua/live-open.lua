-- Takes a place for a live stream (ARGV[3]) in every set of KEYS (stream ->
-- when its lease ends, ms), or in none: each set has room for ARGV[3 + i]
-- current leases at ARGV[1]. The place is held for ARGV[2] ms and renewed
-- while the stream is open (a process that dies frees its places when their
-- leases end); each set lives at least as long as its longest lease.
-- Returns 0 when taken, else the index (1-based) of the first full set.
local now, lease, stream = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
for i, set in ipairs(KEYS) do
  redis.call('ZREMRANGEBYSCORE', set, '-inf', now)
  if redis.call('ZCARD', set) >= tonumber(ARGV[3 + i]) then return i end
end
for _, set in ipairs(KEYS) do
  redis.call('ZADD', set, now + lease, stream)
  -- GT never shortens a set's life; a set without one yet gets it plainly.
  if redis.call('PTTL', set) < 0 then redis.call('PEXPIRE', set, lease) else redis.call('PEXPIRE', set, lease, 'GT') end
end
return 0
