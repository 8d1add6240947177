-- Obstacle avoidance with the eight IR proximity sensors (ARGoS's Lua robot API).
--
-- robot.proximity[i] for i = 1..8: .value 0 (nothing) to 4095 (touching), .angle in radians,
-- counter-clockwise from the heading (sensors 1-4 look right, 5-8 left). Wheel speeds are in
-- cm/s, as in ARGoS.

function init()
   speed = tonumber(robot.params.speed) or 10       -- cm/s
   threshold = tonumber(robot.params.threshold) or 200
end

function step()
   -- the obstacle's direction: proximity readings weighted by their sensor's direction
   local x, y = 0, 0
   for i = 1, #robot.proximity do
      local p = robot.proximity[i]
      x = x + p.value * math.cos(p.angle)
      y = y + p.value * math.sin(p.angle)
   end
   local front = math.max(robot.proximity[1].value, robot.proximity[2].value,
                          robot.proximity[7].value, robot.proximity[8].value)
   if front < threshold then
      robot.wheels.set_velocity(speed, speed)
   elseif y > 0 then
      robot.wheels.set_velocity(speed, -speed)      -- obstacle on the left: turn right
   else
      robot.wheels.set_velocity(-speed, speed)
   end
end

function reset()
   init()
end

function destroy()
end
