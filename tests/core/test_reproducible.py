"""A run depends on its seed and parameters only, bit for bit.

Over random experiments — every robot type, noisy sensors, the radio on (with drops and noise),
controllers of every kind (per-robot and batched Python, Buzz, Lua, PFSM) — poses, readings and
commands of

(a) run k of a batch equal those of the same seed simulated alone, also when ``seed_runs``
    gives the runs arbitrary seeds on a simulation that already ran;
(b) a simulation that ran some ticks and was then reset (``reset(seed=…)``, ``reset(params=…)``,
    ``reset()``) equal those of a simulation freshly built for that seed and those parameters.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from numpy.lib.recfunctions import structured_to_unstructured
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from swarmstack import BatchedController, Controller, Simulation
from swarmstack.design import grammar
from swarmstack.design.controller import kit_for
from swarmstack.design.pfsm import PFSM, State, Transition
from swarmstack.experiments.config import parse_experiment

HERE = __name__  # the controllers below, as the loader finds them (this module, imported)
TAKEOFF, VELOCITY = 4, 2   # the Crazyflie's ``mode`` commands (config reference)


# ------------------------------------------------------------------ controllers
def _felt(arrays, n: int) -> np.ndarray:
    """float64[n] in (−1, 1): every reading of a robot summed, so that a controller's commands
    depend on all it senses (a difference in any reading shows in the poses)."""
    total = np.zeros(n)
    for a in arrays:
        if a.dtype.names:  # a record per robot (the RVR's reference model)
            a = structured_to_unstructured(a.reshape(n), dtype=np.float64)
        x = np.asarray(a, dtype=np.float64).reshape(n, -1)
        total += np.where(np.isfinite(x), x, 0.0).sum(axis=1)
    return np.tanh(total * 1e-3)


class Wander(Controller):
    """Per-robot: random commands from the robot's own stream, bent by its readings and by what
    it heard; sends a frame every tick. ``reset`` starts it again as ``init`` does."""

    def init(self, robot, params):
        self.kind = params["type"]
        self.gain = float(params.get("gain", 1.0))
        self.steps = 0

    def reset(self, robot):
        self.init(robot, robot.params)

    def step(self, robot):
        self.steps += 1
        readings = [v for v in vars(robot).values() if isinstance(v, np.ndarray)]
        felt = float(_felt(readings, 1)[0])
        inbox = robot.inbox
        heard = float(np.sum(inbox.distance_m) + np.sum(np.cos(inbox.azimuth_rad)))
        robot.send(bytes([robot.id % 256, self.steps % 256]))
        u = robot.rng.uniform(-1.0, 1.0, size=3) * self.gain
        if self.kind == "crazyflie":
            if self.steps == 1:
                robot.takeoff(0.3 + 0.1 * u[0])
            else:
                robot.set_velocity(0.2 * u[0] + 0.01 * felt, 0.2 * u[1] + 0.01 * heard,
                                   0.05 * u[2])
        elif self.kind == "epuck2" and u[2] > 0:
            robot.goto(0.1 * u[0] + 0.01 * felt, 0.1 * u[1] + 0.01 * heard)
        else:
            robot.set_wheels(0.1 * u[0] + 0.01 * felt, 0.1 * u[1] + 0.01 * heard)
        robot.set_leds(self.steps % 256, int(np.clip(64 * (1 + u[0]), 0, 255)), 7)


class Swarm(BatchedController):
    """Batched: the same, for the whole group with ``uniform`` draws and the group's inbox
    (with ``sums``: only the neighbour sums, which the radio may then make without listing
    every reception)."""

    def init(self, group, params):
        self.steps = 0
        self.sums = bool(params.get("sums", False))

    def reset(self, group):
        self.steps = 0

    def step(self, group):
        self.steps += 1
        n = group.n
        skip = set(group.commands) | {"robot_id", "run"}
        readings = [v for k, v in vars(group).items()
                    if isinstance(v, np.ndarray) and not k.startswith("_") and k not in skip]
        felt = _felt(readings, n)
        u = (group.uniform(3) * 2.0 - 1.0) * group.param("gain", 1.0)[:, None]
        if self.sums:  # the vector as it is, scaled exactly: each of its bits is a command's
            count, pull = group.neighbour_sums(100.0)
            side = pull[:, 0] / 32.0
        else:
            inbox = group.inbox
            heard = np.bincount(inbox.receiver, weights=inbox.distance_m, minlength=n)
            side = 0.1 * u[:, 1] + 0.01 * heard
        width = group.outbox.shape[1]
        frame = np.zeros((n, width), dtype=np.uint8)
        frame[:, :1] = (self.steps + group.robot_id[:, None]) % 256
        group.send(frame)
        if "wheels" in group.commands:
            group.wheels[:, 0] = 0.1 * u[:, 0] + 0.01 * felt
            group.wheels[:, 1] = side
        elif self.steps == 1:
            group.mode[:, 0] = TAKEOFF
            group.target[:, 2] = 0.3 + 0.1 * u[:, 0]
        else:
            group.mode[:, 0] = VELOCITY
            group.velocity[:, 0] = 0.2 * u[:, 0] + 0.01 * felt
            group.velocity[:, 1] = 2.0 * side
            group.velocity[:, 2] = 0.05 * u[:, 2]
        group.leds[...] = (128 * (1 + u[:, None, :])).clip(0, 255).astype(np.uint8)


class Turner(Controller):
    """Per-robot E-Puck2: ``goto`` 80° to the left for three steps (a soft turn), then 120° (a
    turn on the spot, which ``goto`` keeps doing down to 70°)."""

    def init(self, robot, params):
        self.steps = 0

    def reset(self, robot):
        self.steps = 0

    def step(self, robot):
        self.steps += 1
        a = math.radians(80.0 if self.steps <= 3 else 120.0)
        robot.goto(0.1 * math.cos(a), 0.1 * math.sin(a))


BUZZ = """
function init() {
  t = 0
  heard = 0
  neighbors.listen("k", function(vid, value, rid) { heard = heard + value })
}
function step() {
  t = t + 1
  neighbors.broadcast("k", t % 7)
  var n = neighbors.count()
  var a = GAIN * math.rng.uniform(-5.0, 5.0)
  var b = GAIN * math.rng.uniform(-5.0, 5.0)
  if (robot_type == "crazyflie") {
    if (t == 1) { takeoff(30.0 + a) } else { set_velocity(a + n, b, 0.0) }
  } else {
    if (robot_type == "rvr") { set_wheels(a + n, b + heard % 3) }
    else { goto(a + n, b + heard % 3) }
  }
  set_leds(t % 255, 0, 128)
}
"""

LUA = """
function init()
   t = 0
   gain = tonumber(robot.params.gain) or 1
