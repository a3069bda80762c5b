-- Claims up to ARGV[3] of a webhook's deliveries that are due (KEYS[1],
-- pending, by when due; KEYS[2], the records) for one attempt: each is
-- marked with the claim (ARGV[4]) and its attempt counted, and is due again
-- when the lease ends (now ARGV[1] + lease ARGV[2], ms), so a dispatcher that
-- dies mid-attempt leaves it to another. Returns the claimed records (JSON).
local due, deliveries = KEYS[1], KEYS[2]
local now, lease, limit, claim = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
local ids = redis.call('ZRANGE', due, '-inf', now, 'BYSCORE', 'LIMIT', 0, limit)
local claimed = {}
for _, id in ipairs(ids) do
  local text = redis.call('HGET', deliveries, id)
  if not text then
    redis.call('ZREM', due, id)
  else
    local record = cjson.decode(text)
    record.claim = claim
    record.attempts = record.attempts + 1
    if not record.first_attempt_at then record.first_attempt_at = now end
    record.last_attempt_at = now
    text = cjson.encode(record)
    redis.call('HSET', deliveries, id, text)
    redis.call('ZADD', due, now + lease, id)
    table.insert(claimed, text)
  end
end
return claimed
