--- @constants TIME_DIGITS REVIEW_QUEUE_MAX REVIEW_DECIDED_KEPT OUTBOX_MAX LIVE_TOP MAX_TOTAL
--- @include "limited"
--- @include "submit-board"
-- One submit of several boards' scores (docs/decisions/0070-named-boards-one-game-many-boards-in-its.md), in one call:
-- submitBoard (includes/submit-board.lua, the work of submit.lua) once per
-- board, with the keys and arguments it takes, so every rule of a submit
-- is the one of submit.lua. The request's rate-limit counters are counted
-- first (includes/limited.lua), appended to the keys and arguments below. Nothing is written unless every board is still
-- what the caller chose it by and in the periods chosen ({'moved'} or
-- {'period', ms}: choose again); then each board takes its score or
-- refuses it on its own, at one instant (the same ms on every board), with
-- a replay marker of its own (a replay answers each board as a replay).
-- KEYS: game, hidden, hidden users, deleted, live channel, the boards
-- version, the four review keys, the review sequence, the outbox, the
-- named boards, the achievements' thresholds, the player's achieved bucket
-- and the achievements' counts; then per board its board, entries, metas, usage and replay
-- marker, then a board and an entries bucket per period of it.
-- ARGV: the season (moved() checks it), player, meta, has meta, max
-- entries, max meta bytes, ts, seen until, at (ms; '' for the Redis
-- clock), the season of the keys, the number of boards; then per board
-- what its board was chosen by (board-prelude.lua), its score, its board
-- score, its number of periods, then per period its start, its reset, when
-- its keys expire, its kind and its id.
-- Returns {'moved'}, {'period', ms}, or {'boards', then each board's
-- answer as submit.lua gives it, a refusal or a standing}.
local function work ()
  local SHARED_KEYS, SHARED_ARGS = 16, 11
  local BOARD_KEYS, BOARD_ARGS, PERIOD_KEYS, PERIOD_ARGS = 5, 4, 2, 5
  local now = ARGV[9] ~= '' and tonumber(ARGV[9]) or clock()
  local at = string.format('%.0f', now)
  local boards = {}
  local k, a = SHARED_KEYS + 1, SHARED_ARGS + 1
  for b = 1, tonumber(ARGV[11]) do
    local periodCount = tonumber(ARGV[a + 3])
    boards[b] = { k = k, a = a, periods = periodCount }
    k = k + BOARD_KEYS + PERIOD_KEYS * periodCount
    a = a + BOARD_ARGS + PERIOD_ARGS * periodCount
  end
  for _, board in ipairs(boards) do
    local boardId, chosen, _, field = boardChosenBy(ARGV[board.a])
    if chosenMoved(boardId, chosen, ARGV[1], redis.call('HMGET', KEYS[1], field, 'season')) then return {'moved'} end
    for i = 0, board.periods - 1 do
      local arg = board.a + BOARD_ARGS + PERIOD_ARGS * i
      if now < tonumber(ARGV[arg]) or now >= tonumber(ARGV[arg + 1]) then return {'period', at} end
    end
  end
  local results = {'boards'}
  for _, board in ipairs(boards) do
    local bk, ba = board.k, board.a
    -- As submit.lua numbers them (its KEYS and ARGV comments).
    local keys = {KEYS[1], KEYS[bk], KEYS[bk + 1], KEYS[bk + 2], KEYS[2], KEYS[3], KEYS[bk + 3], KEYS[bk + 4], KEYS[4], KEYS[5], KEYS[6],
      KEYS[7], KEYS[8], KEYS[9], KEYS[10], KEYS[11], KEYS[12], KEYS[13], KEYS[14], KEYS[15], KEYS[16]}
    for i = 0, PERIOD_KEYS * board.periods - 1 do keys[#keys + 1] = KEYS[bk + BOARD_KEYS + i] end
    local args = {ARGV[ba], ARGV[1], ARGV[2], ARGV[ba + 1], ARGV[ba + 2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7], ARGV[8], at,
      board.periods, '', '', ARGV[10]}
    for i = 0, PERIOD_ARGS * board.periods - 1 do args[#args + 1] = ARGV[ba + BOARD_ARGS + i] end
    -- No run (a run's score goes to one board) and no approval.
    args[#args + 1] = ''
    args[#args + 1] = ''
    results[#results + 1] = submitBoard(keys, args)
  end
  return results
end
return limited(work)