end
function step()
   t = t + 1
   local d = 0
   for i = 1, #robot.range_and_bearing do
      d = d + robot.range_and_bearing[i].range + robot.range_and_bearing[i].horizontal_bearing
   end
   robot.range_and_bearing.set_data(1, t % 200)
   local a = gain * robot.random.uniform(-5, 5)
   local b = gain * robot.random.gaussian(2)
   if robot.type == "crazyflie" then
      if t == 1 then robot.takeoff(30 + a) else robot.set_velocity(a, b + 0.01 * d, 0) end
   else
      robot.wheels.set_velocity(a + 0.01 * d, b)
   end
   robot.leds.set_all_colors(t % 255, 0, 128)
end
function reset()
   init()
end
"""


@pytest.fixture(scope="module")
def scripts(tmp_path_factory):
    """The folder the experiments' Buzz and Lua scripts are read from."""
    folder = tmp_path_factory.mktemp("scripts")
    (folder / "swarm.bzz").write_text(BUZZ)
    (folder / "swarm.lua").write_text(LUA)
    return folder


# ------------------------------------------------------------------ random experiments
noise = st.fixed_dictionaries({"noise": st.sampled_from(["uniform", "gaussian"]),
                               "level": st.floats(0.01, 0.2)})
positioning = st.fixed_dictionaries({"position_noise": st.floats(0.0, 0.01),
                                     "yaw_noise": st.floats(0.0, 0.05)})
