"""sar: search and rescue with sparsely connected drone swarms (BittyBuzz thesis ch. 5).

The thesis's simulation study (§5.4): 15, 20 and 25 drones search 20 × 20, 30 × 30 and
40 × 40 m arenas for three ground robots, with a random walk or with the shared belief map,
30 runs per case (paired: the same starts, targets and prior for both searches), a 10 m
communication range and 20 search steps between two rendezvous. Every drone runs
``examples/buzz/sar/sar.bzz`` (roles: searcher, rendezvous, root candidate, root, auctioneer,
networker bidder, networker); targets are E-Puck2 robots standing still, seen by the drones'
downward camera (``sensors.down_camera``). One Buzz step is one 0.1 s tick, as in the thesis.

Measured per run, as the thesis does: the ticks until the three targets have been seen (first
sighting of the last one), the ticks the root spends as auctioneer (the relay formation time)
and the bytes each drone broadcast. The thesis's figures give no numbers in the text, only the
Bayes factors of JASP's Bayesian paired samples t-tests [74], computed here the same way (BF₊₀,
a Cauchy prior of scale √2/2 on the effect size). :func:`compare` judges the thesis's claims:
belief search finds the targets faster (Figs. 5.6–5.8) but forms the relay more slowly
(Figs. 5.9–5.11, 89 % of the cases); larger arenas take longer and more drones less; the
formation time is roughly constant; belief search uses more of the radio, evenly (Fig. 5.12);
the field (Table 5.1) is slower than the simulation; the script runs under the BittyBuzz
profile (16-bit numbers, 3264-byte heap) within its heap.

Reported, not judged: the share of drone-ticks whose 100 B frame (chosen) was full, i.e. the
cap binds and messages wait. The prior belief map knows nothing of the targets: its bumps are
drawn at random from the run's seed (the thesis assigns the belief map at random). With a few
runs per case (the reduced study, ``--quick``) the Bayes factors are shown, not judged.

What the thesis does not give is chosen here and marked ``chosen`` (speed, height, camera
angle, belief-map resolution and update, the prior, auction length, frame size).
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

import numpy as np

from swarmstack.validations import (Reproduction, Row, pyplot, save_plot, style_axes,
                                              validation)

# --- the thesis (§5.4) -----------------------------------------------------------------------------
PAPER_DRONES = (15, 20, 25)
PAPER_ARENAS_M = (20.0, 30.0, 40.0)
PAPER_RUNS = 30
PAPER_TARGETS = 3
PAPER_SEARCH_STEPS = 20
PAPER_RANGE_M = 10.0
PAPER_TICK_S = 0.1              # "a Buzz timestep is 0.1 s by default"
# Bayes factors of "belief is faster" (Figs. 5.6-5.8), per arena then 15/20/25 drones
PAPER_BF = {20.0: (92.404, 2.886, 70.606), 30.0: (66550.284, 914.282, 25.268),
            40.0: (210.765, 203.165, 3577.307)}
# Bayes factors of "belief forms the relay faster" (Figs. 5.9-5.11), per arena then 15/20/25
PAPER_FORMATION_BF = {20.0: (0.115, 8.070e-4, 2.539e-6), 30.0: (0.264, 3.327e-6, 0.022),
                      40.0: (3.862, 0.017, 0.469)}
PAPER_FORMATION_BF_BELOW_1 = 0.89   # §5.4.2: "89% of the data … with the BF lower than 1"
CAUCHY_SCALE = math.sqrt(2.0) / 2.0  # JASP's default prior on the effect size [74]
# Table 5.1 (field, 3 DJI M300, 36 m × 36 m, one target, belief search), timesteps
PAPER_FIELD_DISCOVERY = (1159, 863, 1295)
PAPER_FIELD_RELAY = (301, 324, 249)
STRATEGIES = ("random", "belief")

# --- chosen (the thesis does not say) --------------------------------------------------------
SPEED_M_S = 3.0                 # chosen: cruise speed
HEIGHT_M = 2.0                  # chosen: flight height (with the 50° camera: 0.93 m radius seen)
CELL_M = 2.0                    # chosen: belief-map cell, about the camera's footprint
DECAY = 0.3                     # chosen: belief kept by a cell searched without a find
THRESHOLD = 0.5                 # chosen: resample a position with less belief than this
SAMPLES = 10                    # chosen: samples before the best one is taken anyway
PRIOR_FLOOR = 0.1               # chosen: prior belief away from every bump
PRIOR_SIGMA_FRACTION = 0.1      # chosen: a prior bump's width, as a fraction of the arena side
PRIOR_BUMPS = 6                 # chosen: prior bumps, placed without knowing the targets
AUCTION_TICKS = 10              # chosen: how long an auction stays open
PAYLOAD_BYTES = 100             # chosen: bytes per drone per tick (8 kbit/s at 0.1 s ticks)
RDV_INSET_M = 1.0               # chosen: the meeting point, 1 m inside the west edge
START_STRIP_M = 2.0             # chosen: drones start within 2 m of the west edge
TARGET_CLEAR_M = 3.0            # chosen: targets at least 3 m east of the west edge
TARGET_MARGIN_M = 1.0           # chosen: and 1 m inside the other edges
BATCH_RUNS = 3                  # runs simulated together (speed only)
GRID_CELL_M = 1.0               # spatial grid: a sparse arena needs no finer one (speed only)
MAX_TICKS = 20000               # a run that has not formed its relay by then is censored

# --- tolerances --------------------------------------------------------------------------------
FORMATION_SPREAD = 3.0          # formation time "roughly constant" across swarm sizes
BANDWIDTH_CV = 0.5              # "homogeneous" use across robots
REDUCED = 0.2                   # below this scale: one arena, two swarm sizes (tests)
REDUCED_RUNS = 2
QUICK_SCALE = 0.05              # `--quick`: the reduced study at its smallest
BITTY_DRONES = 6
BITTY_ARENA_M = 12.0
BITTY_TICKS = 600

DRONES, TARGETS = "drones", "targets"


def script_path() -> Path:
    return Path(__file__).resolve().parents[2] / "examples" / "buzz" / "sar" / "sar.bzz"


def experiment(arena_m: float, drones: int, strategy: str, profile: str = "buzz") -> dict:
    """One case of the study as an experiment: drones at the west edge, three still targets."""
    half = arena_m / 2.0
    return {
        "simulation": {"ticks_per_second": round(1.0 / PAPER_TICK_S)},
        "arena": {"size": [arena_m + 2.0, arena_m + 2.0], "walls": False,
                  "grid_cell": GRID_CELL_M},
        "robots": [
            {"name": DRONES, "type": "crazyflie", "count": drones,
             "placement": {"kind": "uniform", "min": [-half, -START_STRIP_M],
                           "max": [-half + START_STRIP_M, START_STRIP_M]},
             "controller": {"buzz": str(script_path()), "distance_unit": "m",
                            "profile": profile, "params": params(arena_m, strategy, [])},
             "sensors": {"positioning": True, "down_camera": {"targets": [TARGETS]}},
             "radio": {"range": PAPER_RANGE_M, "payload_bytes": PAYLOAD_BYTES},
             "flight": {"ceiling": HEIGHT_M + 1.0}},
            {"name": TARGETS, "type": "epuck2", "count": PAPER_TARGETS,
             "placement": {"kind": "uniform",
                           "min": [-half + TARGET_CLEAR_M, -half + TARGET_MARGIN_M],
                           "max": [half - TARGET_MARGIN_M, half - TARGET_MARGIN_M]}},
        ],
    }


def params(arena_m: float, strategy: str, bumps: list[tuple[float, float]]) -> dict:
    """The script's parameters for one run (``bumps``: the prior's centres, m)."""
    return {"ARENA": arena_m, "CELLS": max(1, round(arena_m / CELL_M)),
            "RANGE": PAPER_RANGE_M, "SEARCH_STEPS": PAPER_SEARCH_STEPS,
            "BELIEF": 1 if strategy == "belief" else 0, "TARGETS": PAPER_TARGETS,
            "HEIGHT": HEIGHT_M, "SPEED": SPEED_M_S, "TICK": PAPER_TICK_S,
            "RDV_X": -arena_m / 2.0 + RDV_INSET_M, "RDV_Y": 0.0, "AUCTION": AUCTION_TICKS,
            "THRESHOLD": THRESHOLD, "SAMPLES": SAMPLES, "DECAY": DECAY,
            "FLOOR": PRIOR_FLOOR, "SIGMA": PRIOR_SIGMA_FRACTION * arena_m,
            "BUMPS": len(bumps), "BUMP_X": [b[0] for b in bumps],
            "BUMP_Y": [b[1] for b in bumps]}


def prior_bumps(arena_m: float, seed: int) -> list[tuple[float, float]]:
    """The prior belief map of one run: ``PRIOR_BUMPS`` bumps at random places of the arena,
    drawn from the run's seed alone -- it does not know where the targets are (the thesis
    assigns the belief map at random, §5.4.2)."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, 0x5A5]))
    half = arena_m / 2.0
    return [tuple(map(float, p)) for p in rng.uniform(-half, half, size=(PRIOR_BUMPS, 2))]


