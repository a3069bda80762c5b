-- A player's runs in a game are one hash (keys.playerRuns): run id ->
-- "started|expires|verified|credited|used|key" (ms, ms, seconds, ms, the
-- score it took or '', the API key that started it or ''). One key per
-- player and game: a run is found, credited and taken in the game's slot,
-- and an erasure deletes them all at once.
local function readRun (runs, runId)
  local value = redis.call('HGET', runs, runId)
  if not value then return nil end
  local parts = {}
  for part in string.gmatch(value .. '|', '([^|]*)|') do parts[#parts + 1] = part end
  return { started = tonumber(parts[1]), expires = tonumber(parts[2]), verified = tonumber(parts[3]), credited = tonumber(parts[4]), used = parts[5], key = parts[6] }
end
local function writeRun (runs, runId, run)
  redis.call('HSET', runs, runId, string.format('%.0f|%.0f|%d|%.0f|%s|%s', run.started, run.expires, run.verified, run.credited, run.used, run.key))
end
