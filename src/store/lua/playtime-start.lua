-- A guest's play in a game is credited from its first request there on, not
-- before: its credited-until instant (c:<guest> in the game's play time,
-- KEYS[1]; see playtime-report.lua) starts at now (Redis clock, ms), unless
-- something was credited already. Without it, a new guest's first report
-- would be credited the 300 s it claims at once, and a guest's rating, which
-- needs play (docs/interface.md#guests), would cost nothing.
-- ARGV: the guest. Returns 1 when it set the instant, 0 when there was one.
local now = redis.call('TIME')
return redis.call('HSETNX', KEYS[1], 'c:' .. ARGV[1], string.format('%.0f', tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)))
