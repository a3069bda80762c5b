--- @include "limited"
-- One page of GET /api/games (store/games-index.ts), counted first in the
-- same call (includes/limited.lua). A walk keeps the order of the moment it
-- began: its pages come from a copy of the sort's order (a snapshot, named
-- by the index version it was made at, kept SNAPSHOT_TTL_MS), never from the
-- order itself, so a game whose figures move meanwhile is listed once.
-- A new walk takes the newest snapshot while the index is unchanged since,
-- or while it is younger than FRESH_MS (one copy per FRESH_MS at most,
-- however busy the index); else it makes one at the current version.
-- Snapshot names are the caller's (a script names every key it touches): a
-- caller that named another version than the one to use is told which.
-- A caller that keeps the page in its process says at which index version
-- it read it: while that is still the version (no card changed since), the
-- answer is {'same'} and nothing more is read (store/games-index.ts).
-- KEYS: the sort's order, the cards, the index meta, the snapshot the caller names.
-- ARGV: the sort, the version named, 'first' or 'next', offset, limit,
-- FRESH_MS, SNAPSHOT_TTL_MS, how long a new walk must be able to last (ms),
-- the index version of the page the caller keeps ('' for none).
-- Returns {'page', snapshot version, total, ids, cards, index version} (a
-- card false for a game no longer listed), {'same'}, {'use', version}, or
-- {'gone'} (the walk's snapshot expired).
local function work ()
  local order, cards, meta, snapshot = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
  local sort, named, walk = ARGV[1], tonumber(ARGV[2]), ARGV[3]
  local offset, limit = tonumber(ARGV[4]), tonumber(ARGV[5])
  local freshMs, ttlMs, lastsMs = tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])
  local kept = tonumber(ARGV[9])
  local state = redis.call('HMGET', meta, 'version', 'snap:' .. sort)
  local current = tonumber(state[1] or '0')

  local function page ()
    if kept == current then return {'same'} end
    local ids = redis.call('ZRANGE', snapshot, offset, offset + limit - 1)
    local found = {}
    if #ids > 0 then found = redis.call('HMGET', cards, unpack(ids)) end
    return {'page', named, redis.call('ZCARD', snapshot), ids, found, current}
  end

  if walk == 'next' then
    if redis.call('EXISTS', snapshot) == 0 then return {'gone'} end
    return page()
  end

  local now = redis.call('TIME')
  local nowMs = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
  local newest = state[2]
  if newest then
    local keptVersion, keptAt = string.match(newest, '^(%d+)|(%d+)$')
    keptVersion, keptAt = tonumber(keptVersion), tonumber(keptAt)
    local age = nowMs - keptAt
    if age >= 0 and age + lastsMs <= ttlMs and (keptVersion == current or age < freshMs) then
      if named ~= keptVersion then return {'use', keptVersion} end
      -- (A page the caller keeps needs no look at the snapshot: a next page checks it is still there.)
      if kept == current or redis.call('EXISTS', snapshot) == 1 then return page() end
    end
  end
  if named ~= current then return {'use', current} end
  if redis.call('COPY', order, snapshot, 'REPLACE') == 0 then redis.call('DEL', snapshot) end
  redis.call('PEXPIRE', snapshot, ttlMs)
  redis.call('HSET', meta, 'snap:' .. sort, current .. '|' .. string.format('%.0f', nowMs))
  kept = nil
  return page()
end
return limited(work)
