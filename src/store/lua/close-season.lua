--- @constants TIME_DIGITS OUTBOX_MAX
--- @include "season-of"
--- @include "events"
--- @include "boards-changed"
-- Closes the current season of a game's all-time board (KEYS[1], the game's
-- record) when it is still the season ARGV[1]: records its start and its
-- end (now, by the Redis clock, the clock of every created_at) in KEYS[2],
-- the closed seasons, and begins the next one with an empty usage
-- (KEYS[3]). Its boards stay where they are, under the closed season's
-- number. While the game has webhooks, its outbox gets season.closed with
-- the closed season's top (KEYS[4], its board; KEYS[5], the outbox), and
-- the live boards are told (KEYS[6]); the boards version (KEYS[7]) is bumped.
-- Returns the closed season's number, 0 when the game does not exist, -1
-- when its current season is another.
local game, seasons, nextUsage, board, outbox, live = KEYS[1], KEYS[2], KEYS[3], KEYS[4], outboxOf(KEYS[1], KEYS[5]), KEYS[6]
if redis.call('EXISTS', game) == 0 then return 0 end
local season = seasonOf(redis.call('HGET', game, 'season'))
if season ~= tonumber(ARGV[1]) then return -1 end

-- ISO 8601 UTC with milliseconds, from ms since the epoch (days to civil date: H. Hinnant's algorithm).
local function iso (ms)
  local days = math.floor(ms / 86400000)
  local rest = ms - days * 86400000
  local z = days + 719468
  local era = math.floor(z / 146097)
  local doe = z - era * 146097
  local yoe = math.floor((doe - math.floor(doe / 1460) + math.floor(doe / 36524) - math.floor(doe / 146096)) / 365)
  local doy = doe - (365 * yoe + math.floor(yoe / 4) - math.floor(yoe / 100))
  local mp = math.floor((5 * doy + 2) / 153)
  local day = doy - math.floor((153 * mp + 2) / 5) + 1
  local month = mp < 10 and mp + 3 or mp - 9
  local year = yoe + era * 400 + (month <= 2 and 1 or 0)
  return string.format('%04d-%02d-%02dT%02d:%02d:%02d.%03dZ', year, month, day,
    math.floor(rest / 3600000), math.floor(rest / 60000) % 60, math.floor(rest / 1000) % 60, rest % 1000)
end
local time = redis.call('TIME')
local endedAt = iso(tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000))

local startedAt = redis.call('HGET', game, 'season_started_at') or redis.call('HGET', game, 'created_at')
redis.call('HSET', seasons, season, startedAt .. '|' .. endedAt)
redis.call('HSET', nextUsage, 'entries', 0, 'meta_bytes', 0)
redis.call('HSET', game, 'season', season + 1, 'season_started_at', endedAt)
redis.call('SPUBLISH', live, 'season')
boardsChanged(KEYS[7])
local settings = redis.call('HMGET', game, 'webhooks', 'notify_top', 'order')
if hasWebhooks(settings[1]) then
  local top = topOf(board, notifyTopOf(settings[2]), settings[3] == 'asc')
  emit(outbox, 'season.closed', { season_id = season, started_at = startedAt, ended_at = endedAt, top = top })
end
return season
