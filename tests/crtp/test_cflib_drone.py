"""One served drone's firmware side, without sockets: what cflib's packets do to its set-point."""

from __future__ import annotations

import math
import struct

import numpy as np
from hypothesis import given, settings, strategies as st

from swarmstack.actuators import flight as fl
from swarmstack.crtp import protocol as p
from swarmstack.crtp.drone import HOLD_AFTER_S, STOP_AFTER_S, Drone, State, smooth


def commands(n=1):
    return {"mode": np.zeros((n, 1), np.int8), "target": np.full((n, 4), np.nan),
            "velocity": np.zeros((n, 4)), "leds": np.zeros((n, 1, 3), np.uint8)}


FLYING = State(x=1.0, y=2.0, z=0.5, yaw=0.3, flying=True)


def test_a_silent_low_level_client_makes_the_drone_hold_then_land():
    d, c = Drone("cf/0"), commands()
    d.handle(p.Packet(p.GENERIC_COMMANDER, 0, struct.pack("<Bffff", 8, 0.5, 0, 0, 90.0)),
             0.0, FLYING)
    d.command(0.1, FLYING, c, 0)
    assert c["mode"][0, 0] == fl.CMD_VELOCITY
    assert c["velocity"][0].tolist() == [0.5, 0.0, 0.0, math.radians(90.0)]
    d.command(HOLD_AFTER_S + 0.01, FLYING, c, 0)       # silent: hold where it is
    assert c["mode"][0, 0] == fl.CMD_POSITION
    assert c["target"][0].tolist() == [1.0, 2.0, 0.5, 0.3]
    moved = State(x=1.1, y=2.0, z=0.5, yaw=0.3, flying=True)
    d.command(HOLD_AFTER_S + 0.2, moved, c, 0)         # … the place it held first
    assert c["target"][0].tolist() == [1.0, 2.0, 0.5, 0.3]
    d.command(STOP_AFTER_S + 0.01, moved, c, 0)        # then the firmware stops: it lands
    assert c["mode"][0, 0] == fl.CMD_LAND


def test_hover_set_points_are_in_the_body_frame_and_take_off_from_the_floor():
    d, c = Drone("cf/0"), commands()
    hover = p.Packet(p.GENERIC_COMMANDER, 0, struct.pack("<Bffff", 10, 0.2, 0.0, 0.0, 0.4))
    d.handle(hover, 0.0, State())
    d.command(0.0, State(), c, 0)
    assert c["mode"][0, 0] == fl.TAKEOFF and c["target"][0, 2] == np.float64(np.float32(0.4))
    facing_y = State(z=0.4, yaw=math.pi / 2, flying=True)
    d.handle(hover, 0.1, facing_y)
    d.command(0.1, facing_y, c, 0)
    assert c["mode"][0, 0] == fl.CMD_VELOCITY
    vx, vy, vz, _ = c["velocity"][0]
    assert abs(vx) < 1e-9 and vy == np.float64(np.float32(0.2)) and abs(vz) < 1e-6


def test_group_mask_and_enhighlevel_gate_the_high_level_commander():
    d, c = Drone("cf/0"), commands()
    takeoff = struct.pack("<BBff?f", 7, 0b10, 0.5, 0.0, True, 1.0)
    d.handle(p.Packet(p.HIGH_LEVEL, 0, takeoff), 0.0, State())    # group 2: not ours
    d.command(0.0, State(), c, 0)
    assert c["mode"][0, 0] == fl.HOLD
    d.handle(p.Packet(p.HIGH_LEVEL, 0, bytes((0, 0b10))), 0.0, State())   # now in group 2
    d.handle(p.Packet(p.HIGH_LEVEL, 0, takeoff), 0.0, State())
    d.command(0.5, State(), c, 0)
    assert c["mode"][0, 0] == fl.TAKEOFF
    assert c["target"][0, 2] == np.float64(np.float32(0.5)) * smooth(0.5)
    d2 = Drone("cf/1")
    d2.handle(p.Packet(p.PARAM, 2, struct.pack("<HB", 0, 0)), 0.0, State())  # enHighLevel = 0
    d2.handle(p.Packet(p.HIGH_LEVEL, 0, takeoff[:1] + b"\x00" + takeoff[2:]), 0.0, State())
    assert d2.plan is None and d2.counters.rejected == 1


def test_log_blocks_refuse_what_the_firmware_refuses():
    d = Drone("cf/0")
    n = len(d.log_names)

    def create(bid, ids, cmd=6):
        body = b"".join(struct.pack("<BH", 0x07, i) for i in ids)
        return d.handle(p.Packet(p.LOG, 1, bytes((cmd, bid)) + body), 0.0, State())[0][-1]

    assert create(1, [0, 1]) == 0
    assert create(1, [0]) == 17                    # exists
    assert create(2, [n]) == 2                     # no such variable
    assert create(3, range(7)) == 7                # 28 bytes: too big for a packet
    assert create(9, [2], cmd=7) == 2              # append to no block
    d.handle(p.Packet(p.LOG, 1, bytes((3, 1, 10))), 0.0, State())     # start, 100 ms
    sent = [len(d.logs(t / 10, FLYING)) for t in range(10)]
    assert sent == [1] * 10
    pk = p.decode(d.logs(1.0, FLYING)[0])
    assert struct.unpack("<B3sff", pk.data) == (1, (1000).to_bytes(3, "little"), 1.0, 2.0)


PORTS = st.sampled_from([p.CONSOLE, p.PARAM, p.COMMANDER, p.MEM, p.LOG, p.LOCALIZATION,
                          p.GENERIC_COMMANDER, p.HIGH_LEVEL, p.SUPERVISOR, p.PLATFORM, p.LINK])
NAMES = st.sampled_from([b"ring\0effect\0", b"deck\0bcAI\0", b"no\0such\0", b"ring\0"])
PACKETS = st.one_of(
    st.binary(min_size=0, max_size=40),
    st.builds(lambda port, ch, body: p.encode(port, ch, body), PORTS, st.integers(0, 3),
              st.binary(max_size=30)),
    # commands the drone knows, with random arguments
    st.builds(lambda port, ch, cmd, body: p.encode(port, ch, (bytes((cmd,)) + body)[:30]),
              PORTS, st.integers(0, 3), st.integers(0, 13), st.binary(max_size=29)),
    st.builds(lambda name, body: p.encode(p.PARAM, 3, (b"\0" + name + body)[:30]), NAMES,
              st.binary(max_size=8)),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(PACKETS, min_size=1, max_size=6), st.booleans())
def test_any_datagram_is_answered_or_dropped_never_a_crash(datagrams, flying):
    d, c = Drone("cf/0"), commands()
    state = FLYING if flying else State()
    for k, data in enumerate(datagrams):
        try:
            answers = d.handle(p.decode(data), 0.1 * k, state)
        except p.Malformed:
            continue
        assert all(1 <= len(a) <= p.MAX_PAYLOAD + 1 for a in answers)
        d.command(0.1 * k + 0.05, state, c, 0)
        assert 0 <= int(c["mode"][0, 0]) <= 5
        assert not np.isinf(c["target"]).any() and not np.isnan(c["velocity"]).any()
        for pkt in d.logs(0.1 * k, state):
            assert len(pkt) <= p.MAX_PAYLOAD + 1
