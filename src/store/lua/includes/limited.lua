--- @include "limits"
-- The counters of a call whose keys and arguments are positional, appended
-- by store/limits.ts: the last ARGV is their number n, the last n KEYS are
-- the counters, and the 3n ARGV before the number are each counter's max,
-- window and '1' when its end is known, in the same order.
local function trailingCounters ()
  local n = tonumber(ARGV[#ARGV])
  local counters = {}
  for i = 1, n do
    local arg = #ARGV - 3 * n + 3 * i - 3
    counters[i] = {KEYS[#KEYS - n + i], ARGV[arg], ARGV[arg + 1], ARGV[arg + 2] == '1'}
  end
  return counters
end
-- A positional script's work, after its counters: {counts} when one is
-- over (the work does not run), else {counts, what the work answers}.
local function limited (work)
  local counts, over = countLimits(trailingCounters())
  if over then return {counts} end
  return {counts, work()}
end
