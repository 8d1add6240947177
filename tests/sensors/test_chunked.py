"""The parallel form that ``threads.chunked`` derives from a per-rows kernel is cached on disk:
a second process loads it instead of compiling it again."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

KERNELS = textwrap.dedent('''
    from numba import njit

    from swarmstack.sim import threads


    @njit(cache=True, error_model="numpy")
    def rows(lo, hi, start, bodies, scene, params, keys, tick, state, out):
        for i in range(lo - start, hi - start):
            out[i] = params[0] * keys[i] + tick


    parallel_rows = threads.chunked(rows)
''')

RUN = textwrap.dedent('''
    import json

    import numpy as np

    import kernels

    keys = np.arange(10, dtype=np.float64)
    out = np.zeros(10)
    kernels.parallel_rows(0, 10, 3, 0, None, None, (2.0,), keys, 1, None, out)
    stats = kernels.parallel_rows.stats
    print(json.dumps({"hits": len(stats.cache_hits), "misses": len(stats.cache_misses),
                      "out": out.tolist()}))
''')


def run(folder: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(folder), str(ROOT)]))
    done = subprocess.run([sys.executable, "-c", RUN], cwd=folder, env=env, check=True,
                          capture_output=True, text=True)
    return json.loads(done.stdout.splitlines()[-1])


def test_the_parallel_form_is_loaded_from_the_cache_by_the_next_process(tmp_path):
    (tmp_path / "kernels.py").write_text(KERNELS)
    first = run(tmp_path)
    second = run(tmp_path)
    assert first["misses"] == 1 and first["hits"] == 0
    assert second["hits"] == 1 and second["misses"] == 0
    assert first["out"] == second["out"] == [2.0 * k + 1 for k in range(10)]
