"""Robot types: one module each (geometry, devices and their parameters, wiring), registered
under the name experiment files use. See :mod:`swarmstack.robots.base` for the contract; the
built-in types are imported when first looked up (:class:`~swarmstack.robots.base.Registry`)."""

from swarmstack.robots.base import ROBOT_TYPES, RobotType, get, register

__all__ = ["ROBOT_TYPES", "RobotType", "get", "register"]
