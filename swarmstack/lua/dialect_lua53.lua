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

-- math functions Lua 5.3 keeps for compatibility (LUA_COMPAT_MATHLIB, part of the
-- LUA_COMPAT_5_2 its stock build and the distributions' builds ARGoS links to turn on): ARGoS
-- scripts call math.atan2 and math.pow. atan2 and log10 are Lua 5.3's own functions.
local exp, log, abs, floor = math.exp, math.log, math.abs, math.floor
local HUGE = math.huge
local function frexp(x)
  if x == 0 or x ~= x or x == HUGE or x == -HUGE then return x, 0 end
  if abs(x) < 2.0 ^ -1000 then   -- subnormal: 2^e would underflow
    local m, e = frexp(x * 2.0 ^ 100)
    return m, e - 100
  end
  local e = floor(log(abs(x), 2)) + 1
  local m = x / 2.0 ^ e
  if abs(m) >= 1 then m, e = m / 2, e + 1 elseif abs(m) < 0.5 then m, e = m * 2, e - 1 end
  return m, floor(e)
end
D.math_compat = {
  atan2 = function(y, x) return math.atan(y, x) end,
  pow = function(x, y) return (x + 0.0) ^ y end,
  log10 = function(x) return log(x, 10) end,
  cosh = function(x) return (exp(x) + exp(-x)) / 2 end,
  sinh = function(x) return (exp(x) - exp(-x)) / 2 end,
  tanh = function(x)
    if x > 20 then return 1.0 elseif x < -20 then return -1.0 end
    local e2 = exp(2 * x)
    return (e2 - 1) / (e2 + 1)
  end,
  frexp = frexp,
  ldexp = function(m, e)
    e = floor(e)
    local half = e // 2
    return m * 2.0 ^ half * 2.0 ^ (e - half)
  end,
}

D.unpack = table.unpack
function D.interpret() end   -- Lua 5.3 has no compiler to turn off
return D
