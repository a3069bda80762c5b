--- @include "board-prelude"
-- KEYS: game, board. ARGV: order, season (moved() checks them), first and last rank (0-based).
-- Returns {'moved'} or {visible total, member, board score, member, board score, ...}, one snapshot.
if moved() then return {'moved'} end
local page = redis.call('ZRANGE', KEYS[2], ARGV[3], ARGV[4], 'WITHSCORES')
table.insert(page, 1, redis.call('ZCARD', KEYS[2]))
return page
