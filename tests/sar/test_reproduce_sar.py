"""``swarmstack reproduce sar``: the reduced study end to end from the command line, the
thesis's constants, and the comparison rows failing when the data break the thesis's shapes."""

import json
import math
from dataclasses import replace

import numpy as np
import pytest
from typer.testing import CliRunner

from swarmstack.cli import app
from swarmstack.validations import sar
from swarmstack.validations.sar import CaseResult, Study, compare

runner = CliRunner()


def test_reduced_study_from_the_command_line(tmp_path):
    result = runner.invoke(app, ["reproduce", "sar", "--scale", "0.05", "--json",
                                 "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output[result.output.index("{"):])
    assert doc["ok"] and all(r["ok"] for r in doc["rows"] if not r["informative"])
    names = sorted(p.name for p in (tmp_path / "sar").iterdir())
    assert names == ["sar_bandwidth.png", "sar_find_ticks.png", "sar_formation_ticks.png",
                     "sar_runs.csv"]
    lines = (tmp_path / "sar" / "sar_runs.csv").read_text().splitlines()
    # 20 m arena, 15 and 25 drones, both searches, 2 runs each; every run formed its relay
    assert len(lines) == 1 + 2 * 2 * 2
    assert all(int(line.split(",")[6]) > 0 for line in lines[1:])


@pytest.mark.parametrize("args, message", [
    (["reproduce", "sar", "--scale", "0"], "--scale 0"),
    (["reproduce", "sar", "--scale", "1.5"], "--scale 1.5"),
    (["reproduce", "crazyflie-camera", "--scale", "0.5"], "takes no --scale"),
])
def test_scale_errors(args, message):
    result = runner.invoke(app, args)
    assert result.exit_code == 2 and message in result.output


def test_the_thesis_constants():
    assert sar.PAPER_DRONES == (15, 20, 25)
    assert sar.PAPER_ARENAS_M == (20.0, 30.0, 40.0)
    assert sar.PAPER_RUNS == 30 and sar.PAPER_TARGETS == 3
    assert sar.PAPER_SEARCH_STEPS == 20 and sar.PAPER_RANGE_M == 10.0
    assert sar.PAPER_TICK_S == 0.1
    p = sar.params(20.0, "belief", [(1.0, 2.0)])
    assert (p["RANGE"], p["SEARCH_STEPS"], p["TARGETS"], p["BELIEF"]) == (10.0, 20, 3, 1)
    assert sar.params(20.0, "random", [])["BELIEF"] == 0


# --- the comparison on made-up studies ---------------------------------------------------------
def case(a, n, s, find, form=40, bw=None, cv=0.05):
    runs = len(find)
    bw = (300.0 if s == "belief" else 2.0) if bw is None else bw
    return CaseResult(a, n, s, list(range(runs)), list(find), [form] * runs,
                      [f + form for f in find], [bw] * runs, [cv] * runs)


def good_study():
    st = Study((20.0, 40.0), (15, 25), 3)
    for a in st.arenas:
        for n in st.drones:
            base = a * 20 - n * 4
            st.cases[(a, n, "random")] = case(a, n, "random", [base + 40, base + 60, base + 50],
                                              form=int(a + 10))
            st.cases[(a, n, "belief")] = case(a, n, "belief", [base, base + 5, base - 5],
                                              form=int(a + 12))
    c = st.cases[(20.0, 15, "belief")]
    import numpy as np

    c.cumulative = np.array([[0, 0], [10, 12], [20, 25]])
    return st


def bitty(heap=1500, failures=0):
    return replace(case(12.0, 6, "belief", [50]), heap_peak=heap, failures=failures)


def rows_by_start(rows):
    return {r.quantity.split(":")[0].split(",")[0]: r.ok for r in rows}


def test_a_study_with_the_thesis_shapes_passes():
    rows = compare(good_study(), bitty())
    assert all(r.ok for r in rows), [r for r in rows if not r.ok]


def failing(study, b=None):
    return [r.quantity for r in compare(study, b if b is not None else bitty()) if not r.ok]


def test_random_faster_than_belief_fails():
    st = good_study()
    a = st.cases[(40.0, 25, "random")]
    st.cases[(40.0, 25, "random")] = replace(a, find_ticks=[x - 200 for x in a.find_ticks])
    bad = failing(st)
    assert any("40 m arena: ticks to find" in q for q in bad)


def test_small_arena_slower_than_big_fails():
    st = good_study()
    a = st.cases[(20.0, 15, "random")]
    st.cases[(20.0, 15, "random")] = replace(a, find_ticks=[x + 2000 for x in a.find_ticks])
    assert any("grows with the arena" in q for q in failing(st))


def test_formation_time_changing_with_the_swarm_fails():
    st = good_study()
    a = st.cases[(20.0, 25, "belief")]
    st.cases[(20.0, 25, "belief")] = replace(a, formation_ticks=[500] * 3)
    assert any("across swarm sizes" in q for q in failing(st))


def test_belief_using_less_radio_fails():
    st = good_study()
    for key, c in st.cases.items():
        st.cases[key] = replace(c, bytes_per_robot_tick=[1.0 if key[2] == "belief" else 5.0] * 3)
    assert any("bytes per robot per tick" in q for q in failing(st))


def test_uneven_bandwidth_fails():
    st = good_study()
    a = st.cases[(40.0, 15, "belief")]
    st.cases[(40.0, 15, "belief")] = replace(a, robot_cv=[0.9] * 3)
    assert any("even across robots" in q for q in failing(st))


def test_a_censored_run_or_a_failed_robot_fails():
    st = good_study()
    a = st.cases[(40.0, 15, "random")]
    st.cases[(40.0, 15, "random")] = replace(a, formed_at=[-1, 100, 100])
    assert any("formed the relay" in q for q in failing(st))
    st = good_study()
    st.cases[(40.0, 15, "random")] = replace(a, failures=1)
    assert any("formed the relay" in q for q in failing(st))


def test_bittybuzz_over_its_heap_or_failing_fails():
    assert any("BittyBuzz" in q for q in failing(good_study(), bitty(heap=4000)))
    assert any("BittyBuzz" in q for q in failing(good_study(), bitty(failures=2)))


# --- the thesis's statistics ---------------------------------------------------------------------
def two_sided_jzs(diffs, r=math.sqrt(2) / 2):
    """Rouder et al.'s (2009) JZS BF10 by its integral over g: an independent reference."""
    from scipy import integrate

    d = np.asarray(diffs, dtype=float)
    n, nu = len(d), len(d) - 1
    t = d.mean() / (d.std(ddof=1) / math.sqrt(n))

    def g_part(g):
        return ((1 + n * g) ** -0.5 * (1 + t * t / ((1 + n * g) * nu)) ** (-(nu + 1) / 2)
                * r * (2 * math.pi) ** -0.5 * g ** -1.5 * math.exp(-r * r / (2 * g)))

    return integrate.quad(g_part, 0, math.inf)[0] / (1 + t * t / nu) ** (-(nu + 1) / 2)


@pytest.mark.parametrize("mean", [0.0, 0.2, 0.5, -0.4])
def test_one_sided_bayes_factors_average_to_the_two_sided_one(mean):
    # BF10 = (BF+0 + BF-0) / 2: the one-sided priors are the two halves of the Cauchy prior
    d = np.random.default_rng(3).normal(mean, 1.0, 30)
    both = sar.bayes_factor_positive(d) + sar.bayes_factor_positive(-d)
    assert both / 2 == pytest.approx(two_sided_jzs(d), rel=1e-6)


def test_bayes_factor_favours_the_sign_of_the_difference():
    d = np.random.default_rng(4).normal(0.8, 1.0, 30)
    assert sar.bayes_factor_positive(d) > 10 > 0.1 > sar.bayes_factor_positive(-d)
    assert math.isnan(sar.bayes_factor_positive([3.0]))


def test_belief_finding_no_faster_in_one_case_fails_its_bayes_factor():
    st = good_study()
    a = st.cases[(20.0, 25, "belief")]
    st.cases[(20.0, 25, "belief")] = replace(a, find_ticks=[x + 60 for x in a.find_ticks])
    assert any(q.startswith("20 m arena: Bayes factor BF₊₀ 'belief finds") for q in failing(st))


def test_belief_forming_the_relay_faster_everywhere_fails():
    st = good_study()
    for key, c in st.cases.items():
        if key[2] == "belief":
            st.cases[key] = replace(c, formation_ticks=[5, 6, 4])
    assert any(q.startswith("share of cases where belief forms the relay slower")
               for q in failing(st))


def test_reduced_study_shows_the_search_statistics_without_judging_them():
    rows = compare(good_study(), bitty(), reduced=True)
    shown = [r.quantity for r in rows if r.informative]
    assert any("Bayes factor BF₊₀ 'belief finds" in q for q in shown)
    assert "paired random − belief, all cases (ticks)" in shown


def test_a_field_faster_than_the_simulation_fails():
    st = good_study()
    for key, c in st.cases.items():
        st.cases[key] = replace(c, find_ticks=[x + 2000 for x in c.find_ticks])
    assert any(q.startswith("field discovery (Table 5.1") for q in failing(st))


def test_prior_is_drawn_from_the_seed_alone():
    bumps = sar.prior_bumps(20.0, 5)
    assert bumps == sar.prior_bumps(20.0, 5) != sar.prior_bumps(20.0, 6)
    assert len(bumps) == sar.PRIOR_BUMPS
    assert all(abs(x) <= 10.0 and abs(y) <= 10.0 for x, y in bumps)


def test_a_full_frame_counts_as_backlog():
    from types import SimpleNamespace

    from swarmstack.buzz.swarm.outqueue import OutQueue

    out = OutQueue()
    robot = SimpleNamespace(service=SimpleNamespace(out=out))
    assert not sar._backlogged(robot)
    for k in range(20):
        out.append_broadcast("belief", k)
    out.pack(30)   # a few of the twenty fit
    assert sar._backlogged(robot)
    out.pack(None)
    assert not sar._backlogged(robot)
