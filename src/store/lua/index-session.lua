-- Adds a session id to its user's index (KEYS[1]) with its expiry (ARGV[2],
-- ms), drops the ids that have expired by now (ARGV[3]), keeps at most
-- ARGV[4] sessions (past that, the ones that expire soonest, the oldest
-- with one TTL, are dropped; never the one added), and lets the index
-- itself expire with its last session. Returns the ids it dropped for the
-- cap: their records are in slots of their own, so the caller deletes them.
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[3])
-- Sessions made within the same ms (an operator's, in a loop) keep the
-- order they were made in, a ms apart: an equal score would rank them by
-- their random ids, and the cap would end any of them instead of the
-- oldest. (The index's expiry is then a few ms late; the session's record
-- keeps its own.)
local score = tonumber(ARGV[2])
local newest = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
if newest[2] and tonumber(newest[2]) >= score and tonumber(newest[2]) < score + 1000 then score = tonumber(newest[2]) + 1 end
redis.call('ZADD', KEYS[1], string.format('%.0f', score), ARGV[1])
local over = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[4])
local ended = {}
if over > 0 then
  for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, over)) do
    if id ~= ARGV[1] and #ended < over then ended[#ended + 1] = id end
  end
  redis.call('ZREM', KEYS[1], unpack(ended))
end
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
redis.call('PEXPIREAT', KEYS[1], last[2])
return ended
