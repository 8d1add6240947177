-- Wander and report, with the E-Puck2 plug-in's own Lua API: robot.tof (mm, a number),
-- robot.encoder.left/right (steps), robot.battery.available_charge/time_left, the plug-in's
-- LED functions, and ARGoS's perspective camera.
--
-- Each robot drives straight until its time-of-flight sensor sees something closer than
-- 12 cm, then turns on the spot until the way is clear again (25 cm). Its body LED is lit
-- while it drives, its front LED while it turns; the four RGB LEDs show the other robots'
-- LEDs the camera sees (blue: none, green: some); the red ring LEDs chase round, one per
-- 20 encoder steps of the left wheel. Every 50 ticks it logs its readings.

turning = false
ticks = 0

function init()
   robot.colored_blob_perspective_camera.enable()
   robot.leds.set_all_rgb_colors("blue")
   robot.leds.set_all_reds(false)
   robot.leds.set_front(false)
   robot.leds.set_body(true)
   speed = robot.params.speed or 5                 -- cm/s
end

local function report()
   local p = robot.proximity
   log(string.format("ToF %4d mm  encoders %6d %6d  battery %.3f (%.0f s left)",
                     robot.tof, robot.encoder.left, robot.encoder.right,
                     robot.battery.available_charge, robot.battery.time_left))
   log(string.format("proximity %4d %4d %4d %4d %4d %4d %4d %4d",
                     p[1].value, p[2].value, p[3].value, p[4].value,
                     p[5].value, p[6].value, p[7].value, p[8].value))
   log(string.format("ground %4d %4d %4d  brightest light at %.0f deg",
                     robot.ground[1], robot.ground[2], robot.ground[3], brightest()))
   for i = 1, #robot.colored_blob_perspective_camera do
      local blob = robot.colored_blob_perspective_camera[i]
      log(string.format("blob %d at pixel %3d,%3d colour %3d,%3d,%3d", i, blob.x, blob.y,
                        blob.color.red, blob.color.green, blob.color.blue))
   end
end

-- the light sensors read 4095 in the dark, less the more light they get
function brightest()
   local best = 1
   for i = 2, #robot.light do
      if robot.light[i].value < robot.light[best].value then best = i end
   end
   return math.deg(robot.light[best].angle)
end

function step()
   ticks = ticks + 1
   if not turning and robot.tof < 120 then
      turning = true
   elseif turning and robot.tof > 250 then
      turning = false
   end
   if turning then
      robot.wheels.set_velocity(-speed, speed)
   else
      robot.wheels.set_velocity(speed, speed)
   end
   robot.leds.set_front(turning)
   robot.leds.set_body(not turning)

   if #robot.colored_blob_perspective_camera > 0 then
      robot.leds.set_all_rgb_colors(0, 255, 0)
   else
      robot.leds.set_all_rgb_colors("blue")
   end

   local lit = 1 + 2 * ((robot.encoder.left // 20) % 4)   -- 1, 3, 5 or 7
   for led = 1, 7, 2 do robot.leds.set_single_red(led, led == lit) end

   if ticks % 50 == 0 then report() end
end

function reset()
   turning = false
   ticks = 0
   init()
end