SENSORS = {
    "epuck2": {
        "proximity": noise, "light": noise, "ground": noise, "tof": noise, "encoders": noise,
        "camera": st.fixed_dictionaries({"noise": st.just("gaussian"),
                                         "level": st.floats(0.1, 2.0),
                                         "max_blobs": st.integers(1, 8)}),
        "battery": st.fixed_dictionaries({"model": st.sampled_from(
            ["simple", "linear", "cubic", "approximated"])}),
        "positioning": positioning, "differential_steering": st.just(True)},
    "crazyflie": {
        "positioning": positioning,
        "camera": st.fixed_dictionaries({"noise": st.just("uniform"),
                                         "level": st.floats(0.1, 2.0),
                                         "max_blobs": st.integers(1, 8)}),
        "battery": st.fixed_dictionaries({"start_charge": st.floats(0.5, 1.0)}),
        "down_camera": st.fixed_dictionaries({"miss": st.floats(0.0, 0.5)})},
    "rvr": {
        "ground_color": st.fixed_dictionaries({"noise_std": st.floats(0.0, 8.0)}),
        "fixed_color": st.fixed_dictionaries({"noise_std": st.floats(0.0, 8.0)}),
        "velocity": st.just(True), "accelerometer": st.just(True),
        "gyroscope": st.just(True), "imu": st.just(True), "locator": st.just(True),
        "quaternion": st.just(True),
        "light": st.fixed_dictionaries({"noise": st.just("gaussian"),
                                        "level": st.floats(1.0, 50.0)}),
        "proximity": st.fixed_dictionaries({"noise_std": st.floats(0.0, 0.01)}),
        "lidar": st.fixed_dictionaries({"noise_width": st.floats(0.0, 0.02)}),
        "reference": st.fixed_dictionaries({"neighbours": st.sampled_from(["camera", "lidar"])}),
        "positioning": positioning, "differential_steering": st.just(True)},
}
KINDS = {"epuck2": ("python", "batched", "buzz", "lua", "pfsm"),
         "crazyflie": ("python", "batched", "buzz", "lua"),
         "rvr": ("python", "batched", "buzz", "lua", "pfsm")}


@st.composite
def pfsm_texts(draw, flavour):
    """An AutoMoDe string of ``flavour``: 1–3 states, every module and parameter drawn."""
    def value(p):
        return draw(st.integers(int(p.low), int(p.high)) if p.integer
                    else st.floats(p.low, p.high))

    n = draw(st.integers(1, 3))
    states = []
    for s in range(n):
        b = draw(st.sampled_from(flavour.behaviours))
        transitions = []
        for _ in range(draw(st.integers(0, 2)) if n > 1 else 0):
            c = draw(st.sampled_from(flavour.conditions))
            to = draw(st.sampled_from([k for k in range(n) if k != s]))
            transitions.append(Transition(to, c.id, {p.name: value(p) for p in c.params}))
        states.append(State(b.id, {p.name: value(p) for p in b.params}, tuple(transitions)))
    return grammar.format(PFSM(tuple(states)), flavour)


def _params(draw, kind: str, robot_type: str) -> dict:
    """A group's controller parameters (drawn anew for ``reset(params=…)``)."""
    if kind == "pfsm":  # as the experiment file's parameters: the text and its flavour
        flavour = kit_for(robot_type).flavour
        return {"pfsm": draw(pfsm_texts(flavour)), "flavour": flavour.name}
    gain = draw(st.floats(0.2, 1.5))
    if kind == "buzz":
        return {"GAIN": gain}
    return {"gain": gain, "type": robot_type, "sums": draw(st.booleans())}


