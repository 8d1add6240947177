"""An AutoMoDe-Watermelon-style controller written once against the RVR reference model.

It reads only Table 1's variables (``robot.reference``: prox and their angles, the labelled
ground colour, the neighbours) and drives Table 1's wheels (``set_treads``, cm/s), so it runs
unchanged whichever way the neighbours are found (the simulation's omnidirectional camera or the
real robot's lidar clustering: ``sensors.reference.neighbours`` in the experiment file).

Three behaviours of the report's §4.5 and one transition:

* *Exploration* (``behaviour = "exploration"``): straight on; when a front proximity reading
  (|angle| ≤ 45°) is ≥ 0.1 or a neighbour is ahead within 0.35 m, turn on the spot, away from
  the side of the highest reading, for a random number of control cycles in 0…τ;
* *Attraction* (``behaviour = "attraction"``): follow ``w = k_w·w' − k_o·w_o`` with ``w' = Σ (α/d_m, ∠q_m)`` over the
  neighbours (straight ahead, ``(1, ∠0)``, when there are none) and ``w_o = Σ (prox_i, ∠q_i)``
  (k_w = 1.2, k_o = 5 as in the report);
* *Stop* (LEDs in the spot's colour) once the ground colour is ``stop_on`` — the colour
  detection transition; with ``stop_on`` unset the robots only attract each other.

The vector becomes tread speeds the way the real robot's controller does it: beyond ±90° turn
on the spot, otherwise the outer tread at full speed and the inner one slowed by the cosine of
the heading error.
"""

import math

from swarmstack import Controller
from swarmstack.controllers.rvr import RVR
from swarmstack.world.colors import to_rgb

K_W = 1.2      # §4.5, AutoMoDe-Watermelon attraction
K_O = 5.0


def treads(angle: float, speed: float) -> tuple[float, float]:
    """(left, right) cm/s steering towards ``angle`` (rad, CCW from the head)."""
    if abs(angle) > math.pi / 2:
        return (-speed, speed) if angle > 0 else (speed, -speed)
    inner = speed * math.cos(angle)
    return (inner, speed) if angle > 0 else (speed, inner)


class Watermelon(Controller):
    def init(self, robot: RVR, params):
        self.behaviour = params.get("behaviour", "exploration")
        self.tau = int(params.get("tau", 10))              # §4.5: τ ∈ {1, …, 100}
        self.turning = 0
        self.turn_left = True
        self.speed = float(params.get("speed", 12.0))     # cm/s (RM 1.1's top speed)
        self.alpha = float(params.get("alpha", 3.0))      # §4.5: α ∈ [1, 5]
        stop = params.get("stop_on")
        self.stop_rgb = tuple(to_rgb(stop)) if stop is not None else None
        self.stopped = False

    def step(self, robot: RVR):
        rm = robot.reference
        if self.stop_rgb is not None and tuple(int(c) for c in rm["ground"]) == self.stop_rgb:
            self.stopped = True
        if self.stopped:
            robot.set_treads(0, 0)
            robot.set_leds(*self.stop_rgb)
            return
        if self.behaviour == "exploration":
            self.explore(robot, rm)
            return
        wx = wy = 0.0
        n = int(rm["neighbours"])
        for d, a in zip(rm["neighbour_distance"][:n], rm["neighbour_angle"][:n]):
            wx += self.alpha / max(d, 0.01) * math.cos(a)
            wy += self.alpha / max(d, 0.01) * math.sin(a)
        if n == 0:
            wx, wy = 1.0, 0.0
        ox = sum(p * math.cos(a) for p, a in zip(rm["prox"], rm["prox_angle"]))
        oy = sum(p * math.sin(a) for p, a in zip(rm["prox"], rm["prox_angle"]))
        robot.set_treads(*treads(math.atan2(K_W * wy - K_O * oy, K_W * wx - K_O * ox),
                                 self.speed))

    def explore(self, robot: RVR, rm) -> None:
        if self.turning > 0:
            self.turning -= 1
            s = self.speed
            robot.set_treads(*((-s, s) if self.turn_left else (s, -s)))
            return
        prox, angle = rm["prox"], rm["prox_angle"]
        front = [(p, a) for p, a in zip(prox, angle) if min(a, 2 * math.pi - a) <= math.pi / 4]
        n = int(rm["neighbours"])
        ahead = [a for d, a in zip(rm["neighbour_distance"][:n], rm["neighbour_angle"][:n])
                 if d < 0.35 and min(a, 2 * math.pi - a) <= math.pi / 4]
        if any(p >= 0.1 for p, _ in front) or ahead:
            p_max, a_max = max(front) if any(p > 0 for p, _ in front) else (0.0, ahead[0])
            # turn away from the side of the strongest reading
            self.turn_left = math.sin(a_max) < 0
            self.turning = int(robot.rng.integers(0, self.tau + 1))
            return
        robot.set_treads(self.speed, self.speed)
