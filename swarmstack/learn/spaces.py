"""Observation and action spaces of a robot group, from its type's devices and commands.

A group's observation is its enabled readings, one array per reading (named as
``group.readings`` names them), each clipped into its device's range; its action is the type's
commands (all, or the ones named), each clipped into its actuator's limits when written. Both are
described per robot by :class:`Field` (shape, dtype, bounds, unit) and become Gymnasium ``Box``
and ``Dict`` spaces. ``flat`` turns a robot's readings into one float64 vector (the fields in
name order, each flattened) and ``unflatten`` a float64 vector into commands: what a policy
network reads and writes.

The ranges come from the devices' own parameters (full scale, range, lux ceiling …); a device
this table does not know (a plug-in's) gets its dtype's limits, or ±inf for floats. Record
readings (the RVR's ``reference``) have no ``Box``: they are left out of the default observation
and reach a user ``observe`` function untouched.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Optional, Sequence

import numpy as np

INF = math.inf
PI = math.pi


@dataclass(frozen=True)
class Field:
    """One reading or command of one robot: ``dtype[*shape]`` in ``[low, high]`` (arrays of
    that shape), in ``unit``."""

    name: str
    shape: tuple[int, ...]
    dtype: np.dtype
    low: np.ndarray
    high: np.ndarray
    unit: str = ""

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def integer(self) -> bool:
        return np.issubdtype(self.dtype, np.integer)

    def box(self, rows: tuple[int, ...] = ()):
        """``Box`` of ``rows`` robots (``()``: one robot)."""
        from gymnasium.spaces import Box

        shape = (*rows, *self.shape)
        return Box(np.broadcast_to(self.low, shape), np.broadcast_to(self.high, shape),
                   shape, self.dtype)

    def clip(self, value: np.ndarray) -> np.ndarray:
        """``value`` inside the bounds, as the field's dtype (integers rounded to nearest)."""
        if self.integer and not np.issubdtype(np.asarray(value).dtype, np.integer):
            value = np.rint(value)
        return np.clip(value, self.low, self.high).astype(self.dtype, copy=False)


def _field(name, shape, dtype, low, high, unit="") -> Field:
    low = np.broadcast_to(np.asarray(low, dtype=np.float64), shape)
    high = np.broadcast_to(np.asarray(high, dtype=np.float64), shape)
    dtype = np.dtype(dtype)
    if np.issubdtype(dtype, np.integer):   # ±inf (or beyond) → the dtype's own limits
        info = np.iinfo(dtype)
        lo, hi = np.full(shape, info.min, dtype), np.full(shape, info.max, dtype)
        lo[low > info.min] = low[low > info.min]
        hi[high < info.max] = high[high < info.max]
        return Field(name, tuple(shape), dtype, lo, hi, unit)
    return Field(name, tuple(shape), dtype, low.astype(dtype), high.astype(dtype), unit)


def _pose(d, bounds):
    x0, y0, x1, y1 = bounds
    exact = d.position_noise_m == 0 and d.yaw_noise_rad == 0
    lo = [x0, y0, 0.0, -PI, -PI, -PI] if exact else [-INF, -INF, -INF, -PI, -PI, -PI]
    hi = [x1, y1, INF, PI, PI, PI] if exact else [INF, INF, INF, PI, PI, PI]
    return lo, hi, "m, m, m, rad, rad, rad"


def _camera(d, bounds):  # blobs: column, row (px), red, green, blue; −1 for an empty slot
    return -1.0, [d.width_px, d.height_px, 255, 255, 255], "px, px, rgb"


