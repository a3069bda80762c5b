--- @include "limited"
--- @include "playtime-credit"
-- Game Jolt's sessions/ping (docs/gamejolt.md#sessions), in one call: the
-- user's open session (keys.gamejoltSessions: user -> "last ping ms|run id"),
-- one past its time closed here; the play since its last ping (whole
-- seconds, at most the timeout) credited by the wall-clock rule of
-- includes/playtime-credit.lua, to its run too; the ping noted.
-- Counted first, in the same call (includes/limited.lua): over a rate
-- limit, nothing is read or written.
-- KEYS: the game's Game Jolt sessions, its play time, the user's runs, the
-- game's rating stats.
-- ARGV: the user, the session timeout (ms), the game's full rating weight (s).
-- Returns {'none'} (no open session), {'invalid_run', why} (nothing
-- credited, the ping not noted), or {'ok', credited seconds}.
local function work ()
  local sessions, playtime, runs = KEYS[1], KEYS[2], KEYS[3]
  local user, timeoutMs = ARGV[1], tonumber(ARGV[2])
  local now = redis.call('TIME')
  local nowMs = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
  local kept = redis.call('HGET', sessions, user)
  if not kept then return {'none'} end
  local last, runId = string.match(kept, '^([^|]*)|?(.*)$')
  last = tonumber(last)
  if not last or nowMs - last > timeoutMs then
    redis.call('HDEL', sessions, user)
    return {'none'}
  end
  local seconds = math.min(math.floor((nowMs - last) / 1000 + 0.5), timeoutMs / 1000)
  local credited = 0
  if seconds > 0 then
    local credit = creditPlay(playtime, runs, user, seconds, runId, nowMs, KEYS[4], tonumber(ARGV[3]))
    if credit[1] == 'invalid_run' then return credit end
    credited = credit[3]
  end
  redis.call('HSET', sessions, user, string.format('%.0f', nowMs) .. '|' .. runId)
  return {'ok', credited}
end
return limited(work)