@st.composite
def groups(draw, name: str, types):
    robot_type = draw(st.sampled_from(types))
    kind = draw(st.sampled_from(KINDS[robot_type]))
    available = SENSORS[robot_type]
    chosen = draw(st.sets(st.sampled_from(sorted(available)), max_size=4))
    if kind == "pfsm":
        chosen |= set(kit_for(robot_type).needs)
    sensors = {s: draw(available[s]) for s in sorted(chosen)}
    params = _params(draw, kind, robot_type)
    controller = {
        "python": {"python": f"{HERE}:Wander", "params": params},
        "batched": {"python": f"{HERE}:Swarm", "params": params},
        "buzz": {"buzz": "swarm.bzz", "params": params},
        "lua": {"lua": "swarm.lua", "params": params},
        "pfsm": {"pfsm": params.get("pfsm")},
    }[kind]
    radio = {"range": draw(st.floats(0.3, 2.0)), "drop": draw(st.sampled_from([0.0, 0.3])),
             "range_noise": draw(st.sampled_from([0.0, 0.01])),
             "bearing_noise": draw(st.sampled_from([0.0, 0.1])),
             "capacity": draw(st.sampled_from([0, 2]))}
    if kind in ("buzz", "lua"):
        radio["payload_bytes"] = 32
    group = {"name": name, "type": robot_type, "count": draw(st.integers(1, 3)),
             "controller": controller, "sensors": sensors, "radio": radio}
    if robot_type == "crazyflie" and draw(st.booleans()):  # drones that start in the air
        x = -1.2 + 0.6 * int(name[1:])
        group["placement"] = {"kind": "explicit", "poses": [
            [x, -1.0 + 0.4 * i, draw(st.floats(0.2, 0.8)), 0.0] for i in range(group["count"])]}
    if robot_type != "crazyflie" and draw(st.booleans()):
        group["wheels"] = {"noise": draw(st.sampled_from(["uniform", "gaussian"])),
                           "level": draw(st.floats(0.01, 0.1))}
    return group, kind


@st.composite
def experiments(draw, types=tuple(SENSORS)):
    """(experiment dict, per group (name, kind, robot type)) of robots of ``types``."""
    drawn = [draw(groups(f"g{i}", types)) for i in range(draw(st.integers(1, 2)))]
    cfg = {"simulation": {"ticks_per_second": draw(st.sampled_from([10, 20]))},
           "arena": {"size": [3.0, 3.0], "walls": draw(st.booleans())},
           "floor": {"background": [128, 128, 128], "resolution": 0.02,
                     "regions": [{"color": "black", "circle": [-0.6, 0.0, 0.5]},
                                 {"color": "red", "rect": [0.4, -0.6, 1.2, 0.6]}]},
           "lights": [{"position": [0.5, 0.5, 0.3], "intensity": 2.0}],
           "cylinders": [{"center": [0.0, 1.1], "radius": 0.1, "height": 0.2}],
           "radio": {"robots_occlude": draw(st.booleans())},
           "robots": [g for g, _ in drawn]}
    return cfg, [(g["name"], kind, g["type"]) for g, kind in drawn]


def other_params(draw, cfg, kinds, runs: int) -> list:
    """For ``reset(params=…)``: new controller parameters for every group of every run. How a
    ``Swarm`` listens (``sums``) stays the file's: a batched controller reads it once for every
    run, from the first run's parameters."""
    out = []
    for _ in range(runs):
        per_group = {}
        for g, (name, kind, robot_type) in zip(cfg["robots"], kinds):
            p = per_group[name] = _params(draw, kind, robot_type)
            if "sums" in p:
                p["sums"] = g["controller"]["params"]["sums"]
        out.append(per_group)
    return out


