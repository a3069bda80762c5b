--- @constants TIME_DIGITS LIVE_TOP
--- @keys
--- @include "limits"
--- @include "board-check"
--- @include "boards-changed"
--- @include "has-webhooks"
--- @include "replay-marker"
--- @include "room"
--- @include "read-entry"
-- A score for the game's own board, of a game that uses none of what
-- submit.lua adds (periods, review rules, runs, webhooks, achievements,
-- named boards, approvals): the replay and deletion checks of a signed
-- submit, the caps, compare-and-store (with Game Jolt's text fields), rank.
-- Sent by store/submit-call.ts when the game's record cached there says
-- so; the record read here says it again, and a game that has any of them
-- after all (a record cached before they were set) is answered {'full'}:
-- the caller sends submit.lua.
--
-- The call is one JSON argument (submit-call.ts `plainSubmitCall`), its
-- fields named there; the keys are named here from the game id (KEY, from
-- keys.ts), all in the game's slot; KEYS[1] is the game's record, which
-- routes the call. Its rate-limit counters are counted first
-- (includes/limits.lua): over one, nothing else runs.
--
-- Returns {counts} (a limit is over) or {counts, answer}, the answer
-- {'moved'} (the game's order or season changed: choose again), {'full'},
-- {'stale'}, {'closed'} (docs/interface.md#replays-and-deleted-entries),
-- {'full_entries'} or {'full_meta'} (a cap: nothing stored), or {outcome,
-- improved 0/1, best or '', best ms or '', rank or -1, and the visible total
-- when the call asks for it}, outcome 'ok' or 'replay' (accepted before:
-- nothing stored, the standing).
local call = cjson.decode(ARGV[1])
local counts, over = countLimits(call.limits)
if over then return {counts} end

local game, player, score = call.game, call.player, call.score
local gameKey, board, entries = KEYS[1], KEY.board(game, call.scope), KEY.entries(game, call.bucket, call.scope)
local function submit ()
  local stored = redis.call('HMGET', gameKey, 'order', 'season', 'deleted_at', 'hides', 'metas', 'review_above', 'review_below', 'review_factor', 'webhooks', 'runs', 'achievements')
  if chosenMoved(nil, call.order, call.season, stored) then return {'moved'} end
  local reviewFactor = tonumber(stored[8] or '')
  if tonumber(stored[6] or '') or tonumber(stored[7] or '') or (reviewFactor and reviewFactor > 1) or stored[10] == 'optional' or stored[10] == 'required'
    or hasWebhooks(stored[9]) or (tonumber(stored[11] or '') or 0) > 0 then return {'full'} end
  local lower = call.order == 'asc'

  local best, ms = readEntry(entries, player)
  local had = best ~= nil
  local function answer (outcome, improved, rank)
    if rank == nil then rank = had and redis.call('ZRANK', board, ms .. player) end
    return {outcome, improved, best or '', ms or '', rank or -1, call.total and redis.call('ZCARD', board) or nil}
  end

  local marked = false
  if call.ts ~= '' then
    local seen = takeReplayMarker(KEY.seen(game, call.sign), KEY.deleted(game, player), call.ts, call.seen_until, stored[3], had)
    if seen == 'stale' or seen == 'closed' then return {seen} end
    if seen then return answer('replay', 0) end
    marked = true
  end
  if had and (lower and tonumber(score) >= tonumber(best) or not lower and tonumber(score) <= tonumber(best)) then return answer('ok', 0) end

  local room = { board = board, hidden = KEY.hidden(game), hiddenUsers = KEY.hiddenUsers(game), usage = KEY.usage(game, call.scope), metas = KEY.meta(game, call.bucket, call.scope),
    player = player, meta = call.meta, metasKept = stored[5] ~= '0', isNew = not had, maxEntries = call.max_entries, maxMetaBytes = call.max_meta_bytes }
  local full = checkRoom(room)
  if full then
    if marked then redis.call('DEL', KEY.seen(game, call.sign)) end
    return {full}
  end

  local written = false
  if had and redis.call('ZREM', board, ms .. player) == 1 then written = true end
  best, ms = score, string.format('%0' .. TIME_DIGITS .. '.0f', call.at or clock())
  redis.call('HSET', entries, player, best .. '|' .. ms)
  -- Game Jolt's text fields, beside the best they came with (as includes/submit-board.lua keeps them).
  if call.text then redis.call('HSET', KEY.gamejoltText(game, call.bucket, call.scope), player, ms .. '|' .. best .. '|' .. call.text) end
  storeMeta(room, gameKey)
  -- A game that never hid anyone (`hides` 0 in its record) shows every player without a look at its hidden sets.
  local rank = false
  if stored[4] == '0' or (redis.call('SISMEMBER', room.hidden, player) == 0 and redis.call('SISMEMBER', room.hiddenUsers, player) == 0) then
    redis.call('ZADD', board, call.board_score, ms .. player)
    written = true
    rank = redis.call('ZRANK', board, ms .. player)
    -- A change in the first LIVE_TOP tells the live boards (SPUBLISH on the game's channel).
    if rank < LIVE_TOP then redis.call('SPUBLISH', KEY.live(game), call.keys_season > 1 and 'season:' .. call.keys_season .. ':' or '') end
  end
  if written then boardsChanged(KEY.boardsVersion(game)) end
  return answer('ok', 1, rank)
end
local answer = submit()
return {counts, answer}
