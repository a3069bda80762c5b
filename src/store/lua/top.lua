--- @include "board-prelude"
--- @include "boards-changed"
--- @include "limited"
-- A page of a board, or word that the caller's cached copy still holds.
-- KEYS: game, board, the game's boards version. ARGV: order, season
-- (moved() checks them), first and last rank (0-based), the boards version
-- the caller's cached page was read at ('' for none).
-- Returns {'same'} when the boards version is still that one (every script
-- that writes a board bumps it, a season's close too: store/top-cache.ts),
-- {'moved'}, or {boards version, ms the board
-- lives (-1: no expiry; -2: no board), visible total, member, board score,
-- member, board score, ...}, one snapshot.
-- Counted first, in the same call (includes/limited.lua): over a limit, nothing is read.
local function work ()
  local version = redis.call('GET', KEYS[3])
  if version and version == ARGV[5] then return {'same'} end
  if moved() then return {'moved'} end
  -- A game whose boards were not written since versions were kept gets one now.
  if not version then version = freshBoardsVersion(KEYS[3]) end
  local page = redis.call('ZRANGE', KEYS[2], ARGV[3], ARGV[4], 'WITHSCORES')
  table.insert(page, 1, redis.call('ZCARD', KEYS[2]))
  table.insert(page, 1, redis.call('PTTL', KEYS[2]))
  table.insert(page, 1, version)
  return page
end
return limited(work)
