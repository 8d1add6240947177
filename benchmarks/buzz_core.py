"""Buzz core benchmark: recursive ``fib(25)`` (the reference C VM takes 0.39–0.42 s).

Run: ``.venv/bin/python benchmarks/buzz_core.py`` — prints JSON with the best of a few runs.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from swarmstack.buzz.vm import BuzzVM

FIB25 = Path(__file__).resolve().parents[1] / "swarmstack" / "buzz" / "bench_scripts" / "fib25.bzz"
REFERENCE_SECONDS = 0.40


def time_fib25(repeat: int = 3) -> float:
    """Best wall time (s) to run fib25.bzz's top level (translation excluded, cached)."""
    src = FIB25.read_text()
    best = float("inf")
    for _ in range(repeat):
        out: list[str] = []
        vm = BuzzVM(src, str(FIB25), log=out.append, raise_errors=True)
        t0 = time.perf_counter()
        vm.run_top_level()
        best = min(best, time.perf_counter() - t0)
        assert out == ["75025"], out
    return best


def main() -> None:
    t = time_fib25()
    print(json.dumps({"benchmark": "buzz_fib25", "seconds": round(t, 4),
                      "reference_c_vm_seconds": REFERENCE_SECONDS,
                      "speedup_vs_reference": round(REFERENCE_SECONDS / t, 1)}))


if __name__ == "__main__":
    main()
