"""The typed controller interfaces (controllers/epuck2.py, crazyflie.py, rvr.py) follow their
robot types: every device a type can carry is a reading of the same name, dtype and shape,
every command a command array of the group, every host function a method of the robot, and
nothing else."""

import inspect
from typing import Annotated, get_args, get_origin, get_type_hints

import numpy as np
import pytest

from swarmstack.controllers import crazyflie, epuck2, rvr
from swarmstack.controllers.protocols import AnyGroup, AnyRobot, Array
from swarmstack.robots import base

INTERFACES = [("epuck2", epuck2.EPuck2, epuck2.EPuck2Group),
              ("crazyflie", crazyflie.Crazyflie, crazyflie.CrazyflieGroup),
              ("rvr", rvr.RVR, rvr.RVRGroup)]
N = 3


def arrays(protocol, common) -> dict:
    """The protocol's own ``Annotated[np.ndarray, Array(...)]`` attributes (not ``common``'s)."""
    hints = get_type_hints(protocol, include_extras=True)
    out = {}
    for name, hint in hints.items():
        if name in get_type_hints(common):
            continue
        assert get_origin(hint) is Annotated, f"{protocol.__name__}.{name}: not an Array"
        arg, *extras = get_args(hint)
        [spec] = [e for e in extras if isinstance(e, Array)]
        assert arg is np.ndarray
        out[name] = spec
    return out


def methods(protocol, common) -> set:
    return {name for name, _ in inspect.getmembers(protocol, inspect.isfunction)
            if not name.startswith("_") and not hasattr(common, name)}


def readings(robot_type) -> dict:
    """Each device's reading, built with the device's default options, for N robots."""
    out = {}
    for spec in robot_type.devices.values():
        device = spec.make(spec.options(), None)
        assert device.name not in out, f"two devices read {device.name!r}"
        out[device.name] = device.allocate(N)
    return out


def matches(array: np.ndarray, spec: Array, shape: tuple) -> bool:
    dtype = "record" if array.dtype.names is not None else array.dtype.name
    return dtype == spec.dtype and len(shape) == len(spec.shape) and all(
        isinstance(want, str) or want == got for want, got in zip(spec.shape, shape))


@pytest.mark.parametrize("type_name, robot, group", INTERFACES)
def test_robot_interface_is_the_types_readings_and_host_functions(type_name, robot, group):
    rt = base.get(type_name)
    have = readings(rt)
    declared = arrays(robot, AnyRobot)
    assert set(declared) == set(have)
    for name, array in have.items():
        # a robot's view is its row of the group's array (0-d for one number a robot)
        assert matches(array, declared[name], array.shape[1:]), (name, array.dtype, array.shape)
    assert methods(robot, AnyRobot) == {h.name for h in rt.host_api}


@pytest.mark.parametrize("type_name, robot, group", INTERFACES)
def test_group_interface_is_the_types_readings_and_commands(type_name, robot, group):
    rt = base.get(type_name)
    have = readings(rt)
    commands = {c.name: c.allocate(N) for c in rt.commands}
    assert not set(have) & set(commands)
    declared = arrays(group, AnyGroup)
    assert set(declared) == set(have) | set(commands)
    for name, array in {**have, **commands}.items():
        spec = declared[name]
        assert spec.shape[:1] == ("n",), name
        assert matches(array, spec, array.shape), (name, array.dtype, array.shape)
    assert methods(group, AnyGroup) == set()


def test_the_check_sees_a_missing_or_wrong_reading():
    rt = base.get("epuck2")
    have = readings(rt)
    declared = arrays(epuck2.EPuck2, AnyRobot)
    assert not matches(have["proximity"], Array("float64", (8,)), (8,))
    assert not matches(have["proximity"], Array("int32", (7,)), (8,))
    assert matches(have["camera"], declared["camera"], have["camera"].shape[1:])
    assert set(declared) - {"pose"} != set(have)
