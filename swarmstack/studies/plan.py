"""A study: an experiment, the key paths it sweeps, its seeds — and the runs and batches they
make.

Every point of the sweep (one value per swept key path) is run once per seed. Points that
differ only in controller parameters (``robots.N.controller.params.…``) share an arena and
robot counts, so their runs — all seeds — go into one batched
:class:`~swarmstack.sim.simulation.Simulation` (each run with its own parameters and
its own seed); points that differ in any other key path are separate batches. Large groups are
cut into batches of at most ``batch_runs`` runs so that workers share the work.
"""

from __future__ import annotations

import copy
import itertools
import json
import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from swarmstack.experiments.config import (MAX_FILE_BYTES, MAX_TICKS, ConfigError,
                                           ExperimentCfg, one_line, parse_experiment)
from swarmstack.experiments.files import read_limited
from swarmstack.studies.overrides import (MAX_POINTS, Override, check_compatible,
                                          is_run_param, parse_param, set_path, sweep_override)

MAX_SEEDS = 1_000_000
BATCH_ROBOTS = 4096    # robots of one batch by default: big enough that a tick's fixed cost
                       # is small against its robots, small enough to share among workers


@dataclass
class StudySpec:
    """What a study is: two specs with equal :meth:`identity` are the same study."""

    data: dict                 # the experiment file's tables, without [sweep]
    source: str                # the file's name, for messages
    base_dir: str              # where the file's relative paths start
    overrides: list[Override]
    seeds: list[int]
    ticks: Optional[int] = None

    def identity(self) -> dict:
        return {"experiment": self.data, "base_dir": self.base_dir,
                "params": [[o.path, list(o.values)] for o in self.overrides],
                "seeds": self.seeds, "ticks": self.ticks}

    @staticmethod
    def from_identity(ident: dict, source: str) -> "StudySpec":
        return StudySpec(ident["experiment"], source, ident["base_dir"],
                         [Override(p, tuple(v)) for p, v in ident["params"]],
                         list(ident["seeds"]), ident["ticks"])


@dataclass
class PlannedRun:
    index: int
    point: dict                # swept key path -> value
    seed: int

    @property
    def run_id(self) -> str:
        return f"r{self.index:06d}"


@dataclass
class Batch:
    """Runs that share one batched simulation: ``data`` is the experiment with the batch's
    structural overrides applied; each run has its seed and its controller parameters."""

    data: dict
    runs: list[PlannedRun]
    params: list[dict] = field(default_factory=list)   # per run: {group name: params}


