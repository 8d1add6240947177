"""A policy as a controller: ``controller = { policy = "file.npz" }`` (a small MLP) or
``controller = { policy = "file.py:NAME" }`` (a Python callable), run by ``swarmstack run`` as
it runs in the environments.

A policy maps the flat observations of a group's robots, float64[robots, observation size]
(``flat=True`` in the environments: the default observation's readings in name order, each
clipped into its range and flattened), to their flat actions, float64[robots, action size] (the
commands in name order), which are clipped into the commands' limits and written. Every row is
computed alone, so a robot's action does not depend on the other rows: the environment and the
controller give the same numbers, and the same trajectories.

The ``.npz`` file of an MLP (:meth:`MLP.save`):

- ``W0, b0, W1, b1, …``: float64 weights ``W_i[inputs, outputs]`` and biases ``b_i[outputs]``;
  ``W0`` has one input per number of the observation, the last layer one output per number of
  the action;
- ``observe``: the names of the readings it reads (in order), ``commands``: the commands it
  writes, ``inbox``: the radio inbox slots it reads (0: none).

Hidden layers are ``tanh(x W + b)``; the output ``tanh(x W + b)`` is mapped linearly from
[−1, 1] onto each action number's [low, high] (the commands' limits; a command without finite
limits is refused).

A callable ``fn(obs float64[robots, k]) -> float64[robots, m]`` gets the group's default
observation (every reading the group has) and writes every command; ``params = { observe =
[…], commands = […], inbox = K }`` choose them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional, Sequence

import numpy as np

from swarmstack.controllers.api import BatchedController
from swarmstack.learn.spaces import GroupSpaces, flat_bounds, radio_limits

SPEC = "swarmstack.learn.policy:PolicyController"


def _dense(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``x @ w + b`` summed in input order, row by row the same whatever the number of rows
    (a BLAS product may block rows differently)."""
    out = np.empty((x.shape[0], w.shape[1]))
    out[:] = b
    for k in range(w.shape[0]):
        out += x[:, k:k + 1] * w[k]
    return out