# device class name -> (device, arena bounds) -> (low, high, unit), broadcast to the reading
RANGES: dict[str, Callable] = {
    "Proximity": lambda d, b: (0, d.full_scale, "counts"),
    "Light": lambda d, b: (0, d.full_scale, "counts (4095 dark)"),
    "Ground": lambda d, b: (0, d.full_scale, "counts (0 black)"),
    "ToF": lambda d, b: (0, d.max_mm, "mm"),
    "Encoders": lambda d, b: (-32768, 32767, "steps (wrapping int16)"),
    "Camera": _camera,
    "Battery": lambda d, b: (0.0, 1.0, "charge"),
    "_FlightBattery": lambda d, b: (0.0, 1.0, "charge"),
    "Positioning": _pose,
    "DifferentialSteering": lambda d, b: (-INF, INF, "cm/s, cm/s, cm, cm, cm"),
    "DownCamera": lambda d, b: ([-1.0, -INF, -INF], INF, "id, m, m"),
    "ColourGround": lambda d, b: (0, 255, "rgb"),
    "FixedColour": lambda d, b: ([0, 0, 0, -1], 255, "rgb, label"),
    "Velocity": lambda d, b: (-INF, INF, "m/s"),
    "Accelerometer": lambda d, b: (-INF, INF, "g"),
    "Gyroscope": lambda d, b: (-INF, INF, "rad/s"),
    "Imu": lambda d, b: (-PI, PI, "rad"),
    "Lux": lambda d, b: (0.0, d.max_lux, "lux"),
    "Locator": lambda d, b: (-INF, INF, "m"),
    "QuaternionSensor": lambda d, b: (-1.0, 1.0, ""),
    "Rangefinders": lambda d, b: (d.min_m, d.max_m, "m (clipped: too close, nothing)"),
    "Lidar": lambda d, b: (0.0, d.max_m, "m (0 too close)"),
}


def reading_field(device, bounds) -> Optional[Field]:
    """The :class:`Field` of a device's reading; None for a record reading."""
    one = device.allocate(1)
    if one.dtype.names:
        return None
    shape, dtype = one.shape[1:], one.dtype
    ranges = RANGES.get(type(device).__name__)
    if ranges is not None:
        low, high, unit = ranges(device, bounds)
    else:
        low, high, unit = -INF, INF, ""
    return _field(device.name, shape, dtype, low, high, unit)


def command_fields(robot_type, actuator_options: dict, bounds) -> dict[str, Field]:
    """The type's commands with the limits its actuators clamp them to."""
    acts = {}
    for a in robot_type.actuators:
        opts = actuator_options.get(a.name)
        acts[a.name] = a.make(opts if opts is not None or a.options is None else a.options())
    out = {}
    for c in robot_type.commands:
        low, high, unit = -INF, INF, c.unit
        if c.name == "wheels" and hasattr(acts.get("wheels"), "max_speed_m_s"):
            v = acts["wheels"].max_speed_m_s
            low, high = -v, v
        elif c.name == "leds":
            low, high = 0, 255
        elif c.name == "mode":          # Crazyflie: 0 hold … 5 move by
            low, high = 0, 5
        elif c.name == "velocity" and "flight" in acts:
            f = acts["flight"]
            low = [-f.max_speed] * 3 + [-f.max_yaw_rate]
            high = [f.max_speed] * 3 + [f.max_yaw_rate]
        elif c.name == "target" and "flight" in acts:
            x0, y0, x1, y1 = bounds
            low, high = [x0, y0, 0.0, -PI], [x1, y1, acts["flight"].top_z, PI]
        out[c.name] = _field(c.name, c.shape, c.dtype, low, high, unit)
    return out


def inbox_field(inbox: int, range_m: float, payload_bytes: int) -> Field:
    """The radio's inbox as ``inbox`` slots of (distance m, azimuth rad, elevation rad, the
    frame's bytes), nearest sender first; −1 in an empty slot and past a frame's end."""
    width = 3 + payload_bytes
    low = np.full(width, -1.0)
    low[1:3] = [-PI, -PI / 2]
    high = np.full(width, 255.0)
    high[:3] = [range_m, PI, PI / 2]
    return _field("inbox", (inbox, width), np.float64, low, high, "m, rad, rad, bytes")


