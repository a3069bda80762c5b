--- @constants REVIEW_DECIDED_KEPT MAX_TOTAL
--- @include "review-decide"
--- @include "boards-changed"
--- @include "achievements"
--- @include "rating-weights"
-- A guest's play becomes a user's, in one game (docs/guide.md#guests): on
-- every board given, the two entries become one under the user's name, as
-- the board's operator would have kept them (best: the better, an equal
-- score keeping the earlier time, as boards rank it; latest: the later;
-- sum: the total, at the later time), with the meta of the entry kept (a
-- total's: the later one's); the guest's rating moves unless the user rated
-- the game; the guest's play time adds to the user's; the guest's held
-- scores name the user (one pending per player: the guest's is superseded
-- when the user has one). The operator's per-board hide follows the name;
-- the copy of hidden users does not (a guest is there only while the game
-- keeps guests unlisted, and the user is then seen as any user).
-- A game with many named boards is claimed in several calls
-- (docs/decisions/0070-named-boards-one-game-many-boards-in-its.md): the named boards' first, then the final one
-- (ARGV[4] = '1') with the default board, which moves the hide, the
-- rating, the play time and the held scores; each call is atomic.
-- The guest's achievements join the user's in the final call: one the user
-- has already keeps the user's time (the count loses the guest), the others
-- move with their times (docs/decisions/0071-achievements-settings-in-the-games-slot-unlocks-in.md).
-- KEYS: hidden, hidden users, live, ratings, rating stats, play time, the
-- four review keys (record, pending, decided, players), the boards version,
-- the achievements, the guest's and the user's achieved buckets, their
-- counts, the rating play and rating times, then for each board: per season its board, the guest's and the user's
-- entries and meta buckets, its usage and the two Game Jolt text buckets,
-- then per period its board and the two entries buckets.
-- ARGV: guest, user, now (ms), '1' for the final call, the game's full
-- rating weight (s), then for each board
-- its order (asc or desc), its operator (best, latest, sum), its number of
-- seasons and of periods.
-- Returns {boards that held an entry of the guest, rating moved 0/1, play-time seconds, held scores, the user hidden now 0/1}.
local hidden, hiddenUsers, live, ratings, ratingStats, playtime = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local reviewKeys = {KEYS[7], KEYS[8], KEYS[9], KEYS[10]}
local FIRST_BOARD_KEY, FIRST_BOARD_ARG = 18, 6
local guest, user, now, final = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4] == '1'

local function split (entry)
  local bar = string.find(entry, '|', 1, true)
  return string.sub(entry, 1, bar - 1), string.sub(entry, bar + 1)
end

