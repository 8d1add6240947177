-- Counts its steps; both treads at 10 cm/s.
steps = 0

function step()
   steps = steps + 1
   robot.wheels.set_velocity(10, 10)
end
