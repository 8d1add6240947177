"""The batched PFSM controller: every robot of a group, across every run of a batch, runs its
run's PFSM (``params = { pfsm = "--nstates …" }``, one string per run), all of them advanced by
one vectorised call per tick."""

from __future__ import annotations

import numpy as np

from swarmstack.controllers.api import BatchedController
from swarmstack.design import grammar
from swarmstack.design.chocolate import CHOCOLATE_KIT, DRAWS, PULL_PER_M, Memory, step
from swarmstack.design.pfsm import pack
from swarmstack.design.watermelon import WATERMELON_KIT

KITS = {k.flavour.name: k for k in (CHOCOLATE_KIT, WATERMELON_KIT)}
DEFAULT_FLAVOUR = {"epuck2": "chocolate", "rvr": "watermelon"}


def kit_for(robot_type: str, flavour: str | None = None):
    name = flavour or DEFAULT_FLAVOUR.get(robot_type)
    if not isinstance(name, str) or name not in KITS:
        raise ValueError(f"no AutoMoDe flavour {name!r} for robot type {robot_type!r} (known: "
                         f"{', '.join(KITS)})")
    return KITS[name]


class PFSMController(BatchedController):
    """Runs the PFSM text of each run's ``pfsm`` parameter (AutoMoDe's command-line form)."""

    def init(self, group, params):
        kind = getattr(group, "robot_type", "epuck2")
        flavour = params.get("flavour") if isinstance(params, dict) else None
        self.kit = kit_for(kind, flavour)
        for name in self.kit.needs:
            getattr(group, name)   # a disabled sensor: its message says how to enable it
        if self.kit.radio:
            # the radio must be on: neighbours are heard on it (and only counted and summed)
            group.neighbour_sums(PULL_PER_M)
        texts = [p.get("pfsm") for p in group.run_params]
        for r, text in enumerate(texts):
            if not isinstance(text, str):
                raise ValueError(f"run {r} has no 'pfsm' parameter (an AutoMoDe string)")
        index = {t: k for k, t in enumerate(dict.fromkeys(texts))}   # each PFSM packed once
        self.packed = pack([grammar.parse(t, self.kit.flavour) for t in index], self.kit.flavour)
        self.which = np.asarray([index[t] for t in texts], dtype=np.int64)[group.run]
        self.memory = Memory.fresh(group.n)

    def reset(self, group):
        self.memory = Memory.fresh(group.n)

    def step(self, group):
        inputs = self.kit.inputs(group)
        u = group.uniform(DRAWS)
        group.wheels[...] = step(self.kit, self.packed, self.which, self.memory, inputs, u)


CONTROLLER_SPEC = f"{__name__}:{PFSMController.__name__}"
