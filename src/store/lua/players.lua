--- @include "board-prelude"
--- @include "limited"
-- Named players' entries on one board (a friends board).
-- KEYS: game, board, then each player's entries bucket. ARGV: order, season
-- (moved() checks them), the number of players n, then the n players, in
-- the order of their buckets.
-- Returns {'moved'} or {visible total, then per player: rank or -1, "best|ms" or ''}.
-- Counted first, in the same call (includes/limited.lua): over a limit, nothing is read.
local function work ()
  if moved() then return {'moved'} end
  local board = KEYS[2]
  local reply = {redis.call('ZCARD', board)}
  for i = 1, tonumber(ARGV[3]) do
    local player = ARGV[3 + i]
    local entry = redis.call('HGET', KEYS[2 + i], player)
    local rank = -1
    if entry then
      local bar = string.find(entry, '|', 1, true)
      rank = redis.call('ZRANK', board, string.sub(entry, bar + 1) .. player) or -1
    end
    table.insert(reply, rank)
    table.insert(reply, entry or '')
  end
  return reply
end
return limited(work)
