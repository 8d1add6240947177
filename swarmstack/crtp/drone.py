"""The firmware side of one simulated Crazyflie: what it answers on each CRTP port, and the
set-point it gives the flight model every tick.

Ports served (the rest is dropped and counted as unsupported):

* link service — echo, the magic answer to a source request (then cflib asks the version),
  and an answer to the ``0xFF`` probe of cflib's UDP scan;
* platform — protocol version (:data:`~swarmstack.crtp.protocol.PROTOCOL_VERSION`), firmware
  name; arming and notification requests are accepted (there is nothing to arm);
* memory — no memories (the connection sequence asks how many);
* log — TOC (16-bit ids), blocks of up to 26 bytes (create, append, start with a period in
  10 ms units, stop, delete, reset), data packets stamped with the simulated time in ms;
* parameters — TOC, read, write, set-by-name;
* generic commander — stop, position (yaw in degrees), world velocity and hover set-points
  (yaw rates in °/s), the position part of a full-state set-point, "notify set-point stop";
* commander — the legacy roll/pitch/yaw-rate/thrust set-point with zero thrust (cflib sends it
  when it closes a link): the motors stop;
* high-level commander — group mask, take-off, land, go-to (smooth or linear), stop.

Timing follows the firmware's commander: a low-level set-point has priority over the
high-level commander; without a new one for :data:`HOLD_AFTER_S` the drone holds where it is,
and after :data:`STOP_AFTER_S` it lands (the firmware cuts the motors). "Stop" (a stop
set-point, a zero-thrust set-point, the high-level stop) lands where the drone is: the flight
model has no free fall on command. Times are simulated time, so a faster-than-real-time
session behaves as a real-time one.

Planned motions (take-off, land, go-to) move the position set-point along the path the
firmware plans from hover: a polynomial of degree 7 with zero velocity, acceleration and jerk
at both ends, s(τ) = 35τ⁴ − 84τ⁵ + 70τ⁶ − 20τ⁷, or a straight line at constant speed
(``linear``); the flight model's position loop follows it.
"""

from __future__ import annotations

import math
import struct
import zlib
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Callable, Optional

import numpy as np

from swarmstack.actuators import flight as fl
from swarmstack.crtp import protocol as p
from swarmstack.physics import quadrotor as qr

HOLD_AFTER_S = 0.5
STOP_AFTER_S = 2.0
LOG_MAX_BLOCKS = 16
LOG_MAX_OPS = 128
LOG_BLOCK_BYTES = p.MAX_PAYLOAD - 4     # block id and a 24-bit time stamp come first
ENOENT, E2BIG, ENOMEM, EEXIST = 2, 7, 12, 17
RING_SOLID_COLOUR = 7                   # the LED-ring deck's "solid colour" effect
TAKEOFF_FROM_FLOOR_M = 0.01             # a hover/position set-point higher than this takes off

# 1S LiPo open-circuit voltage (V) at 0 %, 10 % … 100 % charge: a typical discharge curve
_SOC = np.linspace(0.0, 1.0, 11)
_OCV = np.array([3.27, 3.61, 3.69, 3.71, 3.73, 3.77, 3.79, 3.84, 3.92, 4.03, 4.20])


def battery_voltage(charge: float) -> float:
    """``pm.vbat`` (V) of a charge 0–1."""
    return float(np.interp(charge, _SOC, _OCV))


# -------------------------------------------------------------------------------- telemetry
@dataclass
class State:
    """What the drone's logs report this tick (SI units; ``yaw`` in rad)."""

    x: float = 0.0
    y: float = 0.0
    z: float = 0.0
    roll: float = 0.0
    pitch: float = 0.0
    yaw: float = 0.0
    vx: float = 0.0
    vy: float = 0.0
    vz: float = 0.0
    charge: float = 1.0
    flying: bool = False
    time_s: float = 0.0


