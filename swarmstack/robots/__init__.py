"""Robot types: one module each, holding geometry, devices and their parameters."""

from swarmstack.robots import epuck2

ROBOT_TYPES = {"epuck2": epuck2}
