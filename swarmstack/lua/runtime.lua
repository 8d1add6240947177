-- The Lua side of a group of robots running one Lua controller (see swarmstack/lua/__init__.py).
--
-- One Lua state holds the whole group; each robot has its own global environment, so scripts
-- keep per-robot globals as they do in ARGoS (one Lua state per robot there). Python calls
-- M.step_all once per tick: it unpacks the readings of every robot from byte strings, runs each
-- robot's step() and returns what they asked for (host-function calls and range-and-bearing
-- data) as byte strings.

local D = ...   -- what Lua 5.3 and LuaJIT spell differently (dialect_*.lua)
local M = {}

local sbyte, schar, sformat = string.byte, string.char, string.format
local floor, log_, sqrt, cos, exp = math.floor, math.log, math.sqrt, math.cos, math.exp
local select, type, error, tostring, pairs = select, type, error, tostring, pairs
local rawget, rawset, next = rawget, rawset, next
-- (the tables scripts can reach are written raw: no metamethod of theirs runs outside a call)
local rawlen_ = rawlen or function(t) return #t end   -- (Lua 5.1's # ignores __len on tables)
-- what scripts in the sandbox never see (debug, the unwrapped pcall, setmetatable, load …) is
-- kept here, in locals of this file, which no script can reach
local xpcall, pcall, traceback = xpcall, pcall, debug.traceback
local sethook, getinfo, getmetatable_ = debug.sethook, debug.getinfo, debug.getmetatable
local setmetatable_, load_, collectgarbage_ = setmetatable, load, collectgarbage
local cocreate, coresume = coroutine.create, coroutine.resume
local concat, sfind, ssub = table.concat, string.find, string.sub
local handler_ref   -- the error handler (defined below, used by protected())
local PI = math.pi

local py = nil          -- Python callbacks: py.log(k, text)
local robots = {}       -- robots[k] = { env = …, robot = …, failed = bool, rab_out = … }
local n_robots = 0
local calls, ncalls = {}, 0   -- host-function calls of this tick: k, function, nargs, args…
local hosts = {}        -- name → { index, fewest, most, lengths = {[i] = true} }
local cap = 0           -- range-and-bearing payload bytes (0: no radio)
local n_leds = 0
local SCALE = 0.01      -- script lengths are cm
local dt = 0.1          -- the tick (s)
local type_api = nil    -- the robot type's own Lua API (M.set_type_api), or nil
local batteries = false -- some robot has robot.battery (its time_left is kept each tick)
local paused = nil      -- byte string: robot k's step() is skipped while byte k is 1

-- ------------------------------------------------------------------ random numbers
-- SplitMix64 over the robot's own 64-bit key (D.rng): the same seed gives the same numbers
-- whatever else runs; Gaussians by Box-Muller, two per pair of uniforms.
local function new_rng(hi, lo)
  local u01, seed, restart = D.rng(hi, lo)
  local spare = nil
  local function gauss()
    if spare then local g = spare; spare = nil; return g end
    local r = sqrt(-2.0 * log_(1.0 - u01()))
    local a = 2.0 * PI * u01()
    spare = r * math.sin(a)
    return r * cos(a)
  end
  local function reseed(s) seed(s); spare = nil end
  local function again() restart(); spare = nil end
  return u01, gauss, reseed, again
end

local function need_number(fname, i, v)
  if type(v) ~= "number" then
    error(sformat("bad argument #%d to '%s' (number expected, got %s)", i, fname,
                  v == nil and "no value" or type(v)), 3)
  end
end

local function random_table(u01, gauss)
  local R = {}
  function R.uniform(...)
    local n = select("#", ...)
    local a, b = ...
    if n == 0 then return u01() end
    if n == 1 then need_number("uniform", 1, a); return u01() * a end
    if n == 2 then
      need_number("uniform", 1, a); need_number("uniform", 2, b)
      return a + u01() * (b - a)
    end
    error("robot.random.uniform() expects 0, 1, or 2 arguments", 2)
  end
  function R.uniform_int(...)
    local n = select("#", ...)
    local a, b = ...
    if n == 1 then
      need_number("uniform_int", 1, a)
      return floor(u01() * floor(a))
    end
    if n == 2 then
      need_number("uniform_int", 1, a); need_number("uniform_int", 2, b)
      local lo, hi = floor(a), floor(b)
      return lo + floor(u01() * (hi - lo))
    end
    error("robot.random.uniform_int() expects 1 or 2 arguments", 2)
  end
  function R.gaussian(...)
    local n = select("#", ...)
    local sd, mean = ...
    if n == 1 then need_number("gaussian", 1, sd); return sd * gauss() end
    if n == 2 then
      need_number("gaussian", 1, sd); need_number("gaussian", 2, mean)
      return mean + sd * gauss()
    end
    error("robot.random.gaussian() expects 1 or 2 arguments", 2)
  end
  function R.bernoulli(...)
    local n = select("#", ...)
    local p = ...
    if n == 0 then return u01() < 0.5 end
    if n == 1 then need_number("bernoulli", 1, p); return u01() < p end
    error("robot.random.bernoulli() expects 0 or 1 arguments", 2)
  end
  function R.exponential(...)
    if select("#", ...) ~= 1 then
      error("robot.random.exponential() expects 1 argument", 2)
    end
    local mean = ...
    need_number("exponential", 1, mean)
    return -mean * log_(1.0 - u01())
  end
  function R.poisson(...)
    if select("#", ...) ~= 1 then error("robot.random.poisson() expects 1 argument", 2) end
    local mean = ...
    need_number("poisson", 1, mean)
    -- Knuth's product of uniforms, in slices of 500 (a sum of Poissons is a Poisson) so that
    -- exp(-mean) never underflows
    local count, left = 0, mean
    while left > 0 do
      local m = left < 500 and left or 500
      left = left - m
      local limit, p = exp(-m), u01()
      while p > limit do count = count + 1; p = p * u01() end
    end
    return count
  end
  return R
end

