--- @include "season-of"
-- Adds a named board (ARGV[1], its settings as JSON in ARGV[2]) to a game's
-- boards (KEYS[2]) when the game (KEYS[1]) exists, the id is free, the game
-- has fewer than ARGV[3] boards, and its current season is still ARGV[4],
-- the board's first season as the settings say. The board's usage in that
-- season (KEYS[3]) starts at zero, as a new game's does, and the game's
-- record gets the board's field `board:<id>` (ARGV[5]: what the board
-- scripts check, docs/decisions/0070-named-boards-one-game-many-boards-in-its.md). Returns 1 when
-- added, 0 (no such game), -1 (the id is taken), -2 (the game has its most
-- boards), -3 (the season changed meanwhile: read again).
local game, boards, usage = KEYS[1], KEYS[2], KEYS[3]
if redis.call('EXISTS', game) == 0 then return 0 end
if redis.call('HEXISTS', boards, ARGV[1]) == 1 then return -1 end
if redis.call('HLEN', boards) >= tonumber(ARGV[3]) then return -2 end
if seasonOf(redis.call('HGET', game, 'season')) ~= tonumber(ARGV[4]) then return -3 end
redis.call('HSET', boards, ARGV[1], ARGV[2])
redis.call('HSET', game, 'board:' .. ARGV[1], ARGV[5])
redis.call('HSET', usage, 'entries', 0, 'meta_bytes', 0)
return 1
