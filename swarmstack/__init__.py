"""swarmstack: fast swarm-robotics simulation, Buzz runtime and experiment tooling.

The pieces most users need are re-exported here::

    from swarmstack import Simulation, Controller, BatchedController
"""

__version__ = "0.1.0"

from swarmstack.controllers.api import BatchedController, Controller  # noqa: E402


def __getattr__(name):
    # the simulator pulls in Numba kernels: import it only when asked for
    if name == "Simulation":
        from swarmstack.sim.simulation import Simulation

        return Simulation
    raise AttributeError(name)