-- math.random / math.randomseed on the robot's own stream (Lua 5.3's use one C rand() for the
-- whole process, which would tie robots together and break reproducibility)
local function math_random(u01, reseed)
  local function random(...)
    local n = select("#", ...)
    local m, k = ...
    if n == 0 then return u01() end
    if n == 1 then m, k = 1, m end
    if n > 2 then error("wrong number of arguments", 2) end
    need_number("random", 1, m); need_number("random", 2, k)
    m, k = floor(m), floor(k)
    if m > k then error("bad argument #" .. n .. " to 'random' (interval is empty)", 2) end
    return m + floor(u01() * (k - m + 1))
  end
  local function randomseed(s)
    need_number("randomseed", 1, s)
    reseed(s)
  end
  return random, randomseed
end

-- ------------------------------------------------------------------ host functions
local function record(k, fi, lengths, n, a1, a2, a3, a4, ...)
  local m = ncalls
  calls[m + 1] = k; calls[m + 2] = fi; calls[m + 3] = n
  if n > 0 then calls[m + 4] = lengths[1] and a1 * SCALE or a1 end
  if n > 1 then calls[m + 5] = lengths[2] and a2 * SCALE or a2 end
  if n > 2 then calls[m + 6] = lengths[3] and a3 * SCALE or a3 end
  if n > 3 then calls[m + 7] = lengths[4] and a4 * SCALE or a4 end
  for i = 5, n do
    local a = (select(i - 4, ...))
    calls[m + 3 + i] = lengths[i] and a * SCALE or a
  end
  ncalls = m + 3 + n
end

-- robot.<name>(…): checks its arguments, then records the call for Python to replay
local function host_stub(k, name)
  local h = hosts[name]
  local fi, fewest, most, lengths = h.index, h.fewest, h.most, h.lengths
  return function(...)
    local n = select("#", ...)
    if n > 255 then error(sformat("robot.%s(): at most 255 arguments", name), 2) end
    if n < fewest or (most >= 0 and n > most) then
      local want = fewest == most and tostring(fewest) or
                   (most >= 0 and (fewest .. " to " .. most) or ("at least " .. fewest))
      error(sformat("robot.%s() takes %s argument%s, found %d", name, want,
                    most == 1 and "" or "s", n), 2)
    end
    for i = 1, n do
      local a = (select(i, ...))
      if type(a) ~= "number" then
        error(sformat("robot.%s(): argument %d must be a number, found %s", name, i,
                      a == nil and "nil" or type(a)), 2)
      end
    end
    record(k, fi, lengths, n, ...)
  end
end

-- the same without checks, for ARGoS's tables that check their arguments themselves
local function host_raw(k, name)
  local h = hosts[name]
  local fi, lengths = h.index, h.lengths
  return function(...) record(k, fi, lengths, select("#", ...), ...) end
end

-- colours as ARGoS's CColor reads them: a name, "r,g,b", or three numbers 0-255
local COLORS = {
  black = {0, 0, 0}, white = {255, 255, 255}, red = {255, 0, 0}, green = {0, 255, 0},
  blue = {0, 0, 255}, magenta = {255, 0, 255}, cyan = {0, 255, 255},
  yellow = {255, 255, 0}, orange = {255, 140, 0}, brown = {165, 42, 42},
  purple = {160, 32, 240}, gray10 = {26, 26, 26}, gray20 = {51, 51, 51},
  gray30 = {77, 77, 77}, gray40 = {102, 102, 102}, gray50 = {127, 127, 127},
  gray60 = {153, 153, 153}, gray70 = {179, 179, 179}, gray80 = {204, 204, 204},
  gray90 = {229, 229, 229},
}

