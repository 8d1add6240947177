-- obstacle avoidance: turn away from the side whose front proximity sensors see the most
function init()
   speed = 5
end

function step()
   local left = math.max(robot.proximity[7].value, robot.proximity[8].value)
   local right = math.max(robot.proximity[1].value, robot.proximity[2].value)
   if left > 200 or right > 200 then
      if left > right then robot.wheels.set_velocity(speed, -speed)
      else robot.wheels.set_velocity(-speed, speed) end
   else
      robot.wheels.set_velocity(speed, speed)
   end
end

function reset() init() end
function destroy() end
