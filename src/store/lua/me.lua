--- @include "board-prelude"
--- @include "limited"
-- KEYS: game, board, entries. ARGV: order, season (moved() checks them), player.
-- Returns {'moved'} or {best text or '', ms text or '', rank or -1, visible total}.
-- Counted first, in the same call (includes/limited.lua): over a limit, nothing is read.
local function work ()
  if moved() then return {'moved'} end
  local entry = redis.call('HGET', KEYS[3], ARGV[3])
  local total = redis.call('ZCARD', KEYS[2])
  if not entry then return {'', '', -1, total} end
  local bar = string.find(entry, '|', 1, true)
  local best, ms = string.sub(entry, 1, bar - 1), string.sub(entry, bar + 1)
  local rank = redis.call('ZRANK', KEYS[2], ms .. ARGV[3])
  return {best, ms, rank or -1, total}
end
return limited(work)
