--- @constants TIME_DIGITS OUTBOX_MAX
--- @include "events"
--- @include "boards-changed"
-- Sets ('1'), clears ('0') or keeps ('') a player's flag in the game's own
-- hidden set (ARGV[2]) and in the game's copy of hidden users (ARGV[3]),
-- then puts the player's entry on or off each board given: every board of
-- the game, its seasons and its periods, so a flag applies to all of them.
-- When the player's visibility changes, the live boards are told, and
-- while the game has webhooks the outbox says so (player.hidden or
-- player.shown). With both flags kept (''), the call only brings the
-- boards given in line with the flags (a game's named boards, in calls of
-- their own after the first: docs/decisions/0070-named-boards-one-game-many-boards-in-its.md), and tells the live
-- boards when it moved an entry.
-- KEYS: hidden, hidden users, the game's record, its outbox, its live
-- channel, its boards version, then a board and the player's entries bucket for each board. ARGV: player, the two
-- flags, then each board's order (asc or desc), in the order of KEYS.
-- Returns 0 when the player has no entry on the first board (the flags are
-- set all the same, and the other boards are seen to), else 1.
local hidden, hiddenUsers, game, outbox, live = KEYS[1], KEYS[2], KEYS[3], outboxOf(KEYS[3], KEYS[4]), KEYS[5]
local FIRST_BOARD_KEY = 7
local player, boardHidden, userHidden = ARGV[1], ARGV[2], ARGV[3]
local function isHidden () return redis.call('SISMEMBER', hidden, player) == 1 or redis.call('SISMEMBER', hiddenUsers, player) == 1 end
local wasHidden = isHidden()
if boardHidden == '1' then redis.call('SADD', hidden, player) elseif boardHidden == '0' then redis.call('SREM', hidden, player) end
if userHidden == '1' then redis.call('SADD', hiddenUsers, player) elseif userHidden == '0' then redis.call('SREM', hiddenUsers, player) end
-- The game now hides someone (`hides`: the submit script skips the hidden
-- sets while it is 0); a record not made yet counts its sets when it is.
if (boardHidden == '1' or userHidden == '1') and redis.call('EXISTS', game) == 1 then redis.call('HSET', game, 'hides', 1) end
local hide = isHidden()
if hide ~= wasHidden then redis.call('SPUBLISH', live, 'visibility') end
if hide ~= wasHidden and hasWebhooks(redis.call('HGET', game, 'webhooks')) then
  emit(outbox, hide and 'player.hidden' or 'player.shown', { player_name = player, hidden_on_game = redis.call('SISMEMBER', hidden, player) == 1, hidden_user = redis.call('SISMEMBER', hiddenUsers, player) == 1 })
end
local found, moved = 0, false
for i = FIRST_BOARD_KEY, #KEYS, 2 do
  local board, entries, order = KEYS[i], KEYS[i + 1], ARGV[4 + (i - FIRST_BOARD_KEY) / 2]
  local entry = redis.call('HGET', entries, player)
  if entry then
    if i == FIRST_BOARD_KEY then found = 1 end
    local bar = string.find(entry, '|', 1, true)
    local best, member = string.sub(entry, 1, bar - 1), string.sub(entry, bar + 1) .. player
    if hide then
      if redis.call('ZREM', board, member) == 1 then moved = true end
    else
      -- The board score: -best in desc order (string negation keeps every digit), best in asc.
      local boardScore = best
      if order ~= 'asc' then
        if string.sub(best, 1, 1) == '-' then boardScore = string.sub(best, 2) elseif best ~= '0' then boardScore = '-' .. best end
      end
      if redis.call('ZADD', board, boardScore, member) == 1 then moved = true end
      -- A period's board expires with its entries; one made here starts without an expiry.
      local ttl = redis.call('PTTL', entries)
      if ttl > 0 and redis.call('PTTL', board) == -1 then redis.call('PEXPIRE', board, ttl) end
    end
  end
end
if moved and boardHidden == '' and userHidden == '' then redis.call('SPUBLISH', live, 'visibility') end
boardsChanged(KEYS[6])
return found