-- (its errors name the script's line: byte_value ← color ← robot.leds.… ← the script)
local function byte_value(fname, v)
  if type(v) ~= "number" then
    error(sformat("%s: colour components must be numbers, found %s", fname, type(v)), 4)
  end
  if v < 0 or v > 255 or v ~= v then
    error(sformat("%s: colour component %s is outside 0-255", fname, tostring(v)), 4)
  end
  return floor(v)
end

local function color(fname, n, a, b, c)
  if n == 1 then
    if type(a) ~= "string" then
      error(sformat("%s: expected a colour name or three numbers, found %s", fname, type(a)), 3)
    end
    local rgb = COLORS[a]
    if rgb then return rgb[1], rgb[2], rgb[3] end
    local r, g, bl = a:match("^%s*(%d+)%s*,%s*(%d+)%s*,%s*(%d+)%s*$")
    if r then
      return byte_value(fname, tonumber(r)), byte_value(fname, tonumber(g)),
             byte_value(fname, tonumber(bl))
    end
    error(sformat("%s: unknown colour %q", fname, a), 3)
  end
  return byte_value(fname, a), byte_value(fname, b), byte_value(fname, c)
end

-- ARGoS's actuator tables over the type's host functions (wheels, LEDs)
local function argos_actuators(robot_k, robot, stubs)
  if stubs.set_wheels then
    local set = stubs.set_wheels
    local fi, lengths = hosts.set_wheels.index, hosts.set_wheels.lengths
    robot.wheels = robot.wheels or {}
    robot.wheels.set_velocity = function(...)
      if select("#", ...) ~= 2 then
        error("robot.wheels.set_velocity() expects 2 arguments", 2)
      end
      local l, r = ...
      if type(l) ~= "number" or type(r) ~= "number" then
        need_number("set_velocity", 1, l); need_number("set_velocity", 2, r)
      end
      record(robot_k, fi, lengths, 2, l, r)
    end
  end
  if stubs.set_leds or stubs.set_led then
    local all, one = stubs.set_leds, stubs.set_led
    robot.leds = {}
    if all then
      robot.leds.set_all_colors = function(...)
        local n = select("#", ...)
        if n ~= 1 and n ~= 3 then
          error("robot.leds.set_all_colors() expects 1 or 3 arguments", 2)
        end
        all(color("set_all_colors", n, ...))
      end
    end
    if one then
      robot.leds.set_single_color = function(...)
        local n = select("#", ...)
        if n ~= 2 and n ~= 4 then
          error("robot.leds.set_single_color() expects 2 or 4 arguments", 2)
        end
        local i = ...
        need_number("set_single_color", 1, i)
        if i < 1 or i > n_leds or i ~= floor(i) then
          error(sformat("passed index %s out of bounds [1,%d]", tostring(i), n_leds), 2)
        end
        one(i - 1, color("set_single_color", n - 1, select(2, ...)))
      end
    end
  end
end

-- ------------------------------------------------------------------ ARGoS's value types
-- vector2, vector3 and quaternion as ARGoS's Lua gives them: fields x, y (z; w), the
-- operators + - * (by a number; quaternions by quaternions) unary - == and tostring, and the
-- methods length, dot, normalize, cross, rotate (the last three change the vector in place and
-- return it, as in ARGoS), toangleaxis, toeulerangles, inverse. The positioning reading is a
-- vector3 and a quaternion too (its orientation answers w, x, y, z from the yaw, pitch, roll
-- it holds).
local atan2 = math.atan2 or math.atan
local asin = math.asin
local function is_number(v) return type(v) == "number" end
local VEC2, VEC3, QUAT = {}, {}, {}
-- (getmetatable() on them answers false: a script that could change them would change every
-- robot's vectors, and could give them a finaliser)
local VEC2_MT = {__index = VEC2, __name = "vector2", __metatable = false}
local VEC3_MT = {__index = VEC3, __name = "vector3", __metatable = false}
local QUAT_MT = {__index = QUAT, __name = "quaternion", __metatable = false}

local function new_vector2(x, y) return setmetatable({x = x, y = y}, VEC2_MT) end
local function new_vector3(x, y, z) return setmetatable({x = x, y = y, z = z}, VEC3_MT) end
local function new_quaternion(w, x, y, z)
  return setmetatable({w = w, x = x, y = y, z = z}, QUAT_MT)
end

local function is_vector2(v) return getmetatable_(v) == VEC2_MT end
local function is_vector3(v) return getmetatable_(v) == VEC3_MT end
local function is_quaternion(q)
  local mt = getmetatable_(q)
  return mt == QUAT_MT or (mt ~= nil and mt.__quaternion == true)
end

local function check(ok, what) if not ok then error(what, 3) end end

local function vector2(...)
  local n = select("#", ...)
  local a, b = ...
  if n == 0 then return new_vector2(0.0, 0.0) end
  if n == 1 and is_vector2(a) then return new_vector2(a.x, a.y) end
  check(n == 2 and is_number(a) and is_number(b), "invalid arguments to vector2")
  return new_vector2(a, b)
end

local function vector3(...)
  local n = select("#", ...)
  local a, b, c = ...
  if n == 0 then return new_vector3(0.0, 0.0, 0.0) end
  if n == 1 and is_vector3(a) then return new_vector3(a.x, a.y, a.z) end
  check(n == 3 and is_number(a) and is_number(b) and is_number(c),
        "invalid arguments to vector3")
  return new_vector3(a, b, c)
end

local function quaternion(...)
  local n = select("#", ...)
  local a, b, c, d = ...
  if n == 0 then return new_quaternion(1.0, 0.0, 0.0, 0.0) end
  if n == 1 and is_quaternion(a) then return new_quaternion(a.w, a.x, a.y, a.z) end
  if n == 2 and is_number(a) and is_vector3(b) then   -- angle (rad) about an axis
    local s = math.sin(0.5 * a)
    return new_quaternion(cos(0.5 * a), b.x * s, b.y * s, b.z * s)
  end
  check(n == 4 and is_number(a) and is_number(b) and is_number(c) and is_number(d),
        "invalid arguments to quaternion")
  return new_quaternion(a, b, c, d)
end

-- vector2
function VEC2.length(v) return sqrt(v.x * v.x + v.y * v.y) end
function VEC2.dot(v, u) return v.x * u.x + v.y * u.y end
function VEC2.normalize(v)
  local l = VEC2.length(v)
  v.x, v.y = v.x / l, v.y / l
  return v
end
function VEC2.rotate(v, a)
  check(is_number(a), "invalid arguments to rotate")
  local c, s = cos(a), math.sin(a)
  v.x, v.y = c * v.x - s * v.y, s * v.x + c * v.y
  return v
end
VEC2_MT.__add = function(a, b) return new_vector2(a.x + b.x, a.y + b.y) end
VEC2_MT.__sub = function(a, b) return new_vector2(a.x - b.x, a.y - b.y) end
VEC2_MT.__unm = function(a) return new_vector2(-a.x, -a.y) end
VEC2_MT.__mul = function(a, b)
  if is_number(b) then return new_vector2(a.x * b, a.y * b) end
  check(is_number(a), "invalid arguments for multiplication by scalar")
  return new_vector2(b.x * a, b.y * a)
end
VEC2_MT.__eq = function(a, b) return a.x == b.x and a.y == b.y end
VEC2_MT.__tostring = function(v) return tostring(v.x) .. "," .. tostring(v.y) end

-- vector3
function VEC3.length(v) return sqrt(v.x * v.x + v.y * v.y + v.z * v.z) end
function VEC3.dot(v, u) return v.x * u.x + v.y * u.y + v.z * u.z end
function VEC3.normalize(v)
  local l = VEC3.length(v)
  v.x, v.y, v.z = v.x / l, v.y / l, v.z / l
  return v
end
function VEC3.cross(v, u)
  v.x, v.y, v.z = v.y * u.z - v.z * u.y, v.z * u.x - v.x * u.z, v.x * u.y - v.y * u.x
  return v
end
function VEC3.rotate(v, q)
  check(is_quaternion(q), "invalid arguments to rotate")
  local w, x, y, z = q.w, q.x, q.y, q.z
  -- v' = q v q*, expanded
  local tx = 2.0 * (y * v.z - z * v.y)
  local ty = 2.0 * (z * v.x - x * v.z)
  local tz = 2.0 * (x * v.y - y * v.x)
  v.x, v.y, v.z = v.x + w * tx + (y * tz - z * ty), v.y + w * ty + (z * tx - x * tz),
                  v.z + w * tz + (x * ty - y * tx)
  return v
end
VEC3_MT.__add = function(a, b) return new_vector3(a.x + b.x, a.y + b.y, a.z + b.z) end
VEC3_MT.__sub = function(a, b) return new_vector3(a.x - b.x, a.y - b.y, a.z - b.z) end
VEC3_MT.__unm = function(a) return new_vector3(-a.x, -a.y, -a.z) end
VEC3_MT.__mul = function(a, b)
  if is_number(b) then return new_vector3(a.x * b, a.y * b, a.z * b) end
  check(is_number(a), "invalid arguments for multiplication by scalar")
  return new_vector3(b.x * a, b.y * a, b.z * a)
end
VEC3_MT.__eq = function(a, b) return a.x == b.x and a.y == b.y and a.z == b.z end
VEC3_MT.__tostring = function(v)
  return tostring(v.x) .. "," .. tostring(v.y) .. "," .. tostring(v.z)
end

-- quaternion (w, x, y, z)
function QUAT.toangleaxis(q)
  local w, x, y, z = q.w, q.x, q.y, q.z
  if w < 0 then w, x, y, z = -w, -x, -y, -z end
  local s = sqrt(x * x + y * y + z * z)
  if s < 1e-12 then return 0.0, new_vector3(1.0, 0.0, 0.0) end
  return 2.0 * atan2(s, w), new_vector3(x / s, y / s, z / s)
end
function QUAT.toeulerangles(q)   -- z (yaw), y (pitch), x (roll)
  local w, x, y, z = q.w, q.x, q.y, q.z
  local sp = 2.0 * (w * y - x * z)
  if sp > 1.0 then sp = 1.0 elseif sp < -1.0 then sp = -1.0 end
  return atan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z)), asin(sp),
         atan2(2.0 * (w * x + y * z), 1.0 - 2.0 * (x * x + y * y))