# ------------------------------------------------------------------ traces
def _record(sim, run: int) -> list:
    """Every pose, reading and command of run ``run``'s robots, as bytes."""
    b = sim.world.bodies
    out = []
    for g in sim.groups:
        local = np.flatnonzero(b.run[g.slice.slice] == run)
        out.append((f"{g.name}.pose", b.pose[:, g.slice.start + local].tobytes()))
        for name, arr in sorted(g.readings.items()):
            out.append((f"{g.name}.{name}", np.ascontiguousarray(arr[local]).tobytes()))
        for name, arr in sorted(g.commands.items()):
            out.append((f"{g.name}.{name} (command)", arr[local].tobytes()))
    return out


def trace(sim, ticks: int) -> list:
    """Per run, its record at tick 0 (after the start or a reset) and after each step."""
    sim.start()
    rows = [[_record(sim, k)] for k in range(sim.runs)]
    for _ in range(ticks):
        sim.step()
        for k in range(sim.runs):
            rows[k].append(_record(sim, k))
    return rows


def assert_same(got: list, expected: list, what: str) -> None:
    """Bit for bit; otherwise name the first tick and quantity that differ."""
    assert len(got) == len(expected)
    for tick, (a, b) in enumerate(zip(got, expected)):
        for (name, x), (_, y) in zip(a, b):
            assert x == y, f"{what}: {name} differs at tick {tick}"


def build(cfg, scripts, **kw) -> Simulation:
    return Simulation(parse_experiment(cfg), base_dir=scripts, **kw)


SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# ------------------------------------------------------------------ (a) a batch's runs
def swarm(robot_type: str, count: int, sums: bool, controller: str = "Swarm") -> tuple:
    """An experiment of one group of ``controller`` (``Swarm`` or ``Wander``), close enough to
    hear each other."""
    group = {"name": "g0", "type": robot_type, "count": count, "radio": {"range": 2.0},
             "placement": {"kind": "uniform", "min": [-0.6, -0.6], "max": [0.6, 0.6]},
             "controller": {"python": f"{HERE}:{controller}",
                            "params": {"gain": 1.0, "type": robot_type, "sums": sums}}}
    return {"arena": {"size": [3.0, 3.0]}, "robots": [group]}, [("g0", "batched", robot_type)]


@SETTINGS
# drones taking off to different heights: their runs need different physics sub-steps, which
# each run takes on its own
@example(exp=swarm("crazyflie", 2, False), seed=0, runs=2, ticks=2)
@given(exp=experiments(), seed=st.integers(0, 2 ** 40), runs=st.integers(2, 3),
       ticks=st.integers(1, 8))
def test_run_of_a_batch_is_its_seed_alone(scripts, exp, seed, runs, ticks):
    cfg, _ = exp
    batch = trace(build(cfg, scripts, seed=seed, runs=runs), ticks)
    for k in range(runs):
        alone, = trace(build(cfg, scripts, seed=seed + k), ticks)
        assert_same(batch[k], alone, f"run {k} of the batch")


@st.composite
def restarts(draw, most_runs: int = 3):
    """(experiment, its groups, runs, the seed it is built with, ticks it runs before)."""
    cfg, kinds = draw(experiments())
    return (cfg, kinds, draw(st.integers(1, most_runs)), draw(st.integers(0, 2 ** 40)),
            draw(st.integers(0, 6)))


@SETTINGS
@given(case=restarts(), seeds=st.lists(st.integers(0, 2 ** 62), min_size=3, max_size=3),
       ticks=st.integers(1, 8), data=st.data())
def test_seed_runs_gives_each_run_its_seed(scripts, case, seeds, ticks, data):
    """A simulation that already ran, given arbitrary seeds (as a design's worker between
    batches) and new parameters: run k is seed k with its parameters, simulated alone."""
    cfg, kinds, runs, seed, before = case
    seeds = seeds[:runs]
    params = other_params(data.draw, cfg, kinds, runs)
    sim = build(cfg, scripts, seed=seed, runs=runs)
    sim.run(before)
    sim.seed_runs(seeds)
    sim.reset(params=params)
    reused = trace(sim, ticks)
    for k, s in enumerate(seeds):
        alone, = trace(build(cfg, scripts, seed=s, params=[params[k]]), ticks)
        assert_same(reused[k], alone, f"run {k} (seed {s}) after seed_runs")


