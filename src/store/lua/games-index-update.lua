-- Writes games' figures into the games index (store/games-index.ts), one
-- slot of its own: each game's place in the four sorts, its card, and its
-- part of the platform's mean; raises the index version, which a new walk
-- of GET /api/games compares (lua/games-page.lua).
-- KEYS: the four sorts (top_rated, most_played, players, new), the cards,
-- the weights, the meta.
-- ARGV[1]: 'some' (these games changed) or 'all' (these are every listed
-- game: any other leaves the index, and the platform's sums are counted
-- again, so no rounding piles up); then per game 8 values: the id, its
-- places in the four sorts, its card ('' when it is not listed: it leaves),
-- its weight and its weighted stars (full-weight units).
-- Returns {version, the platform's weight, its weighted stars} (as text).
local sorts = {KEYS[1], KEYS[2], KEYS[3], KEYS[4]}
local cards, weights, meta = KEYS[5], KEYS[6], KEYS[7]
local all = ARGV[1] == 'all'

local listed = {}
local w, ws = 0, 0
for i = 2, #ARGV, 8 do
  local id, card = ARGV[i], ARGV[i + 5]
  local oldW, oldWs = 0, 0
  local old = redis.call('HGET', weights, id)
  if old then
    local a, b = string.match(old, '^([^|]*)|(.*)$')
    oldW, oldWs = tonumber(a) or 0, tonumber(b) or 0
  end
  local newW, newWs = 0, 0
  if card == '' then
    for _, sort in ipairs(sorts) do redis.call('ZREM', sort, id) end
    redis.call('HDEL', cards, id)
    redis.call('HDEL', weights, id)
  else
    listed[id] = true
    for s, sort in ipairs(sorts) do redis.call('ZADD', sort, ARGV[i + s], id) end
    redis.call('HSET', cards, id, card)
    newW, newWs = tonumber(ARGV[i + 6]), tonumber(ARGV[i + 7])
    redis.call('HSET', weights, id, ARGV[i + 6] .. '|' .. ARGV[i + 7])
  end
  w, ws = w + newW - oldW, ws + newWs - oldWs
end

if all then
  for _, id in ipairs(redis.call('HKEYS', cards)) do
    if not listed[id] then
      for _, sort in ipairs(sorts) do redis.call('ZREM', sort, id) end
      redis.call('HDEL', cards, id)
    end
  end
  w, ws = 0, 0
  for _, id in ipairs(redis.call('HKEYS', weights)) do
    if listed[id] then
      local a, b = string.match(redis.call('HGET', weights, id), '^([^|]*)|(.*)$')
      w, ws = w + (tonumber(a) or 0), ws + (tonumber(b) or 0)
    else
      redis.call('HDEL', weights, id)
    end
  end
  redis.call('HSET', meta, 'w', string.format('%.17g', w), 'ws', string.format('%.17g', ws))
else
  redis.call('HINCRBYFLOAT', meta, 'w', string.format('%.17g', w))
  redis.call('HINCRBYFLOAT', meta, 'ws', string.format('%.17g', ws))
end
local version = redis.call('HINCRBY', meta, 'version', 1)
return {version, redis.call('HGET', meta, 'w'), redis.call('HGET', meta, 'ws')}
