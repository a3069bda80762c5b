--- @include "rating-fields"
-- Ratings weighted by play (docs/ratings.md). Beside each rating (the
-- ratings hash: user -> stars, as v1 keeps it) the rating-play hash keeps
-- "stars|counted at rating|play at rating|rated at". What a rating weighs
-- now is always its rater's play in the game (the play-time hash's
-- u:<user>) up to the game's full weight: countedOf. The stats hash keeps,
-- with every change, sum, count and s1..s10 (v1's figures and the
-- distribution), wsec (every rating's counted seconds) and wsum (each
-- rating's counted seconds times its stars): the weighted score is read
-- from them without a scan. While a rating weighs less than fully, the
-- play-time hash's r:<user> holds its stars, so a report that credits play
-- moves the two sums by itself (includes/playtime-credit.lua). `weights`
-- WEIGHTS_KEPT says all this is kept: a game rated before (or by a version
-- that kept it otherwise) has it counted once, from its ratings and its
-- players' play (recountRatings). The rating-times sorted set orders the
-- raters by when they rated.

-- The stats as numbers: {weights = true/false, sum, count, wsec, wsum, s = {s1..s10}}
-- (`stored`: the HMGET of RATING_STATS_FIELDS when the caller made it already).
local function readRatingStats (stats, stored)
  stored = stored or redis.call('HMGET', stats, unpack(RATING_STATS_FIELDS))
  local figures = { weights = stored[1] == WEIGHTS_KEPT, sum = tonumber(stored[2] or '0'), count = tonumber(stored[3] or '0'),
    wsec = tonumber(stored[4] or '0'), wsum = tonumber(stored[5] or '0'), s = {} }
  for value = 1, 10 do figures.s[value] = tonumber(stored[5 + value] or '0') end
  return figures
end

local function writeRatingStats (stats, figures)
  local fields = {'weights', WEIGHTS_KEPT, 'sum', figures.sum, 'count', figures.count, 'wsec', string.format('%.0f', figures.wsec), 'wsum', string.format('%.0f', figures.wsum)}
  for value = 1, 10 do
    fields[#fields + 1] = 's' .. value
    fields[#fields + 1] = figures.s[value]
  end
  redis.call('HSET', stats, unpack(fields))
end

-- What a script answers of the figures: {sum, count, mine or '', wsec, wsum, s1..s10}.
local function ratingAnswer (figures, mine)
  local answer = {figures.sum, figures.count, mine or '', string.format('%.0f', figures.wsec), string.format('%.0f', figures.wsum)}
  for value = 1, 10 do answer[#answer + 1] = figures.s[value] end
  return answer
end

-- A rater's record, or nil: {stars, counted, playAt, ratedAt} (playAt and ratedAt text, '' when unknown).
local function ratingRecord (ratingPlay, user)
  local record = redis.call('HGET', ratingPlay, user)
  if not record then return nil end
  local stars, counted, playAt, ratedAt = string.match(record, '^(%d+)|(%d+)|(%d*)|(%d*)$')
  if not stars then return nil end
  return { stars = tonumber(stars), counted = tonumber(counted), playAt = playAt, ratedAt = ratedAt }
end

local function recordText (record)
  return record.stars .. '|' .. string.format('%.0f', record.counted) .. '|' .. record.playAt .. '|' .. record.ratedAt
end

-- A rating in and out of the figures.
local function countRating (figures, stars, counted, sign)
  figures.sum = figures.sum + sign * stars
  figures.count = figures.count + sign
  figures.s[stars] = figures.s[stars] + sign
  figures.wsec = figures.wsec + sign * counted
  figures.wsum = figures.wsum + sign * counted * stars
end

-- Stores a user's rating: the stars for v1, the record, when.
local function storeRating (ratings, ratingPlay, ratingTimes, user, record)
  redis.call('HSET', ratings, user, record.stars)
  redis.call('HSET', ratingPlay, user, recordText(record))
  redis.call('ZADD', ratingTimes, tonumber(record.ratedAt) or 0, user)
end

local function forgetRating (ratings, ratingPlay, ratingTimes, user)
  redis.call('HDEL', ratings, user)
  redis.call('HDEL', ratingPlay, user)
  redis.call('ZREM', ratingTimes, user)
end

-- What a user's rating weighs now: their play in the game, up to the full weight.
local function countedOf (playtime, user, full)
  return math.min(tonumber(redis.call('HGET', playtime, 'u:' .. user) or '0'), full)
end

-- The play-time hash's r:<user> holds the stars of the user's rating while
-- it weighs less than fully (`stars`; nil: it does not): a report reads it
-- with c:<user> in one command and moves the sums by itself, so the play of
-- a user who never rated, or whose rating weighs fully, costs nothing more,
-- and a rater's costs two increments. (Fields of their own: an older
-- instance reads c:<user> as a number and never sees them. w:<user> was
-- the flag of the version before.)
local function markWeighing (playtime, user, stars)
  if stars then redis.call('HSET', playtime, 'r:' .. user, stars) else redis.call('HDEL', playtime, 'r:' .. user) end
end

-- Counts every figure again from the ratings and the raters' play now (a
-- game rated before weights were kept, or whose full weight changed):
-- O(raters), once per such change. A rating without a record gets one, its
-- play at rating and its time unknown.
local function recountRatings (ratings, stats, ratingPlay, ratingTimes, playtime, full)
  local figures = { weights = true, sum = 0, count = 0, wsec = 0, wsum = 0, s = {} }
  for value = 1, 10 do figures.s[value] = 0 end
  local all = redis.call('HGETALL', ratings)
  for i = 1, #all, 2 do
    local user, stars = all[i], tonumber(all[i + 1])
    if stars and stars >= 1 and stars <= 10 then
      local record = ratingRecord(ratingPlay, user) or { playAt = '', ratedAt = '' }
      record.stars = stars
      record.counted = countedOf(playtime, user, full)
      redis.call('HSET', ratingPlay, user, recordText(record))
      markWeighing(playtime, user, record.counted < full and stars or nil)
      redis.call('HDEL', playtime, 'w:' .. user)
      if record.ratedAt == '' then redis.call('ZADD', ratingTimes, 'NX', 0, user) end
      countRating(figures, stars, record.counted, 1)
    end
  end
  writeRatingStats(stats, figures)
  return figures
end

-- The figures, with the weights kept (counted once for a game rated before they were).
local function ratingFigures (ratings, stats, ratingPlay, ratingTimes, playtime, full, stored)
  local figures = readRatingStats(stats, stored)
  if figures.weights then return figures end
  return recountRatings(ratings, stats, ratingPlay, ratingTimes, playtime, full)
end