# ------------------------------------------------------------------ (b) reset
@SETTINGS
@given(case=restarts(2), how=st.sampled_from(["seed", "params", "seed and params", "replay"]),
       ticks=st.integers(1, 8), data=st.data())
def test_reset_equals_a_fresh_simulation(scripts, case, how, ticks, data):
    cfg, kinds, runs, seed, before = case
    sim = build(cfg, scripts, seed=seed, runs=runs)
    sim.run(before)
    kw = {}
    if "seed" in how:
        kw["seed"] = seed = data.draw(st.integers(0, 2 ** 40))
    if "params" in how:
        kw["params"] = other_params(data.draw, cfg, kinds, runs)
    sim.reset(**kw)
    again = trace(sim, ticks)
    fresh = trace(build(cfg, scripts, seed=seed, runs=runs, params=kw.get("params")), ticks)
    for k in range(runs):
        assert_same(again[k], fresh[k], f"run {k} after reset ({how})")


# ------------------------------------------------------------------ cases met in practice
ATTRACTION = ("--nstates 2 --s0 4 --att0 3 --n0 1 --n0x0 0 --c0x0 3 --p0x0 2 --w0x0 5 --s1 0 "
              "--rwm1 20 --n1 1 --n1x0 0 --c1x0 4 --p1x0 3 --w1x0 4")


def test_a_design_worker_moves_its_robots_as_a_new_simulation_would():
    """A design's worker keeps its simulation between batches; the robots of a batch, whose
    PFSMs steer by the neighbours they hear, move as in a simulation built for that batch."""
    path = Path(__file__).resolve().parents[2] / "examples" / "design" / "aggregation.toml"
    pfsms = [{"swarm": {"pfsm": ATTRACTION, "flavour": "chocolate"}}] * 5
    worker = Simulation.from_file(path, runs=5)
    for seeds in ([1, 2, 3, 4, 5], [11, 12, 13, 14, 15]):
        worker.seed_runs(seeds)
        worker.reset(params=pfsms)
        reused = trace(worker, 20)
    for k, seed in enumerate([11, 12, 13, 14, 15]):
        alone, = trace(Simulation.from_file(path, seed=seed, params=pfsms[:1]), 20)
        assert_same(reused[k], alone, f"run {k} (seed {seed}) of the worker's second batch")


def test_a_reset_before_the_first_step_starts_the_controllers():
    """Controllers that never ran get ``init`` (not ``reset``) at a reset."""
    cfg = {"arena": {"size": [2.0, 2.0]},
           "robots": [{"name": "swarm", "count": 4, "radio": True,
                       "sensors": {"proximity": True, "ground": True},
                       "controller": {"pfsm": ATTRACTION}}]}
    sim = Simulation.from_dict(cfg, seed=3, runs=2)
    sim.reset()
    assert_same(trace(sim, 5)[1], trace(Simulation.from_dict(cfg, seed=3, runs=2), 5)[1],
                "run 1 after a reset before the start")


def test_replaying_a_run_forgets_how_goto_was_turning():
    """``reset()`` replays the runs: a robot steering with ``goto`` starts without the turning
    state it ended the last run with (there turning on the spot, which an 80° target would
    have kept)."""
    cfg = {"arena": {"size": [2.0, 2.0]},
           "robots": [{"name": "r", "count": 2, "controller": {"python": f"{HERE}:Turner"}}]}
    sim = Simulation.from_dict(cfg, seed=2)
    first, = trace(sim, 8)
    sim.reset()
    again, = trace(sim, 8)
    assert_same(again, first, "the replayed run")
