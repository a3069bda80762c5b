-- Fixed-window rate-limit counters, counted in the same call as the work
-- they guard (store/limits.ts). The rule and the stored format are those of
-- @fastify/rate-limit's RedisStore: INCR; the first count of a window starts
-- it with PEXPIRE; later counts read what is left with PTTL. A counter found
-- without an expiry (written by hand, or its PEXPIRE lost) gets a fresh
-- window instead of limiting for ever.
--
-- countLimits(counters): each counter is {key, max, window in ms, known},
-- `known` true when the caller knows when its window ends (it saw it begin,
-- or read it: store/limits.ts), so its PTTL is not read. They are counted in
-- order; the first one over its max ends the count: later counters are not
-- counted, and the caller's work does not run. Returns {current, ttl ms,
-- current, ttl ms, ...} for the counters counted (a ttl of -1: not read, the
-- caller knows it), and whether the last of them is over its max.
local function countLimits (counters)
  local counts = {}
  for i, counter in ipairs(counters) do
    local key, max, window = counter[1], tonumber(counter[2]), tonumber(counter[3])
    local current = redis.call('INCR', key)
    local ttl = window
    if current == 1 then
      redis.call('PEXPIRE', key, window)
    elseif counter[4] then
      ttl = -1
    else
      ttl = redis.call('PTTL', key)
      if ttl < 0 then
        redis.call('PEXPIRE', key, window)
        ttl = window
      end
    end
    counts[2 * i - 1] = current
    counts[2 * i] = ttl
    if current > max then return counts, true end
  end
  return counts, false
end
