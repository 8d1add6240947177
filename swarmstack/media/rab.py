"""The simulated range-and-bearing radio: who hears whom each tick, and where they are.

Every robot with a radio broadcasts one frame per tick (possibly empty: on a range-and-bearing
board every robot emits every tick, so an empty frame still makes it a neighbour). Receiver
``j`` hears sender ``i`` of the same run when (the rules of ARGoS's range-and-bearing medium,
by default)

1. both radios have the same ``payload_bytes`` (ARGoS's ``msg_size``); with ``mixed_sizes``
   any sizes link, and the receiver gets the frame as it was sent (frames are as long as
   their sender made them, at most its ``payload_bytes``: nothing is cut or padded);
2. the 3-D distance between their antennas (body base ``z`` + ``antenna_m``) is less than the
   *sender's* ``range_m`` (strictly: a receiver exactly at the range does not hear; ranges
   may be asymmetric);
3. with ``occlusion``, the segment between the antennas crosses no wall, box or cylinder, and
   with ``robots_occlude`` no other robot's body (sender and receiver excluded; a body is the
   vertical prism of its bounding disc, as sensors see it);
4. the receiver's Bernoulli draw with probability ``drop`` does not lose it;
5. the receiver's ``capacity`` (most receptions per tick, 0 = unlimited) is not exceeded: when
   more arrive it keeps the nearest (true distance; ties: the lower body index), the rest
   count as dropped.

A reception carries the sender's body index and what the receiver measures: ``distance_m``
(plus Gaussian noise, clamped at 0), ``azimuth_rad`` (horizontal bearing in the receiver's
frame, counter-clockwise from its +x axis, in [-pi, pi]; noise wraps) and ``elevation_rad``
(in [-pi/2, pi/2]; noise is clamped); the receiver's full orientation (roll, pitch, yaw, ZYX:
R = Rz Ry Rx, the world vector turned by R^T) gives its frame. Receptions of each receiver
are ordered by sender body index. Noise and drops are counter-based draws of (receiver key,
tick, sender robot id): reproducible, and a run of a batch hears exactly what it hears
simulated alone. Runs never hear each other.

A frame longer than the sender's ``payload_bytes`` is refused (not sent at all, counted).
Robots with ``range_m <= 0`` have no radio: they neither emit nor receive. A robot whose
``enabled`` flag is cleared (switched off) stops emitting but still listens.

Use::

    params = RadioParams.for_world(sim.world, {"epuck2": {"range_m": 0.5}}, seed=sim.seed)
    medium = Medium(params, sim.world.n_runs)
    medium.outbox[i, :3] = (1, 2, 3); medium.out_size[i] = 3     # during the tick
    inbox = medium.deliver(sim.world)                              # after the robots moved
    for k in range(inbox.start[j], inbox.start[j + 1]):
        inbox.sender[k], inbox.distance_m[k], inbox.azimuth_rad[k], inbox.payload(k)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Mapping, Optional, Sequence

import numpy as np

from swarmstack.sim import threads
from swarmstack.geometry.static_index import build_static_index, footprints
import swarmstack.media.rab_kernels as K
import swarmstack.media.rab_sums as S
from swarmstack.world.rng import stream_keys

# With at least this many bodies (and more than one Numba thread) the medium uses its
# multi-threaded kernel. Below, one thread is fast enough (1 000 robots: about 2 000 ticks/s)
# and a parallel launch on a busy machine can cost more than a whole serial delivery.
PARALLEL_MIN_RECEIVERS = 4096

# Runs of at most this many bodies may be summed without the inbox (``rab_sums``): a receiver
# then looks at every robot of its run, cheaper than a grid walk for a few tens of robots.
SUMS_MAX_RUN_BODIES = 64

PARAM_FIELDS = ("range_m", "antenna_m", "payload_bytes", "drop", "range_noise_m",
                "bearing_noise_rad", "capacity")


@dataclass
class RadioParams:
    """One entry per body (N). Build by hand, or per group with :meth:`for_world`.

    Sender side: ``range_m`` (<= 0: no radio), ``antenna_m`` (antenna height above the body's
    base), ``payload_bytes`` (the most bytes one frame may carry). Receiver side: ``drop``
    (Bernoulli loss probability per message), ``range_noise_m`` (Gaussian std on distance),
    ``bearing_noise_rad`` (Gaussian std on azimuth and on elevation), ``capacity`` (most
    receptions per tick, 0 = unlimited), ``keys`` (the robot's random-stream key).
    ``occlusion``: static shapes block the line between antennas; ``robots_occlude``: robot
    bodies do too; ``mixed_sizes``: radios of different ``payload_bytes`` hear each other
    (by default, as in ARGoS, only equal sizes link).
    """

    range_m: np.ndarray
    antenna_m: np.ndarray
    payload_bytes: np.ndarray
    drop: np.ndarray
    range_noise_m: np.ndarray
    bearing_noise_rad: np.ndarray
    capacity: np.ndarray
    keys: np.ndarray
    occlusion: bool = True
    robots_occlude: bool = True
    mixed_sizes: bool = False

    def __post_init__(self):
        n = int(np.shape(self.range_m)[0]) if np.ndim(self.range_m) == 1 else -1
        if n < 0:
            raise ValueError("range_m must hold one value per body")
        for name, dtype in (("range_m", np.float64), ("antenna_m", np.float64),
                            ("payload_bytes", np.int64), ("drop", np.float64),
                            ("range_noise_m", np.float64), ("bearing_noise_rad", np.float64),
                            ("capacity", np.int64), ("keys", np.uint64)):
            setattr(self, name, _column(getattr(self, name), n, dtype, name))
        self.occlusion = bool(self.occlusion)
        self.robots_occlude = bool(self.robots_occlude)
        self.mixed_sizes = bool(self.mixed_sizes)
        if np.any((self.drop < 0) | (self.drop > 1)):
            raise ValueError("drop probabilities must be in [0, 1]")
        for name in ("payload_bytes", "capacity", "range_noise_m", "bearing_noise_rad"):
            if np.any(getattr(self, name) < 0):
                raise ValueError(f"{name} must be >= 0")

    @property
    def n(self) -> int:
        return int(self.range_m.shape[0])

    @classmethod
    def uniform(cls, n: int, range_m: float, *, antenna_m: float = 0.0, payload_bytes: int = 0,
                drop: float = 0.0, range_noise_m: float = 0.0, bearing_noise_rad: float = 0.0,
                capacity: int = 0, keys=None, occlusion: bool = True,
                robots_occlude: bool = True, mixed_sizes: bool = False) -> "RadioParams":
        """The same values for all ``n`` bodies (``keys`` default to 0 … n-1)."""
        keys = np.arange(n, dtype=np.uint64) if keys is None else keys
        return cls(np.full(n, float(range_m)), antenna_m, payload_bytes, drop, range_noise_m,
                   bearing_noise_rad, capacity, keys, occlusion, robots_occlude, mixed_sizes)

    @classmethod
    def for_world(cls, world, groups: Optional[Mapping[str, Mapping]] = None, *,
                  seed: Optional[int] = None, keys=None, occlusion: bool = True,
                  robots_occlude: bool = True, mixed_sizes: bool = False) -> "RadioParams":
        """Per-body parameters from per-group values.

        ``groups[name]`` may give any of ``range_m, antenna_m, payload_bytes, drop,
        range_noise_m, bearing_noise_rad, capacity``; what it leaves out comes from the
        group's robot type (its ``RadioSpec``: range, payload bytes, antenna height) or is 0
        (no drop, no noise, unlimited capacity). A group whose type has no radio and that is
        not given a ``range_m`` has no radio.

        ``keys`` (uint64[N]) or ``seed``: with a seed, each robot's key is its ``radio``
        stream of that seed — the key a simulation with that seed gives it (run k of a batch
        uses seed + k), so a run hears the same in a batch and alone.
        """
        from swarmstack.robots import base as robot_types

        groups = dict(groups or {})
        unknown = set(groups) - {g.name for g in world.groups}
        if unknown:
            raise KeyError(f"no robot group named {', '.join(sorted(unknown))}")
        n = world.bodies.n
        cols = {name: np.zeros(n) for name in PARAM_FIELDS}
        for g in world.groups:
            spec = robot_types.ROBOT_TYPES.get(g.robot_type)
            radio = getattr(spec, "radio", None)
            values = {"range_m": radio.range_m, "payload_bytes": radio.payload_bytes,
                      "antenna_m": radio.antenna_height_m} if radio is not None else {}
            values.update(groups.get(g.name, {}))
            bad = set(values) - set(PARAM_FIELDS)
            if bad:
                raise KeyError(f"{g.name}: unknown radio parameter {', '.join(sorted(bad))}")
            for name, v in values.items():
                cols[name][g.start:g.stop] = v
        if keys is None:
            keys = radio_keys(world, 0 if seed is None else seed)
        return cls(cols["range_m"], cols["antenna_m"], cols["payload_bytes"].astype(np.int64),
                   cols["drop"], cols["range_noise_m"], cols["bearing_noise_rad"],
                   cols["capacity"].astype(np.int64), keys, occlusion, robots_occlude,
                   mixed_sizes)


def static_lists(scene, reach: float):
    """``(aabb, start, items)``: the footprint bounding box [x0, y0, x1, y1] of every static
    shape (boxes, then cylinders) and, per grid cell, the shapes (box k, cylinder B + k) that
    come within ``reach`` of the cell — what a sight line of that length may cross. The boxes
    are padded by 1 µm against rounding: they only decide which shapes get the exact test."""
    boxes, cyl = scene.arena.boxes, scene.arena.cylinders
    aabb = np.column_stack(footprints(boxes, cyl, pad=1e-6)).reshape(-1, 4)
    bs, bi, cs, ci = build_static_index(scene.grid, boxes, cyl, margin=reach)
    cells = np.arange(bs.shape[0] - 1)
    owner = np.concatenate([np.repeat(cells, np.diff(bs)), np.repeat(cells, np.diff(cs))])
    items = np.concatenate([bi, ci + boxes.shape[0]])
    items = np.ascontiguousarray(items[np.argsort(owner, kind="stable")], dtype=np.int64)
    return np.ascontiguousarray(aabb), bs + cs, items


def _column(value, n: int, dtype, name: str) -> np.ndarray:
    """A writable, contiguous copy of one value per body (a scalar is repeated)."""
    a = np.asarray(value)
    if a.ndim == 0:
        return np.full(n, a, dtype=dtype)
    if a.shape != (n,):
        raise ValueError(f"{name}: expected {n} values, found shape {a.shape}")
    return np.array(a, dtype=dtype, copy=True)


def radio_keys(world, seed: int) -> np.ndarray:
    """uint64[N]: each body's ``radio`` stream key for a batch started at ``seed``."""
    b = world.bodies
    keys = np.zeros(b.n, dtype=np.uint64)
    for r in np.unique(b.run):
        mine = np.flatnonzero(b.run == r)
        per_run = stream_keys(seed, int(r), int(b.robot_id[mine].max()) + 1, "radio")
        keys[mine] = per_run[b.robot_id[mine]]
    return keys


@dataclass
class Inbox:
    """What every receiver heard this tick, as CSR over receivers (body indices).

    Receptions of receiver ``j`` are ``start[j] … start[j + 1] - 1``, ordered by sender.
    ``sent``/``sent_size`` are this tick's frames (a copy: the outbox is free for the next
    tick); ``sent_size`` is -1 for a body that sent nothing.
    """

    start: np.ndarray          # int64[N + 1]
    sender: np.ndarray         # int64[M] body index
    distance_m: np.ndarray     # float64[M]
    azimuth_rad: np.ndarray    # float64[M]
    elevation_rad: np.ndarray  # float64[M]
    sent: np.ndarray           # uint8[N, max_cap]
    sent_size: np.ndarray      # int32[N]

    @staticmethod
    def empty(n: int, width: int) -> "Inbox":
        """Nobody heard anything (before the first delivery)."""
        return Inbox(np.zeros(n + 1, dtype=np.int64), np.zeros(0, dtype=np.int64),
                     np.zeros(0), np.zeros(0), np.zeros(0), np.zeros((n, width), dtype=np.uint8),
                     np.full(n, -1, dtype=np.int32))

    def __len__(self) -> int:
        return int(self.sender.shape[0])

    def payload(self, k: int) -> bytes:
        """The frame of reception ``k``."""
        s = int(self.sender[k])
        return self.sent[s, :self.sent_size[s]].tobytes()

    def count(self, j: int) -> int:
        """How many senders body ``j`` heard."""
        return int(self.start[j + 1] - self.start[j])

    def receptions(self, j: int) -> list[tuple[int, bytes, float, float, float]]:
        """``(sender body, payload, distance_m, azimuth_rad, elevation_rad)`` heard by ``j``."""
        return [(int(self.sender[k]), self.payload(k), float(self.distance_m[k]),
                 float(self.azimuth_rad[k]), float(self.elevation_rad[k]))
                for k in range(int(self.start[j]), int(self.start[j + 1]))]


class SummedInbox:
    """The inbox of a tick delivered as neighbour sums only (:meth:`Medium.neighbour_sums`):
    every reader of the medium had asked for no more, so no reception was listed."""

    def __init__(self, count: np.ndarray, pull: np.ndarray, per_m: float):
        self.count = count
        self.pull = pull
        self.per_m = per_m

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise RuntimeError(
            f"the radio delivered neighbour counts and vectors only this tick (every group "
            f"on it asked for no more), so the inbox has no {name!r}; set medium.keep_inbox "
            f"= True before running to have every reception listed")


@dataclass
class MediumStats:
    """Per-run int64 counters since the last :meth:`Medium.reset`."""

    sent: np.ndarray       # frames broadcast
    delivered: np.ndarray  # receptions
    dropped: np.ndarray    # lost to the Bernoulli draw or over a receiver's capacity
    refused: np.ndarray    # frames longer than the sender's cap: not sent
    max_bytes: np.ndarray  # largest frame one robot sent in one tick

    @staticmethod
    def zeros(n_runs: int) -> "MediumStats":
        return MediumStats(*(np.zeros(n_runs, dtype=np.int64) for _ in range(5)))


class Medium:
    """The range-and-bearing medium of a batch of runs (see the module docstring).

    ``outbox`` uint8[N, max_cap] and ``out_size`` int32[N] (-1: silent this tick) are written
    by controllers during the tick; ``enabled`` bool[N] says which robots emit (a controller
    may clear it to switch its radio off). :meth:`deliver` is called once per tick after the
    robots moved; it returns the :class:`Inbox`, also kept as ``inbox`` until the next one.
    ``parallel`` picks the multi-threaded kernel (None: ``threads.go_parallel``, from
    ``PARALLEL_MIN_RECEIVERS`` bodies when the process has more than one thread); results are
    the same either way.
    """

    def __init__(self, params: RadioParams, n_runs: int, parallel: Optional[bool] = None):
        self.params = params
        self.n_runs = int(n_runs)
        n = params.n
        self.has_radio = params.range_m > 0
        max_cap = int(params.payload_bytes[self.has_radio].max()) if self.has_radio.any() else 0
        self.outbox = np.zeros((n, max_cap), dtype=np.uint8)
        self.out_size = np.zeros(n, dtype=np.int32)
        self.enabled = self.has_radio.copy()
        self.stats = MediumStats.zeros(self.n_runs)
        self.parallel = parallel
        self._emits = np.zeros(n, dtype=np.bool_)
        self._reach = np.zeros(self.n_runs)
        self._kept = np.zeros(n, dtype=np.int64)
        self._lost = np.zeros(n, dtype=np.int64)
        self._found = np.zeros(n, dtype=np.int64)
        self._scratch_lost = np.zeros(n, dtype=np.int64)
        self._bodies_checked = None
        self._static_scene = None
        self._static_reach = 0.0
        self._static = None
        self._slots(16)
        # who reads the inbox: objects with a ``sums_per_m`` attribute (None: the full inbox;
        # a number: only neighbour_sums with that scale), registered by the radio ports
        self.readers: list = []
        self.keep_inbox = False   # always list every reception (e.g. to draw the links)
        self._runs_csr = None
        self._sums = None
        self.reset()

    @property
    def n(self) -> int:
        return self.params.n

    @property
    def max_cap(self) -> int:
        return int(self.outbox.shape[1])

    def _slots(self, cap: int) -> None:
        n = self.params.n
        self._slot_cap = int(cap)
        self._snd = np.empty(n * cap, dtype=np.int64)
        self._dist = np.empty(n * cap)
        self._az = np.empty(n * cap)
        self._el = np.empty(n * cap)

    def reset(self) -> None:
        """Counters to zero, outbox cleared, every radio on with an empty frame."""
        for a in (self.stats.sent, self.stats.delivered, self.stats.dropped,
                  self.stats.refused, self.stats.max_bytes):
            a[:] = 0
        self.outbox[:] = 0
        np.copyto(self.enabled, self.has_radio)
        self.out_size[:] = np.where(self.enabled, 0, -1)
        self.inbox = Inbox.empty(self.n, self.max_cap)

    def stats_of(self, run: int) -> dict:
        """Counters of one run."""
        s = self.stats
        return {"messages_sent": int(s.sent[run]), "messages_delivered": int(s.delivered[run]),
                "messages_dropped": int(s.dropped[run]), "messages_refused": int(s.refused[run]),
                "max_bytes_per_robot_tick": int(s.max_bytes[run])}

    def _use_parallel(self) -> bool:
        if self.parallel is not None:
            return bool(self.parallel)
        return threads.go_parallel(self.params.n, PARALLEL_MIN_RECEIVERS)

    def _static_index(self, scene, reach: float):
        """Per grid cell, the static shapes within ``reach`` (this tick's largest range) of the
        cell, and their bounding boxes: a receiver tests only those, usually none away from
        walls. Built for the largest range of any body, again only if ranges grew."""
        if self._static_scene is not scene or reach > self._static_reach:
            self._static_reach = max(reach, float(self.params.range_m.max(initial=0.0)))
            self._static = static_lists(scene, self._static_reach)
            self._static_scene = scene
        return self._static

    def deliver(self, world, tick: Optional[int] = None) -> Inbox:
        """Broadcast this tick's frames; returns what every body heard.

        Positions are ``world.bodies``; the robot grid (``world.cell_start``/``order``) must
        be that of the current positions (it is after any physics step; call
        ``world.refresh_grid()`` after moving bodies by hand). ``tick`` (default
        ``world.tick``) keys the random draws.
        """
        p = self.params
        b = world.bodies
        if b is not self._bodies_checked:
            if b.n != p.n:
                raise ValueError(f"the medium has {p.n} bodies, the world {b.n}")
            if b.n and (b.run.min() < 0 or b.run.max() >= self.n_runs):
                raise ValueError(f"the world's run indices go beyond the medium's {self.n_runs}"
                                 " runs")
            self._bodies_checked = b
            self._runs_csr = _runs_csr(b.run, self.n_runs)
        if world.cell_start is None:
            world.refresh_grid()
        tick = int(world.tick if tick is None else tick)
        per_m, full = self._sums_plan()
        if per_m is not None and not full:
            return self._deliver_sums(world, tick, per_m)
        s = self.stats
        K.prepare(self.out_size, self.enabled, p.range_m, p.payload_bytes, b.run, self.n_runs,
                  self._emits, self._reach, s.sent, s.refused, s.max_bytes)
        arena = world.scene.arena
        aabb, static_start, static_items = self._static_index(world.scene,
                                                              float(self._reach.max()))
        max_top = float(np.max(b.z + b.height, initial=0.0)) if p.robots_occlude else 0.0
        n = b.n
        receive = (partial(K.parallel_receive, 0, n, threads.spread(n, K.CHUNK))
                   if self._use_parallel() else partial(K.receive_rows, 0, n))
        while True:
            receive(tick, self._emits, self._reach, b.x, b.y, b.z, b.roll, b.pitch, b.yaw, b.run,
                    b.robot_id, b.radius, b.height, p.range_m, p.antenna_m, p.payload_bytes,
                    p.mixed_sizes, p.drop, p.range_noise_m, p.bearing_noise_rad, p.capacity,
                    p.keys, p.occlusion, p.robots_occlude, arena.boxes, arena.cylinders, aabb,
                    static_start, static_items, world.scene.grid, world.cell_start, world.order,
                    world.scene.max_radius, max_top, self._slot_cap, self._snd, self._dist,
                    self._az, self._el, self._kept, self._lost, self._found)
            most = int(self._found.max(initial=0))
            if most <= self._slot_cap:
                break
            self._slots(max(2 * self._slot_cap, int(most) + 8))
        start, sender, dist, az, el, sent, sent_size = K.finish(
            self._slot_cap, self._snd, self._dist, self._az, self._el, self._kept, self._lost,
            b.run, s.delivered, s.dropped, self._emits, self.outbox, self.out_size,
            self.enabled)
        self.inbox = Inbox(start, sender, dist, az, el, sent, sent_size)
        if per_m is not None:
            # the sums readers get the numbers they get without the inbox (the list of
            # receptions is only added): a run does not change when it is watched
            args, count, pull = self._sums_args(world, per_m, self._scratch_lost)
            S.sums_small_runs(tick, *args)
            self._sums = (self.inbox, per_m, count, pull)
        return self.inbox

    # ------------------------------------------------------------------ neighbour sums
    def neighbour_sums(self, per_m: float) -> tuple[np.ndarray, np.ndarray]:
        """Per body, from the last delivery: the number of robots heard (int64[N]) and
        ``Σ (1/(1 + per_m·d), ∠azimuth)`` over them (float64[N, 2], d the measured
        distance in m, in the order of the inbox). The same numbers whether the last delivery
        listed every reception or, every reader wanting only these, summed them directly."""
        inbox = self.inbox
        if isinstance(inbox, SummedInbox):
            if inbox.per_m != per_m:
                raise ValueError(f"the radio summed neighbours with per_m = {inbox.per_m}, "
                                 f"not {per_m}")
            return inbox.count, inbox.pull
        if self._sums is None or self._sums[0] is not inbox or self._sums[1] != per_m:
            n = inbox.start.shape[0] - 1
            count = np.empty(n, dtype=np.int64)
            pull = np.empty((n, 2))
            S.sums_from_inbox(inbox.start, inbox.distance_m, inbox.azimuth_rad, float(per_m),
                              count, pull)
            self._sums = (inbox, per_m, count, pull)
        return self._sums[2], self._sums[3]

    def _sums_plan(self) -> tuple[Optional[float], bool]:
        """``(per_m, full)``: the scale of the neighbour sums made straight from the bodies
        (None: no reader wants sums, or they cannot be made so) and whether every reception
        must also be listed (a reader of the inbox, ``keep_inbox``, or sums that must come
        from the inbox)."""
        if not self.readers:
            return None, True
        scales = {r.sums_per_m for r in self.readers}
        full = self.keep_inbox or None in scales
        scales.discard(None)
        p = self.params
        if len(scales) != 1 or p.capacity.any() or not self._runs_csr[2]:
            return None, True
        return float(scales.pop()), full

    def _sums_args(self, world, per_m: float, lost: np.ndarray):
        """``(args, count, pull)``: the arguments of ``rab_sums.sums_small_runs`` after the
        tick (``_emits``/``_reach`` of this tick's ``prepare``), with drops per receiver into
        ``lost``, and the count and pull they fill."""
        p = self.params
        b = world.bodies
        # the shapes near each cell for the longest range (this tick's emitters reach no
        # further): built once, as the full delivery builds them
        aabb, static_start, static_items = self._static_index(
            world.scene, float(p.range_m.max(initial=0.0)))
        count = np.empty(b.n, dtype=np.int64)
        pull = np.empty((b.n, 2))
        run_start, run_bodies, _ = self._runs_csr
        arena = world.scene.arena
        return (self._emits, self._reach, b.x, b.y, b.z, b.roll, b.pitch, b.yaw, b.run,
                b.robot_id, b.radius, b.height, p.range_m, p.antenna_m, p.payload_bytes,
                p.mixed_sizes, p.drop, p.range_noise_m, p.bearing_noise_rad, p.keys,
                p.occlusion, p.robots_occlude, arena.boxes, arena.cylinders, aabb, static_start,
                static_items, world.scene.grid, run_start, run_bodies, per_m, count, pull,
                lost), count, pull

    def _deliver_sums(self, world, tick: int, per_m: float) -> SummedInbox:
        s = self.stats
        args, count, pull = self._sums_args(world, per_m, self._lost)
        S.deliver_sums(tick, self.out_size, self.enabled, self.n_runs, s.sent, s.refused,
                       s.max_bytes, s.delivered, s.dropped, *args)
        self.inbox = SummedInbox(count, pull, per_m)
        return self.inbox


def _runs_csr(run: np.ndarray, n_runs: int) -> tuple[np.ndarray, np.ndarray, bool]:
    """``(start, bodies, small)``: the bodies of run r are ``bodies[start[r]:start[r + 1]]``,
    in increasing body index; ``small``: no run has more than SUMS_MAX_RUN_BODIES."""
    bodies = np.argsort(run, kind="stable").astype(np.int64)
    sizes = np.bincount(run, minlength=n_runs)
    start = np.zeros(n_runs + 1, dtype=np.int64)
    np.cumsum(sizes, out=start[1:])
    return start, bodies, bool(sizes.max(initial=0) <= SUMS_MAX_RUN_BODIES)


class MediumRadio:
    """The Buzz :class:`~swarmstack.buzz.swarm.radio.Radio` over a :class:`Medium` and a world.

    Robots ``0 … n-1`` are the bodies of run ``run`` with those robot ids. ``exchange`` puts
    each packet in the outbox (``None``: silent), delivers over the world's current positions
    and returns per robot ``(sender robot id, payload, distance_m, azimuth_rad,
    elevation_rad)`` tuples. Random draws are keyed by the exchange number (the harness's
    step), so a world that does not move still sees fresh drops and noise every step.
    ``sent`` counts messages put on a link (delivered or dropped), ``dropped`` those lost.
    The medium is this radio's alone: every other body of it stays silent.
    """

    def __init__(self, medium: Medium, world, n: Optional[int] = None, run: int = 0):
        self.medium = medium
        self.world = world
        self.run = int(run)
        b = world.bodies
        mine = np.flatnonzero(b.run == self.run)
        mine = mine[np.argsort(b.robot_id[mine], kind="stable")]
        n = len(mine) if n is None else int(n)
        if n > len(mine) or not np.array_equal(b.robot_id[mine[:n]], np.arange(n)):
            raise ValueError(f"run {self.run} has no robots with ids 0 … {n - 1}")
        self.n = n
        self.bodies = mine[:n]
        self.robot_of = np.full(b.n, -1, dtype=np.int64)
        self.robot_of[self.bodies] = np.arange(n)
        caps = medium.params.payload_bytes[self.bodies][medium.has_radio[self.bodies]]
        self.payload_cap: Optional[int] = int(caps.min()) if caps.size else None
        self.sent = 0
        self.dropped = 0
        self.steps = 0

    def exchange(self, packets: Sequence[Optional[bytes]]) -> list[list[tuple]]:
        m = self.medium
        if len(packets) != self.n:
            raise ValueError(f"expected {self.n} packets, got {len(packets)}")
        m.out_size[:] = -1
        width = m.max_cap
        for k, p in enumerate(packets):
            if p is None:
                continue
            body = self.bodies[k]
            size = len(p)
            if 0 < size <= width:
                m.outbox[body, :size] = np.frombuffer(p, dtype=np.uint8)
            m.out_size[body] = size  # longer than the cap: the medium refuses it
        s = m.stats
        before = (int(s.delivered[self.run]), int(s.dropped[self.run]))
        inbox = m.deliver(self.world, tick=self.steps)
        self.steps += 1
        delivered = int(s.delivered[self.run]) - before[0]
        lost = int(s.dropped[self.run]) - before[1]
        self.sent += delivered + lost
        self.dropped += lost
        start = inbox.start[self.bodies].tolist()
        stop = inbox.start[self.bodies + 1].tolist()
        senders = self.robot_of[inbox.sender].tolist()
        dist = inbox.distance_m.tolist()
        az = inbox.azimuth_rad.tolist()
        el = inbox.elevation_rad.tolist()
        out = []
        for a, z in zip(start, stop):
            out.append([(senders[k], packets[senders[k]], dist[k], az[k], el[k])
                        for k in range(a, z)])
        return out