end
function QUAT.inverse(q) return new_quaternion(q.w, -q.x, -q.y, -q.z) end
function QUAT.normalize(q)
  local l = sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z)
  if rawget(q, "w") == nil then return q end   -- the positioning reading is a unit already
  q.w, q.x, q.y, q.z = q.w / l, q.x / l, q.y / l, q.z / l
  return q
end
local function quat_mul(a, b)
  check(is_quaternion(a) and is_quaternion(b), "invalid operation on quaternion")
  local aw, ax, ay, az = a.w, a.x, a.y, a.z
  local bw, bx, by, bz = b.w, b.x, b.y, b.z
  return new_quaternion(aw * bw - ax * bx - ay * by - az * bz,
                        aw * bx + ax * bw + ay * bz - az * by,
                        aw * by - ax * bz + ay * bw + az * bx,
                        aw * bz + ax * by - ay * bx + az * bw)
end
local function quat_eq(a, b) return a.w == b.w and a.x == b.x and a.y == b.y and a.z == b.z end
local function quat_string(q)
  return tostring(q.w) .. "," .. tostring(q.x) .. "," .. tostring(q.y) .. "," .. tostring(q.z)
end
QUAT_MT.__mul, QUAT_MT.__eq, QUAT_MT.__tostring = quat_mul, quat_eq, quat_string

-- the positioning reading's orientation: yaw, pitch, roll (rad), rewritten every tick
local function from_euler(o)
  local hy, hp, hr = o.yaw * 0.5, o.pitch * 0.5, o.roll * 0.5
  local cy, sy, cp, sp, cr, sr = cos(hy), math.sin(hy), cos(hp), math.sin(hp), cos(hr),
    math.sin(hr)
  return cr * cp * cy + sr * sp * sy, sr * cp * cy - cr * sp * sy,
         cr * sp * cy + sr * cp * sy, cr * cp * sy - sr * sp * cy
end
local QINDEX = {w = 1, x = 2, y = 3, z = 4}
local ORIENTATION_MT = {
  __quaternion = true, __name = "quaternion", __metatable = false,
  __index = function(o, key)
    local f = QUAT[key]
    if f then return f end
    local i = QINDEX[key]
    if i then return (select(i, from_euler(o))) end
  end,
  __mul = quat_mul, __eq = quat_eq, __tostring = quat_string,
}

