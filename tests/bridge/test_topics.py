"""The robot types' topic tables: readings → message → CDR → message → the same readings;
commands in the drivers' units; unreadable messages refused."""

import math

import numpy as np
import pytest

from swarmstack.bridge import messages, ros_types
from swarmstack.bridge.links import RobotLinks
from swarmstack.bridge.links import topics_for
from swarmstack.bridge.topics import UnitError, convert
from swarmstack.bridge.messages import message_class as M
from swarmstack.robots.base import ROBOT_TYPES


class _Group:
    def __init__(self, rt):
        self.robot_type = rt
        self.devices = {}
        self.readings = {}


def scratch(type_name):
    rt = ROBOT_TYPES[type_name]
    devices = RobotLinks._devices(rt, _Group(rt))
    t = topics_for(type_name)
    rows = {r: devices[r].allocate(1) for s in t.sensors for r in s.readings}
    return t, devices, rows


def fill(rows, rng):
    out = {}
    for name, arr in rows.items():
        a = arr.copy()
        if name == "proximity" and a.dtype.kind == "i":     # E-Puck2 counts
            a[:] = rng.integers(0, 4096, a.shape)
        elif name == "proximity":
            a[:] = rng.uniform(0.05, 2.0, a.shape)
        elif name == "lidar":
            a[:] = rng.uniform(0.1, 12.0, a.shape)
        elif name in ("ground_color", "fixed_color"):
            a[:] = rng.integers(0, 256, a.shape)
            if name == "fixed_color":
                a[0, 3] = 0
        elif name == "tof_mm":
            a[:] = rng.integers(20, 2001, a.shape)
        elif name == "quaternion":
            q = rng.normal(size=4)
            a[0] = q / np.linalg.norm(q)
        elif name in ("imu", "pose"):
            a[:] = rng.uniform(-1.0, 1.0, a.shape)
        elif name == "light" and a.dtype.kind == "i":       # E-Puck2 ambient counts
            a[:] = rng.integers(0, 4096, a.shape)
        elif name == "light":
            a[:] = rng.uniform(0, 16000, a.shape)
        elif name == "ground":
            a[:] = rng.integers(0, 1024, a.shape)
        else:
            a[:] = rng.uniform(-1, 1, a.shape)
        out[name] = a
    return out


@pytest.mark.parametrize("type_name", ["rvr", "epuck2"])
def test_readings_survive_the_topics(type_name):
    t, devices, rows = scratch(type_name)
    src = fill(rows, np.random.default_rng(1))
    if "fixed_color" in src:   # a labeller publishes a palette colour
        src["fixed_color"][0, :3] = np.asarray(devices["fixed_color"].palette)[2]
        src["fixed_color"][0, 3] = 2
    for st in t.sensors:
        wire_bytes = messages.encode(st.write(src, 12.5), st.ros_type)
        st.read(messages.decode(wire_bytes, st.ros_type), rows, devices)
    for name, want in src.items():
        got = rows[name]
        if name == "proximity" and type_name == "epuck2":
            # through a distance and back: the counts of Eq. 1 within its rounding
            assert np.abs(got.astype(int) - want.astype(int)).max() <= 3, name
        elif got.dtype.kind in "iu":
            assert got.tolist() == want.tolist(), name
        else:
            np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6, err_msg=name)


def test_rvr_wheels_in_m_s_and_clamped():
    t = topics_for("rvr")
    wheels = next(c for c in t.commands if c.topic == "rvr/wheels_speed")
    assert wheels.unit == "m/s"
    msg = messages.decode(messages.encode(wheels.to_msg(convert([12.0, -155.0], "cm/s", "m/s")),
                                          wheels.ros_type), wheels.ros_type)
    assert msg.data.tolist() == pytest.approx([0.12, -1.55])
    assert wheels.to_msg(np.array([3.0, -3.0])).data.tolist() == pytest.approx([1.555, -1.555])


def test_epuck2_cmd_vel_from_wheels():
    c = topics_for("epuck2").commands[0]
    msg = c.to_msg(np.array([0.05, 0.1]))
    assert msg.linear.x == pytest.approx(0.075)
    assert msg.angular.z == pytest.approx(0.05 / 0.053)
    assert c.from_msg(msg).tolist() == pytest.approx([0.05, 0.1])