class MLP:
    """A tanh MLP from flat observations to flat actions in ``[low, high]``."""

    def __init__(self, weights: Sequence[np.ndarray], biases: Sequence[np.ndarray],
                 low: np.ndarray, high: np.ndarray, observe: Sequence[str] = (),
                 commands: Sequence[str] = (), inbox: int = 0):
        self.weights = [np.asarray(w, dtype=np.float64) for w in weights]
        self.biases = [np.asarray(b, dtype=np.float64) for b in biases]
        self.low = np.asarray(low, dtype=np.float64)
        self.high = np.asarray(high, dtype=np.float64)
        if not (np.isfinite(self.low).all() and np.isfinite(self.high).all()):
            raise ValueError("an MLP policy needs finite action limits; choose commands that "
                             "have them")
        for i, (w, b) in enumerate(zip(self.weights, self.biases)):
            if w.ndim != 2 or b.shape != (w.shape[1],) or \
                    (i and w.shape[0] != self.weights[i - 1].shape[1]):
                raise ValueError(f"layer {i}: W{i} {w.shape} and b{i} {b.shape} do not chain")
        if self.weights[-1].shape[1] != self.low.size:
            raise ValueError(f"the last layer has {self.weights[-1].shape[1]} outputs; the "
                             f"action has {self.low.size} numbers")
        self.observe, self.commands, self.inbox = list(observe), list(commands), int(inbox)

    @property
    def inputs(self) -> int:
        return self.weights[0].shape[0]

    @classmethod
    def random(cls, spaces: GroupSpaces, hidden: Sequence[int] = (8,), seed: int = 0,
               scale: float = 1.0) -> "MLP":
        """An MLP for ``spaces`` with N(0, scale² / inputs) weights and zero biases."""
        rng = np.random.default_rng(seed)
        sizes = [spaces.obs_size, *hidden, spaces.act_size]
        ws = [rng.normal(0.0, scale / np.sqrt(a), (a, b)) for a, b in zip(sizes, sizes[1:])]
        return cls.of_spaces(spaces, ws, [np.zeros(b) for b in sizes[1:]])

    @classmethod
    def of_spaces(cls, spaces: GroupSpaces, weights, biases) -> "MLP":
        low, high = flat_bounds(spaces.action.values())
        return cls(weights, biases, low, high, list(spaces.observation),
                   list(spaces.action), spaces.inbox)

    @classmethod
    def from_vector(cls, spaces: GroupSpaces, theta: np.ndarray,
                    hidden: Sequence[int] = (8,)) -> "MLP":
        """The MLP whose weights and biases, layer after layer, are ``theta`` (what an
        optimiser such as CMA-ES searches)."""
        sizes = [spaces.obs_size, *hidden, spaces.act_size]
        theta = np.asarray(theta, dtype=np.float64)
        need = sum(a * b + b for a, b in zip(sizes, sizes[1:]))
        if theta.size != need:
            raise ValueError(f"theta: expected {need} numbers, found {theta.size}")
        ws, bs, at = [], [], 0
        for a, b in zip(sizes, sizes[1:]):
            ws.append(theta[at:at + a * b].reshape(a, b))
            bs.append(theta[at + a * b:at + a * b + b])
            at += a * b + b
        return cls.of_spaces(spaces, ws, bs)

    def __call__(self, x: np.ndarray) -> np.ndarray:
        h = np.asarray(x, dtype=np.float64)
        if h.ndim != 2 or h.shape[1] != self.inputs:
            raise ValueError(f"the MLP reads {self.inputs} numbers per robot; found shape "
                             f"{h.shape}")
        for w, b in zip(self.weights, self.biases):
            h = np.tanh(_dense(h, w, b))
        return self.low + (h + 1.0) * 0.5 * (self.high - self.low)

    def save(self, path) -> None:
        arrays = {}
        for i, (w, b) in enumerate(zip(self.weights, self.biases)):
            arrays[f"W{i}"], arrays[f"b{i}"] = w, b
        np.savez(path, **arrays, observe=np.array(self.observe, dtype=str),
                 commands=np.array(self.commands, dtype=str), inbox=np.int64(self.inbox))

    @classmethod
    def load(cls, path, spaces_of) -> "MLP":
        """The MLP in ``path``; ``spaces_of(observe, commands, inbox)`` gives the group's
        spaces for what the file holds."""
        with np.load(path, allow_pickle=False) as f:
            layers = sum(1 for k in f.files if k.startswith("W"))
            if layers == 0:
                raise ValueError(f"{path}: no layer W0 (not a policy file)")
            ws = [f[f"W{i}"] for i in range(layers)]
            bs = [f[f"b{i}"] for i in range(layers)]
            observe = [str(s) for s in f["observe"]] if "observe" in f.files else None
            commands = [str(s) for s in f["commands"]] if "commands" in f.files else None
            inbox = int(f["inbox"]) if "inbox" in f.files else 0
        spaces = spaces_of(observe, commands, inbox)
        if ws[0].shape[0] != spaces.obs_size:
            raise ValueError(f"{path}: W0 reads {ws[0].shape[0]} numbers; the observation "
                             f"({', '.join(spaces.observation)}) has {spaces.obs_size}")
        return cls.of_spaces(spaces, ws, bs)


def load_policy(spec: str, spaces_of, base_dir: Path):
    """``(policy, spaces)`` of a ``policy = …`` value: an ``.npz`` MLP or ``file.py:NAME`` /
    ``package.module:NAME`` (a callable, or a class made with no arguments)."""
    if spec.endswith(".npz"):
        holder = {}

        def remember(observe, commands, inbox):
            holder["spaces"] = spaces_of(observe, commands, inbox)
            return holder["spaces"]

        mlp = MLP.load(Path(base_dir) / spec, remember)
        return mlp, holder["spaces"]
    import importlib

    from swarmstack.controllers.loader import parse_spec
    from swarmstack.experiments.files import import_user_file

    target, name = parse_spec(spec)
    if target.endswith(".py"):
        module = import_user_file(Path(base_dir) / target, "swarmstack_policy_", ValueError,
                                  "policy file", f"policy file {target!r}")
    else:
        module = importlib.import_module(target)
    fn = getattr(module, name, None)
    if fn is None or not callable(fn):
        raise ValueError(f"policy {spec!r}: {target} has no callable {name!r}")
    if isinstance(fn, type):
        fn = fn()
    return fn, None


