"""``arena.grid_cell``: coarser grid cells change the cost of contacts, not the physics."""

import numpy as np
import pytest

from swarmstack import BatchedController
from swarmstack.experiments.config import ConfigError
from swarmstack.sim.simulation import Simulation
from swarmstack.world.scene import GRID_CELL_M


class Straight(BatchedController):
    """Every robot drives straight ahead, one wheel a little faster: they pile into each other
    and the walls."""

    def step(self, group):
        group.wheels[:, 0] = 0.10
        group.wheels[:, 1] = 0.08


def crowd(cell=None):
    arena = {"size": [1.0, 1.0], "walls": True}
    if cell is not None:
        arena["grid_cell"] = cell
    return {
        "simulation": {"ticks_per_second": 10, "seed": 4},
        "arena": arena,
        "robots": [{"name": "e", "type": "epuck2", "count": 25,
                    "controller": {"python": "tests/sar/test_grid_cell.py:Straight"},
                    "sensors": {"proximity": True}}],
    }


def test_coarser_cells_same_motion():
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    fine = Simulation.from_dict(crowd(), base_dir=root, runs=2)
    coarse = Simulation.from_dict(crowd(0.5), base_dir=root, runs=2)
    assert fine.world.scene.grid[2] == GRID_CELL_M and coarse.world.scene.grid[2] >= 0.5
    fine.run(200)
    coarse.run(200)
    # a crowded, walled square: contacts and proximity readings every tick
    assert min(fine.collisions()) > 0 and coarse.collisions() == fine.collisions()
    np.testing.assert_allclose(coarse.world.bodies.pose, fine.world.bodies.pose, atol=1e-9)


@pytest.mark.parametrize("cell", [0, -1.0, "wide"])
def test_bad_grid_cell_is_a_located_error(cell):
    with pytest.raises(ConfigError) as exc:
        Simulation.from_dict(crowd(cell), source="f.toml")
    assert exc.value.problems[0].startswith("f.toml: arena")
    assert "grid_cell" in exc.value.problems[0]
