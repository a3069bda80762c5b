-- A player's runs in a game are one hash (keys.playerRuns): run id ->
-- "started|expires|verified|credited|used|key|reports|timeline" (ms, ms,
-- seconds, ms, the score it took or '', the API key that started it or '',
-- how many reports credited it, and the last RUN_TIMELINE of them as
-- "at:seconds" items, space-separated, `at` the end of what each credited,
-- in seconds from the run's start). One key per player and game: a run is
-- found, credited and taken in the game's slot, and an erasure deletes them
-- all at once. Its one field that is no run, PLAYER_CLOCK, is the instant
-- (ms) up to which run-report (API-key mode) credited any of the player's
-- runs: runs played side by side share one wall clock, as a user's play
-- time does in session mode.
local RUN_TIMELINE = 20
local PLAYER_CLOCK = ':clock'
local function readRun (runs, runId)
  local value = redis.call('HGET', runs, runId)
  if not value then return nil end
  -- One match, no table of parts: 1.7 µs less per read than a gmatch split (bench/RUNS.md). The last two parts are optional (runs written before they were kept).
  local started, expires, verified, credited, used, key, reports, timeline = string.match(value, '^([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|?([^|]*)|?(.*)$')
  return { started = tonumber(started), expires = tonumber(expires), verified = tonumber(verified), credited = tonumber(credited), used = used, key = key, reports = tonumber(reports) or 0, timeline = timeline }
end
local function writeRun (runs, runId, run)
  redis.call('HSET', runs, runId, string.format('%.0f|%.0f|%d|%.0f|%s|%s|%d|%s', run.started, run.expires, run.verified, run.credited, run.used, run.key, run.reports, run.timeline))
end
-- Credits the run with the whole seconds of play from `from` to `to` (ms)
-- that are after what it was credited before and not before it began, and
-- notes the report in its timeline. Returns the seconds credited.
local function creditRun (runs, runId, run, from, to)
  from = math.max(from, run.credited, run.started)
  local credit = math.max(0, math.floor((to - from) / 1000))
  if credit == 0 then return 0 end
  run.credited = from + credit * 1000
  run.verified = run.verified + credit
  run.reports = run.reports + 1
  local item = string.format('%d:%d', math.floor((run.credited - run.started) / 1000), credit)
  run.timeline = run.timeline == '' and item or run.timeline .. ' ' .. item
  if run.reports > RUN_TIMELINE then run.timeline = string.sub(run.timeline, string.find(run.timeline, ' ', 1, true) + 1) end
  writeRun(runs, runId, run)
  return credit
end
