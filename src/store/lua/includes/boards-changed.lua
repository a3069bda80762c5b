-- Included by every script that writes a game's boards: boardsChanged(key)
-- bumps the game's boards version (keys.boardsVersion), which a cached top
-- page is compared with (store/top-cache.ts). A version made afresh
-- (freshBoardsVersion: a new game, the key lost, or a top read finding none)
-- starts from the Redis clock in µs, not from 1, so it never meets a number
-- an earlier life of the key gave out.
local function freshBoardsVersion (key)
  local time = redis.call('TIME')
  local version = time[1] .. string.format('%06d', tonumber(time[2]))
  redis.call('SET', key, version)
  return version
end
local function boardsChanged (key)
  if redis.call('INCR', key) == 1 then freshBoardsVersion(key) end
end
