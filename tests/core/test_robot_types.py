"""The robot-type contract: a second type (tests/core/robot_types/hoverbox.py) is one module
plus registration; it runs next to E-Puck2s in one experiment with its own dynamics, commands,
devices, options and host API; bodies are 3-D (a box above others passes over them)."""

import math

import numpy as np
import pytest

from swarmstack import Simulation
from swarmstack.experiments.config import ConfigError, parse_experiment
from swarmstack.robots import ROBOT_TYPES
from tests.core.robot_types import hoverbox


def _cfg(hover=None, epuck=None, arena=2.0):
    hover = {"name": "boxes", "type": "hoverbox", "count": 2,
             "controller": {"python": "tests.core.controllers:Drive",
                            "params": {"velocity": [0.2, 0.0, 0.0, 0.0]}},
             **(hover or {})}
    groups = [hover]
    if epuck is not None:
        groups.append({"name": "pucks", "type": "epuck2", **epuck})
    return {"simulation": {"ticks_per_second": 10},
            "arena": {"size": [arena, arena], "walls": {"thickness": 0.02, "height": 0.1}},
            "robots": groups}


def test_registered_type_is_usable_by_name():
    assert ROBOT_TYPES["hoverbox"] is hoverbox.HOVERBOX
    sim = Simulation.from_dict(_cfg(), seed=1)
    b = sim.world.bodies
    assert np.all(b.is_box)
    assert np.allclose(b.half_x, 0.10) and np.allclose(b.half_y, 0.05)
    x0, y0, yaw0 = b.x.copy(), b.y.copy(), b.yaw.copy()
    sim.step()
    # 0.2 m/s forward in the body frame for 0.1 s: 2 cm along each box's heading
    assert np.allclose(b.x - x0, 0.02 * np.cos(yaw0))
    assert np.allclose(b.y - y0, 0.02 * np.sin(yaw0))


def test_sideways_motion_is_holonomic():
    cfg = _cfg({"count": 1, "placement": {"kind": "explicit", "poses": [[0, 0, 0]]},
                "controller": {"python": "tests.core.controllers:Drive",
                               "params": {"velocity": [0.0, 0.1, 0.0, 0.0]}}})
    sim = Simulation.from_dict(cfg)
    sim.run(5)
    b = sim.world.bodies
    assert abs(b.x[0]) < 1e-12 and b.y[0] == pytest.approx(0.05) and b.yaw[0] == 0.0


def test_box_stops_at_the_wall_with_its_corners_inside():
    cfg = _cfg({"count": 1, "placement": {"kind": "explicit", "poses": [[0, 0, 0.5]]},
                "controller": {"python": "tests.core.controllers:Drive",
                               "params": {"velocity": [0.4, 0.0, 0.0, 0.3]}}}, arena=1.0)
    sim = Simulation.from_dict(cfg)
    b = sim.world.bodies
    for _ in range(120):
        sim.step()
        c, s = math.cos(b.yaw[0]), math.sin(b.yaw[0])
        for sx, sy in ((1, 1), (1, -1), (-1, 1), (-1, -1)):
            cx = b.x[0] + c * sx * 0.10 - s * sy * 0.05
            cy = b.y[0] + s * sx * 0.10 + c * sy * 0.05
            assert abs(cx) <= 0.48 + 1e-6 and abs(cy) <= 0.48 + 1e-6  # inside the walls


def _crossing(vz):
    """A box starting 0.3 m left of an E-Puck2 and driving through where it stands."""
    cfg = _cfg({"count": 1, "placement": {"kind": "explicit", "poses": [[-0.3, 0, 0]]},
                "controller": {"python": "tests.core.controllers:Drive",
                               "params": {"velocity": [0.2, 0.0, vz, 0.0]}}},
               {"placement": {"kind": "explicit", "poses": [[0, 0, 0]]}})
    sim = Simulation.from_dict(cfg)
    b = sim.world.bodies
    for t in range(30):
        if t == 5:  # once it has risen, level off
            sim.groups[0].controllers[0].v[2] = 0.0
        sim.step()
    return b


