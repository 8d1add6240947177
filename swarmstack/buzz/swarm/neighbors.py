"""The ``neighbors`` structure seen from Buzz.

As in the reference (``buzzneighbors.c``), a neighbours structure is a table whose ``poses``
field maps robot id -> ``{distance, azimuth, elevation}`` and whose methods work on the
``poses`` of the table they are bound to (``self``):

``get(id)``, ``count()``, ``foreach(f(id, data))``, ``map(f(id, data))`` (a new structure with the
returned values), ``reduce(f(id, data, acc), acc0)``, ``filter(f(id, data))`` (a new structure
with the entries whose result is neither nil nor 0), ``kin()`` / ``nonkin()`` (the neighbours
that are / are not members of the swarm whose ``exec`` is running; outside ``exec`` ``kin()``
returns everyone and ``nonkin()`` nobody). The global ``neighbors`` also has
``broadcast(topic, value)``, ``listen(topic, f(topic, value, sender_id))`` and ``ignore(topic)``.

The table is rebuilt every step from the packets heard that step (a robot is a neighbour when
one of its packets arrived, even an empty one). Distances are in **metres** and angles in
radians (the ARGoS integration reports centimetres; swarmstack uses SI units throughout).

The methods are made once per robot; a structure only binds them. The methods of a structure
returned by ``map``/``filter``/``kin``/``nonkin`` are bound to the data it was made with (a
method copied into another table works on that table's ``poses``, as in the reference), so a
structure and its methods form no reference cycle: a swarm of scripts calling
``neighbors.map(f).reduce(g, acc)`` every step leaves nothing for Python's cycle collector,
and a structure the script has dropped is handed out again (see :meth:`NeighborMethods.make`).
"""

from __future__ import annotations

import sys
from functools import partialmethod
from typing import Any

from swarmstack.buzz.values import Closure, HostClosure, Table

from ._vmapi import call, expect, nargs

# ``svc``: the robot's ``service.SwarmService``, which makes these tables

POSES = "poses"
_new_host_closure = object.__new__
_refs = sys.getrefcount


def _refs_through_map() -> int:
    """What ``sum(map(sys.getrefcount, items))`` counts per item beyond the item's holders."""
    o = object()
    return sum(map(_refs, (o,))) - 2  # held by ``o`` and the tuple


# reference counts, inside ``make``, of a kept-aside structure that nothing else holds: the
# structure (the spare tuple, make's local, the argument), its _Made (eight methods, the spare
# tuple, make's local, the argument) and its eight methods (the structure, the snapshot, the
# methods tuple, plus what map adds)
_N_METHODS = 8
_T_REFS = 3
_MADE_REFS = _N_METHODS + 3
_CLOSURE_REFS = _N_METHODS * (3 + _refs_through_map())


class _Made:
    """What the methods of a structure made by ``map``/``filter``/``kin``/``nonkin`` are bound
    to: its data (a Table, or None for an empty structure). Not a Buzz value, and not counted
    as heap."""

    __slots__ = ("poses",)

    def __init__(self, poses: Table | None):
        self.poses = poses


def _poses(bound: Any) -> Table | None:
    """The data a method works on, from the table (or :class:`_Made`) it is bound to."""
    if bound.__class__ is _Made:
        return bound.poses
    if bound.__class__ is Table:
        p = bound.get(POSES)
        return p if p.__class__ is Table else None
    return None


