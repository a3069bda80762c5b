--- @constants BACKLOG_MAX DONE_KEPT EVENTS_KEPT
--- @include "deliveries"
-- Makes deliveries of events to webhooks, and acknowledges the outbox
-- entries they came from, in one step: an event read from the outbox
-- becomes its deliveries exactly once, even when the dispatcher that read it
-- dies (another claims the entry and runs this again), and when it only
-- stalled past the claim's idle time (both then run this for the entry: the
-- deliveries come from the call that acknowledges it, the other makes none).
-- KEYS: the game's webhooks, deliveries, delivery sequence, outbox; then per
-- webhook named its pending and finished deliveries.
-- ARGV: now (ms), how many outbox entries to acknowledge n, the n entry ids,
-- how many webhooks w, then per webhook its id; then per delivery: its
-- entry's index (1..n; 0 for an event not from the outbox, a test), the webhook's index (1..w), its message id, its
-- type, its body.
-- A webhook deleted since it was named gets nothing. A webhook with
-- BACKLOG_MAX pending deliveries gets the new one as dead at once ("backlog
-- full"), so a receiver that is down cannot fill Redis.
-- Then trims the outbox to about EVENTS_KEPT entries, taking only entries
-- the group has read and acknowledged: an event waits for a dispatcher
-- however far behind it is (up to the outbox's bound, OUTBOX_MAX, which
-- only a game no process dispatches for reaches).
-- Returns the ids of the deliveries made, and how many of them were dead at once.
local webhooks, deliveries, sequence, outbox = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local now = tonumber(ARGV[1])
local acks = tonumber(ARGV[2])
-- Which entries this call acknowledged: one another call acknowledged first has had its deliveries made.
local fresh = {}
for i = 1, acks do fresh[i] = redis.call('XACK', outbox, 'webhooks', ARGV[2 + i]) == 1 end
local excess = redis.call('XLEN', outbox) - EVENTS_KEPT
if excess > 0 then
  -- The oldest entry still pending (read, not acknowledged), else the group's last-delivered id: XTRIM MINID keeps it and all after it.
  local keep = redis.call('XPENDING', outbox, 'webhooks')[2]
  if not keep then
    for _, group in ipairs(redis.call('XINFO', 'GROUPS', outbox)) do
      for i = 1, #group - 1, 2 do if group[i] == 'last-delivered-id' then keep = group[i + 1] end end
    end
  end
  -- Approximate (whole stream nodes), at most `excess` entries: cheap, and never below EVENTS_KEPT.
  if keep then redis.call('XTRIM', outbox, 'MINID', '~', keep, 'LIMIT', excess) end
end
local arg = 3 + acks
local count = tonumber(ARGV[arg])
local ids = {}
for i = 1, count do ids[i] = ARGV[arg + i] end
arg = arg + count + 1
local made, full = {}, 0
while arg <= #ARGV do
  local entry, index, message, kind, body = tonumber(ARGV[arg]), tonumber(ARGV[arg + 1]), ARGV[arg + 2], ARGV[arg + 3], ARGV[arg + 4]
  arg = arg + 5
  local webhookId = ids[index]
  if (entry == 0 or fresh[entry]) and redis.call('HEXISTS', webhooks, webhookId) == 1 then
    local due, done = KEYS[4 + 2 * index - 1], KEYS[4 + 2 * index]
    local id = tostring(redis.call('INCR', sequence))
    local record = { delivery_id = id, webhook_id = webhookId, message_id = message, type = kind, body = body, attempts = 0, created_at = now, status = 'pending' }
    if redis.call('ZCARD', due) >= BACKLOG_MAX then
      record.status, record.last_error, record.finished_at = 'dead', 'backlog full: ' .. BACKLOG_MAX .. ' deliveries were already pending', now
      full = full + 1
      redis.call('ZADD', done, now, id)
      trimDone(deliveries, done)
    else
      record.next_attempt_at = now
      redis.call('ZADD', due, now, id)
    end
    redis.call('HSET', deliveries, id, cjson.encode(record))
    table.insert(made, id)
  end
end
return { made, full }
