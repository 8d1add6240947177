"""``examples/crazyflie_follow_led.toml``: a Crazyflie follows an E-Puck2's LEDs with its AI-deck
camera — it finds the robot, keeps it about 60 cm ahead while the robot drives its circle, and
without the LEDs it finds nothing to follow."""

import math
from pathlib import Path

import numpy as np
import pytest

from swarmstack.sim.simulation import Simulation

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "crazyflie_follow_led.toml"
CARRIER = {"speed": 0.06, "radius": 1.0}


def _fly(ticks, params=None):
    """Run the example; per tick: carrier x, y, drone x, y, z, blobs the drone sees."""
    sim = Simulation.from_file(EXAMPLE, params=params)
    sim.start()
    b = sim.world.bodies
    c = sim.group("carrier").slice.start
    d = sim.group("drone").slice.start
    rows = []
    for _ in range(ticks):
        sim.step()
        cam = sim.readings("drone")["camera"][0]
        rows.append((b.x[c], b.y[c], b.x[d], b.y[d], b.z[d], int((cam[:, 0] >= 0).sum())))
    return np.array(rows)


@pytest.fixture(scope="module")
def flight():
    return _fly(1200)   # the example's 2 minutes


def test_drone_finds_and_keeps_the_robot_in_view(flight):
    blobs = flight[:, 5]
    first = int(np.argmax(blobs > 0))
    assert blobs[0] == 0 and 0 < first < 150          # starts facing away, finds it turning
    assert (blobs[first:] > 0).all()                  # never loses it afterwards


def test_drone_follows_at_the_set_distance(flight):
    cx, cy, dx, dy, dz = flight[:, :5].T
    dist = np.hypot(dx - cx, dy - cy)
    late = slice(300, None)                           # after 30 s
    assert np.all((dist[late] > 0.5) & (dist[late] < 0.8))
    assert abs(np.median(dist[late]) - 0.6) < 0.1
    assert np.all(np.abs(dz[late] - 0.25) < 0.01)     # holds its height
    # it really flies after the robot: a long path, around the circle's centre
    path = np.hypot(np.diff(dx), np.diff(dy)).sum()
    assert path > 3.0
    turn = np.unwrap(np.arctan2(dy[late], dx[late]))
    assert turn[-1] - turn[0] > math.pi               # more than half a turn, counter-clockwise


def test_without_leds_nothing_is_followed():
    rows = _fly(600, params=[{"carrier": {**CARRIER, "color": [0, 0, 0]}}])
    cx, cy, dx, dy, dz, blobs = rows.T
    assert (blobs == 0).all()
    assert np.hypot(dx - dx[100], dy - dy[100]).max() < 0.05   # hovers where it rose
    assert np.hypot(dx - cx, dy - cy)[-1] > 1.0