@dataclass
class CaseResult:
    arena_m: float
    drones: int
    strategy: str
    seeds: list[int]
    find_ticks: list[int]              # ticks until the last target was first seen (-1: never)
    formation_ticks: list[int]         # ticks the root spent as auctioneer (-1: not formed)
    formed_at: list[int]               # tick the relay was complete (-1: not formed)
    bytes_per_robot_tick: list[float]  # mean over the run's drones
    robot_cv: list[float]              # spread of the drones' bandwidth, per run
    cumulative: Optional[np.ndarray] = None   # run 0: bytes sent by each drone up to each tick
    failures: int = 0
    heap_peak: int = 0
    ticks: int = 0                     # ticks simulated (the batch's longest run)
    drone_ticks: int = 0               # drones × ticks simulated, every run of the batch
    sim: object = None                 # the simulation itself, when asked for (tests)
    backlog: list[float] = field(default_factory=list)  # per run: share of sampled drone-ticks
    #                                      with messages still queued after the tick's frame


def run_case(arena_m: float, drones: int, strategy: str, seed: int, runs: int,
             max_ticks: int = MAX_TICKS, profile: str = "buzz", keep_curve: bool = False,
             keep_sim: bool = False) -> CaseResult:
    """``runs`` runs of one case, batched (run k uses seed + k), stepped until every run has
    its relay or ``max_ticks``."""
    from swarmstack.sim.simulation import Simulation

    sim = Simulation.from_dict(experiment(arena_m, drones, strategy, profile),
                               base_dir=script_path().parent, seed=seed, runs=runs)
    w = sim.world
    tg, dg = w.group(TARGETS), w.group(DRONES)
    b = w.bodies
    per_run = [{DRONES: params(arena_m, strategy, prior_bumps(arena_m, seed + r))}
               for r in range(runs)]
    sim.reset(params=per_run)
    ctrl = sim.buzz(DRONES)
    group = next(g for g in sim.groups if g.name == DRONES)
    camera = group.readings["down_camera"]
    run_of = b.run[dg.slice]
    first_id = tg.id_offset
    seen = np.full((runs, PAPER_TARGETS), -1, dtype=np.int64)
    sent = np.zeros(dg.n, dtype=np.int64)
    curve = [] if keep_curve else None
    formed = np.full(runs, -1, dtype=np.int64)
    medium = sim.medium
    n = len(ctrl.robots)
    sampled = np.zeros(runs, dtype=np.int64)
    backlogged = np.zeros(runs, dtype=np.int64)
    tick = 0
    for tick in range(1, max_ticks + 1):
        sim.step()
        ids = camera[:, :, 0]
        rows, slots = np.nonzero(ids >= 0)
        if rows.size:
            t_idx = ids[rows, slots].astype(np.int64) - first_id
            r_idx = run_of[rows]
            fresh = seen[r_idx, t_idx] < 0
            seen[r_idx[fresh], t_idx[fresh]] = tick
        # bytes sent by the drones of runs still under way (a batch goes on for its slowest)
        sent += np.where(formed[run_of] < 0, np.maximum(medium.inbox.sent_size[dg.slice], 0), 0)
        if curve is not None:
            curve.append(sent[:dg.per_run].copy())
        if tick % 10 == 0:
            for k in range(n):
                r = run_of[k]
                if formed[r] < 0:
                    sampled[r] += 1
                    backlogged[r] += _backlogged(ctrl.robots[k])
                    f = ctrl.get_global(k, "formed_at")
                    if f is not None and f >= 0:
                        formed[r] = f
            if (formed >= 0).all():
                break
    find, formation, formed_at = [], [], []
    for r in range(runs):
        find.append(int(seen[r].max()) if (seen[r] >= 0).all() else -1)
        auction = [ctrl.get_global(k, "auction_ticks") for k in range(n) if run_of[k] == r
                   and ctrl.get_global(k, "formed_at") not in (None, -1)]
        formation.append(int(max(auction)) if auction else -1)
        formed_at.append(int(formed[r]))
    per_robot = sent.reshape(runs, dg.per_run) / np.where(formed > 0, formed, tick)[:, None]
    heap = 0
    for robot in ctrl.robots:
        if robot.vm is not None:
            heap = max(heap, robot.vm.heap_peak, robot.vm.measure_heap())
    return CaseResult(arena_m, drones, strategy, [seed + r for r in range(runs)], find,
                      formation, formed_at, [float(x) for x in per_robot.mean(axis=1)],
                      [float(x.std() / x.mean()) if x.mean() > 0 else math.inf
                       for x in per_robot],
                      np.array(curve[:formed[0]] if formed[0] > 0 else curve)
                      if curve is not None else None,
                      len(sim.robot_failures()), heap, tick, tick * dg.n,
                      sim if keep_sim else None,
                      [float(x) for x in backlogged / np.maximum(sampled, 1)])