def test_a_box_above_an_epuck_passes_over_it():
    b = _crossing(vz=0.4)  # 0.2 m up in 5 ticks: well above the E-Puck2's 4.5 cm
    assert b.z[0] == pytest.approx(0.2)
    assert b.x[0] == pytest.approx(-0.3 + 0.2 * 3.0)      # never held back
    assert b.x[1] == 0.0 and b.y[1] == 0.0                # the E-Puck2 was not pushed


def test_a_box_at_the_same_height_collides():
    b = _crossing(vz=0.0)
    gap = b.x[1] - b.x[0]
    assert b.z[0] == 0.0
    # either it was stopped short of the E-Puck2 or pushed it: it never overlaps it
    assert gap >= 0.10 + 0.035 - 1e-6


def test_mixed_types_share_a_world_and_log_z(tmp_path):
    from swarmstack.experiments.results_writer import read_table
    from swarmstack.experiments.runner import run_experiment

    cfg = parse_experiment({**_cfg({}, {"count": 3, "sensors": {"encoders": True},
                                        "controller": {"python":
                                                       "tests.core.controllers:Spin"}}),
                            "output": {"velocities": True}})
    run_experiment(cfg, tmp_path, ticks=20, runs=2)
    t = read_table(tmp_path / "trajectories")
    assert {"x", "y", "z", "yaw", "vx", "vy", "vz"} <= set(t)
    boxes = t["group_name"] == "boxes"
    assert np.array_equal(boxes, t["group_index"] == 0)
    assert set(t["group_name"][~boxes]) == {"pucks"}
    assert np.allclose(t["time_s"], t["tick"] * 0.1)
    moving = boxes & (t["tick"] > 0)
    speed = np.hypot(t["vx"][moving], t["vy"][moving])
    assert np.all(speed <= 0.2 + 1e-9) and np.median(speed) == pytest.approx(0.2)
    assert np.all(t["vx"][~boxes & (t["tick"] > 0)] == 0.0)  # spinning E-Puck2s stay put


@pytest.mark.parametrize("change, expected", [
    ({"sensors": {"lidar": True}},
     "robots[0].sensors.lidar: hoverbox has no lidar; it has proximity"),
    ({"wheels": {"noise": "uniform", "level": 0.1}},
     "robots[0].wheels: unknown key"),
    ({"velocity": {"max_speed": -1}},
     "robots[0].velocity.max_speed: expected greater than 0"),
    ({"type": "hovercraft"},
     "robots[0].type: unknown robot type 'hovercraft'; registered:"),
    ({"sensors": {"proximity": {"noise": "loud"}}},
     "robots[0].sensors.proximity.noise: expected 'none', 'uniform' or 'gaussian'"),
])
def test_options_are_checked_against_the_type(change, expected):
    with pytest.raises(ConfigError) as err:
        parse_experiment(_cfg(change), "exp.toml")
    assert any(p.startswith("exp.toml: ") and expected in p for p in err.value.problems), \
        err.value.problems


def test_wheels_options_belong_to_wheeled_types():
    cfg = parse_experiment(_cfg({}, {"count": 1, "wheels": {"noise": "gaussian",
                                                            "level": 0.1}}))
    assert cfg.robots[1].actuators["wheels"].level == 0.1
    with pytest.raises(ConfigError) as err:
        parse_experiment(_cfg({}, {"count": 1, "wheels": {"level": 7}}), "f.toml")
    assert "f.toml: robots[1].wheels.level: expected less than or equal to 1" in \
        err.value.problems[0]


def test_hoverbox_proximity_sees_the_wall():
    cfg = _cfg({"count": 1, "placement": {"kind": "explicit", "poses": [[0.0, 0.0, 0.0]]},
                "sensors": {"proximity": True}}, arena=0.34)
    sim = Simulation.from_dict(cfg)
    sim.start()
    prox = sim.readings("boxes")["proximity"][0]
    # walls line the inside of the ±0.17 m bounds (2 cm thick): the front and back faces are
    # 0.17 − 0.02 − 0.10 = 0.05 m from them, the sides 0.10 m (at range: nothing seen)
    assert prox[0] == prox[2] == 500
    assert prox[1] == prox[3] == 0
