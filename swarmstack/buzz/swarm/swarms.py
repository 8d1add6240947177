"""Swarms: which swarms this robot belongs to, and what it knows of its neighbours' swarms.

:class:`SwarmState` is plain state (no VM); :func:`make_swarm_module` builds the ``swarm`` table
a script sees. The rules follow the reference
(``buzzswarm.c``, ``buzzvm.c``):

* ``swarm.create(i)`` makes swarm ``i`` known with this robot *not* a member;
  ``join``/``leave``/``select(cond)`` change membership of a known swarm (an unknown swarm is a
  runtime error) and queue a JOIN/LEAVE for the neighbours.
* ``swarm.union/intersection/difference(i, a, b)`` make swarm ``i`` with this robot a member
  when it is in ``a`` or ``b`` / both / ``a`` but not ``b``; ``s.others(i)`` makes swarm ``i``
  with the opposite membership of ``s``. A JOIN is queued when the robot ends up a member.
* Every 10 steps, if any swarm is known, the list of swarms this robot belongs to is queued as
  a SWARM_LIST (gossip that repairs lost JOIN/LEAVE messages).
* Neighbour membership: a LIST replaces what we know of the sender, JOIN/LEAVE edit it; each
  step every record ages by one and records older than 50 steps are forgotten.
* ``s.exec(f)`` runs ``f`` only on members, with ``s`` on top of the swarm stack (read by
  ``swarm.id()`` and ``neighbors.kin()``/``nonkin()``).
"""

from __future__ import annotations

from typing import Any, Optional

import swarmstack.buzz.swarm.messages as M
from swarmstack.buzz.values import Closure, HostClosure, Table

from ._vmapi import call, fail
from .neighbors import type_name as _type_name

# ``svc``: the robot's ``service.SwarmService``, which makes these tables

SWARM_BROADCAST_PERIOD = 10
MEMBERSHIP_AGE_MAX = 50


class SwarmError(Exception):
    """Operation on a swarm that was never created on this robot."""


class SwarmState:
    __slots__ = ("swarms", "stack", "members", "broadcast_countdown")

    def __init__(self) -> None:
        self.swarms: dict[int, bool] = {}  # swarm id -> this robot is a member
        self.stack: list[int] = []  # swarms whose exec() is running, innermost last
        self.members: dict[int, list] = {}  # robot id -> [list of swarm ids, age]
        self.broadcast_countdown = SWARM_BROADCAST_PERIOD

    # ------------------------------------------------------------ own membership
    # Each mutator returns the JOIN/LEAVE kind to queue (or None).
    def create(self, sid: int) -> None:
        self.swarms.setdefault(sid, False)

    def _known(self, sid: int) -> None:
        if sid not in self.swarms:
            raise SwarmError(f"unknown swarm id {sid}")

    def join(self, sid: int) -> int:
        self._known(sid)
        self.swarms[sid] = True
        return M.SWARM_JOIN

    def leave(self, sid: int) -> int:
        self._known(sid)
        self.swarms[sid] = False
        return M.SWARM_LEAVE

    def select(self, sid: int, cond: bool) -> int:
        return self.join(sid) if cond else self.leave(sid)

    def is_in(self, sid: int) -> bool:
        self._known(sid)
        return self.swarms[sid]

    def others(self, sid: int, new_sid: int) -> Optional[int]:
        self._known(sid)
        member = not self.swarms[sid]
        self.swarms[new_sid] = member
        return M.SWARM_JOIN if member else None

    def set_op(self, op: str, new_sid: int, a: int, b: int) -> Optional[int]:
        ina = self.swarms.get(a, False)
        inb = self.swarms.get(b, False)
        if op == "union":
            member = ina or inb
        elif op == "intersection":
            member = ina and inb
        elif op == "difference":
            member = ina and not inb
        else:  # pragma: no cover - programming error
            raise ValueError(op)
        self.swarms[new_sid] = member
        return M.SWARM_JOIN if member else None

    def member_ids(self) -> list[int]:
        return [sid for sid, m in self.swarms.items() if m]

    def current(self, stackpos: int = 1) -> Optional[int]:
        """The swarm ``stackpos`` levels down the exec stack (1 = innermost), or None."""
        if not self.stack:
            return None
        stackpos = max(1, min(stackpos, len(self.stack)))
        return self.stack[len(self.stack) - stackpos]

    # ------------------------------------------------------------ neighbours' membership
    def on_list(self, robot: int, ids) -> None:
        if not ids:
            return  # the reference ignores empty lists
        self.members[robot] = [list(ids), 0]

    def on_join(self, robot: int, sid: int) -> None:
        rec = self.members.get(robot)
        if rec is None:
            self.members[robot] = [[sid], 0]
            return
        rec[1] = 0
        if sid not in rec[0]:
            rec[0].append(sid)

    def on_leave(self, robot: int, sid: int) -> None:
        rec = self.members.get(robot)
        if rec is None:
            return
        rec[1] = 0
        if sid in rec[0]:
            rec[0].remove(sid)
        if not rec[0]:
            del self.members[robot]

    def age(self) -> None:
        """Called once per step after the incoming messages."""
        if not self.members:
            return
        dead = []
        for robot, rec in self.members.items():
            rec[1] += 1
            if rec[1] > MEMBERSHIP_AGE_MAX:
                dead.append(robot)
        for robot in dead:
            del self.members[robot]

    def robot_in(self, robot: int, sid: int) -> bool:
        rec = self.members.get(robot)
        return rec is not None and sid in rec[0]

    def due_list(self) -> Optional[list[int]]:
        """Called once per step before packing: the ids to gossip, when it is time."""
        if self.broadcast_countdown > 0:
            self.broadcast_countdown -= 1
        if self.broadcast_countdown == 0 and self.swarms:
            self.broadcast_countdown = SWARM_BROADCAST_PERIOD
            return self.member_ids()
        return None


# ====================================================================== seen from Buzz


def _is_int(v: Any) -> bool:
    return type(v) is int


def make_swarm_module(svc) -> Table:
    """The global ``swarm`` table (create, union, intersection, difference, id)."""
    st = svc.swarm

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
        return make_swarm_table(svc, sid)

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
            return make_swarm_table(svc, sid)
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


def make_swarm_table(svc, sid: int) -> Table:
    """A swarm object (others, join, leave, in, select, exec, and its ``id``)."""
    st = svc.swarm
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
        return make_swarm_table(svc, new)

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

