-- Included by submit.lua and playtime-report.lua: the activity counters of
-- store/activity.ts. `minutes`, `day` and `players` are the keys of the
-- moment (named by the caller, '' for no minutes), `minute` the minute of
-- the hour. Each key gets its expiry when it is first written (EXPIRE NX),
-- so a busy minute costs one HINCRBY per key and nothing more.
local function countActivity (minutes, day, players, minute, player, field, amount)
  if minutes ~= '' and redis.call('HINCRBY', minutes, minute, amount) == amount then
    redis.call('EXPIRE', minutes, ACTIVITY_MINUTES_TTL, 'NX')
  end
  redis.call('PFADD', players, player)
  if redis.call('HINCRBY', day, field, amount) == amount then
    redis.call('EXPIRE', day, ACTIVITY_DAYS_TTL, 'NX')
    redis.call('EXPIRE', players, ACTIVITY_DAYS_TTL, 'NX')
  end
end
