-- Names that differ only in letter case are one name (docs/security.md,
-- "Names"): the user who holds a name's folded form (lowercase) in the
-- folded names (KEYS[1], HASH folded -> username) is the only one with it.
-- Takes the folded form for a username, unless another user holds it;
-- `replacing` is a holder the caller found erased (its record gone), which
-- this takes over only if it still holds it.
-- ARGV: the folded form, the username, replacing ('' for none).
-- Returns '' when the username holds the folded form now, else its holder.
local holder = redis.call('HGET', KEYS[1], ARGV[1])
if holder and holder ~= ARGV[2] and holder ~= ARGV[3] then return holder end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return ''
