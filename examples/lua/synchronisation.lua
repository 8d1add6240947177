-- Fireflies: robots that start out of step flash their LEDs together after a few periods.
--
-- Each robot counts ticks and flashes every PERIOD ticks, telling its neighbours over the
-- range-and-bearing radio (robot.range_and_bearing.set_data: byte 1 is 1 when it flashed).
-- A robot in the second half of its period that hears a flash takes the flasher's phase;
-- any two groups in step with each other then merge within one period.
-- Received messages: robot.range_and_bearing[i].range (cm), .horizontal_bearing (rad),
-- .data (the sender's bytes, 1-based).

PERIOD = 30

function init()
   counter = robot.random.uniform_int(0, PERIOD)
   robot.range_and_bearing.clear_data()
end

function step()
   local heard = false
   for i = 1, #robot.range_and_bearing do
      if robot.range_and_bearing[i].data[1] == 1 then heard = true end
   end
   if heard and counter > PERIOD / 2 then
      counter = 0    -- the flasher flashed last tick: it is at 0 + 1 now, as this one will be
   end
   counter = counter + 1
   if counter >= PERIOD then
      counter = 0
      robot.leds.set_all_colors("yellow")
      robot.range_and_bearing.set_data(1, 1)
   else
      robot.leds.set_all_colors("black")
      robot.range_and_bearing.set_data(1, 0)
   end
end

function reset()
   init()
end
