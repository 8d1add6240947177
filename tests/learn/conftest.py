"""Small experiments for the learning environments: few robots, few ticks."""

import pytest

pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")


def experiment(robots, duration="1 s", size=1.2, floor=None):
    """An experiment dict: ``robots`` a list of group tables, 10 ticks per second."""
    data = {"simulation": {"ticks_per_second": 10, "duration": duration, "seed": 1},
            "arena": {"size": [size, size], "walls": True},
            "robots": robots}
    if floor is not None:
        data["floor"] = floor
    return data


def epucks(count=3, name="e", **kw):
    return {"name": name, "type": "epuck2", "count": count,
            "sensors": {"proximity": True, "ground": True}, **kw}


AGGREGATION_FLOOR = {"background": [128, 128, 128], "resolution": 0.01,
                     "regions": [{"color": [0, 0, 0], "circle": [-0.2, 0.0, 0.35]},
                                 {"color": [255, 255, 255], "circle": [0.35, 0.0, 0.2]}]}
