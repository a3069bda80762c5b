--- @constants TIME_DIGITS OUTBOX_MAX
--- @include "events"
--- @include "achievements"
--- @include "board-check"
-- The game unlocks an achievement for a player (action=unlock, unlock-self:
-- docs/interface.md#achievements), once: a second unlock changes nothing.
-- While the game has webhooks the outbox says so (achievement.unlocked).
-- KEYS: the game's record, its achievements, the player's achieved bucket,
-- the achievements' counts, the outbox.
-- ARGV: the achievement's id, the player.
-- Returns {'unknown'} (no such achievement), or {'unlocked', ms} (now) or
-- {'already', ms} (when it was).
local game, achievements, achieved, counts, outbox = KEYS[1], KEYS[2], KEYS[3], KEYS[4], outboxOf(KEYS[1], KEYS[5])
local id, player = ARGV[1], ARGV[2]
local settings = redis.call('HGET', achievements, id)
if not settings then return {'unknown'} end
local since = tonumber(cjson.decode(settings).since) or 0
local now = clock()
if unlock(achieved, counts, player, id, since, now) then
  if hasWebhooks(redis.call('HGET', game, 'webhooks')) then emit(outbox, 'achievement.unlocked', { player_name = player, achievement_id = id }) end
  return {'unlocked', string.format('%.0f', now)}
end
return {'already', unlockedAt(redis.call('HGET', achieved, player), id, since)}
