-- How many ratings of each value (1..10) a game has: s1..s10 of its rating
-- stats (KEYS[2]), which rate.lua and unrate.lua keep. A game rated before
-- they were kept has counts that do not add up to its count: they are
-- counted again from the ratings (KEYS[1]) once, in this same step, and
-- kept from then on. Returns {count, s1, ..., s10}.
local ratings, stats = KEYS[1], KEYS[2]
local fields = {'count'}
for value = 1, 10 do fields[value + 1] = 's' .. value end
local stored = redis.call('HMGET', stats, unpack(fields))
local count, sum = tonumber(stored[1] or '0'), 0
local result = {count}
for value = 1, 10 do
  result[value + 1] = tonumber(stored[value + 1] or '0')
  sum = sum + result[value + 1]
end
if sum == count then return result end
for value = 1, 10 do result[value + 1] = 0 end
local total = 0
for _, stars in ipairs(redis.call('HVALS', ratings)) do
  local value = tonumber(stars)
  if value and value >= 1 and value <= 10 then
    result[value + 1] = result[value + 1] + 1
    total = total + 1
  end
end
for value = 1, 10 do redis.call('HSET', stats, 's' .. value, result[value + 1]) end
result[1] = total
return result
