"""The swarm layer on the real Buzz VM: examples, scripts, the `buzz run` command."""

import re
from pathlib import Path

import pytest

pytest.importorskip("swarmstack.buzz.vm")

from typer.testing import CliRunner  # noqa: E402

from swarmstack.buzz.swarm import Harness  # noqa: E402
from swarmstack.cli import app  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples" / "buzz"


def run_src(src, n=1, steps=1, **kw):
    return Harness(src, n, filename="t.bzz", **kw).run(steps)


def test_neighbors_from_buzz():
    src = """
    c = -1
    function step() {
      c = neighbors.count()
      var far = neighbors.filter(function(rid, d) { return d.distance > 60 })
      nfar = far.count()
      ds = neighbors.map(function(rid, d) { return d.distance })
      total = ds.reduce(function(rid, d, acc) { return acc + d }, 0.0)
      seen = {}
      neighbors.foreach(function(rid, d) { seen[rid] = d.azimuth })
      g = neighbors.get(1)
    }
    """
    run = run_src(src, 3, 2, topology="line")
    r1 = run.robots[1].globals
    assert r1["c"] == 2 and r1["nfar"] == 0
    assert r1["total"] == pytest.approx(100.0)  # cm, as ARGoS reports distances
    assert run.robots[0].globals["g"]["distance"] == pytest.approx(50.0)
    assert run.robots[2].globals["c"] == 1


@pytest.mark.parametrize("unit, expected", [("m", 0.5), ("cm", 50.0), ("mm", 500.0)])
def test_distance_unit_scales_neighbour_distances(unit, expected):
    src = "function step() { d = neighbors.get(1 - id).distance }"
    run = run_src(src, 2, 2, topology="line", distance_unit=unit)
    assert run.robots[0].globals["d"] == pytest.approx(expected, rel=1e-6)


def test_unknown_distance_unit_is_refused():
    with pytest.raises(ValueError, match="distance unit must be one of m, cm, mm"):
        Harness("function step() {}", 2, distance_unit="inch")


def test_lone_robot_neighbors_empty():
    src = """
    neighbors.broadcast("x", 1)
    neighbors.listen("x", function(t, v, r) { log("never") })
    neighbors.ignore("x")
    log(neighbors.count())
    n = 0
    neighbors.foreach(function(r, d) { n = n + 1 })
    """
    run = run_src(src, 1, 1)
    assert run.robots[0].logs == ["0"]
    assert run.ok


def test_swarm_union_intersection_from_buzz():
    src = """
    s1 = swarm.create(1)
    s2 = swarm.create(2)
    s2.join()
    u = swarm.union(3, s1, s2)
    i = swarm.intersection(4, s1, s2)
    log(u.in(), i.in(), s1.in(), s2.in())
    s2.exec(function() { log("in ", swarm.id()) })
    s1.exec(function() { log("never") })
    """
    run = run_src(src)
    assert run.robots[0].logs == ["1001", "in 2"]


def test_stigmergy_from_buzz_conflict():
    src = """
    v = stigmergy.create(1)
    lost = 0
    v.onconflictlost(function(k, l) { lost = lost + 1 })
    t = 0
    function step() {
      t = t + 1
      if (t == 1 and (id == 1 or id == 3)) { v.put("k", id) }
      k = v.get("k")
    }
    """
    run = run_src(src, 5, 12, topology="line")
    assert [r.globals["k"] for r in run.robots] == [3] * 5
    assert run.robots[1].globals["lost"] == 1 and run.robots[3].globals["lost"] == 0
    assert run.robots[4].stigmergy == {1: {"k": 3}}


def test_runtime_error_location_and_isolation():
    src = """
    n = 0
    function step() {
      n = n + 1
      if (id == 1 and n == 2) { x = nil
        x() }
    }
    """
    run = run_src(src, 3, 4)
    assert [r.id for r in run.failed] == [1]
    assert re.search(r"t\.bzz:\d+:\d+", run.robots[1].error)
    assert "expected closure" in run.robots[1].error
    assert run.robots[0].globals["n"] == 4


