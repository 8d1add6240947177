"""`swarmstack reproduce automode-aggregation` with a wrong constant (the black threshold of the
objective) cannot pass: no design beats chance. That it passes as shipped, at its quick size, is
checked with every validation by `tests/validations/test_all_quick.py`."""


from swarmstack.validations.automode_aggregation import automode_aggregation

# a race this small still races (50 runs at the least), and with nothing ever on black every
# score is 0 whatever the budget
TINY = dict(quick=True, budget=100, ticks=100, n_fresh=10, n_random=10, workers=1)


def test_a_tiny_design_passes_as_shipped(tmp_path):
    assert automode_aggregation(tmp_path, **TINY).ok


def test_fails_when_the_black_zone_threshold_is_wrong(tmp_path, monkeypatch):
    # grey ≤ −1 is never true: nothing is ever on black, no design can beat chance
    monkeypatch.setattr("swarmstack.design.missions.BLACK_BELOW", -1.0)
    result = automode_aggregation(tmp_path, **TINY)
    assert not result.ok
    judged = [r for r in result.rows if r.quantity.startswith("median fraction")]
    assert judged and not judged[0].ok


def test_registered():
    from swarmstack import validations as reproduce

    assert "automode-aggregation" in reproduce.names()
