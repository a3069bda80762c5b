--- @include "deletions"
-- A signed submit's replay marker (keys.seenSubmission, until its ts leaves
-- the window), taken with the check in one SET NX GET. It keeps the game's
-- deleted_at of its moment (deletions.lua): a replay is stale when the
-- player's entry was deleted since. `ts` is whole seconds, the instant
-- ts.000: signed in the second of a deletion, it is earlier than the
-- deletion. `gameDeletedAt` is the record's deleted_at (a game from before
-- it was kept has none, and its deletions are read from `deleted`).
-- Returns nil when this call took the marker (a first send: the caller gives
-- it back if it then refuses, or marks it 'held'), else why not: 'stale'
-- (signed before the player's entry was deleted, or accepted before a
-- deletion since), 'closed' (accepted, and its entry gone since with no
-- deletion: the season closed), 'replay' (accepted before: answer the
-- standing) or 'held-again' (a replay of a held score: answer held).
local function takeReplayMarker (seen, deleted, ts, seenUntil, gameDeletedAt, hasEntry)
  local signedMs = tonumber(ts) * 1000
  local latestDeletion = deletionMs(gameDeletedAt)
  local deletedAt
  if latestDeletion == nil or signedMs < latestDeletion then
    deletedAt = deletionMs(redis.call('GET', deleted))
    if deletedAt and signedMs < deletedAt then return 'stale' end
  end
  local seenBefore = redis.call('SET', seen, string.format('%.0f', latestDeletion or deletedAt or 0), 'NX', 'GET', 'PXAT', seenUntil)
  if seenBefore == 'held' then return 'held-again' end
  if not seenBefore then return nil end
  -- Accepted before, when the game's latest deletion was the one the marker
  -- keeps (a marker from before it kept one, '1', is older than any): a
  -- deletion of the player's later than that one came since, and the
  -- request is stale, whatever entry the player has now.
  local markedAfter = tonumber(seenBefore) or 0
  if deletedAt == nil and (latestDeletion == nil or latestDeletion > markedAfter) then deletedAt = deletionMs(redis.call('GET', deleted)) end
  if deletedAt and deletedAt > markedAfter then return 'stale' end
  if not hasEntry then return 'closed' end
  return 'replay'
end