class NeighborMethods:
    """One robot's neighbour methods: ``fn(vm, *args)`` entries that read the bound table from
    ``vm.self``, and ``direct(closure, *args)`` entries (exact arity) that read it from
    ``closure.self_table``."""

    # name, arity, extra (only on the global ``neighbors``)
    SPECS = (("get", 1, False), ("filter", 1, False), ("kin", 0, False), ("nonkin", 0, False),
             ("foreach", 1, False), ("map", 1, False), ("reduce", 2, False), ("count", 0, False),
             ("broadcast", 2, True), ("listen", 2, True), ("ignore", 1, True))

    def __init__(self, svc):
        self.svc = svc
        self._spare: tuple | None = None  # (structure, its entries as made, _Made, methods)
        self.entries: list[tuple[str, Any, Any, int]] = []
        self.extra: list[tuple[str, Any, Any, int]] = []
        for name, arity, extra in self.SPECS:
            qual = "neighbors." + name
            fn, direct = self._entries(qual, getattr(self, "_" + name), arity)
            (self.extra if extra else self.entries).append((name, qual, fn, direct, arity))

    @staticmethod
    def _entries(qual: str, impl, arity: int):
        def fn(vm, *args):
            nargs(vm, qual, args, arity)
            return impl(vm.self, *args)

        def direct(c, *args):  # called with exactly ``arity`` arguments
            return impl(c.self_table, *args)
        return fn, direct

    # ------------------------------------------------------------ structures
    def bind(self, t: Table, bound: Any, entries) -> Table:
        new = _new_host_closure
        for name, qual, fn, direct, arity in entries:
            # field by field: a third cheaper than the constructor, for 8 closures per structure
            c = new(HostClosure)
            c.fn, c.name, c.self_table, c.direct, c.arity = fn, qual, bound, direct, arity
            t[name] = c
        return t

    def make(self, poses: Table | None) -> Table:
        """A new structure over ``poses`` (None: an empty structure without data).

        Scripts make one or more structures per step and drop them at once (``neighbors
        .map(f).reduce(g, acc)``). The last structure made is kept aside; when nothing but
        this keeps it or its methods (CPython's reference counts say so) and it is as it was
        made, it is handed out again with the new data instead of building nine objects: no
        script can tell, since nothing of it is reachable from the script."""
        spare = self._spare
        if poses is not None and spare is not None:
            t, snap, made, closures = spare
            if (_refs(t) == _T_REFS and _refs(made) == _MADE_REFS and t == snap
                    and sum(map(_refs, closures)) == _CLOSURE_REFS):
                t[POSES] = snap[POSES] = made.poses = poses
                return t
        t = Table()
        if poses is not None:
            t[POSES] = poses
        made = _Made(poses)
        self.bind(t, made, self.entries)
        if poses is not None:
            self._spare = (t, dict(t), made, tuple(v for k, v in t.items() if k != POSES))
        return t

    def make_global(self) -> Table:
        """The global ``neighbors``: bound to itself, with broadcast/listen/ignore."""
        t = Table()
        t[POSES] = Table()
        return self.bind(t, t, self.entries + self.extra)

    # ------------------------------------------------------------ methods
    def _get(self, bound, rid):
        p = _poses(bound)
        return None if p is None else p.get(rid)

    def _count(self, bound):
        p = _poses(bound)
        return 0 if p is None else len(p)

    def _calls(self, p: Table, f) -> list:
        """``(id, data, f(id, data))`` for every neighbour, in order."""
        vm = self.svc.vm
        expect(vm, f, "closure")
        fast = f.__class__ is Closure and f.nparams == 2  # the VM's own fast path, inlined
        out = []
        for rid, d in list(p.items()):
            out.append((rid, d, f.fn(f, rid, d) if fast else call(vm, f, rid, d)))
        return out

    def _foreach(self, bound, f):
        p = _poses(bound)
        if p is not None:
            self._calls(p, f)

    def _map(self, bound, f):
        p = _poses(bound)
        return self.make(None if p is None else
                         Table((rid, r) for rid, _d, r in self._calls(p, f) if r is not None))

    def _reduce(self, bound, f, acc):
        p = _poses(bound)
        if p is not None:
            vm = self.svc.vm
            expect(vm, f, "closure")
            fast = f.__class__ is Closure and f.nparams == 3
            for rid, d in list(p.items()):
                acc = f.fn(f, rid, d, acc) if fast else call(vm, f, rid, d, acc)
        return acc

    def _filter(self, bound, f):
        p = _poses(bound)
        return self.make(None if p is None else
                         Table((rid, d) for rid, d, r in self._calls(p, f) if not (r is None or (type(r) is int and r == 0))))

    def _members(self, bound, kin: bool):
        """``kin()`` / ``nonkin()``: the neighbours in / not in the swarm whose ``exec`` runs."""
        svc = self.svc
        svc.check_no_kin(svc.vm, f"neighbors.{'kin' if kin else 'nonkin'}()")
        p, sid = _poses(bound), svc.swarm.current()
        if p is None or (sid is None and not kin):
            return self.make(None)
        robot_in = svc.swarm.robot_in
        return self.make(Table((r, d) for r, d in p.items() if sid is None or robot_in(r, sid) == kin))

    _kin = partialmethod(_members, kin=True)
    _nonkin = partialmethod(_members, kin=False)

    def _broadcast(self, bound, topic, value):
        svc = self.svc
        expect(svc.vm, topic, "string")
        svc.check_broadcast_value(svc.vm, value)
        svc.out.append_broadcast(topic, value)

    def _listen(self, bound, topic, f):
        svc = self.svc
        expect(svc.vm, topic, "string")
        svc.listeners[topic] = expect(svc.vm, f, "closure")

    def _ignore(self, bound, topic):
        svc = self.svc
        expect(svc.vm, topic, "string")
        svc.listeners.pop(topic, None)
