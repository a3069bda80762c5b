-- Counts, once, the players of a game whose play-time hash is from before
-- its `players` field was kept (store/games-index.ts): the people credited
-- any play (u:<user> fields). O(fields), once per game; from then on the
-- scripts that credit, erase and claim play keep it.
-- KEYS: the play-time hash. Returns the count.
local playtime = KEYS[1]
local kept = redis.call('HGET', playtime, 'players')
if kept then return tonumber(kept) end
-- No play yet: nothing to count, and nothing written (the first credit makes the hash; the next count here counts it).
if redis.call('EXISTS', playtime) == 0 then return 0 end
local players = 0
for _, field in ipairs(redis.call('HKEYS', playtime)) do
  if string.sub(field, 1, 2) == 'u:' then players = players + 1 end
end
redis.call('HSET', playtime, 'players', players)
return players
