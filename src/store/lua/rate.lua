--- @constants TIME_DIGITS OUTBOX_MAX
--- @include "rating-fields"
-- A user's rating of a game (ARGV[2], 1..10 half stars), with every figure
-- of includes/rating-weights.lua changed in the same step; the record
-- remembers the rater's play now and when (ARGV[5], ms); rating.changed in
-- the game's outbox while it has webhooks. A rater needs ARGV[3] seconds of
-- play in the game first (a guest's, the game's rating_min_play_seconds).
-- KEYS: ratings, rating stats, the game's record, its outbox, play time,
-- rating play, rating times.
-- ARGV: user, stars, seconds of play needed, the game's full weight (s), now (ms).
-- Returns {sum, count, mine, wsec, wsum, s1..s10, 1 when anything changed
-- else 0}, or {'play_required', seconds still needed} (nothing changed).

-- The figures and the rater's stars before (the ratings hash), read first.
-- The same stars again, by a rater who needs no play (ARGV[3] 0), on
-- figures kept this way: nothing changes, nothing is written, and the
-- answer is given before the rest of the script runs. (Every call runs a
-- script's top level again: the functions of the pieces below, made anew
-- each time, cost a call more Redis CPU than its work, bench/RESULTS.md.)
local stored = redis.call('HMGET', KEYS[2], unpack(RATING_STATS_FIELDS))
local before = redis.call('HGET', KEYS[1], ARGV[1])
if ARGV[3] == '0' and stored[1] == WEIGHTS_KEPT and before == ARGV[2] then
  local answer = {stored[2] or '0', stored[3] or '0', ARGV[2], stored[4] or '0', stored[5] or '0'}
  for field = 6, 15 do answer[field] = stored[field] or '0' end
  answer[16] = 0
  return answer
end

--- @include "events"
--- @include "rating-changed"
--- @include "rating-weights"
local ratings, stats, playtime, ratingPlay, ratingTimes = KEYS[1], KEYS[2], KEYS[5], KEYS[6], KEYS[7]
local user, stars, playNeeded, full = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local played = tonumber(redis.call('HGET', playtime, 'u:' .. user) or '0')
if played < playNeeded then return {'play_required', playNeeded - played} end
local figures = ratingFigures(ratings, stats, ratingPlay, ratingTimes, playtime, full, stored)
-- Stars the figures count (a value written by hand outside 1..10 never was).
local old = tonumber(before)
if old and (old < 1 or old > 10 or old % 1 ~= 0) then old = nil end
-- What the rating weighs, before as after: the rater's play now (a report moves it as it grows).
local counted = math.min(played, full)
-- The same stars again: nothing changes (nor when it was given), nothing is written.
if old == stars then
  local answer = ratingAnswer(figures, stars)
  answer[#answer + 1] = 0
  return answer
end
if old then countRating(figures, old, counted, -1) end
local record = { stars = stars, counted = counted, playAt = string.format('%.0f', played), ratedAt = ARGV[5] }
countRating(figures, stars, record.counted, 1)
storeRating(ratings, ratingPlay, ratingTimes, user, record)
writeRatingStats(stats, figures)
markWeighing(playtime, user, counted < full and stars or nil)
ratingChanged(KEYS[3], KEYS[4], {figures.sum, figures.count})
local answer = ratingAnswer(figures, stars)
answer[#answer + 1] = 1
return answer
