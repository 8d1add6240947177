"""The E-Puck2 benchmark's experiment written as a file for the `swarmstack run` command."""

from __future__ import annotations

import tomllib

import pytest

from benchmarks.epuck2_sensors import experiment, experiment_toml
from swarmstack.experiments.config import parse_experiment


@pytest.mark.parametrize("robots,sensor", [(1, "encoders"), (50, "light"), (5, "camera"),
                                           (3, "ground"), (2, "none")])
def test_the_file_is_the_same_experiment_logging_nothing(robots, sensor):
    cfg = experiment(robots, sensor, "batched")
    from_file = parse_experiment(tomllib.loads(experiment_toml(cfg)))
    params = cfg["robots"][0]["controller"]["params"]
    for k in [k for k, v in params.items() if v is None]:  # TOML has no null: left out
        del params[k]
    expected = parse_experiment(cfg)
    assert not from_file.output.trajectories
    assert from_file.model_copy(update={"output": expected.output}) == expected
