-- Reads up to ARGV[2] new entries of a game's outbox (KEYS[1]) for the
-- consumer ARGV[1] of the group `webhooks`, and takes the count of events
-- the outbox could not take (it held OUTBOX_MAX entries) since a dispatcher
-- last reported them: the game's record (KEYS[2]) counts them all in
-- events_dropped, and the reported part in events_dropped_told, so each is
-- reported once, by one process.
-- Returns { entries, how many were dropped since the last report }.
local outbox, game, consumer, count = KEYS[1], KEYS[2], ARGV[1], ARGV[2]
local counts = redis.call('HMGET', game, 'events_dropped', 'events_dropped_told')
local dropped, told = tonumber(counts[1] or '0'), tonumber(counts[2] or '0')
if dropped > told then redis.call('HSET', game, 'events_dropped_told', dropped) end
local reply = redis.call('XREADGROUP', 'GROUP', 'webhooks', consumer, 'COUNT', count, 'STREAMS', outbox, '>')
local entries = reply and reply[1] and reply[1][2] or {}
return { entries, dropped - told }
