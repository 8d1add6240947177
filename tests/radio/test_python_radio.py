"""The radio from Python controllers: per-robot send/inbox, batched outbox/inbox, the payload
cap, radio switches and their errors, Buzz frames from Python."""

import math

import numpy as np
import pytest

from swarmstack import BatchedController, Controller
from swarmstack.controllers.radio import buzz_broadcasts, buzz_frame
from swarmstack.experiments.config import ConfigError
from swarmstack.sim.simulation import Simulation
from tests.core.robot_types import hoverbox

POSES = [[0.0, 0.0, 0.0], [0.4, 0.0, math.pi / 2], [0.0, 0.3, math.pi]]


class Echo(Controller):
    """Sends its id and tick; remembers what it heard."""

    def init(self, robot, params):
        self.heard = []
        self.accepted = []

    def step(self, robot):
        inbox = robot.inbox
        self.heard.append((robot.tick, list(inbox.sender), list(inbox.distance_m),
                           list(inbox.azimuth_rad), list(inbox.payloads)))
        size = robot.params.get("size", 2)
        self.accepted.append(robot.send(bytes([robot.id, robot.tick % 256]) + bytes(size - 2)))


class BatchedEcho(BatchedController):
    def init(self, group, params):
        self.inboxes = []

    def step(self, group):
        inbox = group.inbox
        self.inboxes.append((inbox.start.copy(), inbox.receiver.copy(), inbox.sender.copy(),
                             inbox.payload[:, :2].copy(), inbox.size.copy()))
        group.outbox[:, 0] = group.robot_id
        group.outbox[:, 1] = group.tick % 256
        group.out_size[:] = 2


def make(cls, *, radio=True, poses=POSES, params=None, runs=1, **group):
    ctrl = {"python": f"{__name__}:{cls}"}
    if params:
        ctrl["params"] = params
    data = {"arena": {"size": [2.0, 2.0], "walls": True},
            "robots": [{"name": "r", "placement": {"kind": "explicit", "poses": poses},
                        "controller": ctrl, "radio": radio, **group}]}
    sim = Simulation.from_dict(data, runs=runs)
    sim.start()
    return sim


def test_per_robot_send_and_inbox():
    sim = make("Echo", radio={"payload_bytes": 4})
    sim.run(3)
    c0 = sim.group("r").controllers[0]
    tick, senders, dist, az, payloads = c0.heard[0]
    # tick 0: every radio emitted an empty frame; robots 1 (0.4 m) and 2 (0.3 m) are heard
    assert tick == 0 and senders == [1, 2] and payloads == [b"", b""]
    assert dist == pytest.approx([0.4, 0.3])
    assert az == pytest.approx([0.0, math.pi / 2])
    # robot 1 faces +y: robot 0 (towards −x) is exactly on its left
    c1 = sim.group("r").controllers[1]
    assert c1.heard[0][3][0] == pytest.approx(math.pi / 2)
    # what was sent during tick t is heard during tick t + 1
    assert c0.heard[1][4] == [bytes([1, 0]), bytes([2, 0])]
    assert c0.heard[2][4] == [bytes([1, 1]), bytes([2, 1])]
    assert all(c0.accepted)


def test_a_frame_over_the_cap_is_refused_and_counted():
    sim = make("Echo", radio={"payload_bytes": 4}, params={"size": 5})
    sim.run(3)
    c0 = sim.group("r").controllers[0]
    assert not any(c0.accepted)
    # a refused frame is not sent at all: from tick 1 on nobody hears anybody
    assert c0.heard[0][1] == [1, 2] and c0.heard[1][1] == [] and c0.heard[2][1] == []
    stats = sim.radio_stats()
    assert stats["messages_refused"] == 3 * 3 and stats["max_bytes_per_robot_tick"] == 0
    assert stats["messages_sent"] == 3                     # the empty frames of tick 0


def test_batched_outbox_and_inbox():
    sim = make("BatchedEcho", radio={"payload_bytes": 2}, runs=2)
    sim.run(2)
    start, receiver, sender, payload, size = sim.group("r").controllers[0].inboxes[1]
    # 2 runs × 3 robots; each robot hears the 2 others of its own run only
    assert list(np.diff(start)) == [2] * 6
    assert list(receiver) == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]
    assert list(sender) == [1, 2, 0, 2, 0, 1] * 2
    assert list(payload[:, 0]) == list(sender) and set(payload[:, 1]) == {0}
    assert list(size) == [2] * 12


def test_radio_reaches_only_within_range():
    sim = make("Echo", radio={"range": 0.35, "payload_bytes": 2})
    sim.run(1)
    assert sim.group("r").controllers[0].heard[0][1] == [2]      # 0.3 m yes, 0.4 m no


def test_drop_loses_frames_at_the_configured_rate():
    poses = [[0.0, 0.0, 0.0], [0.2, 0.0, 0.0]]
    sim = make("Echo", radio={"payload_bytes": 2, "drop": 0.25}, poses=poses)
    sim.run(2000)
    stats = sim.radio_stats()
    lost = stats["messages_dropped"] / (stats["messages_dropped"] + stats["messages_delivered"])
    assert lost == pytest.approx(0.25, abs=0.03)


def test_robot_without_radio_says_how_to_enable_it():
    sim = make("Echo", radio=False)
    with pytest.raises(Exception, match="radio = true"):
        sim.step()


def test_no_radio_no_medium():
    sim = make("Echo", radio=False)
    assert sim.medium is None
    assert sim.radio_stats()["messages_sent"] == 0


def test_buzz_frames_round_trip():
    frame = buzz_frame(beacon=3, name="x")
    assert buzz_broadcasts(frame) == {"beacon": 3, "name": "x"}
    assert buzz_broadcasts(b"\xff\xff") == {}


@pytest.mark.parametrize("group, expected", [
    ({"radio": {"range": -1}}, "robots[0].radio.range: expected greater than 0"),
    ({"radio": {"drop": 1.5}}, "robots[0].radio.drop: expected less than or equal to 1"),
    ({"radio": {"payload": 3}}, "robots[0].radio.payload: unknown key"),
    ({"controller": {"python": "a.py:A", "buzz": "b.bzz"}},
     "a controller needs exactly one of python"),
    ({"controller": {"buzz": "b.bzz", "distance_unit": "inch"}},
     "robots[0].controller.distance_unit: expected 'm', 'cm' or 'mm'"),
    ({"controller": {"python": "a.py:A", "profile": "bittybuzz"}},
     "distance_unit and profile apply to Buzz controllers only"),
    ({"type": "deafbox", "radio": True}, "robots[0].radio: deafbox has no range-and-bearing radio"),
])
def test_radio_and_controller_config_errors(group, expected):
    from dataclasses import replace

    from swarmstack.robots.base import ROBOT_TYPES, register

    if "deafbox" not in ROBOT_TYPES:
        register(replace(hoverbox.HOVERBOX, name="deafbox", radio=None))
    data = {"arena": {"size": [1.0, 1.0]},
            "robots": [{"name": "r", "count": 2, **group}]}
    with pytest.raises(ConfigError) as exc:
        Simulation.from_dict(data, source="exp.toml")
    assert any(p.startswith("exp.toml: ") and expected in p for p in exc.value.problems), \
        exc.value.problems