# name → (log type, value from the state); angles in degrees, as the firmware logs them
LOG_VARIABLES: dict[str, tuple[str, Callable[[State], float]]] = {
    **{f"stateEstimate.{k}": ("float", attrgetter(k)) for k in ("x", "y", "z", "vx", "vy", "vz")},
    **{f"{group}.{k}": ("float", lambda s, k=k: math.degrees(getattr(s, k)))
       for group in ("stateEstimate", "stabilizer") for k in ("roll", "pitch", "yaw")},
    # no estimator converging: scripts waiting for small variances go on at once
    **{f"kalman.varP{k}": ("float", lambda s: 0.0) for k in "XYZ"},
    "pm.vbat": ("float", lambda s: battery_voltage(s.charge)),
    "pm.batteryLevel": ("uint8", lambda s: round(100.0 * s.charge)),
    "pm.state": ("int8", lambda s: 3 if s.charge < 0.05 else 0),  # 0 on battery, 3 low power
}


@dataclass(frozen=True)
class ParamSpec:
    name: str
    type: str
    default: float
    read_only: bool = False


def param_specs(camera: bool) -> list[ParamSpec]:
    """The parameter TOC. ``commander.enHighLevel`` gates the high-level commander,
    ``ring.*`` drive the LED ring; ``stabilizer.*`` and ``kalman.resetEstimation`` are kept for
    scripts that set them (the simulated drone has one controller and no estimator);
    ``deck.*`` say which decks are fitted."""
    return [
        ParamSpec("commander.enHighLevel", "uint8", 1),
        ParamSpec("stabilizer.estimator", "uint8", 2),
        ParamSpec("stabilizer.controller", "uint8", 1),
        ParamSpec("kalman.resetEstimation", "uint8", 0),
        ParamSpec("ring.effect", "uint8", 0),
        ParamSpec("ring.solidRed", "uint8", 0),
        ParamSpec("ring.solidGreen", "uint8", 0),
        ParamSpec("ring.solidBlue", "uint8", 0),
        ParamSpec("deck.bcLedRing", "uint8", 1, read_only=True),
        ParamSpec("deck.bcLighthouse4", "uint8", 1, read_only=True),
        ParamSpec("deck.bcAI", "uint8", 1 if camera else 0, read_only=True),
    ]


def _toc_entry(name: str, type_byte: int) -> bytes:
    group, var = name.split(".")
    return bytes((type_byte,)) + group.encode() + b"\0" + var.encode() + b"\0"


def _crc(entries: list[bytes]) -> int:
    return zlib.crc32(b"".join(entries)) & 0xFFFFFFFF


# ------------------------------------------------------------------------------------ motion
def smooth(tau: float) -> float:
    """Fraction of a planned move done at τ = t / duration (degree 7, zero velocity,
    acceleration and jerk at both ends)."""
    t = min(max(tau, 0.0), 1.0)
    return t ** 4 * (35.0 - 84.0 * t + 70.0 * t * t - 20.0 * t ** 3)


def _wrap(a: float) -> float:
    return (a + math.pi) % (2.0 * math.pi) - math.pi


@dataclass
class Plan:
    """A planned move of the position set-point from ``start`` to ``goal`` (x, y, z, yaw)."""

    start: tuple
    goal: tuple
    t0: float
    duration: float
    linear: bool = False
    then_land: bool = False

    def setpoint(self, now: float) -> tuple:
        tau = 1.0 if self.duration <= 0 else (now - self.t0) / self.duration
        s = min(max(tau, 0.0), 1.0) if self.linear else smooth(tau)
        if s >= 1.0:
            return self.goal
        x0, y0, z0, w0 = self.start
        x1, y1, z1, w1 = self.goal
        return (x0 + (x1 - x0) * s, y0 + (y1 - y0) * s, z0 + (z1 - z0) * s,
                _wrap(w0 + _wrap(w1 - w0) * s))

    def done(self, now: float) -> bool:
        return now >= self.t0 + self.duration


