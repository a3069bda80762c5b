-- Included by the scripts that write a game's outbox (store/events.ts):
-- a Redis Stream in the game's slot, written in the same step as the change
-- it tells of. The dispatcher trims what it has read to about EVENTS_KEPT
-- entries (store/events.ts); an outbox that holds OUTBOX_MAX entries (no
-- dispatcher has read it for long) takes no more change's events (one
-- change's are all written or none): each is counted in
-- the game's record instead (events_dropped), and the next dispatcher to
-- read the outbox reports it. Scores go in as their digits (strings), so
-- the whole range of a score is kept exactly; the reader turns them back
-- into numbers.
--- @include "has-webhooks"
-- A game's notify_top as its record holds it: 1 to 100, 10 when unset.
local function notifyTopOf (text) return math.min(math.max(tonumber(text or '') or 10, 1), 100) end
-- A game's outbox as emit takes it: its stream, and its record (where what it could not take is counted).
local function outboxOf (game, stream) return { game = game, stream = stream } end
-- Whether the outbox is full is read once per script call: a change's events are all written, or none.
local function emit (outbox, kind, data)
  if outbox.full == nil then outbox.full = redis.call('XLEN', outbox.stream) >= OUTBOX_MAX end
  if outbox.full then
    redis.call('HINCRBY', outbox.game, 'events_dropped', 1)
    return
  end
  redis.call('XADD', outbox.stream, '*', 'type', kind, 'data', cjson.encode(data))
end
-- A board's score (ZSET score) as the player's score, in digits.
local function scoreOfBoard (boardScore, lower)
  if lower then return boardScore end
  if string.sub(boardScore, 1, 1) == '-' then return string.sub(boardScore, 2) end
  if boardScore == '0' then return '0' end
  return '-' .. boardScore
end
-- The first `count` entries of a board, best first: rank, player_name, score.
local function topOf (board, count, lower)
  local page = redis.call('ZRANGE', board, 0, count - 1, 'WITHSCORES')
  local items = {}
  for i = 1, #page, 2 do
    table.insert(items, { rank = (i + 1) / 2, player_name = string.sub(page[i], TIME_DIGITS + 1), score = scoreOfBoard(page[i + 1], lower) })
  end
  return items
end
-- What a new best on a board tells: score.best, and when the player is
-- visible in the top `notifyTop`, board.first and board.overtaken (the
-- players they passed who were in the top `notifyTop`). Indexes are 0-based
-- ranks: `oldIndex` before (nil when not on the board), `newIndex` after.
local function boardEvents (outbox, board, where, player, score, previousBest, oldIndex, newIndex, notifyTop, lower)
  emit(outbox, 'score.best', { board = where, player_name = player, score = score, previous_best = previousBest or cjson.null, rank = newIndex and newIndex + 1 or cjson.null })
  if not newIndex or newIndex >= notifyTop then return end
  local last = notifyTop
  if oldIndex and oldIndex < last then last = oldIndex end
  if last <= newIndex then return end
  local passed = redis.call('ZRANGE', board, newIndex, last, 'WITHSCORES')
  local overtaken = {}
  for i = 3, #passed, 2 do
    table.insert(overtaken, { rank = newIndex + (i + 1) / 2, player_name = string.sub(passed[i], TIME_DIGITS + 1), score = scoreOfBoard(passed[i + 1], lower) })
  end
  if newIndex == 0 and overtaken[1] then
    emit(outbox, 'board.first', { board = where, player_name = player, score = score, previous = { player_name = overtaken[1].player_name, score = overtaken[1].score } })
  elseif newIndex == 0 and oldIndex == nil then
    emit(outbox, 'board.first', { board = where, player_name = player, score = score, previous = cjson.null })
  end
  if overtaken[1] then emit(outbox, 'board.overtaken', { board = where, player_name = player, score = score, rank = newIndex + 1, overtaken = overtaken }) end
end
