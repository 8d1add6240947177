"""AutoMoDe-Watermelon for the RVR: its strings, what each module does in small scenes, batched
runs equal to runs alone, and a design of the RVR mission end to end."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from swarmstack.design import grammar
from swarmstack.design.chocolate import CHOCOLATE, DRAWS, Memory, step
from swarmstack.design.controller import kit_for
from swarmstack.design.evaluate import Batch, Mission, run_batch
from swarmstack.design.grammar import GrammarError
from swarmstack.design.missions import EXAMPLES, run_scores
from swarmstack.design.pfsm import Transition, pack
from swarmstack.design.space import pfsm_space, to_text
from swarmstack.design.irace import sample_uniform
from swarmstack.design.watermelon import (WATERMELON, WATERMELON_KIT, RVRInputs, colour_index,
                                          hue_deg)
from swarmstack.experiments.config import ConfigError
from swarmstack.sim.simulation import Simulation

ROOT = Path(__file__).resolve().parents[2]
MISSION = EXAMPLES / "rvr_mission.toml"
STOP = "--nstates 1 --s0 1"
EXPLORE = "--nstates 1 --s0 0 --rwm0 20"
# explore until the ground is colour l, then stop for good
STOP_ON = "--nstates 2 --s0 0 --rwm0 20 --n0 1 --n0x0 0 --c0x0 6 --p0x0 1 --l0x0 {} --s1 1 --n1 0"
PALETTE = ["red", "green", "blue", "yellow", [128, 128, 128], "white", "black"]


# --- grammar ---------------------------------------------------------------------------------
# (the string round trip of both flavours: test_grammar.py)


def test_colour_condition_string_and_its_errors():
    text = STOP_ON.format(2)
    f = grammar.parse(text, WATERMELON)
    assert f.states[0].transitions[0] == Transition(1, 6, {"p": 1.0, "l": 2.0})
    assert grammar.format(f, WATERMELON) == text
    with pytest.raises(GrammarError, match="chocolate condition id"):
        grammar.parse(text, CHOCOLATE)      # colour detection is Watermelon's own
    with pytest.raises(GrammarError, match="an integer in {0, …, 3} for --l0x0"):
        grammar.parse(STOP_ON.format(4), WATERMELON)
    with pytest.raises(GrammarError, match="--rwm0"):   # τ ∈ {1 … 100} (report §4.5)
        grammar.parse("--nstates 1 --s0 0 --rwm0 0", WATERMELON)


def test_rvr_groups_get_watermelon_and_its_search_space_samples_valid_strings():
    assert kit_for("rvr") is WATERMELON_KIT
    space = pfsm_space(WATERMELON)
    rng = np.random.default_rng(4)
    for _ in range(200):
        text = to_text(sample_uniform(space, rng), WATERMELON)
        assert grammar.format(grammar.parse(text, WATERMELON), WATERMELON) == text


# --- modules in small scenes ---------------------------------------------------------------------
def scene(pfsm, count=1, poses=None, background=(128, 128, 128), regions=(), lights=(),
          size=3.0, walls=True):
    robot = {"name": "r", "type": "rvr", "count": count,
             "controller": {"pfsm": pfsm},
             "sensors": {"reference": {"palette": PALETTE}}}
    if poses is not None:
        robot["placement"] = {"kind": "explicit", "poses": [list(p) for p in poses]}
    data = {"simulation": {"ticks_per_second": 10, "duration": 120, "seed": 2},
            "arena": {"size": [size, size], "walls": walls},
            "floor": {"background": list(background), "resolution": 0.02,
                      "regions": list(regions)},
            "robots": [robot]}
    if lights:
        data["lights"] = [{"position": list(p), "intensity": 2.0} for p in lights]
    return Simulation.from_dict(data)


def xyyaw(sim):
    b = sim.world.bodies
    return np.stack([b.x, b.y, b.yaw], axis=1).copy()


def test_stop_stands_still_and_exploration_drives_at_12_cm_s():
    sim = scene(STOP, count=4)
    start = xyyaw(sim)
    sim.run(30)
    assert np.array_equal(xyyaw(sim), start)
    sim = scene(EXPLORE, poses=[(0.0, 0.0, 0.0)])
    sim.run(10)
    # Table 1's tread speeds (cm/s) → m/s: 12 cm/s straight ahead, nothing in front
    assert abs(sim.world.bodies.x[0] - 0.12) < 0.02 and abs(sim.world.bodies.y[0]) < 1e-6


def test_exploration_turns_away_from_a_wall_ahead():
    sim = scene(EXPLORE, poses=[(1.1, 0.0, 0.0)])   # 0.26 m from the wall, facing it
    sim.run(300)
    b = sim.world.bodies
    assert b.x[0] < 1.2                              # never drove through it
    assert np.cos(b.yaw[0]) < 0.99                   # it turned


@pytest.mark.parametrize("colour, floor, fires", [
    (0, (255, 0, 0), True), (0, (0, 0, 255), False), (2, (0, 0, 255), True),
    (3, (255, 255, 0), True), (1, (128, 128, 128), False), (0, (255, 255, 255), False)])
def test_colour_condition_fires_on_its_floor_colour_only(colour, floor, fires):
    sim = scene(STOP_ON.format(colour), count=3, background=floor)
    sim.run(5)
    state = sim.group("r").controllers[0].memory.state
    assert (state == 1).all() if fires else (state == 0).all()


def test_robots_stop_where_their_colour_is():
    red = {"color": [255, 0, 0], "circle": [0.0, 0.0, 0.7]}
    sim = scene(STOP_ON.format(0), count=6, regions=[red], size=3.0)
    sim.run(1200)
    stopped = sim.group("r").controllers[0].memory.state == 1
    assert stopped.sum() >= 3
    b = sim.world.bodies
    # the ground sensor is 5 cm ahead of the centre; pushes by others move a robot a little
    assert (np.hypot(b.x[stopped], b.y[stopped]) < 0.7 + 0.15).all()
    assert (np.hypot(b.x[~stopped], b.y[~stopped]) > 0.7 - 0.15).all()


def test_hue_and_colour_labels():
    rgb = np.array([[255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 255, 0], [128, 128, 128],
                    [255, 40, 0], [255, 128, 0], [250, 0, 20]])
    assert np.allclose(hue_deg(rgb[:4]), [0, 120, 240, 60])
    assert np.isnan(hue_deg(rgb[4]))
    # 9.4° and 349° are red (circular distance); orange (30°) is none of the four
    assert colour_index(rgb).tolist() == [0, 1, 2, 3, -1, 0, -1, 0]


def _inputs(ground):
    n = len(ground)
    g = np.asarray(ground, dtype=float)
    return RVRInputs(prox=np.zeros((n, 8)), prox_angle=np.zeros(8), light=np.zeros((n, 1)),
                     light_angle=np.zeros(1), ground=g, neighbours=np.zeros(n, np.int64),
                     pull=np.zeros((n, 2)), hue=np.full(n, np.nan), lux=np.zeros(n),
                     ahead=np.zeros(n, bool), ahead_w=np.zeros((n, 2)))


@pytest.mark.parametrize("cond, fires_on", [
    (0, [0.0, 0.04]), (1, [0.31, 0.5, 0.69]), (2, [0.79, 1.0])])
def test_floor_conditions_use_the_reports_grey_levels(cond, fires_on):
    levels = [0.0, 0.04, 0.05, 0.2, 0.3, 0.31, 0.5, 0.69, 0.7, 0.78, 0.79, 1.0]
    text = f"--nstates 2 --s0 1 --n0 1 --n0x0 0 --c0x0 {cond} --p0x0 1 --s1 1 --n1 0"
    pk = pack([grammar.parse(text, WATERMELON)], WATERMELON)
    mem = Memory.fresh(len(levels))
    mem.entering[:] = False
    step(WATERMELON_KIT, pk, np.zeros(len(levels), np.int64), mem, _inputs(levels),
         np.full((len(levels), DRAWS), 0.5))
    fired = [lv for lv, s in zip(levels, mem.state) if s == 1]
    assert fired == fires_on


@pytest.mark.parametrize("text, closer", [("--nstates 1 --s0 2", True),
                                          ("--nstates 1 --s0 3", False)])
def test_phototaxis_heads_to_the_light_and_anti_phototaxis_away(text, closer):
    light = (1.2, 0.0, 0.5)
    sim = scene(text, poses=[(-0.2, 0.0, 2.0)], lights=[light], size=5.0)
    d0 = np.hypot(sim.world.bodies.x[0] - light[0], sim.world.bodies.y[0])
    sim.run(600 if closer else 300)
    d = np.hypot(sim.world.bodies.x[0] - light[0], sim.world.bodies.y[0])
    if closer:    # it started facing away from the light
        assert d < 0.4 < d0
    else:
        assert d > d0 + 1.0


@pytest.mark.parametrize("text, closer", [("--nstates 1 --s0 4 --att0 3", True),
                                          ("--nstates 1 --s0 5 --rep0 3", False)])
def test_attraction_and_repulsion_move_robots_together_and_apart(text, closer):
    sim = scene(text, count=2, poses=[(-0.6, 0.0, 1.5708), (0.6, 0.0, -1.5708)], size=3.5)
    sim.run(100)
    b = sim.world.bodies
    d = np.hypot(b.x[0] - b.x[1], b.y[0] - b.y[1])
    assert d < 0.9 if closer else d > 1.5


def test_an_rvr_pfsm_group_needs_the_reference_model_not_a_radio(tmp_path):
    data = MISSION.read_text().replace('sensors = { reference = { palette = ["red", "green", '
                                       '"blue", "yellow", [128, 128, 128], "white", '
                                       '"black"] } }', "")
    (tmp_path / "m.toml").write_text(data)
    with pytest.raises(ConfigError, match=r"robots\[0\].sensors: a PFSM controller reads "
                                          r"reference: add reference = true"):
        Simulation.from_file(tmp_path / "m.toml")


# --- batches, the mission and a design ---------------------------------------------------------
A = STOP_ON.format(0)
B = "--nstates 1 --s0 4 --att0 3"
C = "--nstates 2 --s0 0 --rwm0 5 --n0 1 --n0x0 0 --c0x0 3 --p0x0 2 --w0x0 5 --s1 5 --rep1 2 " \
    "--n1 1 --n1x0 0 --c1x0 5 --p1x0 0.2"


def test_a_run_in_a_batch_scores_as_that_seed_alone():
    mission = Mission(str(MISSION), "rvr_mission", "swarm", ticks=150)
    both = run_batch(Batch(mission, (A, B, C), (11, 12, 13)))
    alone = [run_batch(Batch(mission, (t,), (s,)))[0] for t, s in ((A, 11), (B, 12), (C, 13))]
    assert both == alone
    sim = Simulation.from_file(MISSION, seed=13,
                               params=[{"swarm": {"pfsm": C, "flavour": "watermelon"}}])
    assert run_scores(sim, "rvr_mission", "swarm", 150)[0] == both[2]


def test_mission_scores_time_on_red():
    # everyone stopped at once: the score is the fraction of robots that start on red
    sim = Simulation.from_file(MISSION, seed=5,
                               params=[{"swarm": {"pfsm": STOP, "flavour": "watermelon"}}])
    b = sim.world.bodies
    on_red = np.hypot(b.x + 0.6, b.y) < 0.4
    score = run_scores(sim, "rvr_mission", "swarm", 20)[0]
    assert score == pytest.approx(on_red.mean())


def test_design_of_the_rvr_mission_end_to_end(tmp_path):
    out = tmp_path / "d"
    res = subprocess.run([sys.executable, "-c", "from swarmstack.cli import main; main()",
                          "design", str(MISSION), "--budget", "60", "--seed", "1",
                          "--out", str(out), "--fresh-seeds", "3", "--quiet"],
                         cwd=ROOT, capture_output=True, text=True, timeout=600,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert res.returncode == 0, res.stderr
    best = (out / "best.txt").read_text().strip()
    grammar.parse(best, WATERMELON)
    scores = json.loads((out / "scores.json").read_text())
    assert scores["mission"]["flavour"] == "watermelon"
    assert len(scores["design"]) == 3 and all(0 <= v <= 1 for v in scores["design"])
    # best.txt runs as the RVR group's controller
    (tmp_path / "best.txt").write_text(best + "\n")
    lines = [('controller = { pfsm_file = "best.txt" }' if ln.startswith("controller =") else ln)
             for ln in MISSION.read_text().splitlines()]
    (tmp_path / "m.toml").write_text("\n".join(lines) + "\n")
    sim = Simulation.from_file(tmp_path / "m.toml")
    assert sim.cfg.robots[0].controller.params["pfsm"] == best
    sim.run(20)