-- ------------------------------------------------------------------ the guard
-- A count hook, set here where no script reaches it, runs every HOOK_EVERY Lua instructions:
-- it asks Python whether the run is being stopped (SIGINT, SIGTERM, a wall-clock budget) and
-- counts the call's instructions. A call that runs more than MAX_STEPS million fails its robot
-- (an endless loop); a stop ends the call at once. Either way ``halt`` holds the message, and
-- every way a script has of catching an error — pcall, xpcall and its handler,
-- coroutine.resume and coroutine.wrap, as the sandbox gives them — raises it again, so the
-- call ends whatever the script does. Lua 5.3 keeps a hook per coroutine: the sandbox's
-- coroutine.create and coroutine.wrap set it on each new one.
local MAX_STEPS = 100
local HOOK_EVERY = 1000000
local budget = 0
local limited = true      -- the instruction budget applies (the controller's loop_guard)
local hooked = false      -- the hook is set (new coroutines get it too)
local halt = nil          -- the message the current call ends with, once it must end
local stopping = false    -- Python asked to stop: the current tick is abandoned
local stop_error = nil    -- what the Python callback raised, if it raised (handed back)
local STOPPED = "the run was stopped while a script ran (a signal or its time limit)"

local function where(level)
  local info = getinfo(level + 1, "Sl")
  if info ~= nil and info.what ~= "C" and info.currentline > 0 then
    return info.short_src .. ":" .. info.currentline .. ": "
  end
  return ""
end

-- a Python callback (py.log, py.poll): a Python error in it (KeyboardInterrupt from a signal,
-- the run's time limit) never reaches the script; it stops the call as a signal does
local function call_python(f, ...)
  local ok, stop = pcall(f, ...)
  if not ok or stop then
    stopping = true
    if not ok then stop_error = stop_error or stop end
    halt = halt or STOPPED
    error(halt, 0)
  end
end

local function guard()
  if halt == nil then
    local ok, stop = pcall(py.poll)
    if not ok or stop then
      stopping = true
      if not ok then stop_error = stop_error or stop end
      halt = STOPPED
    else
      budget = budget + 1
      if limited and budget > MAX_STEPS then
        halt = where(2) .. sformat("ran for more than %d million Lua instructions in one call "
                                   .. "(an endless loop?)", MAX_STEPS)
      end
    end
  end
  if halt ~= nil then error(halt, 0) end
end

-- guard_loops(on, hook): the instruction budget on or off; the hook on or off (off only for
-- LuaJIT without the budget, whose compiled loops never call it). LuaJIT's compiled loops
-- never call a hook, so with the budget the compiler is off (D.interpret)
function M.guard_loops(on, hook)
  limited = on
  hooked = hook
  if on then D.interpret() end
  if hook then sethook(guard, "", HOOK_EVERY) else sethook() end
end

-- whether Python asked to stop during the last calls, and what it raised if it raised (then
-- cleared)
function M.take_stop()
  local s, e = stopping, stop_error
  stopping, stop_error = false, nil
  return s, e
end

local function protected(fn, ...)
  budget = 0
  halt = nil
  local ok, err = xpcall(fn, handler_ref, ...)
  halt = nil
  return ok, err
end

-- what a caught error becomes when the call must end anyway
local function after(ok, ...)
  if halt ~= nil then error(halt, 0) end
  return ok, ...
end

local function safe_pcall(f, ...) return after(pcall(f, ...)) end

local function safe_xpcall(f, h, ...)
  if type(h) ~= "function" then
    error("bad argument #2 to 'xpcall' (function expected, got " .. type(h) .. ")", 2)
  end
  return after(xpcall(f, function(e)
    if halt ~= nil then return e end   -- the script's handler does not run then
    return h(e)
  end, ...))
end

local function co_create(f)
  local co = cocreate(f)
  if hooked then sethook(co, guard, "", HOOK_EVERY) end
  return co
end

local function co_resume(co, ...) return after(coresume(co, ...)) end

local function wrapped(ok, ...)
  if halt ~= nil then error(halt, 0) end
  if ok then return ... end
  error((...), 0)
end

local function co_wrap(f)
  if type(f) ~= "function" then
    error("bad argument #1 to 'wrap' (function expected)", 2)
  end
  local co = co_create(f)
  return function(...) return wrapped(coresume(co, ...)) end
end

-- setmetatable without finalisers: Lua 5.3 runs __gc with the hook off, out of the guard's
-- reach
local function safe_setmetatable(t, mt)
  if type(mt) == "table" and rawget(mt, "__gc") ~= nil then
    error("__gc metamethods (finalisers) are not available to robot controllers", 2)
  end
  return setmetatable_(t, mt)
end

-- ------------------------------------------------------------------ robots
local function deep_copy(t)
  if type(t) ~= "table" then return t end
  local out = {}
  for k, v in pairs(t) do out[k] = deep_copy(v) end
  return out
end

local LIBS = {"string", "table", "math", "os", "io", "coroutine", "utf8", "debug", "package"}

-- the sandbox (the default): what an ARGoS controller uses, nothing that reaches files, the
-- process, other robots' states or Python
local SAFE = {"assert", "error", "ipairs", "next", "pairs", "rawequal", "rawget", "rawlen",
              "rawset", "select", "tonumber", "tostring", "type", "unpack", "getmetatable",
              "_VERSION"}
local SAFE_LIBS = {"string", "table", "math", "coroutine", "utf8", "bit"}
-- names a script may reach for: reading one is an error that says why it is missing
local REFUSED = {os = true, io = true, debug = true, package = true, dofile = true,
                 loadfile = true, getfenv = true, setfenv = true, newproxy = true,
                 module = true, ffi = true, gcinfo = true, python = true}
local trusted = false     -- the controller's trusted = true: the full libraries

local function refused(name)   -- (called by what the script called)
  error(sformat("%s is not available to robot controllers (the sandbox; trusted = true on the "
                .. "controller lifts it, docs/lua.md)", name), 3)
end

local ENV_MT = {
  __index = function(_, name) if REFUSED[name] then refused(tostring(name)) end end,
  __metatable = false,
}

local function copy_lib(src)
  local copy = {}
  for name, v in pairs(src) do copy[name] = v end
  return copy
end

local function text_of(sep, ...)
  local parts = {}
  for i = 1, select("#", ...) do
    local v = (select(i, ...))
    local t = type(v)
    parts[i] = (t == "number" or t == "string" or t == "boolean") and tostring(v) or t
  end
  return concat(parts, sep)
end

-- io.write: to the run's log, a line at a time (what is left without a newline goes out at
-- destroy, or once 4096 bytes are waiting)
local function log_writer(k, entry)
  local pending = ""
  local io_ = {}
  local function flush()
    if pending ~= "" then
      local line = pending
      pending = ""
      call_python(py.log, k, line)
    end
  end
  entry.flush = flush
  io_.write = function(...)
    local parts = {}
    for i = 1, select("#", ...) do
      local v = (select(i, ...))
      local t = type(v)
      if t ~= "string" and t ~= "number" then
        error(sformat("bad argument #%d to 'write' (string expected, got %s)", i, t), 2)
      end
      parts[i] = tostring(v)
    end
    local text = pending .. concat(parts)
    local from = 1
    while true do
      local at = sfind(text, "\n", from, true)
      if at == nil then break end
      call_python(py.log, k, ssub(text, from, at - 1))
      from = at + 1
    end
    pending = ssub(text, from)
    if #pending >= 4096 then flush() end
    return io_
  end
  return setmetatable_(io_, {
    __index = function(_, name) refused("io." .. tostring(name)) end,
    __metatable = false,
  })
end

local function sandbox(env, entry, k)
  for _, name in ipairs(SAFE) do env[name] = _G[name] end
  for _, lib in ipairs(SAFE_LIBS) do
    if type(_G[lib]) == "table" then env[lib] = copy_lib(_G[lib]) end
  end
  env.string.dump = nil
  if jit ~= nil then   -- LuaJIT: what it says about itself, not jit.on (its loops escape the hook)
    env.jit = {status = jit.status, version = jit.version, version_num = jit.version_num,
               os = jit.os, arch = jit.arch}
  end
  env.io = log_writer(k, entry)
  env.collectgarbage = function(opt, ...)
    if opt == "count" then return collectgarbage_("count") end
    error(sformat("collectgarbage(%q) is not available to robot controllers (only "
                  .. "collectgarbage(\"count\"))", tostring(opt)), 2)
  end
  -- Lua source only: a binary chunk can crash the process
  env.load = function(chunk, name, mode, ...)
    if mode ~= nil and not sfind(tostring(mode), "t", 1, true) then
      return nil, sformat("attempt to load a text chunk (mode is '%s'; robot controllers "
                          .. "load source only)", tostring(mode))
    end
    local chunk_env = env
    if select("#", ...) > 0 then chunk_env = ... end
    return load_(chunk, name, "t", chunk_env)
  end
  if loadstring ~= nil then
    env.loadstring = function(s, name) return load_(s, name, "t", env) end
  end
  env.setmetatable = safe_setmetatable
  setmetatable_(env, ENV_MT)
end

local function new_env(k, robot, u01, reseed, dir, entry)
  local env = {}
  if trusted then
    for name, v in pairs(_G) do env[name] = v end
    for _, lib in pairs(LIBS) do   -- one level: the functions are shared, the tables not
      local src = _G[lib]
      if type(src) == "table" then env[lib] = copy_lib(src) end
    end
    -- os.exit would end the whole simulation
    env.os.exit = function() error("os.exit() is not available to robot controllers", 2) end
  else
    sandbox(env, entry, k)
  end
  -- caught errors still end a call that must end (the guard); under both
  env.pcall, env.xpcall = safe_pcall, safe_xpcall
  env.coroutine.create, env.coroutine.wrap = co_create, co_wrap
  env.coroutine.resume = co_resume
  env._G = env
  env.robot = robot
  env.vector2, env.vector3, env.quaternion = vector2, vector3, quaternion
  env.math.random, env.math.randomseed = math_random(u01, reseed)
  for name, f in pairs(D.math_compat) do
    if env.math[name] == nil then env.math[name] = f end
  end
  -- ARGoS's log/logerr write their arguments one after the other; print separates by tabs
  env.log = function(...) call_python(py.log, k, text_of("", ...)) end
  env.logerr = function(...) call_python(py.log, k, "error: " .. text_of("", ...)) end
  env.print = function(...) call_python(py.log, k, text_of("\t", ...)) end
  -- require: modules next to the script (in the sandbox, there only), loaded into this
  -- robot's own globals
  local loaded = {}
  local path = dir .. "/?.lua;" .. dir .. "/?/init.lua"
  if trusted then
    path = path .. ";" .. package.path
    env.package.path = path
    env.package.loaded = loaded
  end
  env.require = function(name)
    if type(name) ~= "string" then
      error("bad argument #1 to 'require' (string expected, got " .. type(name) .. ")", 2)
    end
    if loaded[name] ~= nil then return loaded[name] end
    if not trusted and REFUSED[name] then refused(name) end
    if _G.package.loaded[name] ~= nil and name ~= "_G" then return env[name] end
    if not trusted and (not name:match("^[%w_][%w_.]*$") or name:find("..", 1, true)) then
      error("module '" .. name .. "' not found: a module is a file next to the script", 2)
    end
    local file, err = package.searchpath(name, trusted and env.package.path or path)
    if not file then error("module '" .. name .. "' not found:" .. err, 2) end
    local f, why = io.open(file, "rb")
    if not f then error(why, 2) end
    local text = f:read("*a")
    f:close()
    local chunk, msg = load_(text, "@" .. M.file_token(file), "t", env)
    if not chunk then error(msg, 0) end
    local result = chunk(name, file)
    if result == nil then result = true end
    loaded[name] = result
    return result
  end
  return env
end

-- Lua cuts chunk names to 60 characters in its messages: files are named by a short token
-- (lua#N) that Python turns back into the full path
M.files = {}
function M.file_token(path)
  for i, p in ipairs(M.files) do
    if p == path then return "lua#" .. i end
  end
  M.files[#M.files + 1] = path
  return "lua#" .. #M.files
end

-- setup(spec): spec.hosts = list of {name, fewest, most, lengths = list of 1-based indices},
-- spec.cap, spec.n_leds, spec.trusted; spec.log(k, text) and spec.poll() (Python: true when
-- the run is being stopped)
function M.setup(spec)
  py = {log = spec.log, poll = spec.poll}
  trusted = spec.trusted
  if not trusted then
    -- strings share one metatable, whose __index is the real string library: out of reach
    local smt = getmetatable_("")
    smt.__metatable = false
    string.dump = nil
  end
  cap = spec.cap
  dt = spec.dt or dt
  n_leds = spec.n_leds
  hosts = {}
  for i, h in ipairs(spec.hosts) do
    local lengths = {}
    for _, j in ipairs(h.lengths) do lengths[j] = true end
    hosts[h.name] = {index = i - 1, fewest = h.fewest, most = h.most, lengths = lengths}
  end
  robots = {}
  n_robots = 0
  batteries = false
end

-- set_type_api(f): f(robot, stubs) adds the robot type's own Lua API to each robot's table
-- (the E-Puck2 plug-in's, epuck2.lua)
function M.set_type_api(f) type_api = f end

-- what the type's API builds on: colours as ARGoS reads them
M.helpers = {color = color}

local KEYWORDS = {}
for w in ("and break do else elseif end false for function goto if in local nil not or "
          .. "repeat return then true until while"):gmatch("%a+") do KEYWORDS[w] = true end

-- ARGoS's battery sensor calls the charge available_charge
local INF = math.huge
local BATTERY_MT = {__index = function(b, key)
  if key == "available_charge" then return rawget(b, "charge") end
end, __metatable = false}

local NO_RADIO = setmetatable({}, {
  __index = function(_, key)
    error("robot.range_and_bearing: this robot's group has no radio; set radio = true on it "
          .. "in the experiment file", 2)
  end,
  __metatable = false,
})

-- the robot table as its script sees it: everything of ``robot`` (read through), but a reading
-- (rewritten every tick) cannot be replaced: ``robot.proximity = nil`` is an error on the line
-- that does it. Other fields the script sets go to ``robot``.
local VIEW_NAMES = {positioning = true, pose = true, range_and_bearing = true, encoder = true,
                    colored_blob_perspective_camera = true}
local function script_view(robot, sensors)
  local mt = {__index = robot, __metatable = false,
              __pairs = function() return next, robot, nil end}
  mt.__newindex = function(_, key, value)
    if VIEW_NAMES[key] or sensors[key] ~= nil then
      error(sformat("robot.%s is a reading, rewritten every tick: a script can read it and "
                    .. "change its fields, not replace it", tostring(key)), 2)
    end
    robot[key] = value
  end
  return setmetatable_({}, mt)
end

-- add_robot(k, spec): spec.id, spec.type, spec.group, spec.seed, spec.params, spec.sensors
-- (name → template table), spec.dir
function M.add_robot(k, spec)
  local u01, gauss, reseed, again = new_rng(spec.seed_hi, spec.seed_lo)
  local robot = {id = spec.id, type = spec.type, group = spec.group,
                 params = spec.params, random = random_table(u01, gauss)}
  for name, template in pairs(spec.sensors) do robot[name] = deep_copy(template) end
  -- ARGoS's names for readings the robot type calls otherwise
  -- robot.encoder.left (the E-Puck2 plug-in's) and robot.encoder[1].left read the same table
  if type(robot.encoders) == "table" then
    robot.encoder = setmetatable({}, {__index = function(_, key)
      if key == 1 then return robot.encoders end
      return robot.encoders[key]
    end, __metatable = false})
  end
  local entry = {robot = robot, failed = false, restart = again, spec = spec}
  if type(robot.battery) == "table" then
    setmetatable(robot.battery, BATTERY_MT)
    -- ARGoS's battery reading before its first update: full, time left infinite
    robot.battery.time_left = INF
    entry.charge_before = 1.0
    batteries = true
  end
  if type(robot.pose) == "table" then
    robot.positioning = robot.pose
    if type(robot.pose.position) == "table" then setmetatable(robot.pose.position, VEC3_MT) end
    if type(robot.pose.orientation) == "table" then
      setmetatable(robot.pose.orientation, ORIENTATION_MT)
    end
  end
  local stubs = {}
  for name in pairs(hosts) do
    stubs[name] = host_stub(k, name)
    if robot[name] == nil then robot[name] = stubs[name] end
    -- a name that is a Lua keyword (goto) also answers with a trailing underscore
    if KEYWORDS[name] and robot[name .. "_"] == nil then robot[name .. "_"] = stubs[name] end
  end
  argos_actuators(k, robot, stubs)
  if type_api ~= nil then type_api(robot, stubs) end
  if cap > 0 then
    local out = {}
    for i = 1, cap do out[i] = 0 end
    entry.rab_out = out
    local rab = {}
    rab.set_data = function(...)
      local n = select("#", ...)
      if n == 1 then
        local t = ...
        if type(t) ~= "table" then
          error("bad argument #1 to 'set_data' (table expected, got " .. type(t) .. ")", 2)
        end
        if #t ~= cap then
          error(sformat("robot.range_and_bearing.set_data(array) expects an array of %d "
                        .. "numbers", cap), 2)
        end
        for i = 1, cap do
          local v = t[i]
          if type(v) ~= "number" then
            error(sformat("element #%d of the array is not a number", i), 2)
          end
          out[i] = D.byte(v)
        end
      elseif n == 2 then
        local i, v = ...
        need_number("set_data", 1, i); need_number("set_data", 2, v)
        if i < 1 or i > cap then
          error(sformat("passed index %s out of bounds [1,%d]", tostring(i), cap), 2)
        end
        out[floor(i)] = D.byte(v)
      else
        error("robot.range_and_bearing.set_data() expects either one or two arguments", 2)
      end
    end
    rab.clear_data = function(...)
      if select("#", ...) ~= 0 then
        error("robot.range_and_bearing.clear_data() expects no arguments", 2)
      end
      for i = 1, cap do out[i] = 0 end
    end
    robot.range_and_bearing = rab
  else
    robot.range_and_bearing = NO_RADIO
  end
  entry.env = new_env(k, script_view(robot, spec.sensors), u01, reseed, spec.dir, entry)
  robots[k] = entry
  if k > n_robots then n_robots = k end
end


local function handler(e)
  if type(e) ~= "string" then
    e = (type(e) == "table" or type(e) == "userdata") and
        ("(error object is a " .. type(e) .. " value)") or tostring(e)
    -- error(non-string) carries no position: name the script line that raised it
    for level = 2, 20 do
      local info = getinfo(level, "Sl")
      if info == nil then break end
      if info.what ~= "C" and info.currentline > 0 then
        e = info.short_src .. ":" .. info.currentline .. ": " .. e
        break
      end
    end
  end
  return traceback(e, 2)
end

handler_ref = handler
local failures = {}

local NO_GLOBALS = setmetatable_({}, {__newindex = function() end, __metatable = false})

local function fail(k, where, message)
  if stopping then return end   -- the call was cut short by a stop, not by the script
  local r = robots[k]
  if message == "not enough memory" then
    -- what the robot's globals hold is let go, and the garbage collected, before anything is
    -- allocated (LuaJIT collects none before it reports a failed allocation: the next one
    -- would fail too)
    r.env = NO_GLOBALS
    collectgarbage_("collect")
  end
  r.failed = true
  failures[#failures + 1] = {k = k, where = where, message = message}
end

function M.fail(k) robots[k].failed = true end

local function call(k, name, where)
  local fn = rawget(robots[k].env, name)
  if fn == nil then return true end
  if type(fn) ~= "function" then
    fail(k, where, name .. " is a " .. type(fn) .. " value, not a function")
    return false
  end
  local ok, err = protected(fn)
  if not ok then fail(k, where, err) end
  return ok
end

-- load_all(source, chunkname, only): the script's top level, init() and a check for step()
-- on every robot (or on those listed in ``only``); returns the failures
function M.load_all(source, chunkname, only)
  failures = {}
  ncalls = 0
  local list = only
  if list == nil then
    list = {}
    for k = 1, n_robots do list[k] = k end
  end
  for _, k in ipairs(list) do
    if stopping then break end
    local r = robots[k]
    local chunk, msg = load_(source, chunkname, "t", r.env)
    if not chunk then
      fail(k, "load", msg)
    else
      local ok, err = protected(chunk)
      if not ok then
        fail(k, "top level", err)
      elseif type(rawget(r.env, "step")) ~= "function" then
        fail(k, "load", chunkname:sub(2) .. ": the script defines no function step() "
             .. "(called every tick)")
      else
        call(k, "init", "init")
      end
    end
  end
  return failures
end

-- renew_failed(): every failed robot gets a fresh state (Python then senses and loads them);
-- returns their indices
function M.renew_failed()
  local renewed = {}
  for k = 1, n_robots do
    if robots[k].failed then
      M.add_robot(k, robots[k].spec)
      renewed[#renewed + 1] = k
    end
  end
  return renewed
end

-- reset_all(): ARGoS's reset: the random streams restart and reset() runs on every robot whose
-- script is fine (failed robots are renewed and loaded again instead, see renew_failed)
function M.reset_all()
  failures = {}
  ncalls = 0
  for k = 1, n_robots do
    if stopping then break end
    local r = robots[k]
    if not r.failed then
      r.restart()
      if r.rab_out then for i = 1, cap do r.rab_out[i] = 0 end end
      call(k, "reset", "reset")
    end
  end
  return failures
end

function M.destroy_all()
  failures = {}
  for k = 1, n_robots do
    if stopping then break end
    local r = robots[k]
    if not r.failed then
      call(k, "destroy", "destroy")
      if r.flush and not r.failed then pcall(r.flush) end
    end
  end
  return failures
end

-- ------------------------------------------------------------------ the tick
local fill = function() end   -- set by M.set_fill: readings → every robot's tables
function M.set_fill(f) fill = f end
M.robots = function() return robots end

-- ARGoS's colored_blob_perspective_camera over the camera's blobs: off until the script calls
-- enable() (ARGoS's default); while off, its list keeps what it last held. ARGoS's blobs are
-- whole pixels: the column and row rounded
local function perspective_camera(entry)
  local robot = entry.robot
  local cam = robot.colored_blob_perspective_camera
  if cam == nil then
    cam = {enable = function() entry.camera_on = true end,
           disable = function() entry.camera_on = false end}
    robot.colored_blob_perspective_camera = cam
  end
  if not entry.camera_on then return end
  local blobs = robot.camera
  local n = #blobs
  for i = 1, n do
    local b = blobs[i]
    rawset(cam, i, {color = b.color, x = floor(b.column + 0.5), y = floor(b.row + 0.5)})
  end
  for i = rawlen_(cam), n + 1, -1 do rawset(cam, i, nil) end
end

-- one call per robot table of the slow readings: values[k] = {name = table, …}
local function fill_slow(values)
  if values == nil then return end
  for k = 1, n_robots do
    local v = values[k]
    local entry = robots[k]
    local robot = entry.robot
    for name, t in pairs(v) do robot[name] = t end
    if v.camera ~= nil then perspective_camera(entry) end
  end
end

-- range and bearing: what each robot heard (cm, rad, the sender's bytes). ``start`` holds
-- n + 1 int32 offsets into the receptions, ``heard`` one record per reception (distance m,
-- azimuth, elevation, frame size), ``payload`` the frames, ``width`` bytes apart.
local function fill_rab(start, heard, payload, width)
  start, heard = D.offsets(start), D.records(heard)
  local offset, record = D.offset, D.record
  local base = offset(start, 0)
  local from = 0
  for k = 1, n_robots do
    local rab = robots[k].robot.range_and_bearing
    local to = offset(start, k) - base
    local old = rawlen_(rab)
    local n = 0
    for m = from, to - 1 do
      n = n + 1
      local d, az, el, s = record(heard, m)
      local at = m * width
      rawset(rab, n, {range = d * 100.0, horizontal_bearing = az, vertical_bearing = el,
                data = s > 0 and {sbyte(payload, at + 1, at + s)} or {}})
    end
    for i = n + 1, old do rawset(rab, i, nil) end
    from = to
  end
end

local function pack_calls() return D.pack_doubles(calls, ncalls) end

-- the host-function calls made outside step() (top level, init, reset): Python replays them,
-- so that what init() sets (LEDs, wheels) holds from the first tick, as in ARGoS
function M.take_calls()
  local packed = pack_calls()
  ncalls = 0
  return packed
end

local function pack_rab()
  if cap == 0 then return nil end
  local parts = {}
  for k = 1, n_robots do
    local out = robots[k].rab_out
    parts[k] = schar(D.unpack(out, 1, cap))
  end
  return table.concat(parts)
end

-- fill the tables, nothing else (before init and after reset)
-- the readings into every robot's tables; a robot whose script changed those tables so that
-- they cannot be filled fails (the others are filled one by one then)
local function fill_all(...)
  budget, halt = 0, nil
  if pcall(fill, robots, 1, n_robots, ...) or stopping then return end
  for k = 1, n_robots do
    if stopping then return end
    if not robots[k].failed then
      local ok, err = protected(fill, robots, k, k, ...)
      if not ok then
        fail(k, "readings", "lua#1: the script changed the tables of its robot's readings so "
             .. "that they cannot be rewritten (" .. err:match("^[^\n]*") .. ")")
      end
    end
  end
end

function M.sense(slow, start, heard, payload, width, ...)
  failures = {}
  fill_all(...)
  fill_slow(slow)
  if start ~= nil then fill_rab(start, heard, payload, width) end
  return failures
end

-- ARGoS's battery sensor's time left (s): the charge before the tick over the charge lost
-- during it, times the tick; infinite when the charge holds, 0 when empty
local function battery_time_left()
  for k = 1, n_robots do
    local r = robots[k]
    local b = r.robot.battery
    if type(b) == "table" and r.charge_before ~= nil then
      local before, now = r.charge_before, rawget(b, "charge")
      if now > 0.0 then
        local lost = before - now
        b.time_left = (lost > 1e-6 or lost < -1e-6) and before * dt / lost or INF
      else
        b.time_left = 0.0
      end
      r.charge_before = now
    end
  end
end

-- set_paused(mask): robots whose byte in ``mask`` is 1 skip step() (their readings are still
-- filled); nil: every robot steps
function M.set_paused(mask) paused = mask end

-- one tick: readings in, step() on every robot, (calls, range-and-bearing data, failures) out
function M.step_all(slow, start, heard, payload, width, ...)
  failures = {}
  fill_all(...)
  fill_slow(slow)
  if start ~= nil then fill_rab(start, heard, payload, width) end
  if batteries then battery_time_left() end
  -- calls made by init() or reset() are still in ``calls``: as ARGoS's actuators, they take
  -- effect with the first tick's, before them
  local mask = paused
  for k = 1, n_robots do
    if stopping then break end
    local r = robots[k]
    if not r.failed and not (mask ~= nil and sbyte(mask, k) == 1) then
      local ok, err = protected(rawget(r.env, "step"))
      if not ok then fail(k, "step", err) end
    end
  end
  local packed = pack_calls()
  ncalls = 0
  return packed, pack_rab(), #failures > 0 and failures or nil
end

return M
