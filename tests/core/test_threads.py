"""Whole simulations give the same bits on one thread and on two.

The parallel forms of the kernels (``swarmstack.sim.threads``) are forced on small scenes with
``set_parallel_min(1)``, in chunks of a few robots (``set_chunk_max``); each scene is then compared, tick by tick, with the same scene on one
thread (poses, every reading, every radio reception) and, for the recorded golden scenes, with
the recording (made on one thread).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from swarmstack import BatchedController, Controller
from swarmstack.sim import threads
from swarmstack.cli import app
from swarmstack.sim.simulation import Simulation
from swarmstack.robots.epuck2 import RADIUS_M as EPUCK2_RADIUS_M
from tests.core.golden.scenes import fingerprint, scenes

DATA = Path(__file__).parent / "golden" / "data"
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def restored_threads():
    """Every test leaves the process's thread settings as it found them."""
    with threads.using(threads.threads()):
        yield


class Crowd(BatchedController):
    """Random wheel speeds (up to the motors' maximum and beyond) and random LED colours."""

    def step(self, group):
        group.wheels[:] = (group.uniform(2) * 2.0 - 0.6) * 0.2
        group.leds[:] = (group.uniform(3) * 255).astype("uint8")[:, None, :]


class Treads(Controller):
    """An RVR driving into whatever is ahead, turning now and then; says its id on the radio."""

    def step(self, robot):
        turn = 0.3 if (robot.tick // 15 + robot.id) % 3 == 0 else 0.0
        robot.set_wheels(0.5 - turn, 0.5 + turn)
        robot.send(bytes([robot.id % 256]))


class Hops(Controller):
    """A Crazyflie taking off, then flying by a pseudo-random step every few ticks."""

    def step(self, robot):
        if robot.tick == 0:
            robot.takeoff(0.3 + 0.05 * (robot.id % 3))
        elif robot.tick > 15 and robot.tick % 7 == robot.id % 7:
            a = 0.7 * robot.id + 0.3 * robot.tick
            robot.move_by(0.4 * np.cos(a), 0.4 * np.sin(a), 0.0)


CROWD = {
    "simulation": {"ticks_per_second": 10, "seed": 9},
    "arena": {"size": [2.4, 2.4], "walls": {"thickness": 0.02, "height": 0.2}},
    "boxes": [{"center": [0.4, -0.3], "size": [0.3, 0.08, 0.1], "yaw": 0.5}],
    "cylinders": [{"center": [-0.4, 0.4], "radius": 0.1, "height": 0.1}],
    "lights": [{"position": [0.0, 0.0, 0.1]}, {"position": [0.6, 0.6, 0.1], "color": "red"}],
    "floor": {"regions": [{"color": "black", "ring": [0, 0, 0.4, 0.5]}], "resolution": 0.01},
    "radio": {"robots_occlude": True},
    "robots": [
        {"name": "rvrs", "type": "rvr", "count": 5,
         "sensors": {"lidar": {"noise_width": 0.01}, "ground_color": True, "proximity": True,
                     "light": True, "accelerometer": True, "gyroscope": True, "imu": True,
                     "locator": True, "quaternion": True, "velocity": True,
                     "fixed_color": True},
         "radio": {"range": 0.8, "payload_bytes": 4},
         "controller": {"python": "tests.core.test_threads:Treads"}},
        {"name": "drones", "type": "crazyflie", "count": 5,
         "sensors": {"positioning": {"position_noise": 0.01}, "battery": True},
         "radio": {"range": 1.0, "payload_bytes": 4},
         "controller": {"python": "tests.core.test_threads:Hops"}},
        {"name": "pucks", "type": "epuck2", "count": 45,
         "sensors": {"proximity": {"noise": "uniform", "level": 0.05},
                     "light": {"noise": "gaussian", "level": 0.02},
                     "ground": {"noise": "uniform", "level": 0.03},
                     "tof": {"noise": "gaussian", "level": 0.01},
                     "encoders": {"noise": "uniform", "level": 0.0001},
                     "camera": {"noise": "uniform", "level": 0.5},
                     "battery": {"model": "cubic"}},
         "wheels": {"noise": "gaussian", "level": 0.05},
         "radio": {"range": 0.5, "payload_bytes": 4, "drop": 0.2, "range_noise": 0.01,
                   "bearing_noise": 0.05},
         "controller": {"python": "tests.core.test_threads:Crowd"}},
    ],
}


# chunks of a few robots: small scenes then cross the parallel kernels' chunk boundaries
CHUNK_MAX = 7
PUCKS = slice(10, 55)  # rows of the E-Puck2s in a one-run world (groups in file order)


def _trace(n_threads: int, ticks: int = 60, runs: int = 3) -> list[dict[str, np.ndarray]]:
    """Every tick's poses, readings and radio receptions of the crowd scene."""
    with threads.using(n_threads, parallel_min=1, chunk_max=CHUNK_MAX):
        sim = Simulation.from_dict(CROWD, base_dir=ROOT, runs=runs)
        sim.start()
        out = []
        for t in range(ticks + 1):
            if t:
                sim.step()
            b = sim.world.bodies
            frame = {"pose": b.pose.copy()}
            for g in sim.groups:
                for name, arr in g.readings.items():
                    frame[f"{g.slice.name}.{name}"] = np.array(arr, copy=True)
            inbox = sim.medium.inbox
            for field in ("start", "sender", "distance_m", "azimuth_rad", "elevation_rad"):
                frame[f"inbox.{field}"] = np.array(getattr(inbox, field), copy=True)
            out.append(frame)
        return out


def test_crowd_is_bit_identical_on_one_and_two_threads():
    one, two = _trace(1), _trace(2)
    for t, (a, b) in enumerate(zip(one, two)):
        assert sorted(a) == sorted(b)
        for key in a:
            assert np.array_equal(a[key], b[key], equal_nan=a[key].dtype.kind == "f"), \
                f"tick {t}: {key} differs"
    # the scene did what it is for: robots pressed against each other and against walls,
    # and the radio delivered
    assert sum(len(f["inbox.sender"]) for f in one) > 1000
    # some body's edge came within a centimetre of the walls' inner faces (1.18 m out)
    reach = max(float(np.abs(f["pose"][:2, PUCKS]).max()) for f in one) + EPUCK2_RADIUS_M
    assert reach > 1.17


def test_crowd_collides():
    """Bodies of one run come into contact (centres one E-Puck2 diameter apart) and are held
    apart: the contact pass really had work to do."""
    frames = _trace(2, ticks=40, runs=1)
    r = EPUCK2_RADIUS_M
    touching = 0
    for f in frames[1:]:
        x, y = f["pose"][0][PUCKS], f["pose"][1][PUCKS]
        d = np.hypot(x[:, None] - x[None, :], y[:, None] - y[None, :])
        d[np.diag_indices(45)] = np.inf
        assert d.min() > 2 * r - 2e-4
        touching += int((d < 2 * r + 1e-3).sum())
    assert touching > 0


# recorded scenes covering E-Puck2 (every sensor, a batch of runs, the radio, Buzz), the
# Crazyflie and the RVR; each recording was made on one thread
PARALLEL_SCENES = ("all_sensors_batch3", "crazyflie_formation", "crazyflie_follow_led",
                   "epuck2_rab_aggregation", "mixed_swarm", "rvr_aggregation", "rvr_lidar_walk")


@pytest.mark.parametrize("name", PARALLEL_SCENES)
def test_recorded_scene_on_two_threads(name):
    recorded = np.load(DATA / f"{name}.npz")
    with threads.using(2, parallel_min=1, chunk_max=CHUNK_MAX):
        now = fingerprint(scenes()[name])
    for key in sorted(recorded.files):
        same = (str(now[key]) == str(recorded[key]) if key.startswith("sha:")
                else np.array_equal(now[key], recorded[key]))
        assert same, f"{name}: {key} differs on two threads"


def test_go_parallel_follows_the_settings():
    with threads.using(1, parallel_min=1):
        assert not threads.go_parallel(10 ** 6)
    with threads.using(2):
        assert not threads.go_parallel(10, min_items=100)
        assert threads.go_parallel(100, min_items=100)
        threads.set_parallel_min(5)
        assert threads.go_parallel(10, min_items=100)
        # what parallel_min() reported before any override puts every kernel's own back
        threads.set_parallel_min(threads.PARALLEL_MIN_ITEMS)
        assert not threads.go_parallel(1000, min_items=2000)
        assert threads.go_parallel(2000, min_items=2000)


def test_a_group_below_its_kernels_own_minimum_stays_serial_on_two_threads():
    with threads.using(2):
        assert not threads.go_parallel(200, min_items=131_072)   # e.g. the wheels
        assert threads.go_parallel(200, min_items=100)
        seen = threads.generation
        threads.set_threads(2)        # the same settings again: nothing to bind anew
        assert threads.generation == seen
        threads.set_parallel_min(1)   # every kernel parallel: what was bound is redone
        assert threads.generation != seen
        assert threads.go_parallel(200, min_items=131_072)
    with threads.using(1, parallel_min=1):
        assert not threads.go_parallel(10 ** 6, min_items=1)


@pytest.mark.parametrize("n_threads", [1, 2, 4])
@pytest.mark.parametrize("items", [1, 63, 64, 513, 10_000, 100_001])
def test_work_is_spread_over_a_few_chunks_per_thread(n_threads, items):
    smallest = 64
    with threads.using(n_threads):
        size = threads.spread(items, smallest)
        chunks = -(-items // size)
        assert size >= smallest
        # at most CHUNKS_PER_THREAD chunks a thread, and no fewer unless chunks hit the minimum
        assert chunks <= n_threads * threads.CHUNKS_PER_THREAD
        if size > smallest:
            assert chunks > (n_threads * threads.CHUNKS_PER_THREAD) // 2
    with threads.using(2, chunk_max=5):  # the tests' small chunks win over the spread
        assert threads.spread(items, smallest) == 5


def test_per_worker_share():
    assert threads.per_worker(2, total=2) == 1
    assert threads.per_worker(3, total=8) == 2
    assert threads.per_worker(4, total=2) == 1
    assert threads.per_worker(1, total=6) == 6


def test_environment_variable(monkeypatch):
    monkeypatch.setenv("SWARMSTACK_THREADS", "3")
    assert threads.set_threads(None) == 3
    assert threads.threads() == 3
    assert threads.set_threads(1) == 1   # an explicit count wins
    monkeypatch.setenv("SWARMSTACK_THREADS", "0")
    assert threads.set_threads(None) == threads.machine_threads()
    for bad in ("two", "-1", "1.5"):
        monkeypatch.setenv("SWARMSTACK_THREADS", bad)
        with pytest.raises(ValueError, match="SWARMSTACK_THREADS"):
            threads.set_threads(None)


@pytest.mark.parametrize("bad", [-1, 1.5, True, "2"])
def test_invalid_counts_are_refused(bad):
    with pytest.raises(ValueError, match="threads"):
        threads.set_threads(bad)


runner = CliRunner()
EXPERIMENT = ROOT / "examples" / "epuck2_diffusion.toml"


def test_cli_threads_flag(tmp_path):
    result = runner.invoke(app, ["run", str(EXPERIMENT), "--out", str(tmp_path / "a"),
                                 "--ticks", "3", "--quiet", "--threads", "1"])
    assert result.exit_code == 0, result.output
    assert threads.threads() == 1
    result = runner.invoke(app, ["run", str(EXPERIMENT), "--out", str(tmp_path / "b"),
                                 "--ticks", "3", "--quiet", "--threads", "0"])
    assert result.exit_code == 0, result.output
    assert threads.threads() == threads.machine_threads()


def test_cli_refuses_bad_counts(tmp_path, monkeypatch):
    result = runner.invoke(app, ["run", str(EXPERIMENT), "--out", str(tmp_path / "a"),
                                 "--quiet", "--threads", "-2"])
    assert result.exit_code == 2
    assert "--threads" in result.output
    assert "Traceback" not in result.output
    monkeypatch.setenv("SWARMSTACK_THREADS", "many")
    for args in (["run", str(EXPERIMENT), "--out", str(tmp_path / "b"), "--quiet"],
                 ["reproduce", "epuck2-tof", "--out", str(tmp_path / "c")]):
        result = runner.invoke(app, args)
        assert result.exit_code == 2, result.output
        assert "SWARMSTACK_THREADS" in result.output
        assert "Traceback" not in result.output
        assert not (tmp_path / "b").exists()


def test_cli_environment_variable(tmp_path, monkeypatch):
    monkeypatch.setenv("SWARMSTACK_THREADS", "1")
    result = runner.invoke(app, ["run", str(EXPERIMENT), "--out", str(tmp_path / "a"),
                                 "--ticks", "3", "--quiet"])
    assert result.exit_code == 0, result.output
    assert threads.threads() == 1


@pytest.mark.parametrize("command", ["run", "sweep", "design", "reproduce"])
def test_every_simulating_command_has_the_flag(command):
    result = runner.invoke(app, [command, "--help"], env={"COLUMNS": "200"})
    assert "--threads" in result.output


def _put_back_in_order(x, y, yaw, z, prev_x, prev_y, prev_yaw, shape, radius, half_x, half_y,
                       height, run, n_runs, boxes, cylinders, bounds, gparams, static):
    """The contact pass's last resort written plainly: bodies in index order, each tested
    after the put-backs before it, rounds until none is put back."""
    from swarmstack.geometry.grid import build_grid
    from swarmstack.geometry.overlap import SHAPE_BOX
    from swarmstack.physics.contacts import _overlaps

    n = len(x)
    mobile = (x != prev_x) | (y != prev_y) | ((shape == SHAPE_BOX) & (yaw != prev_yaw))
    reverted = np.zeros(n, dtype=bool)
    scratch = np.empty(n, dtype=np.int64)
    max_r = float(radius.max())
    for _ in range(n + 1):
        cell_start, order = build_grid(gparams, x, y, run, n_runs)
        changed = False
        for i in range(n):
            if reverted[i] or not mobile[i]:
                continue
            if _overlaps(i, x, y, yaw, z, shape, radius, half_x, half_y, height, run, boxes,
                         cylinders, bounds, gparams, cell_start, order, max_r, *static,
                         scratch):
                x[i], y[i] = prev_x[i], prev_y[i]
                if shape[i] == SHAPE_BOX:
                    yaw[i] = prev_yaw[i]
                reverted[i] = changed = True
        if not changed:
            return int(reverted.sum())
    return int(reverted.sum())


@pytest.mark.parametrize("n_threads, chunk_max", [(1, None), (2, None), (2, 5)])
def test_put_backs_are_those_of_the_in_order_pass(n_threads, chunk_max):
    """Bodies jostled into each other, the walls and the obstacles (no Jacobi iteration, so
    every overlap reaches the last resort): the bodies put back, and where every body ends,
    are those of the plain in-order pass."""
    from swarmstack.physics.contacts import resolve_bodies

    sim = Simulation.from_dict(CROWD, base_dir=ROOT, runs=2)
    sim.start()
    sim.run(5)
    w, b = sim.world, sim.world.bodies
    rng = np.random.default_rng(4)
    prev = b.pose.copy()
    new = prev.copy()
    new[0] += rng.normal(0.0, 0.04, b.n)
    new[1] += rng.normal(0.0, 0.04, b.n)
    new[5] += rng.normal(0.0, 0.3, b.n)
    fixed = (b.z, prev[0], prev[1], prev[5], b.shape, b.radius, b.half_x, b.half_y, b.height,
             b.run, w.scene.n_runs, w.scene.arena.boxes, w.scene.arena.cylinders,
             w.scene.bounds, w.scene.grid)
    ref = new.copy()
    blocked_ref = _put_back_in_order(ref[0], ref[1], ref[5], *fixed, w.scene.static)
    assert blocked_ref > 20  # the scene is what the test is for
    got = new.copy()
    x, y, yaw = got[0], got[1], got[5]
    with threads.using(n_threads, parallel_min=1, chunk_max=chunk_max):
        chunk = threads.chunk(256) if threads.go_parallel(b.n) else 0
        blocked, _, _ = resolve_bodies(x, y, yaw, *fixed, *w.scene.static, w.cell_start,
                                       w.order, 0, chunk)
    assert blocked == blocked_ref
    assert np.array_equal(got, ref)


@pytest.mark.parametrize("total, workers, each", [(4, 2, 2), (2, 2, 1), (3, 2, 1)])
def test_worker_processes_share_the_threads(total, workers, each):
    from swarmstack.studies.executors import make_executor

    with threads.using(total):
        with make_executor(workers=workers) as ex:
            counts = [ex.submit(threads.threads).result() for _ in range(2 * workers)]
    assert counts == [each] * (2 * workers)


def test_one_worker_runs_in_process_on_every_thread():
    from swarmstack.studies.executors import make_executor

    with threads.using(2):
        with make_executor(workers=1) as ex:
            assert ex.submit(threads.threads).result() == 2
