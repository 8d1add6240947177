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

from typing import Optional

import swarmstack.buzz.swarm.messages as M
from swarmstack.buzz.values import HostClosure, Table

from ._vmapi import call, expect, fail, nargs

# ``svc``: the robot's ``service.SwarmService``, which makes these tables

SWARM_BROADCAST_PERIOD = 10
MEMBERSHIP_AGE_MAX = 50
# swarm.union/intersection/difference: membership of the new swarm from those of a and b
SET_OPS = {"union": lambda a, b: a or b, "intersection": lambda a, b: a and b,
           "difference": lambda a, b: a and not b}


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

    def select(self, sid: int, cond: bool) -> int:
        self._known(sid)
        self.swarms[sid] = cond
        return M.SWARM_JOIN if cond else M.SWARM_LEAVE

    def join(self, sid: int) -> int:
        return self.select(sid, True)

    def leave(self, sid: int) -> int:
        return self.select(sid, False)

    def is_in(self, sid: int) -> bool:
        self._known(sid)
        return self.swarms[sid]

    def others(self, sid: int, new_sid: int) -> Optional[int]:
        self._known(sid)
        member = not self.swarms[sid]
        self.swarms[new_sid] = member
        return M.SWARM_JOIN if member else None

    def set_op(self, op: str, new_sid: int, a: int, b: int) -> Optional[int]:
        member = self.swarms[new_sid] = SET_OPS[op](self.swarms.get(a, False), self.swarms.get(b, False))
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
        for rec in self.members.values():
            rec[1] += 1
        for robot in [r for r, rec in self.members.items() if rec[1] > MEMBERSHIP_AGE_MAX]:
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


def make_swarm_module(svc) -> Table:
    """The global ``swarm`` table (create, union, intersection, difference, id)."""
    st = svc.swarm

    def create(vm, *args):
        nargs(vm, "swarm.create", args, 1)
        sid = expect(vm, args[0], "integer")
        svc.check_swarm_id(vm, sid)
        st.create(sid)
        return make_swarm_table(svc, sid)

    def set_op(op):
        def fn(vm, *args):
            nargs(vm, "swarm." + op, args, 3)
            sid = expect(vm, args[0], "integer")
            ids = []
            for s in args[1:]:
                if type(expect(vm, s, "table").get("id")) is not int:
                    fail(vm, f"swarm.{op}: argument is not a swarm")
                ids.append(s["id"])
            svc.check_swarm_id(vm, sid)
            kind = st.set_op(op, sid, ids[0], ids[1])
            if kind is not None:
                svc.out.append_swarm_joinleave(kind, sid)
            return make_swarm_table(svc, sid)
        return fn

    def id_(vm, *args):
        return st.current(expect(vm, args[0], "integer") if args else 1)

    t = Table()
    t["create"] = HostClosure(create, "swarm.create")
    for op in SET_OPS:
        t[op] = HostClosure(set_op(op), "swarm." + op)
    t["id"] = HostClosure(id_, "swarm.id")
    return t


def make_swarm_table(svc, sid: int) -> Table:
    """A swarm object (others, join, leave, in, select, exec, and its ``id``)."""
    st = svc.swarm
    t = Table()

    def method(name: str, n: int, body):
        """``body(vm, swarm id, *args)`` after the argument count check; an unknown swarm is
        a runtime error."""
        def fn(vm, *args):
            nargs(vm, "swarm." + name, args, n)
            try:
                return body(vm, t.get("id"), *args)
            except SwarmError as e:
                fail(vm, str(e))
        return fn

    def others(vm, sid, new):
        svc.check_swarm_id(vm, expect(vm, new, "integer"))
        kind = st.others(sid, new)
        if kind is not None:
            svc.out.append_swarm_joinleave(kind, new)
        return make_swarm_table(svc, new)

    def select(vm, sid, cond):
        svc.out.append_swarm_joinleave(st.select(sid, expect(vm, cond, "integer") != 0), sid)

    def exec_(vm, sid, f):
        if not st.is_in(sid):
            return None
        expect(vm, f, "closure")
        st.stack.append(sid)
        try:
            call(vm, f)
        finally:
            st.stack.pop()

    for name, n, fn in (("others", 1, others),
                        ("join", 0, lambda vm, sid: svc.out.append_swarm_joinleave(st.join(sid), sid)),
                        ("leave", 0, lambda vm, sid: svc.out.append_swarm_joinleave(st.leave(sid), sid)),
                        ("in", 0, lambda vm, sid: 1 if st.is_in(sid) else 0),
                        ("select", 1, select), ("exec", 1, exec_)):
        t[name] = HostClosure(method(name, n, fn), "swarm." + name)
    t["id"] = sid
    return t
