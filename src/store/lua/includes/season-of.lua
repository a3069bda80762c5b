-- Included by the scripts that read a game's `season`: the number
-- games-and-keys.ts reads from the stored text (1 to 999999999 in digits;
-- anything else, written by hand, is 1).
local function seasonOf (text)
  local season = text and string.match(text, '^%d%d?%d?%d?%d?%d?%d?%d?%d?$') and tonumber(text) or 1
  if season == 0 then return 1 end
  return season
end
