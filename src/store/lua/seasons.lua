--- @include "season-of"
-- The seasons of a game's all-time board: KEYS[1] its record, KEYS[2] the
-- closed seasons. Returns {current season, when it started, {number,
-- "started_at|ended_at", ...} of the closed ones}, read in one step.
local game = KEYS[1]
local startedAt = redis.call('HGET', game, 'season_started_at') or redis.call('HGET', game, 'created_at') or ''
return {seasonOf(redis.call('HGET', game, 'season')), startedAt, redis.call('HGETALL', KEYS[2])}
