-- Creates a game's record (KEYS[1]) only when it does not exist yet, and
-- starts its usage (KEYS[2]) at zero in the same step: a new game stores
-- nothing, and without the count the submit script would start from an
-- estimate that includes every hidden user. A new game has deleted no
-- entry (deleted_at 0), and hides someone only when its hidden sets (KEYS[3],
-- KEYS[4]: the hidden users copied in, any hide walk's) hold a name (hides:
-- see submit.lua); it has stored no meta (metas 0). Returns 1 when created.
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV))
local hides = redis.call('SCARD', KEYS[3]) + redis.call('SCARD', KEYS[4]) > 0 and 1 or 0
redis.call('HSET', KEYS[1], 'deleted_at', 0, 'hides', hides, 'metas', 0)
redis.call('HSET', KEYS[2], 'entries', 0, 'meta_bytes', 0)
return 1
