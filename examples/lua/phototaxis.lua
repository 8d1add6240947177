-- Phototaxis with the eight ambient-light sensors (ARGoS's Lua robot API).
--
-- robot.light[i], i = 1..8: .value from 4095 (dark) down to 0 (saturated), as on the real
-- E-Puck2, and .angle in radians (counter-clockwise from the heading). The robot turns
-- towards the brightest sensor and stops when the light is close.

SPEED = 7          -- cm/s (twice this, on a turn, stays under the 15.4 cm/s maximum)
ARRIVED = 1500     -- a reading this bright means "at the light"

function init()
   turn = 0        -- the random walk's turn while no light is seen
end

function step()
   local best = 1
   for i = 2, #robot.light do
      if robot.light[i].value < robot.light[best].value then best = i end
   end
   local reading = robot.light[best].value
   if reading < ARRIVED then
      robot.wheels.set_velocity(0, 0)
      robot.leds.set_all_colors("yellow")
      return
   end
   robot.leds.set_all_colors("black")
   if reading >= 4095 then
      -- out of the sensors' range: wander, changing course now and then
      if robot.random.bernoulli(0.05) then turn = robot.random.uniform(-0.5, 0.5) end
      robot.wheels.set_velocity(SPEED * (1 - turn), SPEED * (1 + turn))
      return
   end
   local angle = robot.light[best].angle
   local t = math.max(-1, math.min(1, angle / (math.pi / 2)))
   robot.wheels.set_velocity(SPEED * (1 - t), SPEED * (1 + t))
end

function reset()
   init()
end
