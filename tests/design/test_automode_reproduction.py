"""`swarmstack reproduce automode-aggregation` at a reduced budget: the design beats random
PFSMs; with a wrong constant (the black threshold of the objective) it cannot."""


from swarmstack.experiments.reproduce.automode_aggregation import automode_aggregation

SMALL = dict(quick=True, n_fresh=30, n_random=20, workers=1)   # 1 000 runs of 300 ticks


def test_design_beats_random_pfsms(tmp_path):
    result = automode_aggregation(tmp_path, **SMALL)
    assert result.ok, result.rows
    assert all(f.exists() for f in result.files)


def test_fails_when_the_black_zone_threshold_is_wrong(tmp_path, monkeypatch):
    # grey ≤ −1 is never true: nothing is ever on black, no design can beat chance
    monkeypatch.setattr("swarmstack.design.missions.BLACK_BELOW", -1.0)
    result = automode_aggregation(tmp_path, **SMALL)
    assert not result.ok


def test_registered():
    from swarmstack.experiments import reproduce

    assert "automode-aggregation" in reproduce.names()
