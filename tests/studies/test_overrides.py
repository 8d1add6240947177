"""Key-path overrides and [sweep] tables: values, and every bad input refused before a run,
naming the key path — never a traceback."""

import tomllib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from swarmstack.experiments.config import ConfigError
from swarmstack.studies.overrides import parse_param
from swarmstack.studies.plan import batches, make_study, plan_runs, read_experiment


def study(path, params=(), **kw):
    return make_study(read_experiment(path), str(path), path.parent, list(params), **kw)


def test_ranges_lists_and_values():
    assert parse_param("robots.0.controller.params.speed=0.01:0.11:11").values == tuple(
        round(0.01 * k, 2) for k in range(1, 12))
    assert parse_param("robots.0.count=10:50:5").values == (10, 20, 30, 40, 50)
    assert parse_param("robots.0.count=10,20,50").values == (10, 20, 50)
    assert parse_param("robots.0.placement.min=[-0.4, -0.4],[0, 0]").values == (
        [-0.4, -0.4], [0, 0])
    assert parse_param("robots.0.placement.kind=uniform").values == ("uniform",)
    assert parse_param("simulation.duration=30 s,1 min").values == ("30 s", "1 min")


def problems(fn):
    with pytest.raises(ConfigError) as info:
        fn()
    return info.value.problems


def test_bad_overrides_name_the_key_path(experiment):
    path = experiment()
    bad = problems(lambda: study(path, ["robots.0.cnt=3", "robots.0.count=0:5:0",
                                        "robots.0.count=1:2:x"]))
    assert any("robots.0.count" in p and "empty range" in p for p in bad)
    assert any("robots.0.count" in p and "whole count" in p for p in bad)
    bad = problems(lambda: study(path, ["robots.0.cnt=3"]))
    assert bad and all("robots.0.cnt" in p for p in bad) and "unknown key" in bad[0]
    bad = problems(lambda: study(path, ["robots.4.count=3"]))
    assert "robots.4" in bad[0] and "1 item" in bad[0]
    bad = problems(lambda: study(path, ["robots.0.count=1,2", "robots.0=3"]))
    assert "one is inside the other" in bad[0]
    bad = problems(lambda: study(path, ["robots.0.count=1", "robots.0.count=2"]))
    assert "given twice" in bad[0]
    bad = problems(lambda: study(path, ["robots.0.count=4000"]))   # does not fit the arena
    assert "robots.0.count=4000" in bad[0] and "placement" in bad[0]
    bad = problems(lambda: study(path, ["simulation.seed=1,2"]))
    assert "simulation.seed" in bad[0] and "--seeds" in bad[0]
    bad = problems(lambda: study(path, ["robots.0.controller.params.speed="]))
    assert "no values" in bad[0]


def test_sweep_table_and_planner_batches(experiment):
    path = experiment(extra="""
[sweep]
seeds = 3
[sweep.params]
"robots.0.controller.params.speed" = "0.02:0.06:3"
"robots.0.count" = [2, 4]
""")
    spec = study(path)
    runs = plan_runs(spec)
    assert len(runs) == 2 * 3 * 3 and [r.seed for r in runs[:4]] == [3, 4, 5, 3]
    # speeds and seeds share a batch; robot counts do not
    groups = batches(spec, runs, workers=1)
    assert len(groups) == 2 and all(len(b.runs) == 9 for b in groups)
    assert {b.data["robots"][0]["count"] for b in groups} == {2, 4}
    assert groups[0].params[0] == {"bots": {"speed": 0.02}}
    # --param replaces the file's entry for its key path
    spec = study(path, ["robots.0.count=4"], seeds=1)
    assert [o.values for o in spec.overrides] == [(0.02, 0.04, 0.06), (4,)]
    bad = problems(lambda: study(experiment(extra='[sweep]\nparams = { "robots.0.count" = [] }')))
    assert "sweep.params" in bad[0] and "robots.0.count" in bad[0] and "empty" in bad[0]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=60) | st.builds(lambda k, v: f"{k}={v}",
                                         st.sampled_from(["robots.0.count", "arena.size",
                                                          "robots.0.controller.params.x",
                                                          "simulation.ticks", "a..b", "",
                                                          "robots.x.count", "robots.0"]),
                                         st.text(alphabet="0123456789.:,-+e[]\"'ab ", max_size=20)))
def test_fuzzed_params_never_crash(tmp_path_factory, text):
    path = tmp_path_factory.getbasetemp() / "fuzz.toml"
    if not path.exists():
        from tests.studies.conftest import EXPERIMENT
        path.write_text(EXPERIMENT.format(ticks=5, controller="Wander"))
    try:
        study(path, [text])
    except ConfigError as exc:
        assert exc.problems and all(isinstance(p, str) and "\n" not in p for p in exc.problems)


toml_values = st.recursive(
    st.integers(-10**6, 10**6) | st.floats(allow_nan=True) | st.booleans() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                max_size=3), max_leaves=6)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.text(max_size=30) | st.sampled_from(["robots.0.count", "seeds"]),
                       toml_values, max_size=3) | toml_values,
       st.one_of(st.none(), st.integers(-3, 5), toml_values))
def test_fuzzed_sweep_tables_never_crash(tmp_path_factory, params, seeds):
    from tests.studies.conftest import EXPERIMENT

    data = tomllib.loads(EXPERIMENT.format(ticks=5, controller="Wander"))
    data["sweep"] = {"params": params} if seeds is None else {"params": params, "seeds": seeds}
    try:
        make_study(data, "fuzz.toml", tmp_path_factory.getbasetemp())
    except ConfigError as exc:
        assert exc.problems and all(isinstance(p, str) for p in exc.problems)
