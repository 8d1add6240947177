"""The ``neighbors`` structure seen from Buzz.

As in the reference (``buzzneighbors.c``), a neighbours structure is a table whose ``poses``
field maps robot id -> ``{distance, azimuth, elevation}`` and whose methods work on that field:

``get(id)``, ``count()``, ``foreach(f(id, data))``, ``map(f(id, data))`` (a new structure with the
returned values), ``reduce(f(id, data, acc), acc0)``, ``filter(f(id, data))`` (a new structure
with the entries whose result is neither nil nor 0), ``kin()`` / ``nonkin()`` (the neighbours
that are / are not members of the swarm whose ``exec`` is running; outside ``exec`` ``kin()``
returns everyone and ``nonkin()`` nobody). The global ``neighbors`` also has
``broadcast(topic, value)``, ``listen(topic, f(topic, value, sender_id))`` and ``ignore(topic)``.

The table is rebuilt every step from the packets heard that step (a robot is a neighbour when
one of its packets arrived, even an empty one). Distances are in **metres** and angles in
radians (the ARGoS integration reports centimetres; swarmstack uses SI units throughout).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from swarmstack.buzz.values import Closure, HostClosure, Table

from ._vmapi import call, fail

if TYPE_CHECKING:  # pragma: no cover
    from .service import SwarmService

POSES = "poses"


def _is_closure(v: Any) -> bool:
    return isinstance(v, (Closure, HostClosure))


def _truthy(v: Any) -> bool:
    return v is not None and not (type(v) is int and v == 0)


def _nargs(vm, name: str, args: tuple, n: int) -> None:
    if len(args) != n:
        fail(vm, f"{name}: expected {n} argument{'s' if n != 1 else ''}, got {len(args)}")


def _closure_arg(vm, name: str, f: Any) -> None:
    if not _is_closure(f):
        fail(vm, f"type mismatch: expected closure, got {type_name(f)}")


def type_name(v: Any) -> str:
    if v is None:
        return "nil"
    if isinstance(v, bool) or isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "float"
    if isinstance(v, str):
        return "string"
    if isinstance(v, dict):
        return "table"
    if _is_closure(v):
        return "closure"
    return type(v).__name__


def make_neighbors_table(svc: "SwarmService", poses: Table | None, with_comm: bool = False) -> Table:
    """A neighbours structure over ``poses``; ``with_comm`` adds broadcast/listen/ignore."""
    t = Table()
    if poses is not None:
        t[POSES] = poses

    def data():
        p = t.get(POSES)
        return p if isinstance(p, dict) else None

    def get(vm, *args):
        _nargs(vm, "neighbors.get", args, 1)
        p = data()
        return None if p is None else p.get(args[0])

    def count(vm, *args):
        _nargs(vm, "neighbors.count", args, 0)
        p = data()
        return 0 if p is None else len(p)

    def foreach(vm, *args):
        _nargs(vm, "neighbors.foreach", args, 1)
        p = data()
        if p is None:
            return None
        f = args[0]
        _closure_arg(vm, "neighbors.foreach", f)
        if f.__class__ is Closure and f.nparams == 2:  # the VM's own fast path, inlined
            ff = f.fn
            for rid, d in list(p.items()):
                ff(f, rid, d)
        else:
            for rid, d in list(p.items()):
                call(vm, f, rid, d)
        return None

    def map_(vm, *args):
        _nargs(vm, "neighbors.map", args, 1)
        p = data()
        if p is None:
            return make_neighbors_table(svc, None)
        f = args[0]
        _closure_arg(vm, "neighbors.map", f)
        out = Table()
        if f.__class__ is Closure and f.nparams == 2:
            ff = f.fn
            for rid, d in list(p.items()):
                r = ff(f, rid, d)
                if r is not None:
                    out[rid] = r
        else:
            for rid, d in list(p.items()):
                r = call(vm, f, rid, d)
                if r is not None:
                    out[rid] = r
        return make_neighbors_table(svc, out)

    def reduce_(vm, *args):
        _nargs(vm, "neighbors.reduce", args, 2)
        f, acc = args
        p = data()
        if p is None:
            return acc
        _closure_arg(vm, "neighbors.reduce", f)
        if f.__class__ is Closure and f.nparams == 3:
            ff = f.fn
            for rid, d in list(p.items()):
                acc = ff(f, rid, d, acc)
        else:
            for rid, d in list(p.items()):
                acc = call(vm, f, rid, d, acc)
        return acc

    def filter_(vm, *args):
        _nargs(vm, "neighbors.filter", args, 1)
        p = data()
        if p is None:
            return make_neighbors_table(svc, None)
        f = args[0]
        _closure_arg(vm, "neighbors.filter", f)
        out = Table()
        for rid, d in list(p.items()):
            if _truthy(call(vm, f, rid, d)):
                out[rid] = d
        return make_neighbors_table(svc, out)

    def kin(vm, *args):
        _nargs(vm, "neighbors.kin", args, 0)
        svc.check_no_kin(vm, "neighbors.kin()")
        p = data()
        if p is None:
            return make_neighbors_table(svc, None)
        sid = svc.swarm.current()
        if sid is None:
            return make_neighbors_table(svc, Table(p))
        robot_in = svc.swarm.robot_in
        return make_neighbors_table(svc, Table((r, d) for r, d in p.items() if robot_in(r, sid)))

    def nonkin(vm, *args):
        _nargs(vm, "neighbors.nonkin", args, 0)
        svc.check_no_kin(vm, "neighbors.nonkin()")
        sid = svc.swarm.current()
        p = data()
        if sid is None or p is None:
            return make_neighbors_table(svc, None)
        robot_in = svc.swarm.robot_in
        return make_neighbors_table(svc, Table((r, d) for r, d in p.items() if not robot_in(r, sid)))

    for name, fn in (("get", get), ("filter", filter_), ("kin", kin), ("nonkin", nonkin),
                     ("foreach", foreach), ("map", map_), ("reduce", reduce_), ("count", count)):
        t[name] = HostClosure(fn, "neighbors." + name)

    if with_comm:
        def broadcast(vm, *args):
            _nargs(vm, "neighbors.broadcast", args, 2)
            topic, value = args
            if not isinstance(topic, str):
                fail(vm, f"type mismatch: expected string, got {type_name(topic)}")
            svc.check_broadcast_value(vm, value)
            svc.out.append_broadcast(topic, value)
            return None

        def listen(vm, *args):
            _nargs(vm, "neighbors.listen", args, 2)
            topic, f = args
            if not isinstance(topic, str):
                fail(vm, f"type mismatch: expected string, got {type_name(topic)}")
            _closure_arg(vm, "neighbors.listen", f)
            svc.listeners[topic] = f
            return None

        def ignore(vm, *args):
            _nargs(vm, "neighbors.ignore", args, 1)
            topic = args[0]
            if not isinstance(topic, str):
                fail(vm, f"type mismatch: expected string, got {type_name(topic)}")
            svc.listeners.pop(topic, None)
            return None

        for name, fn in (("broadcast", broadcast), ("listen", listen), ("ignore", ignore)):
            t[name] = HostClosure(fn, "neighbors." + name)
    return t
