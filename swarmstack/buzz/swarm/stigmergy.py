"""Virtual stigmergy: the replicated key/value store.

The first half is plain Python state (:class:`VStig`, no VM), the second builds the tables a
script sees (``stigmergy.create`` ...). Each robot keeps a local copy of every stigmergy it created. An entry is ``(value, timestamp,
robot)``: a Lamport clock and the id of the robot that wrote it last. The rules below are
those of the reference implementation (``buzzvstig.c`` and the message handling in
``buzzvm.c``); the state machine takes conflict hooks as plain callables.

Local operations
    ``put(k, v)``: an existing key gets ``v``, ``timestamp + 1`` and this robot's id, and a PUT
    is sent. ``v = nil`` deletes the key locally and sends a PUT carrying nil with
    ``timestamp + 1`` (so neighbours learn of the deletion). A new key starts at timestamp 1.
    ``get(k)``: returns the local value and always sends a QUERY carrying the local entry (or
    ``nil`` with timestamp 0 when unknown), so that neighbours with newer data answer.

Received PUT (ignored when this robot has no stigmergy with that id)
    unknown key, or local timestamp older -> store it and re-broadcast it as a PUT;
    same timestamp and a different writer -> conflict (below), store the winner, re-broadcast
    it as a PUT; anything else (older, or the same version) -> ignore.

Received QUERY (re-broadcast unchanged when this robot has no such stigmergy)
    unknown key: if the query carries nil, re-broadcast the QUERY; otherwise store the entry
    and send a PUT. Known key: remote newer -> store, send PUT; local newer -> answer with a PUT
    of the local entry; same timestamp, different writer -> conflict as above; same version ->
    ignore.

Conflicts (same timestamp, different writer)
    With an ``onconflict(key, local, remote)`` hook the winner is its return value (a table
    with ``robot`` and ``data``; the winner keeps the local timestamp). Without one: when both
    values are nil or both are non-nil, the entry of the robot with the **higher id** wins; a
    non-nil value beats nil. If this robot had written the local entry and the winner is
    another robot's, ``onconflictlost(key, old_local)`` is called.

Timestamps are 16-bit on the wire of the reference; we keep Python ints and wrap at 2**16
like it does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional

from swarmstack.buzz.values import HostClosure, Table

from ._vmapi import call, call_from_host, expect, nargs
from .messages import VSTIG_PUT, VSTIG_QUERY
from .outqueue import hashable_key

# ``svc``: the robot's ``service.SwarmService``, which makes these tables

TS_MOD = 1 << 16


@dataclass(slots=True)
class Entry:
    """One stigmergy entry: value, Lamport timestamp, last writer."""

    value: Any
    timestamp: int
    robot: int

    def copy(self) -> "Entry":
        return Entry(self.value, self.timestamp, self.robot)


# (kind, key, entry) to queue as an outgoing message
Out = tuple[int, Any, Entry]
# onconflict(key, local, remote) -> winning Entry or None (could not resolve)
Resolver = Callable[[Any, Entry, Entry], Optional[Entry]]
# onconflictlost(key, old_local_entry)
LostHook = Callable[[Any, Entry], None]


def default_resolve(key: Any, local: Entry, remote: Entry) -> Optional[Entry]:
    """The reference's rule when no ``onconflict`` hook is set."""
    ln = local.value is None
    rn = remote.value is None
    if ln == rn:
        return (local if local.robot > remote.robot else remote).copy()
    if not ln:
        return local.copy()
    return remote.copy()


class VStig:
    """The local replica of one virtual stigmergy."""

    __slots__ = ("id", "data", "keys", "onconflict", "onconflictlost")

    def __init__(self, vstig_id: int):
        self.id = vstig_id
        self.data: dict[Any, Entry] = {}  # hashable key -> entry
        self.keys: dict[Any, Any] = {}  # hashable key -> the Buzz key itself
        self.onconflict: Any = None  # Buzz closure or None (set by the service)
        self.onconflictlost: Any = None

    # ------------------------------------------------------------ local API
    def size(self) -> int:
        return len(self.data)

    def fetch(self, key: Any) -> Optional[Entry]:
        return self.data.get(hashable_key(key))

    def store(self, key: Any, entry: Entry) -> None:
        hk = hashable_key(key)
        self.data[hk] = entry
        self.keys[hk] = key

    def remove(self, key: Any) -> None:
        hk = hashable_key(key)
        self.data.pop(hk, None)
        self.keys.pop(hk, None)

    def items(self):
        """``(key, entry)`` pairs in insertion order."""
        keys = self.keys
        return [(keys[hk], e) for hk, e in self.data.items()]

    def put(self, key: Any, value: Any, me: int) -> Optional[Out]:
        """Local write; returns the PUT to send (None when nothing changes)."""
        hk = hashable_key(key)
        e = self.data.get(hk)
        if e is not None:
            if value is not None:
                e.value = value
                e.timestamp = (e.timestamp + 1) % TS_MOD
                e.robot = me
                return (VSTIG_PUT, key, e.copy())
            gone = Entry(None, (e.timestamp + 1) % TS_MOD, me)
            self.remove(key)
            return (VSTIG_PUT, key, gone)
        if value is not None:
            e = Entry(value, 1, me)
            self.store(key, e)
            return (VSTIG_PUT, key, e.copy())
        return None

    def get(self, key: Any, me: int) -> tuple[Any, Out]:
        """Local read; returns ``(value, QUERY to send)``."""
        e = self.data.get(hashable_key(key))
        if e is not None:
            return e.value, (VSTIG_QUERY, key, e.copy())
        return None, (VSTIG_QUERY, key, Entry(None, 0, me))

    # ------------------------------------------------------------ received messages
    def receive(self, kind: int, key: Any, remote: Entry, me: int,
                resolve: Resolver = default_resolve, lost: Optional[LostHook] = None) -> Optional[Out]:
        """A received VSTIG_PUT or VSTIG_QUERY; returns the message to send (None: none)."""
        local = self.data.get(hashable_key(key))
        if local is None and kind == VSTIG_QUERY and remote.value is None:
            return (VSTIG_QUERY, key, remote)
        if local is None or local.timestamp < remote.timestamp:
            self.store(key, remote)
            return (VSTIG_PUT, key, remote.copy())
        if local.timestamp > remote.timestamp:
            return (VSTIG_PUT, key, local.copy()) if kind == VSTIG_QUERY else None
        if local.robot == remote.robot:
            return None
        winner = resolve(key, local, remote)  # a conflict: same timestamp, another writer
        if winner is None:
            return None
        self.store(key, winner)
        if lost is not None and winner.robot != me and local.robot == me:
            lost(key, local.copy())
        return (VSTIG_PUT, key, winner.copy())


