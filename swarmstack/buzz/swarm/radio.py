"""The abstract radio the Buzz swarm layer talks to.

A radio moves one *packet* per robot per control step. The contract is deliberately tiny so
that the standalone harness (:class:`swarmstack.buzz.swarm.topology.InMemoryRadio`) and the
simulator's range-and-bearing medium implement the same thing:

``exchange(packets) -> inboxes``
    ``packets[i]`` is the frame robot ``i`` emits this step (``bytes``, possibly empty), or
    ``None`` if robot ``i`` emits nothing (switched off, failed VM). ``inboxes[j]`` is the list
    of receptions robot ``j`` hears this step, in any order: :class:`Reception` named tuples or
    plain tuples with the same five fields in the same order.

``payload_cap``
    The most frame bytes a robot may emit per step (``None``: unlimited). The sender is
    responsible for respecting it (see :meth:`OutQueue.pack`); a radio may truncate or drop
    longer packets.

Situated communication: every packet heard carries the sender's id and the sender's position
as measured by the receiver: ``distance_m`` (metres), ``azimuth_rad`` (horizontal bearing in
the receiver's frame, counter-clockwise from its +x axis, in [-pi, pi]) and ``elevation_rad``
(vertical bearing, in [-pi/2, pi/2]). An empty frame still tells the receiver that the sender
is a neighbour, as on a range-and-bearing board where every robot emits every step.
"""

from __future__ import annotations

from typing import NamedTuple, Optional, Protocol, Sequence


class Reception(NamedTuple):
    sender_id: int
    payload: bytes
    distance_m: float
    azimuth_rad: float
    elevation_rad: float


Packet = Optional[bytes]


class Radio(Protocol):
    payload_cap: Optional[int]

    def exchange(self, packets: Sequence[Packet]) -> list[list[Reception]]:
        ...


class NullRadio:
    """A radio with no link at all: a lone robot (``--robots 1``)."""

    payload_cap: Optional[int] = None

    def __init__(self, n: int = 1, payload_cap: Optional[int] = None) -> None:
        self.n = n
        self.payload_cap = payload_cap

    def exchange(self, packets: Sequence[Packet]) -> list[list[Reception]]:
        return [[] for _ in packets]
