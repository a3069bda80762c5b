--- @include "playtime-credit"
-- A play-time report (POST /api/playtime), by the wall-clock rule of
-- includes/playtime-credit.lua.
-- KEYS: the game's play time, its rating stats, the user's runs (with a
-- run only).
-- ARGV: the user, the seconds claimed, the game's full rating weight (s), the run (optional).
-- Returns what creditPlay returns.
local now = redis.call('TIME')
local nowMs = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
return creditPlay(KEYS[1], KEYS[3], ARGV[1], tonumber(ARGV[2]), ARGV[4] or '', nowMs, KEYS[2], tonumber(ARGV[3]))
