"""The PettingZoo example runs: one episode of random actions over the aggregation mission."""

import runpy
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "learning" / "random_parallel.py"


def test_random_parallel_loop(capsys):
    main = runpy.run_path(str(EXAMPLE))["main"]
    first = main(episodes=1, seed=2)
    assert main(episodes=1, seed=2) == first   # the same seed, the same episode
    assert len(first) == 1 and 0.0 <= first[0] <= 200.0   # at most every tick on black
    assert "episode 0: return" in capsys.readouterr().out
