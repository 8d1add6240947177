"""swarmstack: fast swarm-robotics simulation, Buzz runtime and experiment tooling.

The pieces most users need are re-exported here::

    from swarmstack import Simulation, Controller, BatchedController
"""

__version__ = "0.1.0"

from swarmstack.entry_points import defer_metadata  # noqa: E402
from swarmstack.jit import prepare_on_import, quiet_numba_import  # noqa: E402
from swarmstack.kernel_stamps import install as stamp_kernels_with_imports  # noqa: E402
from swarmstack.threads import single_thread_blas  # noqa: E402

defer_metadata()
stamp_kernels_with_imports()
quiet_numba_import()
prepare_on_import()
single_thread_blas()

from swarmstack.controllers.api import BatchedController, Controller  # noqa: E402


def __getattr__(name):
    # the simulator pulls in Numba kernels: import it only when asked for
    if name == "Simulation":
        from swarmstack.experiments.simulation import Simulation

        return Simulation
    raise AttributeError(name)
