-- Included by the delivery scripts: forgets the oldest finished deliveries
-- of a webhook (`done`, with their records in `deliveries`) past DONE_KEPT.
local function trimDone (deliveries, done)
  local excess = redis.call('ZCARD', done) - DONE_KEPT
  if excess <= 0 then return end
  local oldest = redis.call('ZRANGE', done, 0, excess - 1)
  redis.call('HDEL', deliveries, unpack(oldest))
  redis.call('ZREMRANGEBYRANK', done, 0, excess - 1)
end
