--- @include "limited"
-- Counts a request's rate-limit counters and does nothing else: a request
-- refused before its action's own call (store/limits.ts `count`), and
-- @fastify/rate-limit's counters. Returns {counts} (includes/limited.lua).
return limited(function () return nil end)
