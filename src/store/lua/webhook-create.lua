-- Adds a webhook (ARGV[1], its record as JSON in ARGV[2]) to a game that
-- exists (KEYS[1], its record), counts it in the record's `webhooks` field
-- (which turns the game's outbox on) and makes sure the outbox (KEYS[3])
-- has its consumer group `webhooks`, reading from events written from now
-- on. KEYS[2]: the game's webhooks. Returns 1, or 0 when there is no game.
local game, webhooks, outbox = KEYS[1], KEYS[2], KEYS[3]
if redis.call('EXISTS', game) == 0 then return 0 end
redis.call('HSET', webhooks, ARGV[1], ARGV[2])
redis.call('HSET', game, 'webhooks', redis.call('HLEN', webhooks))
-- BUSYGROUP (it exists already) is the only error XGROUP CREATE can answer here.
redis.pcall('XGROUP', 'CREATE', outbox, 'webhooks', '$', 'MKSTREAM')
return 1
