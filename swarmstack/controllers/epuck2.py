"""What an E-Puck2 controller sees: typed interfaces for editors and type checkers.

These Protocols describe the objects passed to controllers of an ``epuck2`` group — the same
names and units as the real robot's readings — so a controller can be annotated::

    from swarmstack.controllers.epuck2 import EPuck2

    class Avoid(Controller):
        def step(self, robot: EPuck2) -> None: ...

A reading exists only when its sensor is enabled in the experiment file; reading a disabled
one raises an error that says how to enable it.
"""

from __future__ import annotations

from typing import Annotated, Protocol

import numpy as np

from swarmstack.controllers.protocols import AnyGroup, AnyRobot, Array


class EPuck2(AnyRobot, Protocol):
    """One E-Puck2 (per-robot controllers)."""

    # 0 (nothing within 5 cm) … 4095 (touching)
    proximity: Annotated[np.ndarray, Array("int32", (8,))]
    # 4095 (dark) … 0 (saturated)
    light: Annotated[np.ndarray, Array("int32", (8,))]
    # 0 (black) … 1023 (white); right, middle, left
    ground: Annotated[np.ndarray, Array("int32", (3,))]
    # 20 … 2000 mm straight ahead
    tof_mm: Annotated[np.ndarray, Array("int32", ())]
    # left, right steps, 1000 per revolution, wrapping int16
    encoders: Annotated[np.ndarray, Array("int32", (2,))]
    # column px, row px, r, g, b; unused rows −1
    camera: Annotated[np.ndarray, Array("float64", ("B", 5))]
    # charge 0 … 1
    battery: Annotated[np.ndarray, Array("float64", ())]
    # x, y, z (m), roll, pitch, yaw (rad) (positioning)
    pose: Annotated[np.ndarray, Array("float64", (6,))]
    # wheel speeds (cm/s), distances covered in the last tick (cm), axis length (cm)
    differential_steering: Annotated[np.ndarray, Array("float64", (5,))]

    def set_wheels(self, left_m_s: float, right_m_s: float) -> None: ...

    def set_led(self, index: int, *rgb) -> None: ...

    def set_leds(self, *rgb) -> None: ...

    def goto(self, x_m: float, y_m: float) -> None: ...  # velocity vector, robot frame (m/s)


class EPuck2Group(AnyGroup, Protocol):
    """Every E-Puck2 of a group, across all runs of a batch (batched controllers)."""

    wheels: Annotated[np.ndarray, Array("float64", ("n", 2))]   # commands (m/s)
    leds: Annotated[np.ndarray, Array("uint8", ("n", 10, 3))]   # commands
    proximity: Annotated[np.ndarray, Array("int32", ("n", 8))]
    light: Annotated[np.ndarray, Array("int32", ("n", 8))]
    ground: Annotated[np.ndarray, Array("int32", ("n", 3))]
    tof_mm: Annotated[np.ndarray, Array("int32", ("n",))]
    encoders: Annotated[np.ndarray, Array("int32", ("n", 2))]
    camera: Annotated[np.ndarray, Array("float64", ("n", "B", 5))]
    battery: Annotated[np.ndarray, Array("float64", ("n",))]
    pose: Annotated[np.ndarray, Array("float64", ("n", 6))]
    differential_steering: Annotated[np.ndarray, Array("float64", ("n", 5))]