@dataclass
class LogBlock:
    ops: list = field(default_factory=list)    # (variable name, fetch-as struct code)
    period_s: float = 0.0
    started: bool = False
    next_s: float = 0.0

    def size(self) -> int:
        return sum(struct.calcsize(code) for _, code in self.ops)


@dataclass
class Counters:
    received: int = 0
    malformed: int = 0
    unsupported: int = 0
    rejected: int = 0       # high-level commands refused in the current flight state


# the method of :class:`Drone` that answers each port (the others are unsupported)
_PORTS = {p.LINK: "_link", p.PLATFORM: "_platform", p.MEM: "_mem", p.LOG: "_log",
          p.PARAM: "_param", p.GENERIC_COMMANDER: "_generic", p.COMMANDER: "_commander",
          p.HIGH_LEVEL: "_high_level", p.SUPERVISOR: "_nothing"}


# --------------------------------------------------------------------------------- the drone
class Drone:
    """One simulated Crazyflie's CRTP endpoint (no sockets: packets in, packets out).

    :meth:`handle` answers a packet received at simulated time ``now``; :meth:`logs` gives the
    log packets due at ``now``; :meth:`command` writes this tick's set-point into the group's
    command arrays (row ``row``) from the drone's state."""

    def __init__(self, name: str, camera: bool = False):
        self.name = name
        self.counters = Counters()
        self.log_names = list(LOG_VARIABLES)
        self.log_types = [p.LOG_TYPE_ID[LOG_VARIABLES[n][0]] for n in self.log_names]
        self._log_toc = [_toc_entry(n, t) for n, t in zip(self.log_names, self.log_types)]
        self.params = param_specs(camera)
        self.param_values = [float(s.default) for s in self.params]
        self._param_index = {s.name: k for k, s in enumerate(self.params)}
        self._param_toc = [_toc_entry(s.name, p.PARAM_TYPE_ID[s.type]
                                      | (p.PARAM_READ_ONLY if s.read_only else 0))
                           for s in self.params]
        self.blocks: dict[int, LogBlock] = {}
        self.group_mask = 0
        # low-level set-point: (kind, values, time received) or None
        self.low: Optional[tuple] = None
        self.plan: Optional[Plan] = None
        self.stop_requested = False
        self.hold_requested = False
        self.last_setpoint: Optional[tuple] = None   # what the high-level commander flies

    # --------------------------------------------------------------------- parameters
    def param(self, name: str) -> float:
        return self.param_values[self._param_index[name]]

    def leds(self) -> Optional[tuple]:
        """The ring's colour from the ``ring.*`` parameters, None when its effect is one the
        simulation does not show (then the LEDs keep their colour)."""
        effect = int(self.param("ring.effect"))
        if effect == 0:
            return (0, 0, 0)
        return tuple(int(self.param(f"ring.solid{c}")) for c in ("Red", "Green", "Blue")) \
            if effect == RING_SOLID_COLOUR else None

    # ------------------------------------------------------------------------ packets
    def handle(self, pk: p.Packet, now: float, state: State) -> list[bytes]:
        """Answers to ``pk``; raises :class:`~swarmstack.crtp.protocol.Malformed`."""
        self.counters.received += 1
        return getattr(self, _PORTS.get(pk.port, "_unsupported"))(pk, now, state) or []

    def _unsupported(self, *_) -> list[bytes]:
        self.counters.unsupported += 1
        return []

    def _nothing(self, *_) -> list[bytes]:   # arming requests: nothing to arm
        return []

    def _mem(self, pk: p.Packet, *_) -> list[bytes]:
        if pk.channel == 0 and pk.data[:1] == b"\x01":
            return [p.encode(p.MEM, 0, b"\x01\x00")]       # no memories
        return self._unsupported()

    def _commander(self, pk: p.Packet, *_) -> list[bytes]:
        roll, pitch, yaw_rate, thrust = p.unpack("<fffH", pk.data)
        if thrust != 0:
            return self._unsupported()   # attitude control is not simulated
        self._stop()
        return []

    def _link(self, pk: p.Packet, *_) -> list[bytes]:
        if pk.channel == 0:
            return [p.encode(p.LINK, 0, pk.data)]                   # echo
        if pk.channel == 1:
            return [p.encode(p.LINK, 1, p.LINK_MAGIC)]              # source
        if pk.channel == 3:
            return [b"\xff"]                                        # null packet: scan probe
        return []                                                   # sink

    def _platform(self, pk: p.Packet, *_) -> list[bytes]:
        if pk.channel == 1 and pk.data:
            if pk.data[0] == 0:
                return [p.encode(p.PLATFORM, 1, bytes((0, p.PROTOCOL_VERSION)))]
            if pk.data[0] == 1:
                return [p.encode(p.PLATFORM, 1, b"\x01swarmstack")]
        if pk.channel == 0:
            return []    # continuous wave, arming, user notification: nothing to do
        return self._unsupported()

    # ---------------------------------------------------------------------------- TOCs
    @staticmethod
    def _toc(port: int, entries: list[bytes], data: bytes, extra: bytes = b"") -> list[bytes]:
        if not data:
            raise p.Malformed("empty TOC request")
        cmd = data[0]
        if cmd not in (0, 1, 2, 3):
            raise p.Malformed(f"TOC command {cmd}")
        ids = "H" if cmd >= 2 else "B"   # 16-bit ids (commands 2, 3) or 8-bit ones (0, 1)
        if cmd in (1, 3):                # info
            return [p.encode(port, 0, struct.pack(f"<B{ids}I", cmd, len(entries),
                                                  _crc(entries)) + extra)]
        (ident,) = p.unpack(f"<{ids}", data, 1)    # an item
        if ident >= len(entries):
            raise p.Malformed(f"TOC item {ident} of {len(entries)}")
        return [p.encode(port, 0, struct.pack(f"<B{ids}", cmd, ident) + entries[ident])]

    # ---------------------------------------------------------------------------- log
    def _log(self, pk: p.Packet, now: float, *_) -> list[bytes]:
        if pk.channel == 0:
            return self._toc(p.LOG, self._log_toc, pk.data,
                             bytes((LOG_MAX_BLOCKS, LOG_MAX_OPS)))
        if pk.channel != 1 or not pk.data:
            return self._unsupported()
        d = pk.data
        cmd = d[0]
        if cmd == 5:                                       # reset
            self.blocks.clear()
            return [p.encode(p.LOG, 1, bytes((5, 0, 0)))]
        (bid,) = p.unpack("<B", d, 1)

        def answer(err: int) -> list[bytes]:
            return [p.encode(p.LOG, 1, bytes((cmd, bid, err)))]

        if cmd in (0, 1, 6, 7):                            # create / append (8- or 16-bit ids)
            wide = cmd in (6, 7)
            step = 3 if wide else 2
            body = d[2:]
            if len(body) % step:
                raise p.Malformed("log block variables cut short")
            ops = []
            for k in range(0, len(body), step):
                type_byte = body[k]
                ident = body[k + 1] | (body[k + 2] << 8 if wide else 0)
                fetch = type_byte & 0x0F
                # (an id of all ones is a memory variable: not simulated)
                if ident >= len(self.log_names) or fetch not in p.LOG_TYPES:
                    return answer(ENOENT)
                ops.append((self.log_names[ident], p.LOG_TYPES[fetch]))
            create = cmd in (0, 6)
            if create and bid in self.blocks:
                return answer(EEXIST)
            if not create and bid not in self.blocks:
                return answer(ENOENT)
            if create and len(self.blocks) >= LOG_MAX_BLOCKS:
                return answer(ENOMEM)
            block = self.blocks[bid] if not create else LogBlock()
            used = sum(len(b.ops) for b in self.blocks.values())
            if used + len(ops) > LOG_MAX_OPS:
                return answer(ENOMEM)
            if LogBlock(block.ops + ops).size() > LOG_BLOCK_BYTES:
                return answer(E2BIG)
            block.ops.extend(ops)
            self.blocks[bid] = block
            return answer(0)
        if cmd == 2:                                       # delete
            return answer(0 if self.blocks.pop(bid, None) is not None else ENOENT)
        if cmd not in (3, 4):
            raise p.Malformed(f"log command {cmd}")
        (period,) = p.unpack("<B", d, 2) if cmd == 3 else (0,)   # start (with its period)
        block = self.blocks.get(bid)                              # or stop
        if block is None:
            return answer(ENOENT)
        block.started = cmd == 3
        if block.started:
            block.period_s = max(period, 1) * 0.01
            block.next_s = now
        return answer(0)

    def logs(self, now: float, state: State) -> list[bytes]:
        """Data packets of the started blocks that are due at ``now`` (s)."""
        out = []
        stamp = int(round(now * 1000.0)) & 0xFFFFFF
        for bid, block in self.blocks.items():
            if not block.started or now + 1e-9 < block.next_s:
                continue
            payload = bytearray((bid, stamp & 0xFF, (stamp >> 8) & 0xFF, stamp >> 16))
            for name, code in block.ops:
                payload += p.pack_value(code, float(LOG_VARIABLES[name][1](state)))
            out.append(p.encode(p.LOG, 2, bytes(payload)))
            # a period shorter than a tick gives one packet a tick, never a backlog
            block.next_s = max(block.next_s + block.period_s, now + 1e-9)
        return out

    # ---------------------------------------------------------------------- parameters
    def _param_bytes(self, k: int) -> bytes:
        return p.pack_value(p.PARAM_TYPES[p.PARAM_TYPE_ID[self.params[k].type]],
                            self.param_values[k])

    def _set_param(self, k: int, raw: bytes, offset: int) -> None:
        code = p.PARAM_TYPES[p.PARAM_TYPE_ID[self.params[k].type]]
        (v,) = p.unpack(code, raw, offset)
        if v != v or math.isinf(v):
            raise p.Malformed(f"{self.params[k].name}: not a number")
        self.param_values[k] = float(v)

    def _param(self, pk: p.Packet, *_) -> list[bytes]:
        d = pk.data
        if pk.channel == 0:
            return self._toc(p.PARAM, self._param_toc, d)
        if pk.channel in (1, 2):                              # read; write (answers the value)
            (ident,) = p.unpack("<H", d)
            if ident >= len(self.params):
                raise p.Malformed(f"parameter {ident} of {len(self.params)}")
            if pk.channel == 2 and not self.params[ident].read_only:
                self._set_param(ident, d, 2)
            head = struct.pack("<HB", ident, 0) if pk.channel == 1 else struct.pack("<H", ident)
            return [p.encode(p.PARAM, pk.channel, head + self._param_bytes(ident))]
        if pk.channel == 3 and d[:1] == b"\x00":              # set by name
            parts = d[1:].split(b"\0", 2)
            if len(parts) < 3 or not parts[2]:
                raise p.Malformed("set-by-name without a value")
            name = f"{parts[0].decode('latin-1')}.{parts[1].decode('latin-1')}"
            k = self._param_index.get(name)
            tail = d[1:1 + len(parts[0]) + len(parts[1]) + 2]
            if k is None:
                return [p.encode(p.PARAM, 3, b"\x00" + tail + bytes((ENOENT,)))]
            if self.params[k].read_only:
                return [p.encode(p.PARAM, 3, b"\x00" + tail + bytes((1,)))]   # EPERM
            if parts[2][0] != p.PARAM_TYPE_ID[self.params[k].type]:
                raise p.Malformed(f"{name}: set by name with another type")
            self._set_param(k, parts[2], 1)
            return [p.encode(p.PARAM, 3, b"\x00" + tail + b"\x00")]
        return self._unsupported()

    # ---------------------------------------------------------------------- commanders
    def _generic(self, pk: p.Packet, now: float, *_) -> None:
        d = pk.data
        if not d:
            raise p.Malformed("empty set-point")
        if pk.channel == 1:                                   # meta: notify set-point stop
            if d[0] != 0:
                self._unsupported()
                return
            self.low = None
            self.plan = None
            self.hold_requested = True
            return
        kind = d[0]
        if kind == 0:
            self._stop()
            return
        if kind in (7, 8, 10):
            values = p.unpack("<ffff", d, 1)
        elif kind == 6:                                       # full state: its position (mm)
            x, y, z = p.unpack("<hhh", d, 1)
            values = (x / 1000.0, y / 1000.0, z / 1000.0, math.nan)
            kind = 7
        else:
            self._unsupported()                               # attitude modes, legacy types
            return
        if any(math.isinf(v) or (v != v and not (kind == 7 and k == 3))
               for k, v in enumerate(values)):
            raise p.Malformed("set-point with a value that is not a number")
        self.low = (kind, values, now)

    def _stop(self) -> None:
        self.low = None
        self.plan = None
        self.stop_requested = True

    def _high_level(self, pk: p.Packet, now: float, state: State) -> None:
        d = pk.data
        if len(d) < 2:
            raise p.Malformed("high-level command cut short")
        cmd, mask = d[0], d[1]
        if cmd == 0:
            self.group_mask = mask
            return
        parsed = self._parse_high_level(cmd, d)
        if parsed is None:
            self._unsupported()
            return
        if mask != 0 and not (mask & self.group_mask):
            return                                            # not for this drone's groups
        if not self.param("commander.enHighLevel"):
            self.counters.rejected += 1
            return
        what, args = parsed
        if what == "stop":
            self._stop()
            return
        flying = state.flying and not self.stop_requested
        if flying == (what == "takeoff"):   # a take-off in flight (the firmware's "not idle"),
            self.counters.rejected += 1     # or a landing or a go-to on the floor
            return
        here = self.last_setpoint if (self.plan is not None and self.last_setpoint) else (
            state.x, state.y, state.z, state.yaw)
        if what == "takeoff":
            height, yaw, keep_yaw, duration = args
            start = (state.x, state.y, state.z, state.yaw)
            goal = (state.x, state.y, height, state.yaw if keep_yaw else yaw)
            self.plan = Plan(start, goal, now, duration)
        elif what == "land":
            height, yaw, keep_yaw, duration = args
            goal = (here[0], here[1], height, here[3] if keep_yaw else yaw)
            self.plan = Plan(here, goal, now, duration, then_land=True)
        else:                                                 # go to
            relative, linear, x, y, z, yaw, duration = args
            if relative:
                x, y, z, yaw = here[0] + x, here[1] + y, here[2] + z, here[3] + yaw
            self.plan = Plan(here, (x, y, z, yaw), now, duration, linear=linear)
        self.low = None
        self.hold_requested = False
        self.stop_requested = False

    @staticmethod
    def _parse_high_level(cmd: int, d: bytes):
        if cmd == 3:
            return "stop", ()
        if cmd in (7, 8):
            _, _, height, yaw, keep, duration = p.unpack("<BBff?f", d)
            args = (height, yaw, keep, duration)
            what = "takeoff" if cmd == 7 else "land"
        elif cmd in (1, 2):                                   # the first take-off and land
            _, _, height, duration = p.unpack("<BBff", d)
            args = (height, 0.0, True, duration)
            what = "takeoff" if cmd == 1 else "land"
        elif cmd == 4:
            _, _, rel, x, y, z, yaw, duration = p.unpack("<BBBfffff", d)
            what, args = "goto", (rel, False, x, y, z, yaw, duration)
        elif cmd == 12:
            _, _, rel, lin, x, y, z, yaw, duration = p.unpack("<BBBBfffff", d)
            what, args = "goto", (rel, lin, x, y, z, yaw, duration)
        else:
            return None                                       # trajectories, spirals …
        if any(isinstance(v, float) and (v != v or math.isinf(v)) for v in args):
            raise p.Malformed("high-level command with a value that is not a number")
        return what, args

    # -------------------------------------------------------------------- set-point
    def command(self, now: float, state: State, cmd: dict, row: int) -> None:
        """This tick's set-point into the command arrays of the drone's group (row ``row``):
        ``mode`` int8[n, 1], ``target`` float64[n, 4], ``velocity`` float64[n, 4],
        ``leds`` uint8[n, 1, 3]."""
        mode, target, velocity = cmd["mode"], cmd["target"], cmd["velocity"]
        colour = self.leds()
        if colour is not None:
            cmd["leds"][row] = colour
        if self.stop_requested:
            self.stop_requested = False
            return self._land(mode, row)
        if self.low is not None:
            kind, v, t = self.low
            age = now - t
            if age >= STOP_AFTER_S:
                self.low = None
                return self._land(mode, row)
            if age < HOLD_AFTER_S:
                self._low_level(kind, v, state, mode, target, velocity, row)
                return
            if self.plan is None:       # silent for a while: hold where it is, once
                self._hold(state)
        if self.hold_requested:
            self.hold_requested = False
            self._hold(state)
        if self.plan is not None:
            sp = self.plan.setpoint(now)
            if self.plan.then_land and self.plan.done(now):
                self.plan = None
                return self._land(mode, row)
            self.last_setpoint = sp
            if not state.flying:
                mode[row, 0] = fl.TAKEOFF
                target[row] = (math.nan, math.nan, sp[2], math.nan)
            else:
                mode[row, 0] = fl.CMD_POSITION
                target[row] = sp
            return
        mode[row, 0] = fl.HOLD

    def _land(self, mode, row: int) -> None:
        self.last_setpoint = None
        mode[row, 0] = fl.CMD_LAND

    def _hold(self, state: State) -> None:
        self.last_setpoint = None
        here = (state.x, state.y, state.z, state.yaw)
        self.plan = Plan(here, here, 0.0, 0.0) if state.flying else None

    def _low_level(self, kind: int, v: tuple, state: State, mode, target, velocity,
                   row: int) -> None:
        self.plan = None
        self.last_setpoint = None
        if kind == 7:                                         # position, yaw in degrees
            x, y, z, yaw_deg = v
            if not state.flying:
                _leave_floor(z, mode, target, row)
                return
            mode[row, 0] = fl.CMD_POSITION
            target[row] = (x, y, z, math.radians(yaw_deg) if yaw_deg == yaw_deg else math.nan)
            return
        if kind == 10:                                        # hover: body vx, vy; height
            vx_b, vy_b, rate_deg, zd = v
            if not state.flying:
                _leave_floor(zd, mode, target, row)
                return
            c, s = math.cos(state.yaw), math.sin(state.yaw)
            vz = max(-qr.LAND_SPEED_M_S, min(1.0, HOVER_Z_GAIN * (zd - state.z)))
            mode[row, 0] = fl.CMD_VELOCITY
            velocity[row] = (c * vx_b - s * vy_b, s * vx_b + c * vy_b, vz,
                             math.radians(rate_deg))
            return
        vx, vy, vz, rate_deg = v                              # world velocity
        mode[row, 0] = fl.CMD_VELOCITY   # refused (and counted) by the flight model on the floor
        velocity[row] = (vx, vy, vz, math.radians(rate_deg))


HOVER_Z_GAIN = 2.0   # 1/s: the vertical speed a hover set-point asks per metre of height error


def _leave_floor(z: float, mode, target, row: int) -> None:
    """A set-point given to a drone on the floor: it takes off towards height ``z`` (m) when
    that is clearly above the floor, and otherwise stays where it is."""
    if z > TAKEOFF_FROM_FLOOR_M:
        mode[row, 0] = fl.TAKEOFF
        target[row] = (math.nan, math.nan, z, math.nan)
    else:
        mode[row, 0] = fl.HOLD
