--- @constants TIME_DIGITS OUTBOX_MAX
--- @include "events"
--- @include "boards-changed"
-- Sets ('1'), clears ('0') or keeps ('') a player's flag in the game's own
-- hidden set (ARGV[2]) and in the game's copy of hidden users (ARGV[3]),
-- then puts the player's entry on or off each board given: every board of
-- the game, its seasons and its periods, so a flag applies to all of them.
-- When the player's visibility changes, the live boards are told, and
-- while the game has webhooks the outbox says so (player.hidden or
-- player.shown).
-- KEYS: hidden, hidden users, the game's record, its outbox, its live
-- channel, its boards version, then a board and the player's entries bucket for each board. ARGV: player, the two
-- flags, the game's order.
-- Returns 0 when the player has no entry on the first board (the flags are
-- set all the same, and the other boards are seen to), else 1.
local hidden, hiddenUsers, game, outbox, live = KEYS[1], KEYS[2], KEYS[3], outboxOf(KEYS[3], KEYS[4]), KEYS[5]
local FIRST_BOARD_KEY = 7
local player, boardHidden, userHidden, order = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
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
local found = 0
for i = FIRST_BOARD_KEY, #KEYS, 2 do
  local board, entries = KEYS[i], KEYS[i + 1]
  local entry = redis.call('HGET', entries, player)
  if entry then
    if i == FIRST_BOARD_KEY then found = 1 end
    local bar = string.find(entry, '|', 1, true)
    local best, member = string.sub(entry, 1, bar - 1), string.sub(entry, bar + 1) .. player
    if hide then
      redis.call('ZREM', board, member)
    else
      -- The board score: -best in desc order (string negation keeps every digit), best in asc.
      local boardScore = best
      if order ~= 'asc' then
        if string.sub(best, 1, 1) == '-' then boardScore = string.sub(best, 2) elseif best ~= '0' then boardScore = '-' .. best end
      end
      redis.call('ZADD', board, boardScore, member)
      -- A period's board expires with its entries; one made here starts without an expiry.
      local ttl = redis.call('PTTL', entries)
      if ttl > 0 and redis.call('PTTL', board) == -1 then redis.call('PEXPIRE', board, ttl) end
    end
  end
end
boardsChanged(KEYS[6])
return found
