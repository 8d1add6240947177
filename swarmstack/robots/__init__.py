"""Robot types: one module each (geometry, devices and their parameters, wiring), registered
under the name experiment files use. See :mod:`swarmstack.robots.base` for the contract."""

from swarmstack.robots import epuck2  # noqa: F401  (registers "epuck2")
from swarmstack.robots import crazyflie  # noqa: F401  (registers "crazyflie")
from swarmstack.robots import rvr  # noqa: F401  (registers "rvr")
from swarmstack.robots.base import ROBOT_TYPES, RobotType, get, register

__all__ = ["ROBOT_TYPES", "RobotType", "get", "register"]
