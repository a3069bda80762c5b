--- @constants TIME_DIGITS OUTBOX_MAX
--- @include "events"
--- @include "rating-changed"
-- Removes a user's rating (KEYS[1]) and takes it out of the sum, the count
-- and its value's count (KEYS[2]); rating.changed in the game's outbox (KEYS[4]) while it has
-- webhooks (its record: KEYS[3]). Returns {sum, count, ''}.
local ratings, stats, user = KEYS[1], KEYS[2], ARGV[1]
local old = tonumber(redis.call('HGET', ratings, user) or '0')
if old > 0 then
  redis.call('HDEL', ratings, user)
  redis.call('HINCRBY', stats, 'sum', -old)
  redis.call('HINCRBY', stats, 'count', -1)
  redis.call('HINCRBY', stats, 's' .. old, -1)
end
local s = redis.call('HMGET', stats, 'sum', 'count')
if old > 0 then ratingChanged(KEYS[3], KEYS[4], s) end
return {tonumber(s[1] or '0'), tonumber(s[2] or '0'), ''}
