"""Communication media between robots: the simulated range-and-bearing radio.

:class:`Medium` moves one frame per robot per tick between the robots of each run (range,
line of sight, drops, capacity, noisy distance and bearings); :class:`MediumRadio` exposes it as
the Buzz swarm layer's :class:`~swarmstack.buzz.swarm.radio.Radio`.
"""

from .rab import Inbox, Medium, MediumRadio, MediumStats, RadioParams, SummedInbox, radio_keys

__all__ = ["Inbox", "Medium", "MediumRadio", "MediumStats", "RadioParams", "SummedInbox",
           "radio_keys"]
