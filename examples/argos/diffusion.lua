-- Diffusion with ARGoS's Lua robot API: drive straight, turn away from the side whose
-- proximity sensors see something. Speeds in cm/s, as in ARGoS.

SPEED = 5        -- cm/s
THRESHOLD = 200  -- proximity reading (0 nothing … 4095 touching) above which a robot turns

function init()
   robot.leds.set_all_colors("green")
end

function step()
   local left, right = 0, 0
   for i = 1, #robot.proximity do
      local p = robot.proximity[i]
      if p.angle > 0 then
         left = math.max(left, p.value)
      else
         right = math.max(right, p.value)
      end
   end
   if math.max(left, right) < THRESHOLD then
      robot.wheels.set_velocity(SPEED, SPEED)
   elseif left > right then
      robot.wheels.set_velocity(SPEED, -SPEED)
   else
      robot.wheels.set_velocity(-SPEED, SPEED)
   end
end

function reset()
end

function destroy()
end
