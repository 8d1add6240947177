-- The E-Puck2 plug-in's own Lua API for ARGoS (its epuck2_leds actuator), over the type's
-- set_led host function, added to every E-Puck2 robot's table next to ARGoS's generic
-- robot.leds.set_all_colors / set_single_color.
--
-- The plug-in's LEDs, 1-based as its scripts number them: ring LEDs 1, 3, 5, 7 are red only,
-- 2, 4, 6, 8 full colour, then the front LED (red) and the body LED (green). Its on/off
-- functions take booleans and light the LED in its own colour.

local H = ...   -- runtime.lua's helpers: color(fname, n, ...) → r, g, b

local floor, select, type, error, tostring = math.floor, select, type, error, tostring
local sformat = string.format

local RGB = {[2] = true, [4] = true, [6] = true, [8] = true}
local RED = {[1] = true, [3] = true, [5] = true, [7] = true}
local FRONT, BODY = 9, 10   -- 1-based logical LEDs (set_led takes them 0-based)

-- an LED index as the plug-in reads it (a C size_t from a Lua number: fractions dropped)
local function index(fname, i)
  if type(i) ~= "number" then
    error(sformat("bad argument #1 to '%s' (number expected, got %s)", fname,
                  i == nil and "no value" or type(i)), 3)
  end
  if i >= 0 then return floor(i) end
  return i
end

local function need_boolean(fname, i, v)
  if type(v) ~= "boolean" then
    error(sformat("bad argument #%d to '%s' (boolean expected, got %s)", i, fname,
                  v == nil and "no value" or type(v)), 3)
  end
end

return function(robot, stubs)
  local set_led = stubs.set_led
  local leds = robot.leds
  if set_led == nil or leds == nil then return end

  function leds.set_single_rgb_color(...)
    local n = select("#", ...)
    if n ~= 2 and n ~= 4 then
      error("robot.leds.set_single_rgb_color() expects 2 or 4 arguments", 2)
    end
    local i = index("set_single_rgb_color", (...))
    if not RGB[i] then
      error(sformat("passed index %s is not an RGB LED [2,4,6,8]", tostring(i)), 2)
    end
    set_led(i - 1, H.color("set_single_rgb_color", n - 1, select(2, ...)))
  end

  function leds.set_all_rgb_colors(...)
    local n = select("#", ...)
    if n ~= 1 and n ~= 3 then
      error("robot.leds.set_all_rgb_colors() expects 1 or 3 arguments", 2)
    end
    local r, g, b = H.color("set_all_rgb_colors", n, ...)
    for i = 2, 8, 2 do set_led(i - 1, r, g, b) end
  end

  function leds.set_single_red(...)
    if select("#", ...) ~= 2 then
      error("robot.leds.set_single_red() expects 2 arguments", 2)
    end
    local i, on = ...
    i = index("set_single_red", i)
    if not RED[i] then
      error(sformat("passed index %s is not a Red LED [1,3,5,7]", tostring(i)), 2)
    end
    need_boolean("set_single_red", 2, on)
    set_led(i - 1, on and 255 or 0, 0, 0)
  end

  function leds.set_all_reds(...)
    if select("#", ...) ~= 1 then error("robot.leds.set_all_reds() expects 1 argument", 2) end
    local on = ...
    need_boolean("set_all_reds", 1, on)
    local r = on and 255 or 0
    for i = 1, 7, 2 do set_led(i - 1, r, 0, 0) end
  end

  function leds.set_front(...)
    if select("#", ...) ~= 1 then error("robot.leds.set_front() expects 1 argument", 2) end
    local on = ...
    need_boolean("set_front", 1, on)
    set_led(FRONT - 1, on and 255 or 0, 0, 0)
  end

  function leds.set_body(...)
    if select("#", ...) ~= 1 then error("robot.leds.set_body() expects 1 argument", 2) end
    local on = ...
    need_boolean("set_body", 1, on)
    set_led(BODY - 1, 0, on and 255 or 0, 0)
  end
end
