"""A batched controller for the tests: every robot spins on the spot."""

from swarmstack import BatchedController


class Spin(BatchedController):
    def step(self, group):
        group.wheels[:, 0] = 0.05
        group.wheels[:, 1] = -0.05
