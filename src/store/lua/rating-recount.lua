--- @include "rating-weights"
-- Counts a game's rating figures again (includes/rating-weights.lua): once
-- for a game rated before weights were kept, and whenever its full weight
-- changes. KEYS: ratings, rating stats, play time, rating play, rating
-- times. ARGV: the game's full weight (s). Returns {count}.
local figures = recountRatings(KEYS[1], KEYS[2], KEYS[4], KEYS[5], KEYS[3], tonumber(ARGV[1]))
return {figures.count}
