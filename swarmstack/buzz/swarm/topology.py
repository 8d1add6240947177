"""Who hears whom in the standalone harness, and an in-memory radio over it.

Topologies (``spec`` strings accepted by :func:`make_topology`; ``n`` robots, ids 0..n-1):

``full``
    every robot hears every other; robots sit on a circle whose neighbouring robots are
    ``spacing`` metres apart (the positions only give distances and bearings).
``line``
    robot ``i`` at ``(i * spacing, 0, 0)``; links only between ``i`` and ``i + 1`` (a chain:
    the hop count from robot 0 to robot ``i`` is ``i``).
``ring``
    robots on a circle, ``spacing`` metres between neighbours; links between ``i`` and
    ``(i + 1) mod n``.
``random:R``
    a random geometric graph: positions uniform in the unit square (1 m x 1 m, drawn from the
    seed); two robots are linked when they are less than ``R`` metres apart (as in ARGoS's
    range-and-bearing medium). It may be disconnected for small ``R``.
``star``
    robot 0 at the centre, the others on a circle of radius ``spacing`` around it; every
    robot hears every other (thesis §4.6.2 "circle" configuration: all readers at the same
    distance from the writer, all in radio range).

Links are symmetric. Distances and bearings are computed from positions with every robot's
heading along +x (the harness has no physics): azimuth = ``atan2(dy, dx)`` and elevation =
``atan2(dz, hypot(dx, dy))`` of the sender seen from the receiver.

:class:`InMemoryRadio` implements :class:`~swarmstack.buzz.swarm.radio.Radio` over a topology:
each packet on each link is dropped independently with probability ``drop`` (Bernoulli, as
the ARGoS range-and-bearing medium and the rosbuzz relay node do); packets longer than
``payload_cap`` are truncated to it. Senders never exceed it: which queued messages make it into
a robot's packet each step (priority order, what waits, what is discarded) is decided by
:meth:`swarmstack.buzz.swarm.outqueue.OutQueue.pack`.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Optional, Sequence

from .radio import Packet, Reception

Vec3 = tuple[float, float, float]


@dataclass
class Topology:
    """Robot positions plus either a fixed link graph or a radio range."""

    positions: list[Vec3]
    links: Optional[list[list[int]]] = None  # fixed graph: links[i] = robots that hear i
    range_m: Optional[float] = None  # otherwise: link when distance < range_m
    name: str = "custom"
    _cache: Optional[list[list[tuple[int, float, float, float]]]] = field(default=None, repr=False)

    @property
    def n(self) -> int:
        return len(self.positions)

    def moved(self) -> None:
        """Call after changing ``positions``: distances, bearings (and range links) change."""
        self._cache = None

    def receivers(self) -> list[list[tuple[int, float, float, float]]]:
        """For each sender ``i``: ``[(receiver j, distance, azimuth, elevation of i seen from j)]``."""
        if self._cache is None:
            self._cache = self._compute()
        return self._cache

    def neighbours(self, i: int) -> list[int]:
        return sorted(j for j, *_ in self.receivers()[i])

    def _compute(self) -> list[list[tuple[int, float, float, float]]]:
        if self.links is None:
            return self._compute_range()
        pos = self.positions
        n = len(pos)
        out: list[list[tuple[int, float, float, float]]] = [[] for _ in range(n)]
        for i in range(n):
            xi, yi, zi = pos[i]
            for j in self.links[i]:
                if j == i:
                    continue
                xj, yj, zj = pos[j]
                dx, dy, dz = xi - xj, yi - yj, zi - zj
                hd = math.hypot(dx, dy)
                d = math.sqrt(hd * hd + dz * dz)
                out[i].append((j, d, math.atan2(dy, dx), math.atan2(dz, hd)))
        return out

    def _compute_range(self) -> list[list[tuple[int, float, float, float]]]:
        """Range links for all pairs at once (numpy): robots that move recompute every step."""
        import numpy as np

        n = len(self.positions)
        out: list[list[tuple[int, float, float, float]]] = [[] for _ in range(n)]
        if self.range_m is None or n < 2:
            return out
        x, y, z = np.array(self.positions, dtype=float).reshape(n, 3).T.copy()
        flat = bool((z == z[0]).all())  # a planar swarm: no heights to compare, elevation 0
        # [i, j] = sender i seen from receiver j, one coordinate at a time (2-D arrays)
        dx, dy = x[:, None] - x, y[:, None] - y
        d2 = dx * dx + dy * dy
        if not flat:
            dz = z[:, None] - z
            d2 += dz * dz
        reach = self.range_m * (1 + 1e-9)  # a margin for the square; the test is on distances
        ok = d2 <= reach * reach
        np.fill_diagonal(ok, False)
        ii, jj = np.nonzero(ok)  # row-major: grouped by sender
        dx, dy = dx[ii, jj], dy[ii, jj]  # bearings only for the pairs in range
        hd = np.hypot(dx, dy)
        if flat:
            dist, el = hd, np.zeros_like(hd)
        else:
            dz = dz[ii, jj]
            dist, el = np.sqrt(hd * hd + dz * dz), np.arctan2(dz, hd)
        keep = dist < self.range_m  # strictly closer than the range, on the distance itself
        # as Python numbers in bulk: indexing numpy arrays one pair at a time is slow
        for i, j, d, a, e in zip(ii[keep].tolist(), jj[keep].tolist(), dist[keep].tolist(),
                                 np.arctan2(dy, dx)[keep].tolist(), el[keep].tolist()):
            out[i].append((j, d, a, e))
        return out

    def hops_from(self, src: int) -> list[Optional[int]]:
        """Hop count from ``src`` to every robot (None when unreachable)."""
        rec = self.receivers()
        hops: list[Optional[int]] = [None] * self.n
        hops[src] = 0
        frontier = [src]
        while frontier:
            nxt = []
            for i in frontier:
                for j, *_ in rec[i]:
                    if hops[j] is None:
                        hops[j] = hops[i] + 1
                        nxt.append(j)
            frontier = nxt
        return hops


def _ring(k: int, r: float) -> list[Vec3]:
    """``k`` points evenly on a circle of radius ``r`` around the origin, the first on +x."""
    return [(r * math.cos(2 * math.pi * i / k), r * math.sin(2 * math.pi * i / k), 0.0) for i in range(k)]


def _circle(n: int, spacing: float) -> list[Vec3]:
    if n == 1:
        return [(0.0, 0.0, 0.0)]
    return _ring(n, spacing / (2 * math.sin(math.pi / n)) if n > 2 else spacing / 2)


def make_topology(spec: str, n: int, seed: int = 0, spacing: float = 0.5) -> Topology:
    """Build a topology from its name (see the module docstring)."""
    if n < 1:
        raise ValueError("need at least one robot")
    spec = spec.strip().lower()
    if spec in ("full", "star"):  # every robot hears every other
        pos = _circle(n, spacing) if spec == "full" else [(0.0, 0.0, 0.0)] + _ring(n - 1, spacing)
        return Topology(pos, links=[[j for j in range(n) if j != i] for i in range(n)], name=spec)
    if spec == "line":
        pos = [(i * spacing, 0.0, 0.0) for i in range(n)]
        links = [[j for j in (i - 1, i + 1) if 0 <= j < n] for i in range(n)]
        return Topology(pos, links=links, name="line")
    if spec == "ring":
        links = [sorted({(i - 1) % n, (i + 1) % n} - {i}) for i in range(n)]
        return Topology(_circle(n, spacing), links=links, name="ring")
    if spec.startswith("random:"):
        try:
            r = float(spec.split(":", 1)[1])
        except ValueError:
            raise ValueError(f"bad topology {spec!r}: expected random:R with R a number") from None
        if r <= 0:
            raise ValueError("random:R needs R > 0")
        rng = random.Random(seed)
        pos = [(rng.random(), rng.random(), 0.0) for _ in range(n)]
        return Topology(pos, range_m=r, name=spec)
    raise ValueError(f"unknown topology {spec!r}: choose line, ring, full, star or random:R")


class InMemoryRadio:
    """:class:`~swarmstack.buzz.swarm.radio.Radio` over a :class:`Topology`, with packet loss."""

    def __init__(self, topology: Topology, drop: float = 0.0, payload_cap: Optional[int] = None, seed: int = 0):
        if not 0.0 <= drop <= 1.0:
            raise ValueError("drop probability must be in [0, 1]")
        if payload_cap is not None and payload_cap < 0:
            raise ValueError("payload cap must be >= 0")
        self.topology = topology
        self.drop = drop
        self.payload_cap = payload_cap
        self.rng = random.Random(seed)
        self.sent = 0  # packets put on a link
        self.dropped = 0  # packets lost on a link
        self._last: Optional[tuple] = None  # (links, packets, inboxes, sent) of the last exchange

    def exchange(self, packets: Sequence[Packet]) -> list[list[Reception]]:
        """The receptions of every robot (lists that a later exchange may return again:
        read them, don't change them)."""
        rec = self.topology.receivers()
        last = self._last
        if last is not None and last[0] is rec and not self.drop and last[1] == packets:
            # nothing moved and every robot sends what it sent last step: the same receptions
            self.sent += last[3]
            return last[2]
        n = len(packets)
        inboxes: list[list[Reception]] = [[] for _ in range(n)]
        drop = self.drop
        rnd = self.rng.random
        cap = self.payload_cap
        sent = dropped = 0
        fits = self.topology.n <= n  # every receiver has an inbox
        for i in range(n):
            p = packets[i]
            if p is None:
                continue
            if cap is not None and len(p) > cap:
                p = p[:cap]
            links = rec[i]
            if fits and not drop:  # the common case, without per-link tests
                for j, d, az, el in links:
                    inboxes[j].append((i, p, d, az, el))  # a Reception, as a plain tuple
                sent += len(links)
                continue
            for j, d, az, el in links:
                if j >= n:
                    continue
                sent += 1
                if drop and rnd() < drop:
                    dropped += 1
                    continue
                inboxes[j].append((i, p, d, az, el))
        self.sent += sent
        self.dropped += dropped
        self._last = (rec, list(packets), inboxes, sent) if not drop else None
        return inboxes