def _backlogged(robot) -> bool:
    """Whether the robot's Buzz outqueue still holds messages after this tick's frame was
    packed: the frame was full (the payload cap binds)."""
    service = getattr(robot, "service", None)
    if service is None:
        return False
    out = service.out
    return bool(out.broadcast or out.swarm_list is not None or out.join or out.leave
                or any(r.alive for r in out.vput) or any(r.alive for r in out.vquery))


@dataclass
class Study:
    arenas: tuple[float, ...]
    drones: tuple[int, ...]
    runs: int
    cases: dict = field(default_factory=dict)   # (arena, drones, strategy) -> CaseResult


def _merge(parts: list[CaseResult]) -> CaseResult:
    """The batches of one case as one result, runs in seed order."""
    parts = sorted(parts, key=lambda c: c.seeds[0])
    out = CaseResult(parts[0].arena_m, parts[0].drones, parts[0].strategy, [], [], [], [], [],
                     [])
    for c in parts:
        for name in ("seeds", "find_ticks", "formation_ticks", "formed_at",
                     "bytes_per_robot_tick", "robot_cv", "backlog"):
            getattr(out, name).extend(getattr(c, name))
        out.failures += c.failures
        out.heap_peak = max(out.heap_peak, c.heap_peak)
        out.ticks = max(out.ticks, c.ticks)
        out.drone_ticks += c.drone_ticks
        if c.cumulative is not None:
            out.cumulative = c.cumulative
    return out


