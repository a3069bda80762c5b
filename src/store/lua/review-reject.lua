-- Rejects a held score (ARGV[1]) while it is pending: it is recorded as
-- rejected, with the note (ARGV[2]), and stays on no board.
-- KEYS: review, review pending, review decided, review players.
-- Returns the record as JSON, or {'decided', status} when it is not pending
-- ('unknown' when there is no such held score).
local record = redis.call('HGET', KEYS[1], ARGV[1])
if not record then return {'decided', 'unknown'} end
record = cjson.decode(record)
if record.status ~= 'pending' then return {'decided', record.status} end
local time = redis.call('TIME')
decide(KEYS, ARGV[1], record, 'rejected', ARGV[2], tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000))
return redis.call('HGET', KEYS[1], ARGV[1])
