--- @include "board-prelude"
--- @include "limited"
-- A player and the entries around them on one board.
-- KEYS: game, board, the player's entries bucket. ARGV: order, season
-- (moved() checks them), player, how many before, how many after.
-- Returns {'moved'} or {best text or '', rank or -1, visible total, first
-- rank of the page, member, board score, member, board score, ...}; the page
-- is empty when the player is not on the board (no entry, or hidden).
-- Counted first, in the same call (includes/limited.lua): over a limit, nothing is read.
local function work ()
  if moved() then return {'moved'} end
  local board, player = KEYS[2], ARGV[3]
  local total = redis.call('ZCARD', board)
  local entry = redis.call('HGET', KEYS[3], player)
  if not entry then return {'', -1, total, 0} end
  local bar = string.find(entry, '|', 1, true)
  local best, ms = string.sub(entry, 1, bar - 1), string.sub(entry, bar + 1)
  local rank = redis.call('ZRANK', board, ms .. player)
  if not rank then return {best, -1, total, 0} end
  local first = math.max(0, rank - tonumber(ARGV[4]))
  local page = redis.call('ZRANGE', board, first, rank + tonumber(ARGV[5]), 'WITHSCORES')
  local reply = {best, rank, total, first}
  for i = 1, #page do reply[4 + i] = page[i] end
  return reply
end
return limited(work)
