"""The Buzz swarm layer: neighbours, swarms and virtual stigmergy over an abstract radio.

``messages`` (wire format) -> ``outqueue`` (priorities, payload cap) -> ``radio`` (the medium's
contract) / ``topology`` (an in-memory medium) -> ``stigmergy``, ``swarms``, ``neighbors`` (state
and Buzz-facing tables) -> ``service`` (one robot's swarm layer) -> ``robot`` (one robot's control
step, shared with the simulator) -> ``harness`` (N robots in lockstep).
Nothing here imports the simulator.
"""

from .harness import Harness, RobotResult, SwarmRun, run_swarm
from .radio import NullRadio, Radio, Reception
from .robot import DEFAULT_DISTANCE_UNIT, DISTANCE_UNITS, BuzzRobot
from .service import SwarmService
from .topology import InMemoryRadio, Topology, make_topology

__all__ = [
    "Harness", "RobotResult", "SwarmRun", "run_swarm", "NullRadio", "Radio", "Reception",
    "SwarmService", "InMemoryRadio", "Topology", "make_topology", "BuzzRobot",
    "DEFAULT_DISTANCE_UNIT", "DISTANCE_UNITS",
]
