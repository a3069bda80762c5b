--- @include "rating-weights"
-- The figures of includes/rating-weights.lua and the user's own rating
-- (ARGV[1]), one snapshot. KEYS: ratings, rating stats.
-- Returns {sum, count, mine or '', wsec, wsum, s1..s10, weights kept 1/0}:
-- a game rated before weights were kept (0, with ratings) is counted again
-- by rating-recount.lua, then read.
local figures = readRatingStats(KEYS[2])
local answer = ratingAnswer(figures, redis.call('HGET', KEYS[1], ARGV[1]))
answer[#answer + 1] = (figures.weights or figures.count == 0) and 1 or 0
return answer
