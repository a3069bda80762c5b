--- @constants BACKLOG_MAX DONE_KEPT
--- @include "deliveries"
-- Claims up to ARGV[3] of a webhook's due deliveries (KEYS[1], pending, by
-- when due; KEYS[2], the records) for one attempt each, under the claim
-- ARGV[4] and a lease of ARGV[2] ms from now (ARGV[1], ms): claimDue in
-- includes/deliveries.lua. Returns the claimed records (JSON).
return claimDue(KEYS[1], KEYS[2], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4])
