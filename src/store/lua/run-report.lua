--- @include "runs"
--- @include "limited"
-- A play report of a run in API-key mode (action=run-report,
-- docs/interface.md#runs): the wall-clock rule of play time, on the
-- player's runs (includes/runs.lua) alone. A report of `seconds` claims the
-- time just before it arrived; the run is credited from max(now - claim,
-- the player's clock, what the run was credited before, its start) up to
-- now, in whole seconds, and the player's clock moves with it: a player's
-- runs together never get more verified play than the time that passed.
-- KEYS: the player's runs. ARGV: the run id, the seconds claimed, the API key
-- of the request (the run must have been started with it).
-- A run that took its score is reported no more.
-- Returns {verified seconds, seconds credited}, or {'invalid_run', why}.
-- Counted first, in the same call (includes/limited.lua): over a limit, nothing is read.
local function work ()
  local runs, runId, claim, apiKey = KEYS[1], ARGV[1], tonumber(ARGV[2]), ARGV[3]
  local run = readRun(runs, runId)
  if not run or run.key ~= apiKey then return {'invalid_run', 'unknown'} end
  if run.used ~= '' then return {'invalid_run', 'used'} end
  local time = redis.call('TIME')
  local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
  if now >= run.expires then return {'invalid_run', 'expired'} end
  local clock = tonumber(redis.call('HGET', runs, PLAYER_CLOCK) or '0')
  local credited = creditRun(runs, runId, run, math.max(now - claim * 1000, clock), now)
  if credited > 0 then redis.call('HSET', runs, PLAYER_CLOCK, string.format('%.0f', run.credited)) end
  return {run.verified, credited}
end
return limited(work)
