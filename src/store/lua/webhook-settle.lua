--- @constants BACKLOG_MAX DONE_KEPT
--- @include "deliveries"
-- Records how an attempt ended, when the delivery is still claimed by it
-- (ARGV[2]: a later claim, after its lease ended, owns it now), on the
-- delivery and on its webhook's health.
-- KEYS: the webhook's pending deliveries, the records, its finished ones,
-- the game's webhook health.
-- ARGV: delivery id, claim, outcome ('delivered', 'retry' or 'dead'), when
-- (ms), when next due (ms, for a retry), the HTTP status ('' for none), the
-- error ('' for none), how long the attempt took (ms).
-- Then, when ARGV[9] names a new claim, claims up to ARGV[11] of the
-- webhook's due deliveries under it with a lease of ARGV[10] ms (claimDue):
-- the slot the attempt held goes on to the next without another call.
-- Returns { 1 when recorded, 0 when the claim is no longer this one's,
-- the records claimed next (JSON) }.
local due, deliveries, done, health = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local id, claim, outcome, now = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
local function next () return ARGV[9] ~= '' and claimDue(due, deliveries, now, tonumber(ARGV[10]), tonumber(ARGV[11]), ARGV[9]) or {} end
local text = redis.call('HGET', deliveries, id)
if not text then return { 0, next() } end
local record = cjson.decode(text)
if record.claim ~= claim then return { 0, next() } end
record.claim = nil
record.last_status = tonumber(ARGV[6]) or cjson.null
record.last_error = ARGV[7] ~= '' and ARGV[7] or cjson.null
record.last_duration_ms = tonumber(ARGV[8])
if outcome == 'retry' then
  record.next_attempt_at = tonumber(ARGV[5])
  redis.call('ZADD', due, record.next_attempt_at, id)
else
  record.status = outcome
  record.next_attempt_at = nil
  record.finished_at = now
  redis.call('ZREM', due, id)
  redis.call('ZADD', done, now, id)
  trimDone(deliveries, done)
end
redis.call('HSET', deliveries, id, cjson.encode(record))
-- The webhook fails from its first failed attempt after a delivered one;
-- an attempt that ended before the last one recorded (attempts run side by
-- side) says nothing newer.
local was = redis.call('HGET', health, record.webhook_id)
local state = was and cjson.decode(was) or {}
if state.last_attempt_at == nil or now >= state.last_attempt_at then
  if outcome == 'delivered' then state.failing_since = nil
  elseif state.failing_since == nil then state.failing_since = now end
  state.last_attempt_at, state.last_status, state.last_error = now, record.last_status, record.last_error
  redis.call('HSET', health, record.webhook_id, cjson.encode(state))
end
return { 1, next() }
