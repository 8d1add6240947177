"""The RVR examples do what their files claim."""

from pathlib import Path

import numpy as np

from swarmstack.sim.simulation import Simulation

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_floor_image_is_what_its_script_draws():
    from PIL import Image

    import importlib.util

    spec = importlib.util.spec_from_file_location("rvr_floor", EXAMPLES / "rvr_floor.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    with Image.open(EXAMPLES / "rvr_floor.png") as img:
        assert np.array_equal(np.asarray(img.convert("RGB")), mod.floor())


def test_swarm_aggregates_on_the_red_spot():
    sim = Simulation.from_file(EXAMPLES / "rvr_aggregation.toml")
    sim.run(3000)
    b = sim.world.bodies
    ground = sim.readings("rvr")["reference"]["ground"]
    on_red = np.all(ground == (255, 0, 0), axis=1)
    assert on_red.sum() >= 6
    # those on red have stopped there for good: the spot is centred at (0.7, 0.6), r = 0.6 m
    assert np.all(np.hypot(b.x[on_red] - 0.7, b.y[on_red] - 0.6) < 0.6 + 0.2)
    before = b.x.copy()
    sim.run(50)
    assert np.array_equal(b.x[on_red], before[on_red])


def test_lidar_walkers_travel_without_touching_anything():
    sim = Simulation.from_file(EXAMPLES / "rvr_lidar_walk.toml")
    b = sim.world.bodies
    path = np.zeros(b.n)
    closest = np.full(b.n, np.inf)
    for _ in range(600):
        px, py = b.x.copy(), b.y.copy()
        sim.step()
        path += np.hypot(b.x - px, b.y - py)
        lid = sim.readings("walkers")["lidar"]
        closest = np.minimum(closest, np.where(lid == 0.0, 0.0, lid).min(axis=1))
    assert np.all(path > 8.0)          # 60 s at up to 0.3 m/s, minus the turns
    assert np.all(closest > 0.12)      # never up against a wall, an obstacle or a robot


def _nearest_neighbour(b, sl):
    d = np.hypot(b.x[sl, None] - b.x[None, :], b.y[sl, None] - b.y[None, :])
    d[d == 0] = np.inf
    return d.min(axis=1).mean()


def test_one_reference_controller_gathers_with_either_neighbour_path():
    sim = Simulation.from_file(EXAMPLES / "rvr_reference_paths.toml")
    b = sim.world.bodies
    cam, lid = sim.groups[0].slice.slice, sim.groups[1].slice.slice
    start = _nearest_neighbour(b, cam), _nearest_neighbour(b, lid)
    sim.run(600)
    # the clusters have formed by then (seeds 0–9: each group's mean nearest-neighbour
    # distance ends at 0.44–0.70 of its start, and stays there)
    assert _nearest_neighbour(b, cam) < 0.75 * start[0]
    assert _nearest_neighbour(b, lid) < 0.75 * start[1]
    rec = sim.readings("lidar")["reference"]
    assert np.array_equal(rec["neighbours"], rec["lidar_count"])
    assert np.all(sim.readings("camera")["reference"]["neighbours"]
                  == sim.readings("camera")["reference"]["camera_count"])
