--- @constants TIME_DIGITS OUTBOX_MAX
--- @include "events"
--- @include "rating-changed"
--- @include "rating-weights"
-- Removes a user's rating, with every figure of includes/rating-weights.lua
-- changed in the same step (a user's own DELETE, or an operator's);
-- rating.changed in the game's outbox while it has webhooks.
-- KEYS: as rate.lua. ARGV: user, the game's full weight (s).
-- Returns {sum, count, '', wsec, wsum, s1..s10, the stars removed or ''}.
local ratings, stats, playtime, ratingPlay, ratingTimes = KEYS[1], KEYS[2], KEYS[5], KEYS[6], KEYS[7]
local user = ARGV[1]
local figures = ratingFigures(ratings, stats, ratingPlay, ratingTimes, playtime, tonumber(ARGV[2]))
local old = ratingRecord(ratingPlay, user)
if old then
  countRating(figures, old.stars, countedOf(playtime, user, tonumber(ARGV[2])), -1)
  forgetRating(ratings, ratingPlay, ratingTimes, user)
  markWeighing(playtime, user, nil)
  writeRatingStats(stats, figures)
  ratingChanged(KEYS[3], KEYS[4], {figures.sum, figures.count})
end
local answer = ratingAnswer(figures, '')
answer[#answer + 1] = old and old.stars or ''
return answer