# ====================================================================== seen from Buzz
# ``stigmergy.create(id)`` returns a table with ``id`` and the methods put, get, size, foreach,
# map, reduce, onconflict, onconflictlost (as the reference). foreach/map/reduce closures get
# ``(key, value, robot)`` (+ accumulator); onconflict gets ``(key, local, remote)`` tables with
# ``robot``, ``data``, ``timestamp`` and returns the winner as such a table.


def conflict_hooks(svc, vs: VStig):
    """The resolver and lost-hook for ``vs``: its Buzz ``onconflict``/``onconflictlost`` closures
    (called from the host while messages are handled), or the reference default."""
    vm = svc.vm

    def resolve(key, local: Entry, remote: Entry):
        r = call_from_host(vm, vs.onconflict, key, _entry_table(local), _entry_table(remote))
        if not isinstance(r, dict) or type(r.get("robot")) is not int:
            return None
        return Entry(r.get("data"), local.timestamp, r.get("robot"))

    def lost(key, old: Entry):
        call_from_host(vm, vs.onconflictlost, key, _entry_table(old))
    return (default_resolve if vs.onconflict is None else resolve,
            None if vs.onconflictlost is None else lost)


def make_stigmergy_module(svc) -> Table:
    """The global ``stigmergy`` table (``stigmergy.create(id)``)."""

    def create(vm, *args):
        nargs(vm, "stigmergy.create", args, 1)
        vid = expect(vm, args[0], "integer")
        svc.check_vstig(vm, vid)
        svc.vstigs[vid] = VStig(vid)  # re-creating an id starts afresh, as the reference
        return make_vstig_table(svc, vid)

    return Table(create=HostClosure(create, "stigmergy.create"))


def make_vstig_table(svc, vid: int) -> Table:
    """The table ``stigmergy.create(vid)`` returns; its methods find the replica by ``id``."""
    t = Table()
    t["id"] = vid

    def method(name: str, n: int, body):
        """``body(vm, replica, *args)`` after the checks every method shares."""
        def fn(vm, *args):
            nargs(vm, "stigmergy." + name, args, n)
            vs = svc.vstigs.get(t.get("id"))
            if vs is None:
                return 0 if name == "size" else None
            return body(vm, vs, *args)
        return fn

    def send(vs: VStig, out) -> None:
        k, key, e = out
        svc.out.append_vstig(k, vs.id, key, e.value, e.timestamp, e.robot)

    def put(vm, vs, key, value):
        out = vs.put(key, value, svc.robot_id)
        if out is not None:
            send(vs, out)

    def get(vm, vs, key):
        value, out = vs.get(key, svc.robot_id)
        send(vs, out)
        return value

    def foreach(vm, vs, f):
        expect(vm, f, "closure")
        for key, e in vs.items():
            call(vm, f, key, e.value, e.robot)

    def map_(vm, vs, f):
        expect(vm, f, "closure")
        out = Table()
        for key, e in vs.items():
            r = call(vm, f, key, e.value, e.robot)
            if r is not None:
                out[key] = r
            else:
                out.pop(key, None)
        return out

    def reduce_(vm, vs, f, acc):
        expect(vm, f, "closure")
        for key, e in vs.items():
            acc = call(vm, f, key, e.value, e.robot, acc)
        return acc

    def hook_setter(attr):
        """``onconflict(f)`` / ``onconflictlost(f)``: store the script's hook on the stigmergy."""
        def set_hook(vm, vs, f):
            setattr(vs, attr, expect(vm, f, "closure"))
        return set_hook

    for name, n, body in (("foreach", 1, foreach), ("reduce", 2, reduce_), ("map", 1, map_),
                          ("size", 0, lambda vm, vs: vs.size()), ("put", 2, put), ("get", 1, get),
                          ("onconflict", 1, hook_setter("onconflict")),
                          ("onconflictlost", 1, hook_setter("onconflictlost"))):
        t[name] = HostClosure(method(name, n, body), "stigmergy." + name)
    return t


def _entry_table(e: Entry) -> Table:
    t = Table()
    t["robot"] = e.robot
    if e.value is not None:
        t["data"] = e.value
    t["timestamp"] = e.timestamp
    return t
