--- @include "limited"
-- A write to a game's Game Jolt data store (docs/gamejolt.md#data-store),
-- in the game's slot, whole or not at all: set, update or remove one item
-- of the game's global store or of one user's, within the game's limits.
-- KEYS: the owner's items (a hash key -> data), the game's usage (bytes:
-- every item's key and data; items: how many), the owners (username -> how
-- many items theirs holds).
-- ARGV: op (set, update, remove), the item's key, the data (set) or the
-- value (update), the operation (update), the most bytes of one item's data,
-- the most items of one owner, of the game, the most bytes of the game, the
-- owner's username ('' for the game's global store).
-- Returns {'ok', data} (the item's data now; '' after a remove), or a
-- refusal: {'none'} (no such item), {'too_big', bytes}, {'owner_full'},
-- {'game_full'}, {'bytes_full'}, {'not_numeric_stored'},
-- {'not_numeric_value'}, {'div_zero'}.
-- Counted first, in the same call (includes/limited.lua): over a rate limit, nothing is written.
local function work ()
  local items, usage, owners = KEYS[1], KEYS[2], KEYS[3]
  local op, key, given, operation = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
  local itemMax, ownerMax, gameMax, bytesMax = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])
  local owner = ARGV[9]

  -- A user's count in the owners' hash follows their items (gone at none).
  local function counted (change)
    if owner == '' then return end
    if redis.call('HINCRBY', owners, owner, change) <= 0 then redis.call('HDEL', owners, owner) end
  end

  local old = redis.call('HGET', items, key)
  if op == 'remove' then
    if not old then return {'none'} end
    redis.call('HDEL', items, key)
    redis.call('HINCRBY', usage, 'items', -1)
    counted(-1)
    redis.call('HINCRBY', usage, 'bytes', -(#key + #old))
    return {'ok', ''}
  end

  -- Game Jolt's numbers are PHP's is_numeric: an optional sign, digits with an optional point, an optional exponent; blanks around.
  local function number (text)
    local trimmed = string.match(text, '^%s*(.-)%s*$')
    if string.match(trimmed, '^[+-]?%d+%.?%d*$') or string.match(trimmed, '^[+-]?%.%d+$')
      or string.match(trimmed, '^[+-]?%d+%.?%d*[eE][+-]?%d+$') or string.match(trimmed, '^[+-]?%.%d+[eE][+-]?%d+$') then
      return tonumber(trimmed)
    end
    return nil
  end
  -- A result as PHP writes a number: an integer without a point, else 14 significant digits.
  local function written (value)
    if value == math.floor(value) and math.abs(value) < 2^53 then return string.format('%.0f', value) end
    local text = string.format('%.14g', value)
    return text
  end

  local data
  if op == 'set' then
    data = given
  else
    if not old then return {'none'} end
    if operation == 'append' then data = old .. given
    elseif operation == 'prepend' then data = given .. old
    else
      local stored, value = number(old), number(given)
      if not stored then return {'not_numeric_stored'} end
      if not value then return {'not_numeric_value'} end
      if operation == 'add' then data = written(stored + value)
      elseif operation == 'subtract' then data = written(stored - value)
      elseif operation == 'multiply' then data = written(stored * value)
      else
        if value == 0 then return {'div_zero'} end
        data = written(stored / value)
      end
    end
  end

  if #data > itemMax then return {'too_big', #data} end
  local grown = #data - (old and #old or -#key)
  if not old then
    if redis.call('HLEN', items) >= ownerMax then return {'owner_full'} end
    if tonumber(redis.call('HGET', usage, 'items') or '0') >= gameMax then return {'game_full'} end
  end
  if grown > 0 and tonumber(redis.call('HGET', usage, 'bytes') or '0') + grown > bytesMax then return {'bytes_full'} end
  redis.call('HSET', items, key, data)
  if not old then
    redis.call('HINCRBY', usage, 'items', 1)
    counted(1)
  end
  if grown ~= 0 then redis.call('HINCRBY', usage, 'bytes', grown) end
  return {'ok', data}
end
return limited(work)