-- Every board given: its order and operator, and its seasons' keys (board,
-- guest entries, user entries, guest meta, user meta, usage, guest text,
-- user text) and periods' (board, guest entries, user entries).
local boards = {}
local at = FIRST_BOARD_KEY
for arg = FIRST_BOARD_ARG, #ARGV, 4 do
  local board = { lower = ARGV[arg] == 'asc', operator = ARGV[arg + 1], seasons = {}, periods = {} }
  for _ = 1, tonumber(ARGV[arg + 2]) do
    board.seasons[#board.seasons + 1] = {KEYS[at], KEYS[at + 1], KEYS[at + 2], KEYS[at + 3], KEYS[at + 4], KEYS[at + 5], KEYS[at + 6], KEYS[at + 7]}
    at = at + 8
  end
  for _ = 1, tonumber(ARGV[arg + 3]) do
    board.periods[#board.periods + 1] = {KEYS[at], KEYS[at + 1], KEYS[at + 2]}
    at = at + 3
  end
  boards[#boards + 1] = board
end

-- An operator's hide of the guest on this game follows the name: the user's
-- entries leave the boards too (the flag itself moves in the final call).
local guestHidden = redis.call('SISMEMBER', hidden, guest) == 1
if guestHidden then
  for _, board in ipairs(boards) do
    for _, list in ipairs({board.seasons, board.periods}) do
      for _, keys in ipairs(list) do
        local userEntry = redis.call('HGET', keys[3], user)
        if userEntry then
          local _, userMs = split(userEntry)
          redis.call('ZREM', keys[1], userMs .. user)
        end
      end
    end
  end
  if final then
    redis.call('SREM', hidden, guest)
    redis.call('SADD', hidden, user)
  end
end
if final then redis.call('SREM', hiddenUsers, guest) end
local visible = not guestHidden and redis.call('SISMEMBER', hidden, user) == 0 and redis.call('SISMEMBER', hiddenUsers, user) == 0

-- A value's score on a board: -value where higher is better (values are integers as text).
local function boardScore (value, lower)
  if lower then return value end
  if string.sub(value, 1, 1) == '-' then return string.sub(value, 2) end
  if value == '0' then return value end
  return '-' .. value
end
-- Whether the guest's entry is the one the board keeps (for a sum: the later one, whose time and meta the total takes).
local function guestWins (board, guestValue, guestMs, userValue, userMs)
  if board.operator ~= 'best' then return guestMs > userMs end
  local g, u = tonumber(guestValue), tonumber(userValue)
  if g ~= u then
    if board.lower then return g < u end
    return g > u
  end
  return guestMs < userMs
end

-- Moves the guest's entry on one board; returns nil when the guest has none,
-- else whether the guest's entry won and whether the user had one. A
-- period's board and buckets expire with the period: what is written here
-- expires when the guest's bucket would have (read before it may go).
local function move (board, keys)
  local boardKey, guestEntries, userEntries = keys[1], keys[2], keys[3]
  local guestEntry = redis.call('HGET', guestEntries, guest)
  if not guestEntry then return nil end
  local ttl = redis.call('PTTL', guestEntries)
  local guestValue, guestMs = split(guestEntry)
  redis.call('ZREM', boardKey, guestMs .. guest)
  redis.call('HDEL', guestEntries, guest)
  local userEntry = redis.call('HGET', userEntries, user)
  local won, value, ms = true, guestValue, guestMs
  if userEntry then
    local userValue, userMs = split(userEntry)
    won = guestWins(board, guestValue, guestMs, userValue, userMs)
    if board.operator == 'sum' then
      local total = math.max(-MAX_TOTAL, math.min(MAX_TOTAL, tonumber(guestValue) + tonumber(userValue)))
      value = string.format('%.0f', total)
      if not won then ms = userMs end
    elseif not won then
      value = nil
    end
    if value then redis.call('ZREM', boardKey, userMs .. user) end
  end
  if value then
    redis.call('HSET', userEntries, user, value .. '|' .. ms)
    if visible then redis.call('ZADD', boardKey, boardScore(value, board.lower), ms .. user) end
    if ttl > 0 then
      redis.call('PEXPIRE', userEntries, ttl, 'NX')
      -- Never later than its buckets, as submit keeps it: a board member always has its entry.
      if redis.call('EXISTS', boardKey) == 1 then redis.call('PEXPIRE', boardKey, ttl, 'LT') end
    end
  end
  return won, userEntry ~= false
end

local moved = 0
for _, board in ipairs(boards) do
  for _, keys in ipairs(board.seasons) do
    local guestMeta, userMeta, usage, guestText, userText = keys[4], keys[5], keys[6], keys[7], keys[8]
    local won, userHad = move(board, keys)
    if won ~= nil then
      moved = moved + 1
      -- Game Jolt's text fields go with the entry that stays (it keeps the guest's time and value, which the text
      -- names); a total is no one score's, so a sum keeps none.
      local text = redis.call('HGET', guestText, guest)
      if text then
        redis.call('HDEL', guestText, guest)
        if won and board.operator ~= 'sum' then redis.call('HSET', userText, user, text) end
      end
      -- The meta of the entry that stays; two entries became one.
      local freed = 0
      local guestMetaValue = redis.call('HGET', guestMeta, guest)
      if guestMetaValue then redis.call('HDEL', guestMeta, guest) end
      if won then
        freed = redis.call('HSTRLEN', userMeta, user)
        redis.call('HDEL', userMeta, user)
        if guestMetaValue then redis.call('HSET', userMeta, user, guestMetaValue) end
      elseif guestMetaValue then
        freed = string.len(guestMetaValue)
      end
      if freed > 0 then redis.call('HSET', usage, 'meta_bytes', math.max(0, tonumber(redis.call('HGET', usage, 'meta_bytes') or '0') - freed)) end
      if userHad then
        local entries = redis.call('HGET', usage, 'entries')
        if entries then redis.call('HSET', usage, 'entries', math.max(0, tonumber(entries) - 1)) end
      end
    end
  end
  for _, keys in ipairs(board.periods) do
    if move(board, keys) ~= nil then moved = moved + 1 end
  end
end
if moved > 0 or guestHidden then
  redis.call('SPUBLISH', live, 'visibility')
  boardsChanged(KEYS[11])
end
if not final then return {moved, 0, 0, 0} end

-- Achievements: the guest's, made since, join the user's.
local achievementSettings, guestAchieved, userAchieved, achievementCounts = KEYS[12], KEYS[13], KEYS[14], KEYS[15]
local guestField = redis.call('HGET', guestAchieved, guest)
if guestField then
  local userField = redis.call('HGET', userAchieved, user)
  local joined = {}
  if userField and userField ~= '' then joined[1] = userField end
  for id, ms in string.gmatch(guestField, '([^ \n]+) (%d+)') do
    local settings = redis.call('HGET', achievementSettings, id)
    local since = settings and (tonumber(cjson.decode(settings).since) or 0)
    if since and unlockedAt(guestField, id, since) == ms then
      if unlockedAt(userField, id, since) then
        redis.call('HINCRBY', achievementCounts, id, -1)
      else
        joined[#joined + 1] = id .. ' ' .. ms
      end
    end
  end
  redis.call('HDEL', guestAchieved, guest)
  redis.call('HSET', userAchieved, user, table.concat(joined, '\n'))
  -- Two of the game's players became one.
  if userField then redis.call('HINCRBY', achievementCounts, PLAYERS_FIELD, -1) end
end

-- The rating: the user's own stays; else the guest's becomes theirs (its
-- play at rating and time kept). Either weighs the user's play, which the
-- guest's joins (includes/rating-weights.lua).
local seconds = tonumber(redis.call('HGET', playtime, 'u:' .. guest) or '0')
local rated = 0
if redis.call('HEXISTS', ratings, guest) == 1 or redis.call('HEXISTS', ratings, user) == 1 then
  local full = tonumber(ARGV[5])
  local ratingPlay, ratingTimes = KEYS[16], KEYS[17]
  local figures = ratingFigures(ratings, ratingStats, ratingPlay, ratingTimes, playtime, full)
  local guestRating, userRating = ratingRecord(ratingPlay, guest), ratingRecord(ratingPlay, user)
  local userPlay = tonumber(redis.call('HGET', playtime, 'u:' .. user) or '0')
  if guestRating then
    countRating(figures, guestRating.stars, math.min(seconds, full), -1)
    forgetRating(ratings, ratingPlay, ratingTimes, guest)
  end
  if userRating then
    countRating(figures, userRating.stars, math.min(userPlay, full), -1)
  elseif guestRating then
    userRating = guestRating
    rated = 1
  end
  if userRating then
    userRating.counted = math.min(userPlay + seconds, full)
    countRating(figures, userRating.stars, userRating.counted, 1)
    storeRating(ratings, ratingPlay, ratingTimes, user, userRating)
    markWeighing(playtime, user, userRating.counted < full and userRating.stars or nil)
  end
  writeRatingStats(ratingStats, figures)
end

-- Play time: the game's total is unchanged; its players lose one when both had played.
if seconds > 0 then
  if redis.call('HINCRBY', playtime, 'u:' .. user, seconds) > seconds and redis.call('HEXISTS', playtime, 'players') == 1 then
    redis.call('HINCRBY', playtime, 'players', -1)
  end
end
redis.call('HDEL', playtime, 'u:' .. guest, 'c:' .. guest, 'w:' .. guest, 'r:' .. guest)

-- Held scores, as the review scripts wrote them (cjson), and the guest's
-- pending one on each board (one per player and board).
local held = 0
local review, reviewPlayers = reviewKeys[1], reviewKeys[4]
local named = '"player_name":' .. cjson.encode(guest)
local records = redis.call('HGETALL', review)
for i = 1, #records, 2 do
  if string.find(records[i + 1], named, 1, true) then
    local record = cjson.decode(records[i + 1])
    if record.player_name == guest then
      record.player_name = user
      redis.call('HSET', review, records[i], cjson.encode(record))
      held = held + 1
      local guestField = pendingField(guest, record.board_id)
      if redis.call('HGET', reviewPlayers, guestField) == records[i] then
        redis.call('HDEL', reviewPlayers, guestField)
        if redis.call('HSETNX', reviewPlayers, pendingField(user, record.board_id), records[i]) == 0 then
          decide(reviewKeys, records[i], record, 'superseded', '', now)
        end
      end
    end
  end
end
-- Whether the user is hidden now (the final call's caller then brings the
-- named boards, claimed before a hide of the guest could land, in line).
local hiddenNow = (redis.call('SISMEMBER', hidden, user) == 1 or redis.call('SISMEMBER', hiddenUsers, user) == 1) and 1 or 0
return {moved, rated, seconds, held, hiddenNow}
