-- A guest's Game Jolt data store becomes the user's, in one game (a claim,
-- docs/gamejolt.md#data-store): each of the guest's items moves to the
-- user's store, unless the user has an item under that key, which keeps
-- the user's data (the guest's goes). The game's usage and the owners'
-- counts follow; a user may end past the per-owner limit (their next new
-- item is then refused until they are under it again).
-- KEYS: the guest's items, the user's items, the game's usage, the owners.
-- ARGV: the guest's username, the user's.
-- Returns how many items moved.
local guestItems, userItems, usage, owners = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local guest, user = ARGV[1], ARGV[2]

local moved, dropped, droppedBytes = 0, 0, 0
for _, key in ipairs(redis.call('HKEYS', guestItems)) do
  if redis.call('HEXISTS', userItems, key) == 1 then
    dropped = dropped + 1
    droppedBytes = droppedBytes + #key + redis.call('HSTRLEN', guestItems, key)
  else
    redis.call('HSET', userItems, key, redis.call('HGET', guestItems, key))
    moved = moved + 1
  end
end
redis.call('DEL', guestItems)
redis.call('HDEL', owners, guest)
if moved > 0 then redis.call('HINCRBY', owners, user, moved) end
if dropped > 0 then
  redis.call('HINCRBY', usage, 'items', -dropped)
  redis.call('HINCRBY', usage, 'bytes', -droppedBytes)
end
return moved