def inbox_matrix(group_inbox, n: int, slots: int, payload_bytes: int) -> np.ndarray:
    """float64[n, slots, 3 + payload_bytes] of a group's ``GroupInbox`` (what
    ``group.inbox`` gives a batched controller): each robot's nearest receptions."""
    out = np.full((n, slots, 3 + payload_bytes), -1.0)
    m = len(group_inbox)
    if m == 0 or slots == 0:
        return out
    receiver, dist = group_inbox.receiver, group_inbox.distance_m
    order = np.lexsort((np.arange(m), dist, receiver))
    rank = np.arange(m) - group_inbox.start[receiver[order]]
    keep = order[rank < slots]
    row, slot = receiver[keep], rank[rank < slots]
    out[row, slot, 0] = dist[keep]
    out[row, slot, 1] = group_inbox.azimuth_rad[keep]
    out[row, slot, 2] = group_inbox.elevation_rad[keep]
    if payload_bytes:
        frames = group_inbox.payload[keep, :payload_bytes].astype(np.float64)
        cols = np.arange(frames.shape[1])
        frames[cols[None, :] >= group_inbox.size[keep][:, None]] = -1.0
        out[row, slot, 3:3 + frames.shape[1]] = frames
    return out


class GroupSpaces:
    """The observation and action fields of group ``name`` of type ``robot_type`` carrying
    ``devices`` (built, as the simulation builds them), with ``actuator_options`` (name →
    validated options) in an arena of ``bounds`` (x0, y0, x1, y1). ``readings`` and
    ``commands`` choose what is observed and what is acted on (default: every reading that
    has a ``Box``, every command)."""

    def __init__(self, name: str, robot_type, devices, actuator_options: dict, bounds,
                 commands: Optional[Sequence[str]] = None,
                 readings: Optional[Sequence[str]] = None,
                 radio: Optional[tuple[float, int]] = None, inbox: int = 0):
        self.name = name
        rt = robot_type
        fields = {}
        for dev in devices:
            f = reading_field(dev, bounds)
            if f is not None:
                fields[f.name] = f
        if readings is not None:
            readings = [r for r in readings if not (r == "inbox" and inbox)]
            unknown = [r for r in readings if r not in fields]
            if unknown:
                raise ValueError(f"group {self.name!r} has no reading {', '.join(unknown)} to "
                                 f"observe; it has {', '.join(sorted(fields)) or 'none'} "
                                 "(turn a sensor on in the experiment)")
            fields = {r: fields[r] for r in readings}
        self.radio, self.inbox = radio, int(inbox)
        if (self.inbox or "radio" in (commands or ())) and radio is None:
            raise ValueError(f"group {name!r} has no radio: add radio = true to observe its "
                             "inbox or send")
        if self.inbox:
            fields["inbox"] = inbox_field(self.inbox, *radio)
        self.observation = dict(sorted(fields.items()))
        cmds = command_fields(rt, dict(actuator_options), bounds)
        if radio is not None and radio[1]:   # a frame of payload_bytes, sent every tick
            cmds["radio"] = _field("radio", (radio[1],), np.uint8, 0, 255, "bytes")
        if commands is None:
            cmds.pop("radio", None)   # sent only when asked for
        else:
            unknown = [c for c in commands if c not in cmds]
            if unknown:
                raise ValueError(f"{rt.name} has no command {', '.join(unknown)}; it has "
                                 f"{', '.join(cmds)}")
            cmds = {c: cmds[c] for c in commands}
        self.action = dict(sorted(cmds.items()))
        self.obs_size = sum(f.size for f in self.observation.values())
        self.act_size = sum(f.size for f in self.action.values())

    @classmethod
    def of_group(cls, group, bounds, **kw) -> "GroupSpaces":
        """The spaces of a simulation's group (``Simulation.group(name)``)."""
        return cls(group.name, group.robot_type, group.devices.values(),
                   group.cfg.actuators, bounds,
                   radio=radio_limits(group.robot_type, group.cfg.radio, group.cfg.radio_on),
                   **kw)

    # spaces --------------------------------------------------------------------------------
    def observation_space(self, rows: tuple[int, ...] = ()):
        from gymnasium.spaces import Dict

        return Dict({k: f.box(rows) for k, f in self.observation.items()})

    def action_space(self, rows: tuple[int, ...] = ()):
        from gymnasium.spaces import Dict

        return Dict({k: f.box(rows) for k, f in self.action.items()})

    def flat_observation_space(self, rows: tuple[int, ...] = ()):
        return _flat_box(self.observation.values(), rows)

    def flat_action_space(self, rows: tuple[int, ...] = ()):
        return _flat_box(self.action.values(), rows)

    # values --------------------------------------------------------------------------------
    def observe(self, readings: dict, rows: slice, group_inbox=None) -> dict:
        """Copies of the readings of ``rows``, each clipped into its range (and the inbox
        slots of ``group_inbox``, a ``GroupInbox``, when observed)."""
        if self.inbox:
            n = next(iter(readings.values())).shape[0] if readings else \
                group_inbox.start.shape[0] - 1
            readings = {**readings, "inbox": inbox_matrix(group_inbox, n, self.inbox,
                                                          self.radio[1])}
        return {k: f.clip(readings[k][rows]) for k, f in self.observation.items()}

    def flat(self, obs: dict) -> np.ndarray:
        """float64[rows, obs_size]: each robot's observation as one vector."""
        parts = [np.asarray(obs[k], dtype=np.float64).reshape(-1, f.size)
                 for k, f in self.observation.items()]
        return np.concatenate(parts, axis=1) if parts else np.zeros((0, 0))

    def unflatten(self, vec: np.ndarray) -> dict:
        """float64[rows, act_size] → one array per command, (rows, *shape)."""
        vec = np.asarray(vec, dtype=np.float64).reshape(-1, self.act_size)
        out, at = {}, 0
        for k, f in self.action.items():
            out[k] = vec[:, at:at + f.size].reshape(-1, *f.shape)
            at += f.size
        return out

    def act(self, commands: dict, rows: slice, action: dict, send=None) -> None:
        """Writes ``action`` (one array per command, (rows, *shape)) into the commands of
        ``rows``, each clipped into its limits; ``send(uint8[rows, payload])`` sends the
        ``radio`` frames."""
        for k, f in self.action.items():
            if k not in action:
                raise ValueError(f"the action of group {self.name!r} has no {k!r} (it needs "
                                 f"{', '.join(self.action)})")
            value = np.asarray(action[k])
            if k == "radio":
                send(f.clip(value.reshape(-1, *f.shape)))
                continue
            target = commands[k][rows]
            if value.size != target.size:
                raise ValueError(f"action {k!r} of group {self.name!r}: expected "
                                 f"{target.shape} values, found shape {value.shape}")
            commands[k][rows] = f.clip(value.reshape(target.shape))


def flat_bounds(fields) -> tuple[np.ndarray, np.ndarray]:
    """float64 low and high of ``fields`` flattened one after the other."""
    fields = list(fields)
    if not fields:
        return np.zeros(0), np.zeros(0)
    return (np.concatenate([f.low.astype(np.float64).ravel() for f in fields]),
            np.concatenate([f.high.astype(np.float64).ravel() for f in fields]))


def _flat_box(fields, rows):
    from gymnasium.spaces import Box

    low, high = flat_bounds(fields)
    shape = (*rows, low.size)
    return Box(np.broadcast_to(low, shape), np.broadcast_to(high, shape), shape, np.float64)


def radio_limits(robot_type, radio_cfg, on: bool) -> Optional[tuple[float, int]]:
    """``(range m, payload bytes)`` of a group's radio (its ``radio`` table, else the type's
    board), None when it has none."""
    if not on or robot_type.radio is None:
        return None
    rng = radio_cfg.range if radio_cfg is not None and radio_cfg.range is not None else \
        robot_type.radio.range_m
    size = radio_cfg.payload_bytes if radio_cfg is not None and \
        radio_cfg.payload_bytes is not None else robot_type.radio.payload_bytes
    return float(rng), int(size)
