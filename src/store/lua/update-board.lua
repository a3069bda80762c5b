--- @include "season-of"
-- Replaces a named board's settings (ARGV[1]: its id; ARGV[2]: the settings
-- the change was made from, as stored; ARGV[3]: the new ones) in the game's
-- boards (KEYS[2]) when they are still what the change was made from. A
-- change of order or operator (ARGV[4] = '1') is taken only while the board
-- is empty: still in its first season, with no entry stored there (its usage
-- in the current season, KEYS[3], the usage of the season ARGV[5]). The
-- game's record gets the board's field anew (ARGV[6]: docs/decisions/0070-named-boards-one-game-many-boards-in-its.md).
-- Returns 1 when replaced, 0 (no such game or board), -1 (the board has
-- entries), -3 (the settings or the season changed meanwhile: read again).
local game, boards, usage = KEYS[1], KEYS[2], KEYS[3]
if redis.call('EXISTS', game) == 0 then return 0 end
local current = redis.call('HGET', boards, ARGV[1])
if not current then return 0 end
local season = seasonOf(redis.call('HGET', game, 'season'))
if current ~= ARGV[2] or season ~= tonumber(ARGV[5]) then return -3 end
if ARGV[4] == '1' then
  if season ~= cjson.decode(current).first_season or tonumber(redis.call('HGET', usage, 'entries') or '0') > 0 then return -1 end
end
redis.call('HSET', boards, ARGV[1], ARGV[3])
redis.call('HSET', game, 'board:' .. ARGV[1], ARGV[6])
return 1
