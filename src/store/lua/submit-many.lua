--- @constants TIME_DIGITS REVIEW_QUEUE_MAX REVIEW_DECIDED_KEPT OUTBOX_MAX LIVE_TOP MAX_TOTAL
--- @keys
--- @include "limits"
--- @include "submit-board"
-- One submit of several boards' scores (docs/decisions/0070-named-boards-one-game-many-boards-in-its.md), in one call:
-- submitBoard (includes/submit-board.lua, the work of submit.lua) once per
-- board, so every rule of a submit is the one of submit.lua. The call is
-- one JSON argument (store/submit-call.ts `manySubmitCall`): the request's
-- fields once, then each board's (what it was chosen by, its score, its
-- scope, its periods); KEYS[1] is the game's record, which routes it. Its
-- rate-limit counters are counted first (includes/limits.lua): over one,
-- nothing else runs. Nothing is written unless every board is still what
-- the caller chose it by and in the periods chosen ({'moved'} or {'period',
-- ms}: choose again); then each board takes its score or refuses it on its
-- own, at one instant (the same ms on every board), with a replay marker of
-- its own (a replay answers each board as a replay).
-- Returns {counts} or {counts, answer}, the answer {'moved'}, {'period',
-- ms}, or {'boards', then each board's answer as submit.lua gives it, a
-- refusal or a standing}.
local call = cjson.decode(ARGV[1])
local counts, over = countLimits(call.limits)
if over then return {counts} end

local function work ()
  local now = call.at ~= '' and tonumber(call.at) or clock()
  local at = string.format('%.0f', now)
  for _, board in ipairs(call.boards) do
    local boardId, chosen, _, field = boardChosenBy(board.chosen)
    if chosenMoved(boardId, chosen, call.season, redis.call('HMGET', KEYS[1], field, 'season')) then return {'moved'} end
    for _, period in ipairs(board.periods) do
      if now < period.start or now >= period.reset then return {'period', at} end
    end
  end
  local results = {'boards'}
  for _, board in ipairs(call.boards) do
    -- The request's fields and this board's, as submit.lua takes them: no run (a run's score goes to one board), no approval.
    results[#results + 1] = submitBoard({
      game = call.game, chosen = board.chosen, season = call.season, player = call.player, bucket = call.bucket,
      score = board.score, board_score = board.board_score, meta = call.meta, max_entries = call.max_entries,
      max_meta_bytes = call.max_meta_bytes, ts = call.ts, sign = call.sign, seen_board = board.seen_board,
      seen_until = call.seen_until, at = at, keys_season = call.keys_season, scope = board.scope, periods = board.periods
    })
  end
  return results
end
return {counts, work()}