def run_study(arenas=PAPER_ARENAS_M, drones=PAPER_DRONES, runs: int = PAPER_RUNS,
              workers: Optional[int] = None, max_ticks: int = MAX_TICKS, seed: int = 1000
              ) -> Study:
    """Every (arena, drones, search) case, ``runs`` paired runs each: one sweep, the cases
    shared among ``workers`` processes (default: the cores this process may use). Seeds
    depend on the arena and the swarm only, so both searches see the same runs."""
    from swarmstack.studies.executors import make_executor

    # runs go in small batches: a batch steps until its slowest run is done
    jobs = [(a, n, s, seed + 1000 * i + 100 * j + b, min(BATCH_RUNS, runs - b), max_ticks,
             a == arenas[0] and n == drones[0] and s == "belief" and b == 0)
            for i, a in enumerate(arenas) for j, n in enumerate(drones) for s in STRATEGIES
            for b in range(0, runs, BATCH_RUNS)]
    # the largest cases first, so that the pool ends together
    jobs.sort(key=lambda j: -(j[0] ** 2 * j[1]))
    study = Study(tuple(arenas), tuple(drones), runs)
    pool = make_executor(workers)     # the sweeps' executors: in process, processes or Ray
    try:
        results = [f.result() for f in [pool.submit(run_case, *j[:6], keep_curve=j[6])
                                         for j in jobs]]
    finally:
        pool.shutdown()
    by_case: dict = {}
    for r in results:
        by_case.setdefault((r.arena_m, r.drones, r.strategy), []).append(r)
    study.cases = {key: _merge(parts) for key, parts in by_case.items()}
    return study


