--- @constants TIME_DIGITS REVIEW_QUEUE_MAX REVIEW_DECIDED_KEPT OUTBOX_MAX LIVE_TOP MAX_TOTAL
--- @include "limited"
--- @include "submit-board"
-- A score for one board with all a game may use: periods, review rules,
-- runs, webhooks, achievements, a named board; or the approval of a held
-- score. The work is includes/submit-board.lua; the request's rate-limit
-- counters are counted first (includes/limited.lua), appended to its keys and
-- arguments: over one, nothing else runs. Returns {counts} or {counts,
-- submitBoard's answer}.
return limited(function () return submitBoard(KEYS, ARGV) end)
