-- Whether a game writes its outbox: its record's `webhooks` field (their
-- count) above 0. Included by events.lua, and by the plain submit, which
-- hands such a game to the full one.
local function hasWebhooks (count) return (tonumber(count or '') or 0) > 0 end
