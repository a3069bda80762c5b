--- @constants REVIEW_DECIDED_KEPT TIME_DIGITS OUTBOX_MAX
--- @include "review-decide"
--- @include "events"
-- Rejects a held score (ARGV[1]) while it is pending: it is recorded as
-- rejected, with the note (ARGV[2]), and stays on no board; score.rejected
-- in the outbox while the game has webhooks.
-- KEYS: review, review pending, review decided, review players, the game's
-- record, its outbox.
-- Returns the record as JSON, or {'decided', status} when it is not pending
-- ('unknown' when there is no such held score).
local record = redis.call('HGET', KEYS[1], ARGV[1])
if not record then return {'decided', 'unknown'} end
record = cjson.decode(record)
if record.status ~= 'pending' then return {'decided', record.status} end
local time = redis.call('TIME')
decide(KEYS, ARGV[1], record, 'rejected', ARGV[2], tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000))
if hasWebhooks(redis.call('HGET', KEYS[5], 'webhooks')) then
  emit(outboxOf(KEYS[5], KEYS[6]), 'score.rejected', { held_id = ARGV[1], player_name = record.player_name, score = record.score, note = ARGV[2] ~= '' and ARGV[2] or cjson.null, board_id = record.board_id })
end
return redis.call('HGET', KEYS[1], ARGV[1])
