--- @constants MAX_OPEN_RUNS MAX_RUN_STARTS_PER_MINUTE
--- @include "runs"
-- Starts a run of a player (docs/interface.md#runs), in the game's slot, in
-- the player's runs (includes/runs.lua), which expire with the last of
-- them. Runs past their time are dropped; past MAX_OPEN_RUNS the oldest is
-- (it takes no score any more); past MAX_RUN_STARTS_PER_MINUTE starts in a
-- minute (a counter that expires with its minute), nothing is started.
-- KEYS: game, the player's runs, the player's run starts.
-- ARGV: the run id, the API key that starts it ('' in session mode).
-- Returns {'off'} (the game keeps no runs), {'too_many', retry ms}, or
-- {started ms, expires ms}.
local game, runs, starts = KEYS[1], KEYS[2], KEYS[3]
local settings = redis.call('HMGET', game, 'runs', 'run_ttl_s')
if settings[1] ~= 'optional' and settings[1] ~= 'required' then return {'off'} end
local ttlMs = (tonumber(settings[2] or '') or 3600) * 1000

local started = redis.call('INCR', starts)
if started == 1 then redis.call('PEXPIRE', starts, 60000) end
if started > MAX_RUN_STARTS_PER_MINUTE then return {'too_many', math.max(1, redis.call('PTTL', starts))} end

local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local ids = redis.call('HKEYS', runs)
local open = {}
for _, id in ipairs(ids) do
  if id ~= PLAYER_CLOCK then
    local run = readRun(runs, id)
    if run.expires <= now then redis.call('HDEL', runs, id) else open[#open + 1] = { id = id, started = run.started } end
  end
end
table.sort(open, function (a, b) return a.started < b.started end)
for i = 1, #open - MAX_OPEN_RUNS + 1 do redis.call('HDEL', runs, open[i].id) end
writeRun(runs, ARGV[1], { started = now, expires = now + ttlMs, verified = 0, credited = now, used = '', key = ARGV[2], reports = 0, timeline = '' })
if redis.call('PTTL', runs) < ttlMs then redis.call('PEXPIRE', runs, ttlMs) end
return {now, now + ttlMs}
