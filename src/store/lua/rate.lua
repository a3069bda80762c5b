--- @constants TIME_DIGITS OUTBOX_MAX
--- @include "events"
--- @include "rating-changed"
-- A user's rating of a game (ARGV[2], 1..10 half stars) in the game's ratings
-- hash (KEYS[1]), with the sum, the count and the count of each value (s1..s10)
-- (KEYS[2]) changed in the same step;
-- rating.changed in the game's outbox (KEYS[4]) while it has webhooks (its
-- record: KEYS[3]). A rater who must have played first (a guest) has
-- ARGV[3], the seconds of play they need in the game's play time (KEYS[5]).
-- Returns {sum, count, mine}, or {'play_required', seconds still needed}
-- (nothing changed).
local ratings, stats, user, stars = KEYS[1], KEYS[2], ARGV[1], tonumber(ARGV[2])
local playNeeded = tonumber(ARGV[3] or '0')
if playNeeded > 0 then
  local played = tonumber(redis.call('HGET', KEYS[5], 'u:' .. user) or '0')
  if played < playNeeded then return {'play_required', playNeeded - played} end
end
local old = tonumber(redis.call('HGET', ratings, user) or '0')
redis.call('HSET', ratings, user, stars)
redis.call('HINCRBY', stats, 'sum', stars - old)
if old == 0 then redis.call('HINCRBY', stats, 'count', 1) end
if old ~= stars then
  redis.call('HINCRBY', stats, 's' .. stars, 1)
  if old > 0 then redis.call('HINCRBY', stats, 's' .. old, -1) end
end
local s = redis.call('HMGET', stats, 'sum', 'count')
if old ~= stars then ratingChanged(KEYS[3], KEYS[4], s) end
return {tonumber(s[1]), tonumber(s[2]), stars}
