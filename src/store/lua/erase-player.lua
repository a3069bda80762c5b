--- @include "achievements"
--- @include "pending-field"
--- @include "remove-entries"
--- @include "boards-changed"
--- @include "deletions"
--- @include "rating-weights"
-- Erases a person from one game (docs/guide.md#erasure): their entry on every
-- board given (seasons with meta and usage, then periods), their flag in the
-- game's hidden set, their held scores (pending and decided) and, for a user
-- (ARGV[4] = '1'), their rating (every figure follows) and play time (the
-- game's total follows) and their place in the game's copy of hidden users.
-- Like a delete, it remembers when (markDeletion, for ARGV[2] seconds), so
-- signed submits made or accepted before then cannot bring an entry back;
-- the live boards are told.
-- Their achievements go too (docs/decisions/0071-achievements-settings-in-the-games-slot-unlocks-in.md): each one counted in
-- its players no more, and the player no more among the game's players.
-- KEYS: hidden, hidden users, deleted, live, review, review pending, review
-- decided, review players, ratings, rating stats, play time, the game's
-- record (its deleted_at, as delete-entry.lua keeps it), its boards
-- version, its achievements, the player's achieved bucket, the
-- achievements' counts, the rating play and rating times, then the boards
-- as removeEntries (includes/remove-entries.lua) takes them.
-- ARGV: player, how long deleted is kept, the number of seasons, '1' for a
-- user, the game's full rating weight (s).
-- Returns {boards that held an entry, metas, held scores, ratings, play-time seconds, achievements}.
local hidden, hiddenUsers, deleted, live = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local review, reviewPending, reviewDecided, reviewPlayers = KEYS[5], KEYS[6], KEYS[7], KEYS[8]
local ratings, ratingStats, playtime = KEYS[9], KEYS[10], KEYS[11]
local player, isUser = ARGV[1], ARGV[4] == '1'

local ratingPlay, ratingTimes = KEYS[17], KEYS[18]
local entries, metas = removeEntries(player, 19, tonumber(ARGV[3]))
if entries > 0 then
  redis.call('SPUBLISH', live, 'deleted')
  markDeletion(KEYS[12], deleted, ARGV[2])
  boardsChanged(KEYS[13])
end
redis.call('SREM', hidden, player)

-- Held scores: every record naming the player, as the review scripts wrote it (cjson).
local held = 0
local named = '"player_name":' .. cjson.encode(player)
local records = redis.call('HGETALL', review)
for i = 1, #records, 2 do
  if string.find(records[i + 1], named, 1, true) then
    local record = cjson.decode(records[i + 1])
    if record.player_name == player then
      redis.call('HDEL', review, records[i])
      redis.call('ZREM', reviewPending, records[i])
      redis.call('ZREM', reviewDecided, records[i])
      -- Its place as the player's pending score on its board (named boards' too).
      local field = pendingField(player, record.board_id)
      if redis.call('HGET', reviewPlayers, field) == records[i] then redis.call('HDEL', reviewPlayers, field) end
      held = held + 1
    end
  end
end

local rated, seconds = 0, 0
if isUser then
  redis.call('SREM', hiddenUsers, player)
  if redis.call('HEXISTS', ratings, player) == 1 then
    local figures = ratingFigures(ratings, ratingStats, ratingPlay, ratingTimes, playtime, tonumber(ARGV[5]))
    local record = ratingRecord(ratingPlay, player)
    if record then countRating(figures, record.stars, countedOf(playtime, player, tonumber(ARGV[5])), -1) end
    forgetRating(ratings, ratingPlay, ratingTimes, player)
    writeRatingStats(ratingStats, figures)
    rated = 1
  end
  local played = redis.call('HGET', playtime, 'u:' .. player)
  if played then
    seconds = tonumber(played)
    redis.call('HINCRBY', playtime, 'total', -seconds)
    if redis.call('HEXISTS', playtime, 'players') == 1 then redis.call('HINCRBY', playtime, 'players', -1) end
  end
  redis.call('HDEL', playtime, 'u:' .. player, 'c:' .. player, 'w:' .. player, 'r:' .. player)
end
-- Achievements: the counts of those the player's field holds (made since), then the field.
local achievements, achieved, achievementCounts = KEYS[14], KEYS[15], KEYS[16]
local unlocked = 0
local field = redis.call('HGET', achieved, player)
if field then
  for id, ms in string.gmatch(field, '([^ \n]+) (%d+)') do
    local settings = redis.call('HGET', achievements, id)
    -- The pair that counts (a field may also hold an older, stale pair of the same id).
    if settings and unlockedAt(field, id, tonumber(cjson.decode(settings).since) or 0) == ms then
      redis.call('HINCRBY', achievementCounts, id, -1)
      unlocked = unlocked + 1
    end
  end
  redis.call('HDEL', achieved, player)
  redis.call('HINCRBY', achievementCounts, PLAYERS_FIELD, -1)
end
return {entries, metas, held, rated, seconds, unlocked}
