"""What controllers see: live views on the readings and command arrays.

Views are built once; sensors refresh the arrays in place every tick, so reading
``robot.proximity`` costs an attribute lookup, not a copy. Writing through the setters stores
into the group's command arrays, which the actuators apply after all controllers ran.
"""

from __future__ import annotations

import numpy as np

from swarmstack.world.rng import STREAM, uniform_array


class RobotView:
    """One robot, as its controller sees it.

    Readings (present when enabled in the experiment file), in device units:
    ``proximity`` int32[8] 0–4095 · ``light`` int32[8] 4095 (dark) – 0 (saturated) ·
    ``ground`` int32[3] 0 (black) – 1023 (white) · ``tof_mm`` 0-d int32 20–2000 ·
    ``encoders`` int32[2] steps (left, right), wrapping int16 · ``camera`` float64[B, 5]
    (column px, row px, r, g, b; unused rows −1) · ``battery`` 0-d float64 charge 0–1.
    Also ``id`` (inside the run), ``run``, ``rng`` (a NumPy Generator of this robot's own stream),
    ``tick`` and ``dt``.
    """

    def __init__(self, group_name: str, index: int, robot_id: int, run: int, readings: dict,
                 wheels: np.ndarray, leds: np.ndarray | None, rng: np.random.Generator, clock):
        self._group = group_name
        self._index = index
        self._wheels = wheels[index]
        self._leds = leds[index] if leds is not None else None
        self._clock = clock
        self.id = robot_id
        self.run = run
        self.rng = rng
        for name, arr in readings.items():
            setattr(self, name, arr[index] if arr.ndim > 1 else arr[index:index + 1].reshape(()))

    def __getattr__(self, name):
        # only reached for missing attributes: a sensor that is not enabled
        if name.startswith("_"):
            raise AttributeError(name)
        raise AttributeError(f"robot {self.id} of group {self._group!r} has no reading {name!r}: "
                             f"enable it under [robots.sensors] in the experiment file")

    @property
    def tick(self) -> int:
        return self._clock.tick

    @property
    def dt(self) -> float:
        return self._clock.dt

    def set_wheels(self, left_m_s: float, right_m_s: float) -> None:
        """Wheel speeds in m/s (clamped to the robot's maximum by the actuator)."""
        self._wheels[0] = left_m_s
        self._wheels[1] = right_m_s

    def set_led(self, index: int, rgb) -> None:
        """LED ``index`` (0-based) to ``(r, g, b)`` bytes; channels an LED lacks are ignored."""
        self._leds[index] = rgb

    def set_leds(self, rgb) -> None:
        """All LEDs to one colour."""
        self._leds[:] = rgb


class GroupView:
    """A whole robot group across all runs of a batch: every array has robots on axis 0.

    Same reading names as :class:`RobotView` (full arrays); commands are written into
    ``wheels`` float64[n, 2] (m/s) and ``leds`` uint8[n, n_leds, 3]. ``robot_id`` and ``run``
    say who each row is. ``uniform(k)`` draws float64[n, k] in [0, 1) from each robot's own
    stream for this tick, so a batched run reproduces the same run simulated alone.
    """

    def __init__(self, name: str, readings: dict, wheels, leds, robot_id, run, keys, clock):
        self.name = name
        self.wheels = wheels
        self.leds = leds
        self.robot_id = robot_id
        self.run = run
        self._keys = np.ascontiguousarray(keys[:, STREAM["controller"]])
        self._clock = clock
        self._draws = 0
        for k, v in readings.items():
            setattr(self, k, v)

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        raise AttributeError(f"group {self.name!r} has no reading {name!r}: enable it under "
                             f"[robots.sensors] in the experiment file")

    @property
    def n(self) -> int:
        return self.wheels.shape[0]

    @property
    def tick(self) -> int:
        return self._clock.tick

    @property
    def dt(self) -> float:
        return self._clock.dt

    def uniform(self, k: int = 1) -> np.ndarray:
        """float64[n, k] uniform draws; successive calls within a tick give fresh numbers."""
        # tick and draw counter together make the counter; each robot hashes its own key
        counter = self._clock.tick * 1024 + self._draws
        self._draws = (self._draws + 1) % 1024
        return uniform_array(self._keys, counter, k)

    def _new_tick(self) -> None:
        self._draws = 0
