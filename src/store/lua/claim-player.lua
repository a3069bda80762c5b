--- @constants REVIEW_DECIDED_KEPT
--- @include "review-decide"
--- @include "boards-changed"
-- A guest's play becomes a user's, in one game, atomically (docs/guide.md#guests):
-- on every board given, the better of the two entries stays, under the
-- user's name (an equal score keeps the earlier time, as boards rank it),
-- with its meta; the guest's rating moves unless the user rated the game;
-- the guest's play time adds to the user's; the guest's held scores name
-- the user (one pending per player: the guest's is superseded when the user
-- has one). The operator's per-board hide follows the name; the copy of
-- hidden users does not (a guest is there only while the game keeps guests
-- unlisted, and the user is then seen as any user).
-- KEYS: hidden, hidden users, live, ratings, rating stats, play time, the
-- four review keys (record, pending, decided, players), the boards version, then per season its
-- board, the guest's and the user's entries and meta buckets and its usage,
-- then per period its board and the two entries buckets.
-- ARGV: guest, user, the game's order, the number of seasons, now (ms).
-- Returns {boards that held an entry of the guest, rating moved 0/1, play-time seconds, held scores}.
local hidden, hiddenUsers, live, ratings, ratingStats, playtime = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local reviewKeys = {KEYS[7], KEYS[8], KEYS[9], KEYS[10]}
local FIRST_BOARD_KEY = 12
local guest, user, lower, seasons, now = ARGV[1], ARGV[2], ARGV[3] == 'asc', tonumber(ARGV[4]), tonumber(ARGV[5])

local function split (entry)
  local bar = string.find(entry, '|', 1, true)
  return string.sub(entry, 1, bar - 1), string.sub(entry, bar + 1)
end
-- Every board given, with the guest's and the user's entries bucket: (board, guest entries, user entries).
local boardKeys = {}
for i = 0, seasons - 1 do
  local at = FIRST_BOARD_KEY + 6 * i
  boardKeys[#boardKeys + 1] = {KEYS[at], KEYS[at + 1], KEYS[at + 2]}
end
for at = FIRST_BOARD_KEY + 6 * seasons, #KEYS, 3 do boardKeys[#boardKeys + 1] = {KEYS[at], KEYS[at + 1], KEYS[at + 2]} end

-- An operator's hide of the guest on this game follows the name: the user's entries leave the boards too.
if redis.call('SISMEMBER', hidden, guest) == 1 then
  redis.call('SREM', hidden, guest)
  redis.call('SADD', hidden, user)
  for _, keys in ipairs(boardKeys) do
    local userEntry = redis.call('HGET', keys[3], user)
    if userEntry then
      local _, userMs = split(userEntry)
      redis.call('ZREM', keys[1], userMs .. user)
    end
  end
end
redis.call('SREM', hiddenUsers, guest)
local visible = redis.call('SISMEMBER', hidden, user) == 0 and redis.call('SISMEMBER', hiddenUsers, user) == 0

-- The board's score of a best: -best on a board where higher is better (scores are integers as text).
local function boardScore (best)
  if lower then return best end
  if string.sub(best, 1, 1) == '-' then return string.sub(best, 2) end
  return '-' .. best
end
-- Whether the guest's (best, ms) ranks above the user's.
local function guestWins (guestBest, guestMs, userBest, userMs)
  local g, u = tonumber(guestBest), tonumber(userBest)
  if g ~= u then
    if lower then return g < u end
    return g > u
  end
  return guestMs < userMs
end

-- Moves the guest's entry on one board; returns nil when the guest has none,
-- else whether the guest's entry won and whether the user had one. A
-- period's board and buckets expire with the period: what is written here
-- expires when the guest's bucket would have (read before it may go).
local function move (board, guestEntries, userEntries)
  local guestEntry = redis.call('HGET', guestEntries, guest)
  if not guestEntry then return nil end
  local ttl = redis.call('PTTL', guestEntries)
  local guestBest, guestMs = split(guestEntry)
  redis.call('ZREM', board, guestMs .. guest)
  redis.call('HDEL', guestEntries, guest)
  local userEntry = redis.call('HGET', userEntries, user)
  local won = true
  if userEntry then
    local userBest, userMs = split(userEntry)
    won = guestWins(guestBest, guestMs, userBest, userMs)
    if won then redis.call('ZREM', board, userMs .. user) end
  end
  if won then
    redis.call('HSET', userEntries, user, guestBest .. '|' .. guestMs)
    if visible then redis.call('ZADD', board, boardScore(guestBest), guestMs .. user) end
    if ttl > 0 then
      redis.call('PEXPIRE', userEntries, ttl, 'NX')
      -- Never later than its buckets, as submit keeps it: a board member always has its entry.
      if redis.call('EXISTS', board) == 1 then redis.call('PEXPIRE', board, ttl, 'LT') end
    end
  end
  return won, userEntry ~= false
end

local boards = 0
for i = 0, seasons - 1 do
  local at = FIRST_BOARD_KEY + 6 * i
  local board, guestEntries, userEntries, guestMeta, userMeta, usage = KEYS[at], KEYS[at + 1], KEYS[at + 2], KEYS[at + 3], KEYS[at + 4], KEYS[at + 5]
  local won, userHad = move(board, guestEntries, userEntries)
  if won ~= nil then
    boards = boards + 1
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
for at = FIRST_BOARD_KEY + 6 * seasons, #KEYS, 3 do
  if move(KEYS[at], KEYS[at + 1], KEYS[at + 2]) ~= nil then boards = boards + 1 end
end
if boards > 0 then
  redis.call('SPUBLISH', live, 'visibility')
  boardsChanged(KEYS[11])
end

-- The rating: the user's own stays; else the guest's becomes theirs (the sums are the same).
local rated = 0
local guestStars = redis.call('HGET', ratings, guest)
if guestStars then
  redis.call('HDEL', ratings, guest)
  if redis.call('HSETNX', ratings, user, guestStars) == 1 then
    rated = 1
  else
    redis.call('HINCRBY', ratingStats, 'sum', -tonumber(guestStars))
    redis.call('HINCRBY', ratingStats, 'count', -1)
    redis.call('HINCRBY', ratingStats, 's' .. guestStars, -1)
  end
end

-- Play time: the game's total is unchanged.
local seconds = tonumber(redis.call('HGET', playtime, 'u:' .. guest) or '0')
if seconds > 0 then redis.call('HINCRBY', playtime, 'u:' .. user, seconds) end
redis.call('HDEL', playtime, 'u:' .. guest, 'c:' .. guest)

-- Held scores, as the review scripts wrote them (cjson).
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
    end
  end
end
local guestPending = redis.call('HGET', reviewPlayers, guest)
if guestPending then
  redis.call('HDEL', reviewPlayers, guest)
  if redis.call('HSETNX', reviewPlayers, user, guestPending) == 0 then
    decide(reviewKeys, guestPending, cjson.decode(redis.call('HGET', review, guestPending)), 'superseded', '', now)
  end
end
return {boards, rated, seconds, held}
