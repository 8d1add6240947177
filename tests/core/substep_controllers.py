"""Controllers of the batch sub-step tests (importable as tests.core.substep_controllers:Name)."""

import numpy as np

from swarmstack import BatchedController


class RunWheels(BatchedController):
    """Wheel speeds (m/s) from each run's parameters ``left`` and ``right``, plus a random
    ``wobble`` per robot and tick drawn from the robot's own stream."""

    def step(self, group):
        base = np.stack([group.param("left"), group.param("right")], axis=1)
        group.wheels[:] = base + (group.uniform(2) * 2.0 - 1.0) * group.param("wobble")[:, None]