def test_epuck2_leds_one_topic_each_in_the_drivers_types():
    """epuck_ros2: led0/2/4/6 are std_msgs/Bool (the red ring LEDs), led1/3/5/7 std_msgs/Int32
    0xRRGGBB; the front and body LEDs have no topic."""
    t = topics_for("epuck2")
    leds = {c.topic: c for c in t.commands if c.command == "leds"}
    assert sorted(leds) == [f"led{k}" for k in range(8)]
    assert [leds[f"led{k}"].part for k in range(8)] == list(range(8))
    assert {leds[f"led{k}"].ros_type for k in (0, 2, 4, 6)} == {"std_msgs/msg/Bool"}
    assert {leds[f"led{k}"].ros_type for k in (1, 3, 5, 7)} == {"std_msgs/msg/Int32"}
    rgb = leds["led3"]
    msg = messages.decode(messages.encode(rgb.to_msg(np.array([255, 128, 1])), rgb.ros_type),
                          rgb.ros_type)
    assert msg.data == 0xFF8001
    assert rgb.from_msg(msg).tolist() == [255, 128, 1]
    red = leds["led2"]
    assert red.to_msg(np.array([1, 0, 0])).data is True
    assert red.to_msg(np.array([0, 255, 255])).data is False     # a red LED shows no green
    assert red.from_msg(red.to_msg(np.array([9, 0, 0]))).tolist() == [255, 0, 0]


def test_epuck2_light_and_ground_in_the_drivers_units():
    """The driver's ls<k> carries the raw ambient count in ``illuminance``; gs<k> a "distance"
    from its table (count 1000 → 0 m, 300 → 0.016 m), gs0 on the left."""
    t, devices, rows = scratch("epuck2")
    by = {s.topic: s for s in t.sensors}
    by["ls5"].read(M("sensor_msgs/msg/Illuminance")(header=ros_types.header(0.0),
                                                    illuminance=1234.4, variance=0.0),
                   rows, devices)
    assert rows["light"][0, 5] == 1234
    for k, d in enumerate((0.016, 0.0, -0.0005)):     # left 300, middle 1000, right ~1022
        by[f"gs{k}"].read(ros_types.range_msg(0.0, f"gs{k}", d, 0.0, 0.016, 0.26), rows,
                          devices)
    assert rows["ground"][0].tolist() == [1022, 1000, 300]
    with pytest.raises(ValueError):
        by["gs1"].read(ros_types.range_msg(0.0, "gs1", math.nan, 0.0, 0.016, 0.26), rows,
                       devices)


def test_unknown_unit_pairs_are_refused():
    with pytest.raises(UnitError):
        convert([1.0], "m/s", "rad/s")
    assert convert([150.0], "cm/s", "m/s").tolist() == [1.5]


def test_unreadable_messages_are_refused():
    t, devices, rows = scratch("rvr")
    scan = next(s for s in t.sensors if s.topic == "scan")
    short = scan.write({"lidar": np.ones((1, 10))}, 0.0)
    with pytest.raises(ValueError, match="719"):
        scan.read(short, rows, devices)
    odom = next(s for s in t.sensors if s.topic == "rvr/odom")
    bad = odom.write({"locator": np.array([[math.nan, 0.0]])}, 0.0)
    with pytest.raises(ValueError):
        odom.read(bad, rows, devices)
    wheels = t.commands[0]
    with pytest.raises(ValueError):
        wheels.from_msg(ros_types.float32_array([1.0, 2.0, 3.0]))


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

ODD_FLOATS = st.one_of(st.floats(allow_nan=True, allow_infinity=True, width=32),
                       st.sampled_from([0.0, -0.0, 1e30, -1e30]))


@settings(max_examples=60, deadline=None)
@given(type_name=st.sampled_from(["rvr", "epuck2"]), seed=st.integers(0, 2**32 - 1),
       odd=st.lists(ODD_FLOATS, min_size=1, max_size=8))
def test_odd_values_are_read_or_refused_never_crash(type_name, seed, odd):
    """Whatever numbers a driver puts in its messages (NaN, ±inf, huge), reading them either
    works or raises ValueError (the bridge counts and drops it)."""
    t, devices, rows = scratch(type_name)
    rng = np.random.default_rng(seed)
    src = {k: v.astype(np.float64) for k, v in fill(rows, rng).items()}
    for name, arr in src.items():          # sprinkle the odd values over every reading
        flat = arr.reshape(-1)
        for k, v in zip(rng.integers(0, flat.size, len(odd)), odd):
            flat[k] = v
    for sensor in t.sensors:
        try:
            msg = sensor.write(src, 1.0)
            data = messages.encode(msg, sensor.ros_type)
        except (ValueError, OverflowError, TypeError):
            continue                       # not a message a driver could send
        try:
            sensor.read(messages.decode(data, sensor.ros_type), rows, devices)
        except ValueError:
            pass
    for c in t.commands:
        try:
            shape = (3,) if c.part is not None else (5, 3) if c.command == "leds" else (2,)
            msg = c.to_msg(np.resize(np.asarray(odd, dtype=np.float64), shape))
        except (ValueError, OverflowError, TypeError):
            continue
        try:
            c.from_msg(msg)
        except ValueError:
            pass
