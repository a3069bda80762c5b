--- @include "pending-field"
-- Included by the scripts that decide a held score (submit.lua approves,
-- review-reject.lua rejects, a better held score supersedes): marks the
-- record `id` (decoded: `record`) with its status, when and the note, moves
-- it from the pending queue to the decided list, and forgets the oldest
-- decisions past REVIEW_DECIDED_KEPT. `keys`: the review record, pending,
-- decided and players keys, in that order.
local function decide (keys, id, record, status, note, at)
  local review, reviewPending, reviewDecided, reviewPlayers = keys[1], keys[2], keys[3], keys[4]
  record.status = status
  record.decided_at = string.format('%.0f', at)
  if note ~= '' then record.note = note end
  redis.call('HSET', review, id, cjson.encode(record))
  redis.call('ZREM', reviewPending, id)
  redis.call('ZADD', reviewDecided, at, id)
  local field = pendingField(record.player_name, record.board_id)
  if redis.call('HGET', reviewPlayers, field) == id then redis.call('HDEL', reviewPlayers, field) end
  local excess = redis.call('ZCARD', reviewDecided) - REVIEW_DECIDED_KEPT
  if excess > 0 then
    local oldest = redis.call('ZRANGE', reviewDecided, 0, excess - 1)
    redis.call('HDEL', review, unpack(oldest))
    redis.call('ZREMRANGEBYRANK', reviewDecided, 0, excess - 1)
  end
end
