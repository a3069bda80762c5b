--- @constants TIME_DIGITS REVIEW_QUEUE_MAX REVIEW_DECIDED_KEPT OUTBOX_MAX LIVE_TOP MAX_TOTAL
--- @keys
--- @include "limits"
--- @include "submit-board"
-- A score for one board with all a game may use: periods, review rules,
-- runs, webhooks, achievements, a named board; or the approval of a held
-- score. The work is includes/submit-board.lua. The call is one JSON
-- argument (store/submit-call.ts `fullSubmitCall`), its fields named there;
-- KEYS[1] is the game's record, which routes the call. Its rate-limit
-- counters are counted first (includes/limits.lua): over one, nothing else
-- runs. Returns {counts} or {counts, submitBoard's answer}.
local call = cjson.decode(ARGV[1])
local counts, over = countLimits(call.limits)
if over then return {counts} end
return {counts, submitBoard(call)}
