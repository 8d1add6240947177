-- What runtime.lua needs that Lua 5.3 and LuaJIT spell differently: LuaJIT's spelling (the
-- bit library and FFI: readings are read in place from the byte strings).
local ffi = require("ffi")
local bit = require("bit")
local D = {}
local TWO_M53 = 1.0 / 9007199254740992.0
local GOLDEN = 0x9E3779B9ULL * 0x100000000ULL + 0x7F4A7C15ULL
local M1 = 0xBF58476DULL * 0x100000000ULL + 0x1CE4E5B9ULL
local M2 = 0x94D049BBULL * 0x100000000ULL + 0x133111EBULL
local bxor, rshift = bit.bxor, bit.rshift

-- SplitMix64 over the robot's key (hi, lo): the same numbers as under Lua 5.3
function D.rng(hi, lo)
  local state
  local function reseed(h, l) state = ffi.new("uint64_t", h) * 0x100000000ULL + l end
  reseed(hi, lo)
  local function u01()
    state = state + GOLDEN
    local z = state
    z = bxor(z, rshift(z, 30)) * M1
    z = bxor(z, rshift(z, 27)) * M2
    z = bxor(z, rshift(z, 31))
    return tonumber(rshift(z, 11)) * TWO_M53
  end
  return u01, function(seed) state = ffi.new("uint64_t", math.floor(seed)) end,
         function() reseed(hi, lo) end
end

function D.byte(v) return bit.band(math.floor(v), 0xFF) end

ffi.cdef[[
typedef struct __attribute__((packed)) { double d, az, el; int32_t size; } swarmstack_heard;
]]
function D.offsets(start) return ffi.cast("const int32_t*", start) end
function D.offset(start, k) return start[k] end
function D.records(heard) return ffi.cast("const swarmstack_heard*", heard) end
function D.record(heard, m)
  local h = heard[m]
  return h.d, h.az, h.el, h.size
end

local buf, cap = nil, 0
function D.pack_doubles(calls, n)
  if n > cap then
    cap = math.max(n, 2 * cap, 256)
    buf = ffi.new("double[?]", cap)
  end
  for i = 1, n do buf[i - 1] = calls[i] end
  return ffi.string(buf, 8 * n)
end

D.math_compat = {}   -- LuaJIT has them all (Lua 5.1's math library)
D.unpack = unpack
-- the interpreter only: the loop guard's count hook is called in interpreted code only
function D.interpret() jit.off(); jit.flush() end
return D
