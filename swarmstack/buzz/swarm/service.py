"""The swarm layer of one robot: installs ``neighbors``, ``swarm`` and ``stigmergy`` into a VM
and turns radio packets into Buzz state and back.

One control step of a robot (the order of the reference embedding and of the BittyBuzz VM):

1. sensors    -- the host updates sensor globals (the harness sets ``pose``; a simulator its
                 robot's readings);
2. incoming   -- :meth:`SwarmService.receive`: rebuild the neighbour table from the packets heard,
                 then handle each message in arrival order (listeners, stigmergy, swarm gossip),
                 then age the neighbours' swarm membership;
3. ``step()`` -- the script;
4. outgoing   -- :meth:`SwarmService.emit`: queue the periodic swarm list, then pack the out
                 queue into one frame within the payload cap;
5. actuators  -- the host reads the actuator commands.

:func:`control_step` runs 2-4 for a robot whose sensors were updated.

Profiles: with ``profile == "bittybuzz"`` the swarm side enforces BittyBuzz's limits -- swarm ids
0..7 only (a robot's swarm list is one byte), a single virtual stigmergy, no tables in
``neighbors.broadcast`` and no ``neighbors.kin()/nonkin()`` -- and breaking one is a runtime
error naming the limit at the script line of the offending call.
"""

from __future__ import annotations

from typing import Any, Iterable, Optional

import swarmstack.buzz.swarm.messages as M
from swarmstack.buzz.runtime import float32_slot
from swarmstack.buzz.values import Table

from ._vmapi import call_from_host, fail
from .neighbors import NeighborMethods
from .outqueue import OutQueue
from .radio import Reception
from .stigmergy import Entry, VStig, conflict_hooks, make_stigmergy_module
from .swarms import SwarmState, make_swarm_module

BITTYBUZZ_MAX_SWARMS = 8