def bittybuzz_case(seed: int = 7) -> CaseResult:
    """The same script under the BittyBuzz profile on a small swarm (one run)."""
    return run_case(BITTY_ARENA_M, BITTY_DRONES, "belief", seed, 1, BITTY_TICKS,
                    profile="bittybuzz")


# --- comparison ----------------------------------------------------------------------------------
def _mean(xs):
    xs = [x for x in xs if x >= 0]
    return statistics.fmean(xs) if xs else math.nan


def _pool(study: Study, metric: str, arena=None, drones=None, strategy=None) -> list:
    """``metric`` of every run of the cases of ``arena``, ``drones`` and ``strategy`` (None:
    all)."""
    return [x for (a, n, s), c in study.cases.items()
            if arena in (None, a) and drones in (None, n) and strategy in (None, s)
            for x in getattr(c, metric)]


def _paired(study: Study, a: float, n: int, metric: str = "find_ticks") -> list[int]:
    """random − belief ``metric`` of the runs where both have it."""
    rnd = getattr(study.cases[(a, n, "random")], metric)
    bel = getattr(study.cases[(a, n, "belief")], metric)
    return [x - y for x, y in zip(rnd, bel) if x >= 0 and y >= 0]


def bayes_factor_positive(diffs, scale: float = CAUCHY_SCALE) -> float:
    """BF₊₀ of a Bayesian paired samples t-test (JZS: a Cauchy prior of ``scale`` on the effect
    size δ, here restricted to δ > 0, against δ = 0), as JASP computes it [74]: the evidence
    that the mean of ``diffs`` is positive. NaN below two pairs; with no spread, infinite or 0
    by the sign of the mean."""
    from scipy import integrate, stats

    d = np.asarray(diffs, dtype=float)
    n = len(d)
    if n < 2:
        return math.nan
    sd = float(d.std(ddof=1))
    mean = float(d.mean())
    if sd == 0.0:
        return math.inf if mean > 0 else 0.0 if mean < 0 else 1.0
    t = mean / (sd / math.sqrt(n))
    df = n - 1
    root_n = math.sqrt(n)

    def integrand(delta):
        return stats.nct.pdf(t, df, delta * root_n) * 2.0 * stats.cauchy.pdf(delta, 0.0, scale)

    peak = max(abs(t) / root_n, scale)   # the likelihood's mode in δ: integrate around it
    parts = [integrate.quad(integrand, 0.0, 4 * peak, limit=200)[0],
             integrate.quad(integrand, 4 * peak, math.inf, limit=200)[0]]
    return float(sum(parts) / stats.t.pdf(t, df))


def _bf_text(values) -> str:
    return ", ".join(f"{v:.3g}" for v in values)