class PolicyController(BatchedController):
    """Runs a policy (``params["policy"]``, set by ``controller = { policy = … }``) on the
    group's robots every tick."""

    def init(self, group, params):
        self.group_name = group.name
        layout = params["layout"]
        self.base_dir = Path(layout["base_dir"])
        self.layout = layout
        self.policy, spaces = load_policy(params["policy"], self._spaces, self.base_dir)
        self.spaces = spaces if spaces is not None else \
            self._spaces(params.get("observe"), params.get("commands"), params.get("inbox", 0))

    def _spaces(self, observe: Optional[Sequence[str]], commands: Optional[Sequence[str]],
                inbox: int = 0):
        from types import SimpleNamespace

        from swarmstack.robots.base import resolve

        lay = self.layout
        rt = resolve(lay["type"], self.base_dir)
        devices = []
        for name, spec in rt.devices.items():   # the type's order, as the simulation's
            if name in lay["sensors"]:
                opts = spec.options.model_validate(lay["sensors"][name])
                devices.append(spec.make(opts, self.base_dir))
        acts = {}
        for a in rt.actuators:
            if a.name in lay["actuators"] and a.options is not None:
                acts[a.name] = a.options.model_validate(lay["actuators"][a.name])
        radio = radio_limits(rt, SimpleNamespace(**lay["radio"]), lay["radio"]["on"])
        return GroupSpaces(self.group_name, rt, devices, acts, lay["bounds"], commands=commands,
                           readings=observe, radio=radio, inbox=inbox)

    def step(self, group):
        sp = self.spaces
        readings = {k: getattr(group, k) for k in sp.observation if k != "inbox"}
        x = sp.flat(sp.observe(readings, slice(None), group.inbox if sp.inbox else None))
        y = np.asarray(self.policy(x), dtype=np.float64)
        if y.shape != (x.shape[0], sp.act_size):
            raise ValueError(f"the policy returned shape {y.shape}; expected "
                             f"({x.shape[0]}, {sp.act_size}): one row per robot of "
                             f"{', '.join(sp.action)}")
        sp.act(group.commands, slice(None), sp.unflatten(y), send=group.send)


class _Named:
    def __init__(self, name):
        self.name = name


def policy_controller(where: str, g, bounds, base_dir: Optional[Path], problems: list):
    """Group config ``g`` whose controller is ``policy = …``, run by :class:`PolicyController`:
    what it needs to rebuild the group's spaces goes into its parameters (plain values). The
    policy is loaded once here: a missing file, a network that does not fit the group or a
    missing callable is added to ``problems`` (``where`` names the key)."""
    c = g.controller
    folder = Path(base_dir if base_dir is not None else ".").resolve()
    if c.policy.endswith(".npz") and not (folder / c.policy).is_file():
        problems.append(f"{where}: policy file {str(folder / c.policy)!r} does not exist")
        return g
    enabled = {k: v.model_dump(mode="json") for k, v in g.sensors.items()
               if getattr(v, "enabled", True)}
    layout = {"type": g.type, "sensors": enabled, "bounds": [float(v) for v in bounds],
              "actuators": {k: v.model_dump(mode="json") for k, v in g.actuators.items()
                            if v is not None},
              "base_dir": str(folder),
              "radio": {"on": g.radio_on, "range": g.radio.range if g.radio else None,
                        "payload_bytes": g.radio.payload_bytes if g.radio else None}}
    params = {**c.params, "policy": c.policy, "layout": layout}
    try:   # the file, its layers and the group's spaces agree: checked with the experiment
        PolicyController().init(_Named(g.name), params)
    except (ValueError, OSError, ImportError) as exc:
        problems.append(f"{where}: {exc}")
        return g
    return g.model_copy(update={"controller": c.model_copy(update={"python": SPEC,
                                                                   "params": params})})
