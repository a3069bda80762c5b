-- Included by the delivery scripts.
-- Forgets the oldest finished deliveries of a webhook (`done`, with their
-- records in `deliveries`) past DONE_KEPT.
local function trimDone (deliveries, done)
  local excess = redis.call('ZCARD', done) - DONE_KEPT
  if excess <= 0 then return end
  local oldest = redis.call('ZRANGE', done, 0, excess - 1)
  redis.call('HDEL', deliveries, unpack(oldest))
  redis.call('ZREMRANGEBYRANK', done, 0, excess - 1)
end
-- Claims up to `limit` of a webhook's deliveries that are due (`due`, pending,
-- by when due; their records in `deliveries`) for one attempt: each is
-- marked with the claim and its attempt counted, and is due again when the
-- lease ends (now + lease, ms), so a dispatcher that dies mid-attempt leaves
-- it to another. Returns the claimed records (JSON).
local function claimDue (due, deliveries, now, lease, limit, claim)
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
end
