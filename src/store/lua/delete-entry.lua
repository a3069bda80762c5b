--- @include "remove-entries"
--- @include "boards-changed"
--- @include "deletions"
-- Removes every trace of a player from every board given, and remembers when
-- (markDeletion: ms, for ARGV[2] seconds), so signed submits made before
-- then, or accepted before then, cannot bring an entry back.
-- The live boards are told.
-- The game's record keeps the latest deletion's time too (deleted_at: the
-- submit script reads the player's only for requests signed before it).
-- KEYS: hidden, deleted, the live channel, the game's record, its boards version, then the boards as removeEntries
-- (includes/remove-entries.lua) takes them: ARGV[3] seasons, then periods.
-- ARGV: player, how long deleted is kept, the number of seasons.
-- Returns {how many boards held an entry (0: none did, nothing is remembered), metas removed}.
local hidden, deleted, live = KEYS[1], KEYS[2], KEYS[3]
local player = ARGV[1]
local removed, metas = removeEntries(player, 6, tonumber(ARGV[3]))
if removed == 0 then return {0, 0} end
redis.call('SPUBLISH', live, 'deleted')
redis.call('SREM', hidden, player)
markDeletion(KEYS[4], deleted, ARGV[2])
boardsChanged(KEYS[5])
return {removed, metas}