def compare(study: Study, bitty: Optional[CaseResult], reduced: bool = False) -> list[Row]:
    """The rows of the comparison; ``reduced`` (a few runs per case): the search comparisons
    and Bayes factors are shown, not judged (two runs per case decide nothing)."""
    from swarmstack.buzz.heap import BBZHEAP_SIZE

    rows: list[Row] = []
    cases = study.cases.values()
    censored = sum(x < 0 for c in cases for x in c.formed_at)
    failed = sum(c.failures for c in cases)
    total = sum(len(c.formed_at) for c in cases)
    rows.append(Row("runs that found the 3 targets and formed the relay",
                    f"all ({len(PAPER_ARENAS_M) * len(PAPER_DRONES) * 2} cases × {PAPER_RUNS})",
                    f"{total - censored} of {total} ({len(study.cases)} cases × {study.runs}); "
                    f"{failed} robot failures", censored == 0 and failed == 0))
    diffs_all = []
    for a in study.arenas:
        means, ok = [], True
        for n in study.drones:
            d = _paired(study, a, n)
            diffs_all += d
            m = statistics.fmean(d) if d else math.nan
            ok = ok and m > 0
            means.append(f"{n}: {_mean(study.cases[(a, n, 'random')].find_ticks):.0f} vs "
                         f"{_mean(study.cases[(a, n, 'belief')].find_ticks):.0f}")
        bf = ", ".join(f"{x:g}" for x in PAPER_BF.get(a, ()))
        rows.append(Row(f"{a:g} m arena: ticks to find 3 targets, random vs belief (mean)",
                        f"belief faster for 15/20/25 drones (BF {bf})", "; ".join(means), ok,
                        informative=reduced))
    se = statistics.stdev(diffs_all) / math.sqrt(len(diffs_all)) if len(diffs_all) > 1 \
        else math.inf
    m = statistics.fmean(diffs_all) if diffs_all else math.nan
    rows.append(Row("paired random − belief, all cases (ticks)",
                    "> 0 (every BF > 1); here > 2 s.e.",
                    f"{m:.0f} ± {se:.0f} (s.e.)", m > 2 * se, informative=reduced))
    # the thesis's statistics: Bayesian paired samples t-tests, "belief is faster"
    find_bf, form_bf = {}, {}
    for a in study.arenas:
        find_bf[a] = [bayes_factor_positive(_paired(study, a, n)) for n in study.drones]
        form_bf[a] = [bayes_factor_positive(_paired(study, a, n, "formation_ticks"))
                      for n in study.drones]
    for a in study.arenas:
        paper = PAPER_BF.get(a)
        rows.append(Row(f"{a:g} m arena: Bayes factor BF₊₀ 'belief finds the targets faster', "
                        f"{'/'.join(map(str, study.drones))} drones (Figs. 5.6-5.8; JZS, "
                        f"Cauchy scale √2/2)",
                        (f"{_bf_text(paper)} for 15/20/25 (all > 1)" if paper else "> 1"),
                        _bf_text(find_bf[a]), all(bf > 1 for bf in find_bf[a]),
                        informative=reduced))
    for a in study.arenas:
        paper = PAPER_FORMATION_BF.get(a)
        rows.append(Row(f"{a:g} m arena: Bayes factor BF₊₀ 'belief forms the relay faster' "
                        "(Figs. 5.9-5.11; < 1: belief slower)",
                        f"{_bf_text(paper)} for 15/20/25" if paper else "< 1 mostly",
                        _bf_text(form_bf[a]), True, informative=True))
    bfs = [bf for a in study.arenas for bf in form_bf[a] if not math.isnan(bf)]
    share = sum(bf < 1 for bf in bfs) / len(bfs) if bfs else math.nan
    rows.append(Row.within("share of cases where belief forms the relay slower (formation "
                           "BF₊₀ < 1; §5.4.2: “89% … lower than 1”, 8 of 9 cases; "
                           "± 2 of 9 cases)", PAPER_FORMATION_BF_BELOW_1, share, 2 / 9,
                           informative=reduced))
    backlog = {s: _mean(_pool(study, "backlog", strategy=s)) for s in STRATEGIES}
    rows.append(Row(f"radio payload cap {PAYLOAD_BYTES} B per drone per tick (chosen): share of "
                    "sampled drone-ticks whose frame was full (messages left queued)",
                    "the thesis gives no payload size",
                    f"belief {backlog['belief']:.0%}, random {backlog['random']:.0%}"
                    + (" (the cap binds: belief messages wait for later frames)"
                       if backlog["belief"] > 0.5 else ""),
                    True, ours_value=backlog["belief"], informative=True))
    # Table 5.1 (field): "an average 1105 timesteps with the belief search, a value that is
    # bigger than the ones obtained in simulation"; relay formation "mean value here is 295"
    sim_find = _mean(_pool(study, "find_ticks", strategy="belief"))
    sim_form = _mean(_pool(study, "formation_ticks", strategy="belief"))
    field_find = statistics.fmean(PAPER_FIELD_DISCOVERY)
    field_form = statistics.fmean(PAPER_FIELD_RELAY)
    rows.append(Row("field discovery (Table 5.1: 1159, 863, 1295 timesteps, 36 m field, 3 "
                    "drones) is bigger than the simulated belief search's (§5.5)",
                    f"{field_find:.0f} timesteps (10^{math.log10(field_find):.1f}) > simulation",
                    f"simulation {sim_find:.0f} (10^{math.log10(sim_find):.1f}), "
                    f"{field_find / sim_find:.1f}× less than the field",
                    sim_find < field_find, paper_value=field_find, ours_value=sim_find,
                    unit="timesteps"))
    rows.append(Row.within("field relay formation (Table 5.1: 301, 324, 249 timesteps; text: "
                           "mean 295) beside the simulated belief search's: log10 of the mean "
                           "(within one order of magnitude; the thesis compares none)",
                           math.log10(field_form), math.log10(sim_form), 1.0,
                           "log10 timesteps", informative=True))
    if len(study.arenas) > 1:
        small, big = study.arenas[0], study.arenas[-1]
        grow = [(n, s) for n in study.drones for s in STRATEGIES
                if _mean(study.cases[(big, n, s)].find_ticks)
                <= _mean(study.cases[(small, n, s)].find_ticks)]
        rows.append(Row(f"time to find grows with the arena ({small:g} → {big:g} m)",
                        "larger arenas take longer (Figs. 5.6-5.8)",
                        "every swarm and search" if not grow else f"not for {grow}", not grow))
    if len(study.drones) > 1:
        few, many = study.drones[0], study.drones[-1]
        shrink = [a for a in study.arenas if not _mean(_pool(study, "find_ticks", a, many))
                  < _mean(_pool(study, "find_ticks", a, few))]
        rows.append(Row(f"time to find shrinks with the swarm ({few} → {many} drones)",
                        "more drones find the targets faster",
                        "every arena" if not shrink else f"not in {shrink} m", not shrink))
    spreads = []
    for a in study.arenas:
        for s in STRATEGIES:
            f = [_mean(study.cases[(a, n, s)].formation_ticks) for n in study.drones]
            spreads.append(max(f) / min(f) if min(f) > 0 else math.inf)
    rows.append(Row("relay formation time across swarm sizes (max/min of means)",
                    f"roughly constant (≤ {FORMATION_SPREAD:g}×, chosen; Figs. 5.9-5.11)",
                    f"{max(spreads):.2f}× at most", max(spreads) <= FORMATION_SPREAD))
    if len(study.arenas) > 1:
        small, big = study.arenas[0], study.arenas[-1]
        form = {a: _mean(_pool(study, "formation_ticks", a)) for a in (small, big)}
        rows.append(Row(f"relay formation time, {small:g} → {big:g} m arena (mean ticks)",
                        "a slight increase with the arena",
                        f"{form[small]:.0f} → {form[big]:.0f}", form[big] > form[small]))
    more = [(a, _mean(_pool(study, "bytes_per_robot_tick", a, strategy="random")),
             _mean(_pool(study, "bytes_per_robot_tick", a, strategy="belief")))
            for a in study.arenas]
    rows.append(Row("bytes per robot per tick, random vs belief",
                    "belief uses the radio heavily (Fig. 5.12)",
                    "; ".join(f"{a:g} m: {r:.1f} vs {b:.1f}" for a, r, b in more),
                    all(b > r for _, r, b in more)))
    cv = max(_pool(study, "robot_cv", strategy="belief"))
    curve = next((c.cumulative for c in cases if c.cumulative is not None), None)
    growing = curve is not None and bool(np.all(curve[-1] > curve[len(curve) // 2]))
    rows.append(Row("belief search: bandwidth per robot grows and is even across robots",
                    f"increasing, homogeneous (CV < {BANDWIDTH_CV:g}, chosen)",
                    f"CV {cv:.2f} at most; cumulative bytes growing: "
                    f"{'yes' if growing else 'no'}", growing and cv < BANDWIDTH_CV))
    if bitty is not None:
        rows.append(Row(f"BittyBuzz profile: {BITTY_DRONES} drones, {BITTY_TICKS} ticks",
                        f"runs in {BBZHEAP_SIZE} B of heap (BBZHEAP_SIZE)",
                        f"{bitty.failures} failures, peak heap {bitty.heap_peak} B",
                        bitty.failures == 0 and 0 < bitty.heap_peak <= BBZHEAP_SIZE))
    return rows


# --- files ---------------------------------------------------------------------------------------
def write_files(study: Study, out_dir: Path) -> list[Path]:
    table = out_dir / "sar_runs.csv"
    with open(table, "w", encoding="utf-8") as fh:
        fh.write("arena_m,drones,search,seed,find_ticks,formation_ticks,formed_at,"
                 "bytes_per_robot_tick\n")
        for (a, n, s), c in sorted(study.cases.items()):
            for k in range(len(c.seeds)):
                fh.write(f"{a:g},{n},{s},{c.seeds[k]},{c.find_ticks[k]},"
                         f"{c.formation_ticks[k]},{c.formed_at[k]},"
                         f"{c.bytes_per_robot_tick[k]:.3f}\n")
    files = [table]
    plt = pyplot()
    for metric, fig_no, what in (("find_ticks", "5.6-5.8", "ticks to find 3 targets"),
                                 ("formation_ticks", "5.9-5.11", "ticks to form the relay")):
        fig, axes = plt.subplots(1, len(study.arenas), figsize=(4 * len(study.arenas), 3.6),
                                 squeeze=False)
        for ax, a in zip(axes[0], study.arenas):
            for j, s in enumerate(STRATEGIES):
                data = [[x for x in getattr(study.cases[(a, n, s)], metric) if x >= 0]
                        or [math.nan] for n in study.drones]
                pos = [3 * i + j for i in range(len(study.drones))]
                ax.boxplot(data, positions=pos, widths=0.8, patch_artist=True,
                           boxprops={"facecolor": ("tab:green", "tab:orange")[j]})
            ax.set_xticks([3 * i + 0.5 for i in range(len(study.drones))],
                          [str(n) for n in study.drones])
            style_axes(ax, "drones", what, f"{a:g} m × {a:g} m", legend=False)
        axes[0][0].plot([], [], color="tab:green", label="random")
        axes[0][0].plot([], [], color="tab:orange", label="belief")
        axes[0][0].legend(fontsize=8)
        fig.suptitle(f"Search and rescue (thesis Figs. {fig_no})")
        files.append(save_plot(fig, out_dir / f"sar_{metric}.png"))
    curve = next((c for c in study.cases.values() if c.cumulative is not None), None)
    if curve is not None:
        fig, ax = plt.subplots(figsize=(6, 3.6))
        t = np.arange(1, len(curve.cumulative) + 1) * PAPER_TICK_S
        for k in range(curve.cumulative.shape[1]):
            ax.plot(t, curve.cumulative[:, k] / 1000.0, lw=0.8)
        style_axes(ax, "time (s)", "kB sent (cumulative)",
                   f"Bandwidth, {curve.drones} drones, {curve.arena_m:g} m, belief (Fig. 5.12)",
                   legend=False)
        files.append(save_plot(fig, out_dir / "sar_bandwidth.png"))
    return files


@validation("sar")
def reproduce(out_dir: Path, quick: bool = False, scale: Optional[float] = None,
              workers: Optional[int] = None) -> Reproduction:
    """The study at ``scale`` (1: the thesis's 30 runs per case; below 1 fewer runs, and below
    ``REDUCED`` the 20 m arena with 15 and 25 drones only, at least ``REDUCED_RUNS`` runs);
    ``quick``: the reduced study (scale ``QUICK_SCALE``) unless a ``scale`` is given."""
    if scale is None:
        scale = QUICK_SCALE if quick else 1.0
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    runs = max(REDUCED_RUNS, round(PAPER_RUNS * scale))
    if scale < REDUCED:
        arenas, drones = (PAPER_ARENAS_M[0],), (PAPER_DRONES[0], PAPER_DRONES[-1])
    else:
        arenas, drones = PAPER_ARENAS_M, PAPER_DRONES
    study = run_study(arenas, drones, runs, workers)
    bitty = bittybuzz_case()
    rows = compare(study, bitty, reduced=scale < REDUCED)
    files = write_files(study, out_dir)
    notes = (f"{len(study.cases)} cases × {runs} runs (scale {scale:g}); 0.1 s ticks; "
             f"drones at {SPEED_M_S:g} m/s, {HEIGHT_M:g} m up, 50° downward camera; "
             f"{PAPER_RANGE_M:g} m radio, {PAYLOAD_BYTES} B per drone per tick; belief cells "
             f"{CELL_M:g} m; prior: {PRIOR_BUMPS} bumps at random places, not at the targets "
             f"(σ = {PRIOR_SIGMA_FRACTION:g} × arena). Values not in the thesis are chosen "
             "(see docs/sar.md). Per-run numbers in sar_runs.csv.")
    return Reproduction("sar", "search and rescue with sparsely connected drones (thesis ch. 5)",
                        rows, files, notes)

