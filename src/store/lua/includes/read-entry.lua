-- A player's stored entry on a board, from its entries bucket (keys.entries:
-- "best|ms"): the best and the ms it was reached, as text; nil when none.
local function readEntry (entries, player)
  local entry = redis.call('HGET', entries, player)
  if not entry then return nil end
  local bar = string.find(entry, '|', 1, true)
  return string.sub(entry, 1, bar - 1), string.sub(entry, bar + 1)
end
