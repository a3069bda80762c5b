-- Removes a webhook (ARGV[1]) of a game: its record from the game's
-- webhooks (KEYS[2]), its count from the game's record (KEYS[1]), and its
-- deliveries (KEYS[3], the records; KEYS[4], pending; KEYS[5], finished)
-- and its health (KEYS[6]).
-- Events stay in the outbox for the other webhooks. Returns 1, or 0 when
-- there is no such webhook.
local game, webhooks, deliveries, due, done, health = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
if redis.call('HDEL', webhooks, ARGV[1]) == 0 then return 0 end
redis.call('HSET', game, 'webhooks', redis.call('HLEN', webhooks))
redis.call('HDEL', health, ARGV[1])
for _, list in ipairs({due, done}) do
  local ids = redis.call('ZRANGE', list, 0, -1)
  for i = 1, #ids, 1000 do redis.call('HDEL', deliveries, unpack(ids, i, math.min(i + 999, #ids))) end
  redis.call('DEL', list)
end
return 1
