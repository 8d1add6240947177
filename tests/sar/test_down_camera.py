"""The Crazyflie's downward camera (``sensors.down_camera``): which ground targets a drone sees,
its cone edge, order, misses, the script global, and bad options."""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from swarmstack.experiments.config import ConfigError
from swarmstack.sim.simulation import Simulation
from swarmstack.robots import epuck2
from swarmstack.sensors.down_camera import targets_table



def world(targets_xy, drone_z=2.0, camera=None, runs=1, drones_xy=((0.0, 0.0),)):
    cam = {"targets": ["victims"]} if camera is None else camera
    data = {
        "simulation": {"ticks_per_second": 10},
        "arena": {"size": [20.0, 20.0]},
        "robots": [
            {"name": "drones", "type": "crazyflie", "count": len(drones_xy),
             "placement": {"kind": "explicit", "poses": [[x, y, 0.0] for x, y in drones_xy]},
             "sensors": {"down_camera": cam}},
            {"name": "victims", "type": "epuck2", "count": len(targets_xy),
             "placement": {"kind": "explicit", "poses": [[x, y, 0.0] for x, y in targets_xy]}},
        ],
    }
    sim = Simulation.from_dict(data, runs=runs)
    g = sim.world.group("drones")
    sim.world.bodies.z[g.slice] = drone_z
    sim.sense()
    # None when the options switch the camera off (``enabled = false``): no readings then
    readings = next(x for x in sim.groups if x.name == "drones").readings.get("down_camera")
    return sim, readings


def edge(z, fov_deg=50.0):
    """Horizontal reach of the cone at a target's top, plus the target's radius."""
    return (z - epuck2.HEIGHT_M) * math.tan(math.radians(fov_deg) / 2) + epuck2.RADIUS_M


def test_sees_a_target_inside_the_cone_and_not_outside():
    r = edge(2.0)
    _, inside = world([(r - 0.01, 0.0)])
    _, outside = world([(r + 0.01, 0.0)])
    assert inside[0, 0, 0] == 1 and inside[0, 0, 1] == pytest.approx(r - 0.01)
    assert outside[0, 0, 0] == -1


def test_the_cone_widens_with_height_and_the_fov():
    r = edge(2.0)
    _, higher = world([(r + 0.2, 0.0)], drone_z=2.5)
    assert higher[0, 0, 0] == 1
    _, wide = world([(r + 0.2, 0.0)], camera={"targets": ["victims"], "fov": 70.0})
    assert wide[0, 0, 0] == 1


def test_a_drone_on_the_floor_sees_nothing():
    _, on_floor = world([(0.1, 0.0)], drone_z=0.0)
    assert (on_floor[:, :, 0] == -1).all()


def test_nearest_first_and_the_farthest_dropped_when_full():
    xy = [(0.6, 0.0), (0.0, 0.2), (-0.4, 0.0)]
    _, r = world(xy, camera={"targets": ["victims"], "max_targets": 2})
    assert r[0, :, 0].tolist() == [2, 3]     # ids: the drone is 0, targets 1, 2, 3


def test_each_run_sees_only_its_own_targets():
    sim, r = world([(0.2, 0.0)], runs=2)
    # run 1's target moved away: run 0's drone still sees its own, run 1's sees none
    t = sim.world.group("victims")
    sim.world.bodies.x[t.start + 1] = 5.0
    sim.sense()
    assert r[0, 0, 0] == 1 and r[1, 0, 0] == -1


def test_without_targets_it_sees_every_other_group():
    _, r = world([(0.1, 0.0)], camera={}, drones_xy=((0.0, 0.0), (0.05, 0.3)))
    # the other drone (same group, as high) is not a target; the ground robot is
    assert r[0, :, 0].tolist() == [2, -1, -1, -1]


def test_miss_one_never_sees_anything():
    _, r = world([(0.1, 0.0)], camera={"targets": ["victims"], "miss": 1.0})
    assert (r[:, :, 0] == -1).all()


def test_script_global_lists_the_seen_targets():
    _, r = world([(0.1, 0.0), (0.0, -0.3)])
    table = targets_table(r[0])
    assert table == {0: {"id": 1, "x": pytest.approx(0.1), "y": 0.0},
                     1: {"id": 2, "x": 0.0, "y": pytest.approx(-0.3)}}
    assert targets_table(np.full((4, 3), -1.0)) == {}


@pytest.mark.parametrize("camera, words", [
    ({"targets": "victims"}, "targets"),
    ({"targets": ["victims"], "fov": 0}, "fov"),
    ({"targets": ["victims"], "miss": 1.5}, "miss"),
    ({"targets": ["victims"], "colour": 1}, "colour"),
])
def test_bad_options_are_located_errors(camera, words):
    with pytest.raises(ConfigError) as exc:
        world([(0.1, 0.0)], camera=camera)
    assert "down_camera" in str(exc.value) and words in str(exc.value)


def test_an_unknown_target_group_is_a_located_error():
    with pytest.raises(ConfigError) as exc:
        world([(0.1, 0.0)], camera={"targets": ["ghosts"]})
    assert exc.value.problems == ["<experiment>: robots[0].sensors.down_camera: no robot group "
                                  "named 'ghosts' (groups: drones, victims)"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.sampled_from(["targets", "fov", "miss", "max_targets", "enabled",
                                        "other"]),
                       st.one_of(st.none(), st.booleans(), st.integers(-5, 100),
                                 st.floats(allow_nan=True), st.text(max_size=8),
                                 st.lists(st.text(max_size=8), max_size=3)),
                       max_size=5))
@example(camera={"enabled": False})
def test_any_options_build_or_give_a_config_error(camera):
    try:
        world([(0.1, 0.0)], camera=camera)
    except ConfigError as exc:
        assert all(p.startswith("<experiment>: ") for p in exc.problems)
