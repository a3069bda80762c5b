--- @constants LEAD_MS
--- @include "runs"
-- The wall-clock rule. A report of `seconds` claims the time just before it
-- arrived. Per user and game, c:<user> is the instant (ms, Redis clock) up to
-- which play has been credited. A report credits from max(now - claim, that
-- instant) for `seconds`, but never past now + 5 s; what it credits is whole
-- seconds, and the instant moves to the end of it. So the first report
-- credits `seconds`, a page reporting 30 every 30 s gets 30 each time despite
-- jitter, and credited time never runs more than 5 s ahead of real time.
-- (The caller counts credited time in the game's activity: store/activity.ts.)
-- A report for a run (ARGV[3]; KEYS[2], the user's runs: includes/runs.lua)
-- also credits the run (one that took its score too: its score is taken):
-- the part of what it credited since the run began, after what the run was
-- credited before, and not past now (without the 5 s lead play time has), so
-- a run's verified play is never more than the time since it began, however
-- many tabs report it.
-- The user's rating of the game, if any, weighs the play credited until it
-- reaches the game's full weight (includes/rating-weights.lua): while it is
-- below it, r:<user> holds its stars, read with c:<user> in one command, so
-- a report moves the two sums by itself, and a report of a user whose
-- rating weighs fully, or who never rated, does nothing more. (Only that
-- piece is here, not the include: every function a script defines is made
-- again on each call, and the whole of rating-weights cost a report ~5 µs
-- of Redis CPU, bench/RESULTS.md.)

-- A rater's play grew from `before` to `after` seconds: their rating (of
-- `stars`, kept in r:<user>) weighs what it now counts, up to `full`, the
-- game's sums moving by the change; past the full weight r:<user> goes.
local function reweighRating (stats, playtime, user, stars, before, after, full)
  local moved = math.min(after, full) - math.min(before, full)
  if moved > 0 then
    redis.call('HINCRBY', stats, 'wsec', moved)
    redis.call('HINCRBY', stats, 'wsum', moved * stars)
  end
  if after >= full then redis.call('HDEL', playtime, 'r:' .. user) end
end

-- The game's `players` (the people credited any play) is counted once it
-- exists: store/games-index.ts counts it first for a game from before it
-- was kept (lua/playtime-players.lua), so this never starts it at 1.
local function countPlayers (playtime, by)
  if redis.call('HEXISTS', playtime, 'players') == 1 then redis.call('HINCRBY', playtime, 'players', by) end
end

-- creditPlay(playtime, runs, user, claim, runId, nowMs, ratingStats,
-- fullWeight): the play-time hash, the user's runs, the user, the seconds
-- claimed, the run ('' for none), the Redis clock (ms), the game's rating
-- stats hash and full rating weight (seconds). (Arguments, not a table: a
-- table made on each call costs the call.) Returns {game total, user
-- total, credited seconds, the run's verified seconds or -1}, or
-- {'invalid_run', why} (nothing credited).
local function creditPlay (playtime, runs, user, claim, runId, nowMs, ratingStats, fullWeight)
  local run
  if runId ~= '' then
    run = readRun(runs, runId)
    if not run then return {'invalid_run', 'unknown'} end
    if nowMs >= run.expires then return {'invalid_run', 'expired'} end
  end

  local kept = redis.call('HMGET', playtime, 'c:' .. user, 'r:' .. user)
  local creditedUntil, raterStars = tonumber(kept[1] or '0'), kept[2] and tonumber(kept[2])
  local startMs = math.max(nowMs - claim * 1000, creditedUntil)
  local endMs = math.min(startMs + claim * 1000, nowMs + LEAD_MS)
  local credited = math.max(0, math.floor((endMs - startMs) / 1000))
  local total, mine
  if credited > 0 then
    total = redis.call('HINCRBY', playtime, 'total', credited)
    mine = redis.call('HINCRBY', playtime, 'u:' .. user, credited)
    if mine == credited then countPlayers(playtime, 1) end
    redis.call('HSET', playtime, 'c:' .. user, string.format('%.0f', startMs + credited * 1000))
    if raterStars then reweighRating(ratingStats, playtime, user, raterStars, mine - credited, mine, fullWeight) end
  else
    total = tonumber(redis.call('HGET', playtime, 'total') or '0')
    mine = tonumber(redis.call('HGET', playtime, 'u:' .. user) or '0')
  end

  local verified = -1
  if run then
    creditRun(runs, runId, run, startMs, math.min(startMs + credited * 1000, nowMs))
    verified = run.verified
  end
  return {total, mine, credited, verified}
end
