-- Included by every script that writes a game's boards: boardsChanged(key)
-- bumps the game's boards version (keys.boardsVersion), which a cached top
-- page is compared with (store/top-cache.ts). A version made afresh (a new
-- game, or the key lost) starts from the Redis clock in µs, not from 1, so it
-- never meets a number an earlier life of the key gave out.
local function boardsChanged (key)
  if redis.call('INCR', key) == 1 then
    local time = redis.call('TIME')
    redis.call('SET', key, time[1] .. string.format('%06d', tonumber(time[2])))
  end
end
