"""Controllers of the viewer tests (loaded from this folder by path)."""

from swarmstack import Controller


class Colours(Controller):
    """Robot k shows ``colours[k]`` on all its LEDs, drives at ``speeds[k]`` (both wheels) and
    broadcasts one byte every tick."""

    def init(self, robot, params):
        self.rgb = tuple(params["colours"][robot.id])
        self.speed = float(params["speeds"][robot.id])

    def step(self, robot):
        robot.set_leds(self.rgb)
        robot.set_wheels(self.speed, self.speed)
        robot.send(b"\x01")
