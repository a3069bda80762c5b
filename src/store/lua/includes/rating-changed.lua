-- Included by rate.lua and unrate.lua: rating.changed in the game's outbox
-- while the game (its record: `game`) has webhooks, with the new average
-- (stars, 2 decimals) and count from `stats` ({sum, count}).
local function ratingChanged (game, outbox, stats)
  if not hasWebhooks(redis.call('HGET', game, 'webhooks')) then return end
  local sum, count = tonumber(stats[1] or '0'), tonumber(stats[2] or '0')
  local average = 0
  if count > 0 then average = math.floor(sum * 100 / count + 0.5) / 100 end
  emit(outboxOf(game, outbox), 'rating.changed', { average = average, count = count })
end