class SwarmService:
    """Swarm state of one robot plus the host closures that expose it."""

    def __init__(self, vm: Any, robot_id: int, profile: str = "buzz", distance_scale: float = 1.0):
        self.vm = vm
        self.distance_scale = distance_scale  # script distance units per metre
        self.robot_id = robot_id
        self.profile = profile
        self.out = OutQueue()
        self.listeners: dict[str, Any] = {}
        self.vstigs: dict[int, VStig] = {}
        self.swarm = SwarmState()
        self.neighbor_methods = NeighborMethods(self)
        self.neighbors = self.neighbor_methods.make_global()
        self.malformed = 0  # messages that could not be decoded
        # a host float as the VM holds it: the profile's rounding when the VM offers it
        self._float = getattr(vm, "round_float", None) or getattr(vm, "to_buzz", None) or float
        # the buzz profile's floats are binary32: neighbour data rounded through this buffer
        self._f32 = float32_slot(3) if profile == "buzz" and hasattr(vm, "round_float") else None
        # (last inbox, [(sender, distance, azimuth, elevation)]) when it held only empty
        # packets, one per sender
        self._quiet: Optional[tuple[list, list]] = None
        self.steps = 0

    # ------------------------------------------------------------ profile limits
    @property
    def bittybuzz(self) -> bool:
        return self.profile == "bittybuzz"

    def check_broadcast_value(self, vm: Any, value: Any) -> None:
        if self.bittybuzz and isinstance(value, dict):
            fail(vm, "bittybuzz limit: neighbors.broadcast() cannot send a table (scalar values only)")

    def check_no_kin(self, vm: Any, what: str) -> None:
        if self.bittybuzz:
            fail(vm, f"bittybuzz limit: {what} is not available (no swarm filtering of neighbours)")

    def check_swarm_id(self, vm: Any, sid: int) -> None:
        if self.bittybuzz and not 0 <= sid < BITTYBUZZ_MAX_SWARMS:
            fail(vm, f"bittybuzz limit: at most {BITTYBUZZ_MAX_SWARMS} swarms, with ids 0 to "
                     f"{BITTYBUZZ_MAX_SWARMS - 1}; got swarm id {sid}")

    def check_vstig(self, vm: Any, vid: int) -> None:
        if self.bittybuzz and self.vstigs and vid not in self.vstigs:
            other = next(iter(self.vstigs))
            fail(vm, f"bittybuzz limit: a single virtual stigmergy (id {other} exists); "
                     f"cannot create stigmergy {vid}")

    # ------------------------------------------------------------ installation
    def install(self) -> None:
        """Register the ``neighbors``, ``swarm`` and ``stigmergy`` globals in the VM."""
        vm = self.vm
        vm.set_global("neighbors", self.neighbors)
        vm.set_global("swarm", make_swarm_module(self))
        vm.set_global("stigmergy", make_stigmergy_module(self))

    # ------------------------------------------------------------ per-step I/O
    def receive(self, inbox: Iterable[Reception], decoded: Optional[dict] = None) -> None:
        """Handle this step's packets. ``decoded``, when given, is a per-step cache shared by all
        receivers (sender id -> decoded frame), so each packet is decoded once per step; tables
        in it are copied for each receiver."""
        if self._quiet is not None and inbox == self._quiet[0]:
            # the same silent packets from the same places as last step (a static swarm that
            # only listens): new tables with the same neighbour data, nothing to handle
            self.neighbors["poses"] = {s: {"distance": d, "azimuth": a, "elevation": e}
                                       for s, d, a, e in self._quiet[1]}
            self.swarm.age()
            return
        poses = Table()
        msgs: list[tuple[int, tuple]] = []
        f = self._float
        f32 = self._f32
        heard = []
        silent = True
        scale = self.distance_scale
        for sender, payload, d, az, el in inbox:
            d = d * scale
            # distance/azimuth/elevation as the VM's floats (binary32 for Buzz: the reference
            # pushes C floats)
            if f32 is not None:  # the three at once, without a call
                f32[0], f32[1], f32[2] = d, az, el
                d, az, el = f32
            else:
                d, az, el = f(d), f(az), f(el)
            poses[sender] = {"distance": d, "azimuth": az, "elevation": el}
            heard.append((sender, d, az, el))  # for a silent step to come
            if not payload:
                continue
            silent = False
            if decoded is not None:
                got = decoded.get(sender)
                if got is None or got[0] is not payload:
                    got = self._decode(payload)
                    decoded[sender] = got
                ms, mutable = got[1], got[2]
                if mutable:
                    ms = [M.copy_message(m) for m in ms]
            else:
                ms = self._decode(payload)[1]
            msgs.extend((sender, m) for m in ms)
        self.neighbors["poses"] = poses
        # remembered when it was a list with one empty packet per sender
        silent = silent and len(heard) == len(poses) and isinstance(inbox, list)
        self._quiet = (list(inbox), heard) if silent else None
        if msgs:
            vm = self.vm
            for sender, m in msgs:
                self._dispatch(sender, m)
                if vm.failed:
                    return  # a listener or conflict hook failed: the VM stops here
        self.swarm.age()

    def _decode(self, payload: bytes):
        try:
            ms, mutable = M.decode_frame(payload)
        except (M.WireError, UnicodeDecodeError):
            # salvage what decodes, as the reference skips a malformed message only
            ms = []
            mutable = True
            try:
                parts = M.unpack_frame(payload)
            except M.WireError:
                parts = []
                self.malformed += 1
            for p in parts:
                try:
                    ms.append(M.decode_message(p))
                except (M.WireError, UnicodeDecodeError):
                    self.malformed += 1
        return (payload, ms, mutable)

    def _dispatch(self, sender: int, m: tuple) -> None:
        kind = m[0]
        if kind == M.BROADCAST:
            f = self.listeners.get(m[1])
            if f is not None:
                call_from_host(self.vm, f, m[1], m[2], sender)
        elif kind == M.VSTIG_PUT or kind == M.VSTIG_QUERY:
            _, vid, key, value, ts, robot = m
            vs = self.vstigs.get(vid)
            if vs is None:  # a query for a stigmergy this robot lacks is passed on
                res = (kind, key, Entry(value, ts, robot)) if kind == M.VSTIG_QUERY else None
            else:
                res = vs.receive(kind, key, Entry(value, ts, robot), self.robot_id,
                                 *conflict_hooks(self, vs))
            if res is not None:
                k, key, e = res
                self.out.append_vstig(k, vid, key, e.value, e.timestamp, e.robot)
        else:  # SWARM_LIST, SWARM_JOIN, SWARM_LEAVE
            sw = self.swarm
            {M.SWARM_LIST: sw.on_list, M.SWARM_JOIN: sw.on_join, M.SWARM_LEAVE: sw.on_leave}[kind](sender, m[1])

    def emit(self, cap: Optional[int]) -> bytes:
        """Queue the periodic swarm list if due, then pack one frame."""
        ids = self.swarm.due_list()
        if ids is not None:
            self.out.append_swarm_list(ids)
        self.steps += 1
        return self.out.pack(cap)

    # ------------------------------------------------------------ inspection
    def stigmergy_contents(self) -> dict[int, dict[Any, Any]]:
        """``{stigmergy id: {key: value}}`` (entries holding nil included, as stored)."""
        return {vid: {k: e.value for k, e in vs.items()} for vid, vs in self.vstigs.items()}


def control_step(svc: SwarmService, inbox, cap: Optional[int], decoded: Optional[dict] = None) -> bytes:
    """Incoming messages, ``step()``, outgoing messages for one robot; returns its frame."""
    svc.receive(inbox, decoded)
    svc.vm.step()
    return svc.emit(cap)
