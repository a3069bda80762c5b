--- @constants TIME_DIGITS OUTBOX_MAX
--- @include "events"
-- period.closed for a period that has ended (ARGV[1], its kind; ARGV[2], its
-- id; ARGV[3], ARGV[4], when it started and ended, ISO), with its board's
-- top (KEYS[3]), in the game's outbox (KEYS[4]) while the game (KEYS[1],
-- its record) has webhooks: once, whichever process sees the end first
-- (KEYS[2], a marker kept ARGV[5] seconds). A board whose keys have
-- expired (keep_periods 0) gives an empty top. Returns 1 when written.
local game, marker, board, outbox = KEYS[1], KEYS[2], KEYS[3], outboxOf(KEYS[1], KEYS[4])
local settings = redis.call('HMGET', game, 'webhooks', 'notify_top', 'order')
if not hasWebhooks(settings[1]) then return 0 end
if not redis.call('SET', marker, '1', 'NX', 'EX', ARGV[5]) then return 0 end
local top = topOf(board, notifyTopOf(settings[2]), settings[3] == 'asc')
emit(outbox, 'period.closed', { period = ARGV[1], period_id = ARGV[2], started_at = ARGV[3], ended_at = ARGV[4], top = top })
return 1
