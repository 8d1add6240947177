"""Spaces derived from the robot types: the devices' real ranges and units, the commands'
limits, and readings that stay inside them."""

import math

import numpy as np
import pytest

from swarmstack import learn
from swarmstack.robots import ROBOT_TYPES

from .conftest import experiment


def every_sensor(robot_type, count=2):
    devices = ROBOT_TYPES[robot_type].devices
    return {"name": "g", "type": robot_type, "count": count,
            "sensors": {d: True for d in devices}}


def spaces(robot_type):
    env = learn.env(experiment([every_sensor(robot_type)]))
    return env, env.vector.batch.spaces["g"]


def test_epuck2_ranges_and_units():
    env, sp = spaces("epuck2")
    obs, act = sp.observation, sp.action
    assert (obs["proximity"].low.min(), obs["proximity"].high.max()) == (0, 4095)
    assert obs["proximity"].dtype == np.int32 and obs["proximity"].shape == (8,)
    assert obs["ground"].high.max() == 1023 and obs["tof_mm"].high == 2000
    assert obs["tof_mm"].unit == "mm" and obs["encoders"].low.min() == -32768
    assert obs["battery"].high == 1.0 and obs["camera"].shape == (64, 5)
    assert list(obs["camera"].high[0]) == [160, 120, 255, 255, 255]
    assert act["wheels"].high.tolist() == [0.154, 0.154] and act["wheels"].unit == "m/s"
    assert act["leds"].dtype == np.uint8 and act["leds"].shape == (10, 3)
    box = env.observation_space["proximity"]
    assert box.shape == (2, 8) and box.dtype == np.int32


def test_rvr_ranges_and_units():
    env, sp = spaces("rvr")
    obs, act = sp.observation, sp.action
    assert "reference" not in obs          # a record reading: no Box
    assert obs["lidar"].shape == (719,) and obs["lidar"].high.max() == 12.0
    assert (obs["proximity"].low.min(), obs["proximity"].high.max()) == (0.05, 2.0)
    assert obs["light"].high == 16000.0 and obs["light"].unit == "lux"
    assert obs["ground_color"].high.max() == 255 and obs["quaternion"].low.min() == -1.0
    assert act["wheels"].high.tolist() == [1.555, 1.555]


def test_crazyflie_ranges_and_units():
    env, sp = spaces("crazyflie")
    act = sp.action
    assert act["mode"].low.tolist() == [0] and act["mode"].high.tolist() == [5]
    assert act["velocity"].high.tolist() == [10.0, 10.0, 10.0, 2 * math.pi]
    x0, y0, x1, y1 = (-0.6, -0.6, 0.6, 0.6)
    assert act["target"].low.tolist() == [x0, y0, 0.0, -math.pi]
    assert act["target"].high[:2].tolist() == [x1, y1] and 0 < act["target"].high[2] < 3
    assert act["velocity"].unit == "m/s, rad/s"
    assert sp.observation["down_camera"].shape == (4, 3)


@pytest.mark.parametrize("robot_type", ["epuck2", "crazyflie", "rvr"])
def test_readings_stay_inside_the_space(robot_type):
    env = learn.vector_env(experiment([every_sensor(robot_type, 3)]), num_envs=2)
    env.action_space.seed(5)
    obs, _ = env.reset(seed=5)
    assert env.observation_space.contains(obs)
    for _ in range(6):
        obs, *_ = env.step(env.action_space.sample())
        assert env.observation_space.contains(obs)
    # the commands written are inside the action space too
    sim, cmds = env.sim, env.batch.spaces["g"].action
    for name, field in cmds.items():
        value = sim.commands("g")[name]
        assert (value >= field.low).all() and (value <= field.high).all(), name


def test_commands_and_readings_are_chosen_by_name():
    env = learn.env(experiment([every_sensor("epuck2")]), commands=["wheels"],
                    readings=["proximity", "tof_mm"])
    assert list(env.observation_space) == ["proximity", "tof_mm"]
    assert list(env.action_space) == ["wheels"]
    with pytest.raises(ValueError, match="no reading lidar.*proximity"):
        learn.env(experiment([every_sensor("epuck2")]), readings=["lidar"])
    with pytest.raises(ValueError, match="epuck2 has no command velocity; it has wheels"):
        learn.env(experiment([every_sensor("epuck2")]), commands=["velocity"])
