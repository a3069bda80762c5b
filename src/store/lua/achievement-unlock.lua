--- @constants TIME_DIGITS OUTBOX_MAX
--- @include "events"
--- @include "achievements"
--- @include "board-check"
--- @include "runs"
-- The game unlocks an achievement for a player (action=unlock, unlock-self:
-- docs/interface.md#achievements), once: a second unlock changes nothing.
-- While the game has webhooks the outbox says so (achievement.unlocked).
-- A game that keeps runs takes an unlock with the run it was earned in
-- (ARGV[3]): one of the player's (KEYS[6]: their runs started with the
-- game's keys for an API-key unlock, by session for unlock-self), not expired (a run that took its score
-- still counts: an achievement is often won on the way to it); a game that
-- requires runs takes none without. An achievement with a minimum of
-- verified play (its min_run_seconds) takes an unlock only with a run that
-- has it, whatever the game's runs setting.
-- The live streams hear of it (announceUnlocks) unless the player is hidden.
-- KEYS: the game's record, its achievements, the player's achieved bucket,
-- the achievements' counts, the outbox, the player's runs, the game's
-- hidden players and hidden users, its live channel.
-- ARGV: the achievement's id, the player, the run id ('' for none).
-- Returns {'unknown'} (no such achievement), {'run_required'},
-- {'invalid_run', why}, {'play_required', seconds needed, seconds the run
-- has}, or {'unlocked', ms} (now) or {'already', ms} (when it was).
local game, achievements, achieved, counts, outbox = KEYS[1], KEYS[2], KEYS[3], KEYS[4], outboxOf(KEYS[1], KEYS[5])
local id, player, runId = ARGV[1], ARGV[2], ARGV[3]
local settings = redis.call('HGET', achievements, id)
if not settings then return {'unknown'} end
local achievement = cjson.decode(settings)
local since = tonumber(achievement.since) or 0
local minRun = tonumber(achievement.min_run_seconds) or 0
local now = clock()
local runs = redis.call('HGET', game, 'runs')
if runId == '' then
  if runs == 'required' or minRun > 0 then return {'run_required'} end
elseif runs ~= 'optional' and runs ~= 'required' then
  return {'invalid_run', 'off'}
else
  local run = readRun(KEYS[6], runId)
  if not run then return {'invalid_run', 'unknown'} end
  if now >= run.expires then return {'invalid_run', 'expired'} end
  if run.verified < minRun then return {'play_required', minRun, run.verified} end
end
if unlock(achieved, counts, player, id, since, now) then
  if hasWebhooks(redis.call('HGET', game, 'webhooks')) then emit(outbox, 'achievement.unlocked', { player_name = player, achievement_id = id }) end
  if redis.call('SISMEMBER', KEYS[7], player) == 0 and redis.call('SISMEMBER', KEYS[8], player) == 0 then announceUnlocks(KEYS[9], player, {id}, now) end
  return {'unlocked', string.format('%.0f', now)}
end
return {'already', unlockedAt(redis.call('HGET', achieved, player), id, since)}