@pytest.mark.parametrize("snippet,needle", [
    ("swarm.create(8)", "at most 8 swarms"),
    ("stigmergy.create(1)\nstigmergy.create(2)", "single virtual stigmergy"),
    ("neighbors.broadcast(\"t\", {.a = 1})", "cannot send a table"),
])
def test_bittybuzz_limits_name_line(snippet, needle):
    src = "x = 1\n" + snippet + "\n"
    bad_line = src.count("\n")  # the limit-breaking call is on the last line
    run = run_src(src, 1, 1, profile="bittybuzz")
    err = run.robots[0].error
    assert run.robots[0].failed and needle in err
    assert f"t.bzz:{bad_line}:" in err
    assert run_src(src, 1, 1, profile="buzz").ok


# ---------------------------------------------------------------- examples

def load(name):
    return (EX / name).read_text()


def test_example_barrier():
    run = Harness(load("barrier.bzz"), 6, filename="barrier.bzz", drop=0.3, seed=2).run(80)
    assert run.ok
    assert all(r.globals["state"] == "done" for r in run.robots)


def test_example_gradient():
    run = Harness(load("gradient.bzz"), 6, filename="gradient.bzz", topology="line").run(10)
    assert [r.globals["hops"] for r in run.robots] == [0, 1, 2, 3, 4, 5]


def test_example_flocking():
    h = Harness(load("flocking.bzz"), 12, filename="flocking.bzz", topology="random:0.5", seed=1)
    run = h.run(3)
    assert run.ok
    assert any(c is not None for c in h.commands)
    moved = Harness(load("flocking.bzz"), 12, filename="flocking.bzz", topology="random:0.5", seed=1, move=True)
    assert moved.run(5).ok


@pytest.mark.parametrize("n,profile", [(3, "buzz"), (4, "buzz"), (4, "bittybuzz")])
def test_example_bidding(n, profile):
    from swarmstack.validations.buzz_bidding import expected_winner

    run = Harness(load("bidding.bzz"), n, filename="bidding.bzz", profile=profile, payload_cap=24,
                  params={"ROBOTS": n, "TASK": 3}).run(30)
    assert run.ok
    assert {r.globals["winner"] for r in run.robots} == {expected_winner(n, 3)}


def test_example_vstig_consensus():
    run = Harness(load("vstig_consensus.bzz"), 10, filename="v.bzz", topology="line").run(15)
    seen = [r.globals["seen_at"] for r in run.robots]
    assert seen == [2 + i for i in range(10)]


# ---------------------------------------------------------------- CLI

def test_cli_run_multi_robot_format():
    res = CliRunner().invoke(app, ["buzz", "run", str(EX / "gradient.bzz"), "--robots", "3", "--steps", "4",
                                   "--topology", "line"])
    assert res.exit_code == 0, res.output
    lines = [ln for ln in res.output.splitlines() if ln.startswith("[robot")]
    assert "[robot 1] hops = 1" in lines and "[robot 2] hops = 2" in lines
    assert "hops" in res.output.split(lines[-1])[-1]  # summary shows globals


def test_cli_run_single_robot_plain(tmp_path):
    f = tmp_path / "hello.bzz"
    f.write_text('log("hello ", id)\nv = stigmergy.create(3)\nv.put("a", 7)\n')
    res = CliRunner().invoke(app, ["buzz", "run", str(f), "--steps", "1"])
    assert res.exit_code == 0, res.output
    assert res.output.splitlines()[0] == "hello 0"
    assert "a" in res.output and "7" in res.output


def test_cli_run_failure_exit_1(tmp_path):
    f = tmp_path / "bad.bzz"
    f.write_text("function step() {\n  if (id == 1) { nil_fn() }\n}\n")
    res = CliRunner().invoke(app, ["buzz", "run", str(f), "--robots", "2", "--steps", "2"])
    assert res.exit_code == 1
    assert "robot 1 failed" in res.output and "bad.bzz:2:" in res.output


def test_pose_sensor_and_goto_moves_robots():
    src = "function step() {\n  px = pose.position.x\n  d = neighbors.get(1 - id).distance\n  goto(-100.0, 0.0)\n}\n"
    h = Harness(src, 2, filename="t.bzz", topology="line", move=True, max_speed=0.1)
    run = h.run(3)
    assert run.ok
    # robot 0 starts at x = 0 and backs away 0.1 m per step; pose is read before moving
    assert run.robots[0].globals["px"] == pytest.approx(-0.2, abs=1e-6)
    assert run.robots[1].globals["px"] == pytest.approx(0.5 - 0.2, abs=1e-6)
    assert run.robots[0].globals["d"] == pytest.approx(50.0, abs=1e-4)  # fixed links keep distances honest
