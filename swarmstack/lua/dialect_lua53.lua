-- What runtime.lua needs that Lua 5.3 and LuaJIT spell differently: Lua 5.3's spelling
-- (64-bit integers, bitwise operators, string.pack).
local D = {}
local pack, unpack, srep = string.pack, string.unpack, string.rep
local TWO_M53 = 1.0 / 9007199254740992.0

-- SplitMix64 over the robot's key (hi, lo: its two 32-bit halves); integers wrap like uint64
function D.rng(hi, lo)
  local state
  local function reseed(h, l) state = (h << 32) | l end
  reseed(hi, lo)
  local function u01()
    state = state + 0x9E3779B97F4A7C15
    local z = state
    z = (z ~ (z >> 30)) * 0xBF58476D1CE4E5B9
    z = (z ~ (z >> 27)) * 0x94D049BB133111EB
    z = z ~ (z >> 31)
    return (z >> 11) * TWO_M53
  end
  return u01, function(seed) state = math.floor(seed) end, function() reseed(hi, lo) end
end

function D.byte(v) return math.floor(v) & 0xFF end

-- the receptions: offsets (int32) and records (distance, azimuth, elevation: double; size)
function D.offsets(start) return start end
function D.offset(start, k) return (unpack("<i4", start, 4 * k + 1)) end
function D.records(heard) return heard end
function D.record(heard, m) return unpack("<dddi4", heard, 28 * m + 1) end

local fmt_cache = {}
local function doubles(n)
  local f = fmt_cache[n]
  if not f then f = "<" .. srep("d", n); fmt_cache[n] = f end
  return f
end

-- calls[1..n] as little-endian doubles
function D.pack_doubles(calls, n)
  local parts = {}
  local i = 1
  while i <= n do
    local j = i + 199
    if j > n then j = n end
    parts[#parts + 1] = pack(doubles(j - i + 1), table.unpack(calls, i, j))
    i = j + 1
  end
  return table.concat(parts)
end

D.unpack = table.unpack
function D.interpret() end   -- Lua 5.3 has no compiler to turn off
return D
