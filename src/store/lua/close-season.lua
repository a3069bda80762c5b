-- Closes the current season of a game's all-time board (KEYS[1], the game's
-- record) when it is still the season ARGV[1]: records its start and its
-- end (ARGV[2], ISO) in KEYS[2], the closed seasons, and begins the next
-- one with an empty usage (KEYS[3]). Its boards stay where they are, under
-- the closed season's number. Returns the closed season's number, 0 when
-- the game does not exist, -1 when its current season is another.
local game, seasons, nextUsage = KEYS[1], KEYS[2], KEYS[3]
if redis.call('EXISTS', game) == 0 then return 0 end
local season = redis.call('HGET', game, 'season') or '1'
if season ~= ARGV[1] then return -1 end
local startedAt = redis.call('HGET', game, 'season_started_at') or redis.call('HGET', game, 'created_at')
redis.call('HSET', seasons, season, startedAt .. '|' .. ARGV[2])
redis.call('HSET', nextUsage, 'entries', 0, 'meta_bytes', 0)
redis.call('HSET', game, 'season', tonumber(season) + 1, 'season_started_at', ARGV[2])
return tonumber(season)
