-- Fixed-window rate-limit counters, counted in the same call as the work they
-- guard (src/store/limits.ts puts this after a script's own body). The rule
-- and the stored format are those of @fastify/rate-limit's RedisStore: INCR;
-- the first count of a window starts it with PEXPIRE; later counts read what
-- is left with PTTL. A counter found without an expiry (written by hand, or
-- its PEXPIRE lost) gets a fresh window instead of limiting for ever.
--
-- The caller appends the counters: the last ARGV is their number n, the last
-- n KEYS are the counters, and the 3n ARGV before the number are each
-- counter's max, window in ms, and '1' when the caller knows when the
-- window ends (it saw it begin, or read it: store/limits.ts), in the same
-- order. They are counted in order; the first one over its max ends the
-- count: later counters are not counted and the script's own work does not
-- run.
--
-- Returns {current, ttl ms, current, ttl ms, ...} for the counters counted
-- (a ttl of -1: not read, the caller knows it), and whether the last of
-- them is over its max.
local function countLimits ()
  local n = tonumber(ARGV[#ARGV])
  local counts = {}
  for i = 1, n do
    local key = KEYS[#KEYS - n + i]
    local max = tonumber(ARGV[#ARGV - 3 * n + 3 * i - 3])
    local window = tonumber(ARGV[#ARGV - 3 * n + 3 * i - 2])
    local known = ARGV[#ARGV - 3 * n + 3 * i - 1] == '1'
    local current = redis.call('INCR', key)
    local ttl = window
    if current == 1 then
      redis.call('PEXPIRE', key, window)
    elseif known then
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

local counts, over = countLimits()
if over then return {counts} end
return {counts, work()}
