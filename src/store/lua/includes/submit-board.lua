--- @include "board-check"
--- @include "boards-changed"
--- @include "has-webhooks"
--- @include "replay-marker"
--- @include "room"
--- @include "review-decide"
--- @include "events"
--- @include "runs"
--- @include "achievements"
-- submitBoard(call): one score on one board, as lua/submit.lua (one board)
-- and lua/submit-many.lua (each board of a request) call it; its constants
-- are the calling script's, whose KEYS[1] is the game's record.
-- One submit, atomically: the replay and deletion checks of a signed submit,
-- the game's review rules, its caps, compare-and-store, rank, count; on the
-- all-time board (its current season) and on the board of each current
-- period. Also the approval of a held score (call.approve): stored the same
-- way, as of the moment it was submitted, and marked approved. While the
-- game has webhooks, what changed is written to its outbox in the same step
-- (new bests, first places, players overtaken, held and approved scores).
--
-- `call` is a table of named fields (store/submit-call.ts, FullCall, says
-- each): the game id, what the board was chosen by and the season (moved()
-- checks them; season '' to store in a closed one), the player and their
-- entries bucket, the score and its board score, meta (nil for none), the
-- caps, the signature's ts and first 32 characters and when its replay
-- marker may go, at (ms; '' for the Redis clock), the season of the keys and
-- their scope, the periods (each its start, reset, expiry, kind, id and
-- scope), the held score to approve and the run, when there is one, and
-- Game Jolt's text fields (text: JSON, or nil). The
-- keys are named here from the game id (KEY, from keys.ts), all in the
-- game's slot.
--
-- Returns {'moved'} (the game's order or season changed: choose again),
-- {'period', ms} (the instant is outside a period named: choose them at ms),
-- {'stale'} (signed before the player's entry was deleted), {'closed'} (this
-- signed request was accepted in a season closed since), {'full_entries'}
-- or {'full_meta'} (a cap of the game would be passed: nothing stored),
-- {'full_review'} (the review queue is full: nothing held), {'decided',
-- status} (the held score to approve is no longer pending), {'run_required'},
-- {'invalid_run', why} or {'implausible', rule, verified seconds} (the
-- game's runs: docs/interface.md#runs); or {outcome,
-- improved 0/1, best or '', best ms or '', rank or -1, visible total, then per period:
-- improved 0/1, best or '', rank or -1}, outcome 'ok', 'replay' (this
-- signed request was accepted before: nothing stored, the standing),
-- 'held' (held for review: on no board, the standing unchanged) or
-- 'held-again' (a replay of a held one: answered as held). The caller
-- counts a submit answered ok or held in the game's activity
-- (store/activity.ts), not a replay or an approval.
--
-- A signed submit's replay marker (includes/replay-marker.lua) is taken
-- before anything is stored; a submit refused after that gives it back
-- (refuse), a held one marks it 'held'.
local function submitBoard (call)
  local game, gameKey, scope, bucket = call.game, KEYS[1], call.scope, call.bucket
  local BOARD_ID, CHOSEN, CHOSEN_ORDER, ORDER_FIELD = boardChosenBy(call.chosen)
  local board, entries, metas, usage = KEY.board(game, scope), KEY.entries(game, bucket, scope), KEY.meta(game, bucket, scope), KEY.usage(game, scope)
  local hidden, hiddenUsers, live, boardsVersion = KEY.hidden(game), KEY.hiddenUsers(game), KEY.live(game), KEY.boardsVersion(game)
  local player, score, boardScore, meta = call.player, call.score, call.board_score, call.meta
  local maxEntries, maxMetaBytes, ts, seenUntil, at = call.max_entries, call.max_meta_bytes, call.ts, call.seen_until, call.at
  -- A board whose first LIVE_TOP changed tells the live boards (SPUBLISH on the game's channel).
  local function topChanged (boardKey, member, liveScope)
    local index = redis.call('ZRANK', boardKey, member)
    if index and index < LIVE_TOP then redis.call('SPUBLISH', live, liveScope) end
    return index
  end
  -- Each current period's board and the player's entries bucket there.
  local periodList = call.periods
  for _, period in ipairs(periodList) do
    period.board, period.entries = KEY.board(game, period.scope), KEY.entries(game, bucket, period.scope)
  end
  local periodCount, keysSeason = #periodList, call.keys_season
  local approving, note = call.approve and call.approve.id or '', call.approve and call.approve.note or ''
  local runId, runKey = call.run and call.run.id or '', call.run and call.run.key or ''
  local stored = redis.call('HMGET', gameKey, ORDER_FIELD, 'season', 'deleted_at', 'hides', 'metas', 'review_above', 'review_below', 'review_factor', 'webhooks', 'runs', 'notify_top', 'min_run_seconds', 'max_score_rate', 'implausible', 'achievements')
  if chosenMoved(BOARD_ID, CHOSEN, call.season, stored) then return {'moved'} end
  -- The game's review rules and runs (fair play), read once for both scripts:
  -- the plain one hands a game that has any to the full one, as it does a
  -- game with webhooks.
  local reviewAbove, reviewBelow, reviewFactor = tonumber(stored[6] or ''), tonumber(stored[7] or ''), tonumber(stored[8] or '')
  if reviewFactor and reviewFactor <= 1 then reviewFactor = nil end
  local runsKept = stored[10] == 'optional' or stored[10] == 'required'
  -- The outbox is written while the game has webhooks (their count is kept in its record).
  local eventsOn = hasWebhooks(stored[9])
  -- A named board (docs/decisions/0070-named-boards-one-game-many-boards-in-its.md): its operator and state are in what
  -- moved() has just checked (CHOSEN); an archived one takes no score.
  local operator = BOARD_ID and string.match(CHOSEN, '^%a+ (%a+)') or 'best'
  if BOARD_ID and string.match(CHOSEN, ' archived$') then return {'archived'} end
  if BOARD_ID then
    -- A named board's own review rules, from its settings (JSON null is cjson.null: no rule).
    local settings = cjson.decode(redis.call('HGET', KEY.boards(game), BOARD_ID) or '{}')
    local function rule (value) if type(value) == 'number' then return value end return nil end
    reviewAbove, reviewBelow, reviewFactor = rule(settings.review_above), rule(settings.review_below), rule(settings.review_factor)
    if reviewFactor and reviewFactor <= 1 then reviewFactor = nil end
  end
  local notifyTop = notifyTopOf(stored[11])
  -- The game has achievements (their count is kept in its record): its players are counted, and a board's thresholds checked.
  local achievementsOn = (tonumber(stored[15] or '') or 0) > 0
  -- The keys of what this submit may use, named only when it may: each name
  -- is a concatenation (a new Lua string) the script pays for whether or not
  -- it is used, and most submits use no review, outbox, run or replay key.
  local seen, deleted
  if ts ~= '' then
    -- A submit of several boards keeps a replay marker per board (seen_board: its id).
    seen = call.seen_board and KEY.seenOnBoard(game, call.sign, call.seen_board) or KEY.seen(game, call.sign)
    deleted = KEY.deleted(game, player)
  end
  local review, reviewPending, reviewPlayers, reviewSequence, reviewKeys
  if approving ~= '' or runsKept or reviewAbove or reviewBelow or reviewFactor then
    review, reviewPending, reviewPlayers, reviewSequence = KEY.review(game), KEY.reviewPending(game), KEY.reviewPlayers(game), KEY.reviewSequence(game)
    reviewKeys = {review, reviewPending, KEY.reviewDecided(game), reviewPlayers}
  end
  local outbox = eventsOn and outboxOf(gameKey, KEY.events(game)) or nil
  local playerRuns
  if runId ~= '' then playerRuns = call.run.by_key and KEY.keyRuns(game, player) or KEY.runs(game, player) end

  local now
  if at ~= '' then now = tonumber(at) elseif periodCount > 0 then now = clock() end
  for _, period in ipairs(periodList) do
    if now < period.start or now >= period.reset then return {'period', string.format('%.0f', now)} end
  end

  local lower = CHOSEN_ORDER == 'asc'
  local function better (a, b)
    if lower then return tonumber(a) < tonumber(b) end
    return tonumber(a) > tonumber(b)
  end
  -- The value a board stores once this score is taken, by the board's
  -- operator; nil when it stays as it is: best, the better one (v1); latest,
  -- the new one; sum, the stored total plus the score. (The plain script is
  -- for the game's own board, whose operator is best.) An approved held score
  -- was achieved when it was sent (now): on a latest board it replaces only a
  -- value stored before then (`storedMs`), not a later score.
  local function nextValue (stored, storedMs)
    if operator == 'best' then
      if stored == nil or better(score, stored) then return score end
      return nil
    end
    if stored == nil then return score end
    if operator == 'latest' then
      if approving ~= '' and storedMs and tonumber(storedMs) > now then return nil end
      if tonumber(score) ~= tonumber(stored) then return score end
      return nil
    end
    if tonumber(score) == 0 then return nil end
    return string.format('%.0f', tonumber(stored) + tonumber(score))
  end
  -- When a board's new value was achieved: now; a sum's total, which an
  -- approved held score sent before its last add joins, keeps that later time.
  local function achievedAt (storedMs)
    if operator == 'sum' and storedMs and tonumber(storedMs) > now then return tonumber(storedMs) end
    return now
  end
  -- Whether a sum would pass what a score may be on any of the player's boards.
  local function overflows (value)
    return value ~= nil and math.abs(tonumber(value)) > MAX_TOTAL
  end
  -- A value's score on its sorted set (-value for desc boards); the submitted score's is boardScore.
  local function boardScoreOf (value)
    if value == score then return boardScore end
    return string.format('%.0f', lower and tonumber(value) or -tonumber(value))
  end
  local function split (entry)
    local bar = string.find(entry, '|', 1, true)
    return string.sub(entry, 1, bar - 1), string.sub(entry, bar + 1)
  end
  -- A game that never hid anyone (`hides` 0 in its record: create-game.lua,
  -- set-visibility.lua, hide-guest.lua) shows every player without a look at its hidden sets.
  local visible
  if stored[4] == '0' then visible = true end
  local function isVisible ()
    if visible == nil then
      visible = redis.call('SISMEMBER', hidden, player) == 0 and redis.call('SISMEMBER', hiddenUsers, player) == 0
    end
    return visible
  end

  local entry = redis.call('HGET', entries, player)
  local best, ms
  if entry then best, ms = split(entry) end

  -- Whether a board was written (the boards version is bumped once, with the answer).
  local boardWritten = false
  -- The period boards: stored when `store` and the score is better there,
  -- whatever the all-time best; appended to `result` as the answer gives them.
  local function periods (result, store)
    for _, period in ipairs(periodList) do
      local periodBoard, periodEntries = period.board, period.entries
      local periodEntry = redis.call('HGET', periodEntries, player)
      local periodBest, periodMs
      if periodEntry then periodBest, periodMs = split(periodEntry) end
      local improved = 0
      local periodValue = store and nextValue(periodEntry and periodBest or nil, periodMs)
      if periodValue then
        local previousBest, oldIndex = periodBest, nil
        if periodEntry then
          if eventsOn then oldIndex = redis.call('ZRANK', periodBoard, periodMs .. player) or nil end
          if redis.call('ZREM', periodBoard, periodMs .. player) == 1 then boardWritten = true end
        end
        periodBest, periodMs = periodValue, string.format('%0' .. TIME_DIGITS .. '.0f', achievedAt(periodMs))
        redis.call('HSET', periodEntries, player, periodBest .. '|' .. periodMs)
        local newIndex
        if isVisible() then
          redis.call('ZADD', periodBoard, boardScoreOf(periodValue), periodMs .. player)
          boardWritten = true
          newIndex = topChanged(periodBoard, periodMs .. player, period.kind .. ':' .. period.id .. ':')
        end
        if eventsOn then
          boardEvents(outbox, periodBoard, { period = period.kind, period_id = period.id, board_id = BOARD_ID }, player, periodValue, previousBest, oldIndex, newIndex, notifyTop, lower)
        end
        local ttl = period.expires - now
        redis.call('PEXPIRE', periodEntries, ttl)
        -- Never later than any of its buckets (keep_periods may have changed): a board member always has its entry.
        redis.call('PEXPIRE', periodBoard, ttl, 'LT')
        improved = 1
      end
      table.insert(result, improved)
      table.insert(result, periodBest or '')
      table.insert(result, periodBest and (redis.call('ZRANK', periodBoard, periodMs .. player) or -1) or -1)
    end
    return result
  end
  -- The achievements this submit unlocked (docs/decisions/0071-achievements-settings-in-the-games-slot-unlocks-in.md), answered after the periods.
  local unlockedNow = {}
  -- The board's thresholds its stored value now reaches (the value taken, or the one it keeps).
  local function reach (value)
    -- Thresholds are on the current season's boards: an approval into a closed season reaches none.
    if not achievementsOn or call.season == '' then return end
    now = now or clock()
    unlockedNow = reachAchievements(redis.call('HGET', KEY.achievementRules(game), BOARD_ID or 'default'), KEY.achieved(game, bucket), KEY.achievementCounts(game), player, value, now)
    -- A hidden player's unlocks are not shown, as their scores are not.
    if #unlockedNow > 0 and isVisible() then announceUnlocks(live, player, unlockedNow, now) end
    if eventsOn then
      for _, id in ipairs(unlockedNow) do emit(outbox, 'achievement.unlocked', { player_name = player, achievement_id = id, board_id = BOARD_ID }) end
    end
  end
  -- `index`: the entry's rank on the board when the caller knows it (false: not on it).
  local function answer (outcome, improved, store, index)
    local rank = index
    if rank == nil then rank = entry and redis.call('ZRANK', board, ms .. player) end
    local result = {outcome, improved, best or '', ms or '', rank or -1, redis.call('ZCARD', board)}
    periods(result, store)
    if boardWritten then boardsChanged(boardsVersion) end
    if achievementsOn then table.insert(result, unlockedNow) end
    return result
  end
  -- Whether this call took the replay marker, and the refusal that gives it back.
  local marked = false
  local function refuse (reply)
    if marked then redis.call('DEL', seen) end
    return reply
  end

  -- Fair play: whether this score would change any board of the player, and
  -- which review rule (the game's settings or the named board's, read above) holds it, if any.
  local function improvesABoard ()
    if nextValue(entry and best or nil, ms) ~= nil then return true end
    for _, period in ipairs(periodList) do
      local periodEntry = redis.call('HGET', period.entries, player)
      if periodEntry then
        if nextValue(split(periodEntry)) ~= nil then return true end
      elseif nextValue(nil) ~= nil then
        return true
      end
    end
    return false
  end
  -- More than reviewFactor times better than a positive reference score.
  local function farBeyond (reference)
    if reference <= 0 then return false end
    if lower then return tonumber(score) * reviewFactor < reference end
    return tonumber(score) > reference * reviewFactor
  end
  local function heldBy ()
    local value = tonumber(score)
    if reviewAbove and value > reviewAbove then return 'review_above' end
    if reviewBelow and value < reviewBelow then return 'review_below' end
    if reviewFactor then
      if entry and farBeyond(tonumber(best)) then return 'review_factor' end
      local first = redis.call('ZRANGE', board, 0, 0, 'WITHSCORES')[2]
      if first and farBeyond(lower and tonumber(first) or -tonumber(first)) then return 'review_factor' end
    end
    return nil
  end
  -- The run this submit carries takes its score, once the score is stored,
  -- left as it was (not better) or held.
  local run, runVerified
  local function takeRun ()
    if run == nil then return end
    run.used = score
    writeRun(playerRuns, runId, run)
  end
  -- Holds the score: one pending score per player and board. On a best
  -- board the best is held (a better one supersedes it; another is answered
  -- held and dropped); on a latest board the last one; on a sum board the
  -- scores held add up (the pending one is superseded by one for both, so
  -- no points are lost; `parts` counts them).
  local function hold (rule)
    now = now or clock()
    local heldScore, parts = score, 1
    local pendingId = redis.call('HGET', reviewPlayers, pendingField(player, BOARD_ID))
    local pending = pendingId and redis.call('HGET', review, pendingId)
    if pending then
      local record = cjson.decode(pending)
      if operator == 'sum' then
        heldScore = string.format('%.0f', tonumber(record.score) + tonumber(score))
        if overflows(heldScore) then return refuse({'overflow'}) end
        parts = (tonumber(record.parts) or 1) + 1
      elseif operator == 'best' and not better(score, record.score) then
        takeRun()
        if marked then redis.call('SET', seen, 'held', 'PXAT', seenUntil) end
        return answer('held', 0, false)
      end
      decide(reviewKeys, pendingId, record, 'superseded', '', now)
    elseif redis.call('ZCARD', reviewPending) >= REVIEW_QUEUE_MAX then
      return refuse({'full_review'})
    end
    local id = tostring(redis.call('INCR', reviewSequence))
    local record = { player_name = player, score = heldScore, submitted_at = string.format('%.0f', now), season = call.season, rule = rule, status = 'pending', board_id = BOARD_ID }
    if parts > 1 then record.parts = parts end
    if meta ~= nil then record.meta = meta end
    if runVerified ~= nil then
      record.run_id = runId
      record.run_verified_seconds = runVerified
      -- What the reviewer weighs: when the run began, and when its play was reported.
      record.run_started = string.format('%.0f', run.started)
      record.run_reports = run.reports
      record.run_timeline = run.timeline
      takeRun()
    end
    redis.call('HSET', review, id, cjson.encode(record))
    redis.call('ZADD', reviewPending, now, id)
    redis.call('HSET', reviewPlayers, pendingField(player, BOARD_ID), id)
    if eventsOn then
      -- Why: the rule, and for a run's score its verified play (never the run id: for some games it is the only credential).
      local event = { held_id = id, player_name = player, score = heldScore, rule = rule, board_id = BOARD_ID }
      if runVerified ~= nil then event.run_verified_seconds = runVerified end
      emit(outbox, 'score.held', event)
    end
    if marked then redis.call('SET', seen, 'held', 'PXAT', seenUntil) end
    return answer('held', 0, false)
  end

  -- An approval (its ts is ''): the held score must still be pending.
  local approved
  if approving ~= '' then
    local record = redis.call('HGET', review, approving)
    if not record then return {'decided', 'unknown'} end
    approved = cjson.decode(record)
    if approved.status ~= 'pending' then return {'decided', approved.status} end
    -- Held on one board, it is approved onto that board only (the caller names it).
    if approved.board_id ~= BOARD_ID then return {'decided', 'unknown'} end
  end

  if ts ~= '' then
    local verdict = takeReplayMarker(seen, deleted, ts, seenUntil, stored[3], entry and true or false)
    if verdict == 'stale' or verdict == 'closed' then return {verdict} end
    if verdict then return answer(verdict, 0, false) end
    marked = true
  end
  if not approved then
    -- Proof of play (docs/interface.md#runs): the run must be one of the
    -- player's, open and unused; its verified play must reach min_run_seconds and
    -- allow the score (score <= verified seconds * max_score_rate), else the
    -- score is held (or refused, as the game says).
    local runRule
    if runsKept then
      if runId == '' then
        if stored[10] == 'required' then return refuse({'run_required'}) end
      else
        run = readRun(playerRuns, runId)
        if not run or (runKey ~= '' and run.key ~= runKey) then return refuse({'invalid_run', 'unknown'}) end
        -- A Game Jolt session's run (store/runs.ts GAMEJOLT_SESSION_RUN) vouches for every score made during it.
        if run.used ~= '' and run.key ~= '*gamejolt' then return refuse({'invalid_run', 'used'}) end
        -- Runs live by the Redis clock; one TIME serves this check and the store.
        local redisNow = (at == '' and now) or clock()
        if at == '' then now = redisNow end
        if redisNow >= run.expires then return refuse({'invalid_run', 'expired'}) end
        runVerified = run.verified
        local minSeconds, rate = tonumber(stored[12] or '') or 0, tonumber(stored[13] or '')
        if runVerified < minSeconds then
          runRule = 'run_short'
        elseif rate and tonumber(score) > runVerified * rate then
          runRule = 'run_rate'
        end
        if runRule and stored[14] == 'refuse' then return refuse({'implausible', runRule, runVerified}) end
      end
    elseif runId ~= '' then
      return refuse({'invalid_run', 'off'})
    end
    if runRule and improvesABoard() then return hold(runRule) end
    if (reviewAbove or reviewBelow or reviewFactor) and improvesABoard() then
      local rule = heldBy()
      if rule then return hold(rule) end
    end
  end
  -- Marks the held score approved, once it is stored (or left: not better).
  local function approve ()
    if not approved then return end
    decide(reviewKeys, approving, approved, 'approved', note, clock())
    if eventsOn then emit(outbox, 'score.approved', { held_id = approving, player_name = player, score = score, note = note ~= '' and note or cjson.null, board_id = BOARD_ID }) end
  end

  -- The value the board stores now (nil: it stays as it is), and its score on the sorted set.
  local value = nextValue(entry and best or nil, ms)
  if overflows(value) then return refuse({'overflow'}) end
  if operator == 'sum' then
    for _, period in ipairs(periodList) do
      local periodEntry = redis.call('HGET', period.entries, player)
      if overflows(nextValue(periodEntry and (split(periodEntry)) or nil)) then return refuse({'overflow'}) end
    end
  end
  local valueScore = value and boardScoreOf(value)
  if value == nil then
    approve()
    takeRun()
    reach(entry and best or nil)
    return answer('ok', 0, true)
  end

  local room = { board = board, hidden = hidden, hiddenUsers = hiddenUsers, usage = usage, metas = metas, player = player,
    meta = meta, metasKept = stored[5] ~= '0', isNew = not entry, maxEntries = maxEntries, maxMetaBytes = maxMetaBytes }
  local full = checkRoom(room)
  if full then return refuse({full}) end

  local previousBest, oldIndex = best, nil
  if entry then
    if eventsOn then oldIndex = redis.call('ZRANK', board, ms .. player) or nil end
    if redis.call('ZREM', board, ms .. player) == 1 then boardWritten = true end
  end
  now = now or clock()
  ms = string.format('%0' .. TIME_DIGITS .. '.0f', achievedAt(ms))
  best = value
  entry = best .. '|' .. ms
  redis.call('HSET', entries, player, entry)
  -- The run this best came from, beside it (an export shows it); an approved held score's too.
  local proof = runVerified or (approved and approved.run_verified_seconds)
  if proof then redis.call('HSET', KEY.entryRun(game, bucket, scope), player, ms .. '|' .. score .. '|' .. proof) end
  -- Game Jolt's text fields, beside the best they came with (a sum's total is no one score's: none there).
  if call.text and operator ~= 'sum' then redis.call('HSET', KEY.gamejoltText(game, bucket, scope), player, ms .. '|' .. value .. '|' .. call.text) end
  storeMeta(room, gameKey)
  local newIndex
  if isVisible() then
    redis.call('ZADD', board, valueScore, ms .. player)
    boardWritten = true
    newIndex = topChanged(board, ms .. player, keysSeason > 1 and 'season:' .. keysSeason .. ':' or '')
  end
  if eventsOn then
    -- A named board's events name it (board_id: nil, so absent, on the game's own); the score is the value stored (a sum's total).
    boardEvents(outbox, board, { period = 'all', season_id = keysSeason, board_id = BOARD_ID }, player, value, previousBest, oldIndex, newIndex, notifyTop, lower)
  end
  approve()
  takeRun()
  reach(value)
  return answer('ok', 1, true, newIndex or false)
end