def read_experiment(path: Path) -> dict:
    """The experiment file's tables (TOML, or an ``.argos`` file translated), with errors as
    ConfigError lines."""
    path = Path(path)
    if path.suffix == ".argos":
        from swarmstack.argos import ArgosError, import_argos

        try:
            return import_argos(path).data()
        except ArgosError as exc:
            raise ConfigError(exc.problems) from None
    try:
        text = read_limited(path, MAX_FILE_BYTES, "the experiment file").decode("utf-8")
    except FileNotFoundError:
        raise ConfigError([f"{path}: file not found"]) from None
    except (OSError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise ConfigError([f"{path}: cannot read file ({one_line(reason)})"]) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError([f"{path}: not valid TOML: {one_line(exc)}"]) from None
    except RecursionError:
        raise ConfigError([f"{path}: not valid TOML: nested too deeply"]) from None


def make_study(data: dict, source: str, base_dir: Path | str, params: list[str] = (),
               seeds: Optional[int] = None, ticks: Optional[int] = None) -> StudySpec:
    """A validated study: the file's ``[sweep]`` table, then ``params`` (``--param`` strings,
    which replace a file entry of the same key path), ``seeds`` (default: the file's, else 1).
    Raises ConfigError naming every problem before anything runs."""
    if not isinstance(data, dict):
        raise ConfigError([f"{source}: expected a table of keys"])
    cfg = parse_experiment(data, source)   # the file itself, [sweep] table included
    data = {k: v for k, v in data.items() if k != "sweep"}
    overrides: list[Override] = []
    if cfg.sweep is not None:
        for path, value in cfg.sweep.params.items():
            overrides.append(sweep_override(path, value, source))
    from_cli, problems = [], []
    for p in params:
        try:
            from_cli.append(parse_param(p))
        except ConfigError as exc:
            problems.extend(exc.problems)
    if problems:
        raise ConfigError(problems)
    cli_paths = {o.path for o in from_cli}
    overrides = [o for o in overrides if o.path not in cli_paths] + from_cli
    check_compatible(overrides)
    swept_sweep = [o.path for o in overrides if o.parts[0] == "sweep"]
    if swept_sweep:
        raise ConfigError([f"{p}: the [sweep] table itself cannot be swept" for p in swept_sweep])
    if any(o.path == "simulation.seed" for o in overrides):
        raise ConfigError(["simulation.seed: runs take the seeds simulation.seed, +1, … "
                           "(--seeds N); it cannot be swept"])
    n_seeds = seeds if seeds is not None else (cfg.sweep.seeds if cfg.sweep is not None else 1)
    if isinstance(n_seeds, bool) or not isinstance(n_seeds, int) or not 1 <= n_seeds <= MAX_SEEDS:
        raise ConfigError([f"--seeds: expected a whole number 1…{MAX_SEEDS}, found {n_seeds!r}"])
    if ticks is not None and not 1 <= ticks <= MAX_TICKS:
        raise ConfigError([f"--ticks: expected 1…{MAX_TICKS}, found {ticks}"])
    first = cfg.simulation.seed
    if first + n_seeds > 2 ** 63:
        raise ConfigError([f"--seeds: seeds {first}…{first + n_seeds - 1} pass 2⁶³"])
    points = math.prod(len(o.values) for o in overrides) * n_seeds
    if points > MAX_POINTS:
        raise ConfigError([f"the sweep has {points} runs; at most {MAX_POINTS}"])
    # absolute: workers (other processes, other machines) resolve the file's relative paths
    # from it, and the same study run from another folder is still the same study
    spec = StudySpec(data, source, str(Path(base_dir).resolve()), overrides,
                     list(range(first, first + n_seeds)), ticks)
    validate(spec)
    return spec


def _apply(data: dict, point: dict, source: str) -> dict:
    out = copy.deepcopy(data)
    for path, value in point.items():
        set_path(out, path, value, source=f"{source}: --param")
    return out


def validate(spec: StudySpec) -> None:
    """Each value of each key path on its own, then every distinct simulation (structural
    values together), against the schema; the worlds of the distinct simulations are built
    once (placement, arena sizes) so that nothing is found wrong after the sweep started."""
    from swarmstack.sim import build as builder

    problems: list[str] = []
    for o in spec.overrides:
        for v in dict.fromkeys(json.dumps(x, sort_keys=True) for x in o.values):
            try:
                parse_experiment(_apply(spec.data, {o.path: json.loads(v)}, spec.source),
                                 f"--param {o.path}={_shown(v)}")
            except ConfigError as exc:
                problems.extend(exc.problems)
    if problems:
        raise ConfigError(list(dict.fromkeys(problems)))
    for struct in structural_points(spec):
        where = "with " + ", ".join(f"{k}={_shown(v)}" for k, v in struct.items()) \
            if struct else spec.source
        try:
            cfg = parse_experiment(_apply(spec.data, struct, spec.source), where)
            builder.build(cfg, spec.seeds[0], 1, Path(spec.base_dir), where)
        except ConfigError as exc:
            problems.extend(exc.problems)
    if problems:
        raise ConfigError(list(dict.fromkeys(problems)))


def _shown(v) -> str:
    return v if isinstance(v, str) else json.dumps(v)


def structural_points(spec: StudySpec) -> list[dict]:
    """The distinct values of the key paths that are not controller parameters."""
    struct = [o for o in spec.overrides if not is_run_param(o.path)]
    return [dict(zip([o.path for o in struct], combo))
            for combo in itertools.product(*[o.values for o in struct])]


def plan_runs(spec: StudySpec) -> list[PlannedRun]:
    """Every run: the points in the order of the key paths (the last varies fastest), each
    with every seed."""
    paths = [o.path for o in spec.overrides]
    out = []
    for combo in itertools.product(*[o.values for o in spec.overrides]):
        point = dict(zip(paths, combo))
        for seed in spec.seeds:
            out.append(PlannedRun(len(out), point, seed))
    return out


def batches(spec: StudySpec, runs: list[PlannedRun], workers: int = 1,
            batch_runs: Optional[int] = None) -> list[Batch]:
    """Group ``runs`` (any subset of the plan) into batched simulations."""
    groups: dict[str, list[PlannedRun]] = {}
    for r in runs:
        struct = {k: v for k, v in r.point.items() if not is_run_param(k)}
        groups.setdefault(json.dumps(struct, sort_keys=True), []).append(r)
    out = []
    for key, members in groups.items():
        struct = json.loads(key)
        data = _apply(spec.data, struct, spec.source)
        cfg = parse_experiment(data, spec.source)
        per_run = sum(g.n for g in cfg.robots)
        size = batch_runs or _default_batch_runs(len(members), per_run, workers)
        n = math.ceil(len(members) / size)
        size = math.ceil(len(members) / n)          # even batches
        for k in range(0, len(members), size):
            chunk = members[k:k + size]
            out.append(Batch(data, chunk, [_run_params(cfg, r.point) for r in chunk]))
    return out


def _default_batch_runs(n_runs: int, robots_per_run: int, workers: int) -> int:
    """At most BATCH_ROBOTS robots a batch, and a number of batches that is a multiple of the
    workers (so that none waits while another finishes a last batch alone)."""
    cap = max(1, BATCH_ROBOTS // max(1, robots_per_run))
    n_batches = math.ceil(n_runs / cap)
    w = max(1, workers)
    n_batches = max(min(n_runs, w), math.ceil(n_batches / w) * w)
    return max(1, math.ceil(n_runs / n_batches))


def _run_params(cfg: ExperimentCfg, point: dict) -> dict:
    """{group name: controller parameters} of one run: the file's, with the run's values."""
    out: dict[str, Any] = {}
    for path, value in point.items():
        if not is_run_param(path):
            continue
        parts = path.split(".")
        g = cfg.robots[int(parts[1])]
        params = out.setdefault(g.name, copy.deepcopy(dict(g.controller.params)
                                                      if g.controller else {}))
        set_path(params, ".".join(parts[4:]), value)
    return out
