-- Sends a finished delivery (ARGV[1]) again: it is pending from now
-- (ARGV[2], ms) with a fresh retry window and the same message id, so the
-- receiver can tell it is the same event. KEYS: the webhook's pending
-- deliveries, the records, its finished ones. Returns the record (JSON), or
-- {'pending'} when it is pending already, {} when there is no such delivery.
local due, deliveries, done = KEYS[1], KEYS[2], KEYS[3]
local id, now = ARGV[1], tonumber(ARGV[2])
local text = redis.call('HGET', deliveries, id)
if not text or not redis.call('ZSCORE', done, id) and not redis.call('ZSCORE', due, id) then return {} end
local record = cjson.decode(text)
if record.status == 'pending' then return {'pending'} end
record.status = 'pending'
record.first_attempt_at = nil
record.finished_at = nil
record.next_attempt_at = now
redis.call('ZREM', done, id)
redis.call('ZADD', due, now, id)
text = cjson.encode(record)
redis.call('HSET', deliveries, id, text)
return text
