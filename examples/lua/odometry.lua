-- Dead reckoning with ARGoS's differential-steering sensor and value types.
--
-- Each robot drives a circle and integrates its own pose from what its wheels did
-- (robot.wheels.distance_left/right, cm, and axis_length), as a robot without a tracking
-- system would; the positioning sensor is there only to grade the estimate. The LEDs stay
-- green while the estimate is within 2 cm of the truth and turn red once it is not (a robot
-- that bumps into another keeps turning its wheels without going where they say).

function init()
   local p = robot.positioning
   estimate = vector2(p.position.x * 100, p.position.y * 100)   -- cm
   heading = p.orientation:toeulerangles()                      -- yaw, rad
   error_cm = 0
end

function step()
   local w = robot.wheels
   local ahead = (w.distance_left + w.distance_right) / 2
   local turn = (w.distance_right - w.distance_left) / w.axis_length
   estimate = estimate + vector2(ahead, 0):rotate(heading + turn / 2)
   heading = heading + turn
   local truth = robot.positioning.position
   error_cm = (estimate - vector2(truth.x * 100, truth.y * 100)):length()
   w.set_velocity(robot.params.left, robot.params.right)
   robot.leds.set_all_colors(error_cm <= 2 and "green" or "red")
end

function reset()
   init()
end
