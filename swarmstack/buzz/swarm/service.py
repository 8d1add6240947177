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

from swarmstack.buzz.values import Closure, HostClosure, Table

from . import messages as M
from ._vmapi import call, call_from_host, fail
from .neighbors import make_neighbors_table
from .outqueue import OutQueue
from .radio import Reception
from .stigmergy import Entry, VStig, default_resolve
from .swarms import SwarmError, SwarmState

BITTYBUZZ_MAX_SWARMS = 8


def _is_int(v: Any) -> bool:
    return type(v) is int


def _type_name(v: Any) -> str:
    from .neighbors import _type_name as tn

    return tn(v)


class SwarmService:
    """Swarm state of one robot plus the host closures that expose it."""

    def __init__(self, vm: Any, robot_id: int, profile: str = "buzz"):
        self.vm = vm
        self.robot_id = robot_id
        self.profile = profile
        self.out = OutQueue()
        self.listeners: dict[str, Any] = {}
        self.vstigs: dict[int, VStig] = {}
        self.swarm = SwarmState()
        self.neighbors = make_neighbors_table(self, Table(), with_comm=True)
        self.malformed = 0  # messages that could not be decoded
        self._rounded: dict[tuple, dict] = {}
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
        vm.set_global("swarm", self._swarm_module())
        vm.set_global("stigmergy", self._stigmergy_module())

    # ------------------------------------------------------------ per-step I/O
    def receive(self, inbox: Iterable[Reception], decoded: Optional[dict] = None) -> None:
        """Handle this step's packets. ``decoded``, when given, is a per-step cache shared by all
        receivers (sender id -> decoded frame), so each packet is decoded once per step; tables
        in it are copied for each receiver."""
        poses = Table()
        msgs: list[tuple[int, tuple]] = []
        rounded = self._rounded
        for rec in inbox:
            sender, payload, d, az, el = rec
            key = (d, az, el)
            pose = rounded.get(key)
            if pose is None:
                pose = self._round_pose(key)
            poses[sender] = Table(pose)
            if not payload:
                continue
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
            for m in ms:
                msgs.append((sender, m))
        self.neighbors["poses"] = poses
        vm = self.vm
        for sender, m in msgs:
            self._dispatch(sender, m)
            if vm.failed:
                return  # a listener or conflict hook failed: the VM stops here
        self.swarm.age()

    def _round_pose(self, key: tuple) -> dict:
        """Distance/azimuth/elevation as the VM's float type (binary32 for Buzz, as the
        reference pushes C floats), cached because static robots hear the same values."""
        conv = getattr(self.vm, "to_buzz", None)
        d, az, el = (conv(float(x)) for x in key) if conv is not None else key
        if len(self._rounded) > 4096:
            self._rounded.clear()
        pose = self._rounded[key] = {"distance": d, "azimuth": az, "elevation": el}
        return pose

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
        me = self.robot_id
        if kind == M.BROADCAST:
            f = self.listeners.get(m[1])
            if f is not None:
                call_from_host(self.vm, f, m[1], m[2], sender)
        elif kind == M.VSTIG_PUT or kind == M.VSTIG_QUERY:
            _, vid, key, value, ts, robot = m
            vs = self.vstigs.get(vid)
            remote = Entry(value, ts, robot)
            if vs is None:
                if kind == M.VSTIG_QUERY:
                    self.out.append_vstig(M.VSTIG_QUERY, vid, key, value, ts, robot)
                return
            resolve, lost = self._hooks(vs)
            if kind == M.VSTIG_PUT:
                res = vs.receive_put(key, remote, me, resolve, lost)
            else:
                res = vs.receive_query(key, remote, me, resolve, lost)
            if res is not None:
                k, key, e = res
                self.out.append_vstig(k, vid, key, e.value, e.timestamp, e.robot)
        elif kind == M.SWARM_LIST:
            self.swarm.on_list(sender, m[1])
        elif kind == M.SWARM_JOIN:
            self.swarm.on_join(sender, m[1])
        elif kind == M.SWARM_LEAVE:
            self.swarm.on_leave(sender, m[1])

    def emit(self, cap: Optional[int]) -> bytes:
        """Queue the periodic swarm list if due, then pack one frame."""
        ids = self.swarm.due_list()
        if ids is not None:
            self.out.append_swarm_list(ids)
        self.steps += 1
        return self.out.pack(cap)

    # ------------------------------------------------------------ stigmergy hooks
    def _hooks(self, vs: VStig):
        vm = self.vm
        if vs.onconflict is None:
            resolve = default_resolve
        else:
            def resolve(key, local: Entry, remote: Entry):
                r = call_from_host(vm, vs.onconflict, key, _entry_table(local), _entry_table(remote))
                if not isinstance(r, dict):
                    return None
                robot = r.get("robot")
                if not _is_int(robot):
                    return None
                return Entry(r.get("data"), local.timestamp, robot)
        if vs.onconflictlost is None:
            lost = None
        else:
            def lost(key, old: Entry):
                call_from_host(vm, vs.onconflictlost, key, _entry_table(old))
        return resolve, lost

    # ------------------------------------------------------------ the `stigmergy` module
    def _stigmergy_module(self) -> Table:
        svc = self

        def create(vm, *args):
            if len(args) != 1:
                fail(vm, f"stigmergy.create: expected 1 argument, got {len(args)}")
            vid = args[0]
            if not _is_int(vid):
                fail(vm, f"type mismatch: expected integer, got {_type_name(vid)}")
            svc.check_vstig(vm, vid)
            svc.vstigs[vid] = VStig(vid)  # re-creating an id starts afresh, as the reference
            return svc._vstig_table(vid)

        t = Table()
        t["create"] = HostClosure(create, "stigmergy.create")
        return t

    def _vstig_table(self, vid: int) -> Table:
        svc = self
        t = Table()
        t["id"] = vid

        def vs_of(vm) -> Optional[VStig]:
            return svc.vstigs.get(t.get("id"))

        def nargs(vm, name, args, n):
            if len(args) != n:
                fail(vm, f"stigmergy.{name}: expected {n} argument{'s' if n != 1 else ''}, got {len(args)}")

        def put(vm, *args):
            nargs(vm, "put", args, 2)
            vs = vs_of(vm)
            if vs is not None:
                res = vs.put(args[0], args[1], svc.robot_id)
                if res is not None:
                    k, key, e = res
                    svc.out.append_vstig(k, vs.id, key, e.value, e.timestamp, e.robot)
            return None

        def get(vm, *args):
            nargs(vm, "get", args, 1)
            vs = vs_of(vm)
            if vs is None:
                return None
            value, (k, key, e) = vs.get(args[0], svc.robot_id)
            svc.out.append_vstig(k, vs.id, key, e.value, e.timestamp, e.robot)
            return value

        def size(vm, *args):
            nargs(vm, "size", args, 0)
            vs = vs_of(vm)
            return 0 if vs is None else vs.size()

        def closure_arg(vm, f):
            if not isinstance(f, (Closure, HostClosure)):
                fail(vm, f"type mismatch: expected closure, got {_type_name(f)}")

        def foreach(vm, *args):
            nargs(vm, "foreach", args, 1)
            vs = vs_of(vm)
            if vs is not None:
                closure_arg(vm, args[0])
                for key, e in vs.items():
                    call(vm, args[0], key, e.value, e.robot)
            return None

        def map_(vm, *args):
            nargs(vm, "map", args, 1)
            vs = vs_of(vm)
            if vs is None:
                return None
            closure_arg(vm, args[0])
            out = Table()
            for key, e in vs.items():
                r = call(vm, args[0], key, e.value, e.robot)
                if r is not None:
                    out[key] = r
                else:
                    out.pop(key, None)
            return out

        def reduce_(vm, *args):
            nargs(vm, "reduce", args, 2)
            vs = vs_of(vm)
            if vs is None:
                return None
            closure_arg(vm, args[0])
            acc = args[1]
            for key, e in vs.items():
                acc = call(vm, args[0], key, e.value, e.robot, acc)
            return acc

        def onconflict(vm, *args):
            nargs(vm, "onconflict", args, 1)
            vs = vs_of(vm)
            if vs is not None:
                closure_arg(vm, args[0])
                vs.onconflict = args[0]
            return None

        def onconflictlost(vm, *args):
            nargs(vm, "onconflictlost", args, 1)
            vs = vs_of(vm)
            if vs is not None:
                closure_arg(vm, args[0])
                vs.onconflictlost = args[0]
            return None

        for name, fn in (("foreach", foreach), ("reduce", reduce_), ("map", map_), ("size", size),
                         ("put", put), ("get", get), ("onconflict", onconflict),
                         ("onconflictlost", onconflictlost)):
            t[name] = HostClosure(fn, "stigmergy." + name)
        return t

    # ------------------------------------------------------------ the `swarm` module
    def _swarm_module(self) -> Table:
        svc = self
        st = self.swarm

        def int_arg(vm, v):
            if not _is_int(v):
                fail(vm, f"type mismatch: expected integer, got {_type_name(v)}")
            return v

        def create(vm, *args):
            if len(args) != 1:
                fail(vm, f"swarm.create: expected 1 argument, got {len(args)}")
            sid = int_arg(vm, args[0])
            svc.check_swarm_id(vm, sid)
            st.create(sid)
            return svc._swarm_table(sid)

        def set_op(op):
            def fn(vm, *args):
                if len(args) != 3:
                    fail(vm, f"swarm.{op}: expected 3 arguments, got {len(args)}")
                sid = int_arg(vm, args[0])
                ids = []
                for s in args[1:]:
                    if not isinstance(s, dict):
                        fail(vm, f"type mismatch: expected table, got {_type_name(s)}")
                    if not _is_int(s.get("id")):
                        fail(vm, f"swarm.{op}: argument is not a swarm")
                    ids.append(s["id"])
                svc.check_swarm_id(vm, sid)
                kind = st.set_op(op, sid, ids[0], ids[1])
                if kind is not None:
                    svc.out.append_swarm_joinleave(kind, sid)
                return svc._swarm_table(sid)
            return fn

        def id_(vm, *args):
            pos = 1
            if args:
                pos = int_arg(vm, args[0])
            return st.current(pos)

        t = Table()
        t["create"] = HostClosure(create, "swarm.create")
        for op in ("union", "intersection", "difference"):
            t[op] = HostClosure(set_op(op), "swarm." + op)
        t["id"] = HostClosure(id_, "swarm.id")
        return t

    def _swarm_table(self, sid: int) -> Table:
        svc = self
        st = self.swarm
        t = Table()

        def my_id(vm):
            return t.get("id")

        def guard(vm, fn, *a):
            try:
                return fn(*a)
            except SwarmError as e:
                fail(vm, str(e))

        def nargs(vm, name, args, n):
            if len(args) != n:
                fail(vm, f"swarm.{name}: expected {n} argument{'s' if n != 1 else ''}, got {len(args)}")

        def others(vm, *args):
            nargs(vm, "others", args, 1)
            new = args[0]
            if not _is_int(new):
                fail(vm, f"type mismatch: expected integer, got {_type_name(new)}")
            svc.check_swarm_id(vm, new)
            kind = guard(vm, st.others, my_id(vm), new)
            if kind is not None:
                svc.out.append_swarm_joinleave(kind, new)
            return svc._swarm_table(new)

        def join(vm, *args):
            nargs(vm, "join", args, 0)
            sid = my_id(vm)
            svc.out.append_swarm_joinleave(guard(vm, st.join, sid), sid)
            return None

        def leave(vm, *args):
            nargs(vm, "leave", args, 0)
            sid = my_id(vm)
            svc.out.append_swarm_joinleave(guard(vm, st.leave, sid), sid)
            return None

        def in_(vm, *args):
            nargs(vm, "in", args, 0)
            return 1 if guard(vm, st.is_in, my_id(vm)) else 0

        def select(vm, *args):
            nargs(vm, "select", args, 1)
            cond = args[0]
            if not _is_int(cond):
                fail(vm, f"type mismatch: expected integer, got {_type_name(cond)}")
            sid = my_id(vm)
            svc.out.append_swarm_joinleave(guard(vm, st.select, sid, cond != 0), sid)
            return None

        def exec_(vm, *args):
            nargs(vm, "exec", args, 1)
            sid = my_id(vm)
            if not guard(vm, st.is_in, sid):
                return None
            f = args[0]
            if not isinstance(f, (Closure, HostClosure)):
                fail(vm, f"type mismatch: expected closure, got {_type_name(f)}")
            st.stack.append(sid)
            try:
                call(vm, f)
            finally:
                st.stack.pop()
            return None

        for name, fn in (("others", others), ("join", join), ("leave", leave), ("in", in_),
                         ("select", select), ("exec", exec_)):
            t[name] = HostClosure(fn, "swarm." + name)
        t["id"] = sid
        return t

    # ------------------------------------------------------------ inspection
    def stigmergy_contents(self) -> dict[int, dict[Any, Any]]:
        """``{stigmergy id: {key: value}}`` (entries holding nil included, as stored)."""
        return {vid: {k: e.value for k, e in vs.items()} for vid, vs in self.vstigs.items()}


def _entry_table(e: Entry) -> Table:
    t = Table()
    t["robot"] = e.robot
    if e.value is not None:
        t["data"] = e.value
    t["timestamp"] = e.timestamp
    return t


def control_step(svc: SwarmService, inbox, cap: Optional[int], decoded: Optional[dict] = None) -> bytes:
    """Incoming messages, ``step()``, outgoing messages for one robot; returns its frame."""
    svc.receive(inbox, decoded)
    svc.vm.step()
    return svc.emit(cap)
