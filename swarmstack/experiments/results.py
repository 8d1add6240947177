"""Results on disk: Parquet written in chunks, a JSON summary written atomically.

Rows accumulate in memory and are flushed every ``chunk_ticks`` logged ticks as a new part
file (``part-00000.parquet``, …). Each part is written to a temporary name and renamed, so an
interrupted run leaves only complete, readable files. DuckDB writes the Parquet straight from
NumPy arrays and reads ``DIR/trajectories/*.parquet`` back as one table.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import duckdb
import numpy as np


def write_json_atomic(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    with os.fdopen(fd, "w") as fh:
        json.dump(data, fh, indent=2, default=_jsonable)
        fh.write("\n")
    os.replace(tmp, path)


def _jsonable(value):
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating,)):
        return float(value)
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def write_parquet_atomic(path: Path, columns: dict[str, np.ndarray]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    con = duckdb.connect()
    try:
        con.register("chunk", {k: np.ascontiguousarray(v) for k, v in columns.items()})
        con.execute(f"COPY (SELECT * FROM chunk) TO '{tmp}' (FORMAT PARQUET)")
    finally:
        con.close()
    os.replace(tmp, path)


class RunLogs:
    """Script ``log`` lines, one text file per run (``logs/run-00000.log``), each line
    ``tick T robot R (group): text``; files are opened when their first line arrives and
    flushed line by line, so a crash loses nothing already logged."""

    def __init__(self, folder: Path, echo=None):
        self.folder = Path(folder)
        self.echo = echo
        self._files: dict[int, object] = {}

    def write(self, group: str, run: int, robot_id: int, tick: int, text: str) -> None:
        line = f"tick {tick} robot {robot_id} ({group}): {text}"
        fh = self._files.get(run)
        if fh is None:
            self.folder.mkdir(parents=True, exist_ok=True)
            fh = self._files[run] = open(self.folder / f"run-{run:05d}.log", "w",
                                         encoding="utf-8", buffering=1)
        fh.write(line + "\n")
        if self.echo is not None:
            self.echo(f"[run {run}] {line}")

    def close(self) -> None:
        for fh in self._files.values():
            fh.close()

    def files(self) -> list[str]:
        return sorted(f"logs/run-{run:05d}.log" for run in self._files)


class ChunkedTable:
    """A table written as numbered Parquet parts in one folder."""

    def __init__(self, folder: Path, chunk_rows_hint: int):
        self.folder = folder
        self.buffers: dict[str, list[np.ndarray]] = {}
        self.rows = 0
        self.parts = 0
        self.chunk_rows = max(1, chunk_rows_hint)

    def append(self, columns: dict[str, np.ndarray]) -> None:
        for k, v in columns.items():
            self.buffers.setdefault(k, []).append(np.array(v, copy=True))
        self.rows += len(next(iter(columns.values())))
        if self.rows >= self.chunk_rows:
            self.flush()

    def flush(self) -> None:
        if not self.rows:
            return
        cols = {k: np.concatenate(v) for k, v in self.buffers.items()}
        write_parquet_atomic(self.folder / f"part-{self.parts:05d}.parquet", cols)
        self.parts += 1
        self.buffers = {}
        self.rows = 0


def flatten_readings(name: str, arr: np.ndarray) -> dict[str, np.ndarray]:
    """(n,) → {name}; (n, k) → {name_0 … name_k-1}; (n, a, b) → {name_i_j}."""
    if arr.ndim == 1:
        return {name: arr}
    flat = arr.reshape(arr.shape[0], -1)
    if arr.ndim == 2:
        return {f"{name}_{k}": flat[:, k] for k in range(flat.shape[1])}
    inner = arr.shape[1:]
    out = {}
    for k in range(flat.shape[1]):
        idx = np.unravel_index(k, inner)
        out[f"{name}_{'_'.join(map(str, idx))}"] = flat[:, k]
    return out


class ResultsWriter:
    """Trajectories of all robots and the sensor logs the experiment asks for."""

    def __init__(self, out_dir: Path, sim, chunk_ticks: int, sensors: list[str],
                 trajectories: bool = True, velocities: bool = False):
        self.out_dir = Path(out_dir)
        self.sim = sim
        self.velocities = velocities
        n = sim.world.bodies.n
        self.traj = ChunkedTable(self.out_dir / "trajectories", chunk_ticks * n) \
            if trajectories else None
        self.sensor_tables = {}
        for g in sim.groups:
            names = [g.devices[s].name for s in sensors if s in g.devices]
            if names:
                self.sensor_tables[g.slice.name] = (
                    names, ChunkedTable(self.out_dir / "sensors" / g.slice.name,
                                        chunk_ticks * g.slice.n))
        self._group_index = np.concatenate(
            [np.full(g.slice.n, k, dtype=np.int16) for k, g in enumerate(sim.groups)])

    def log(self) -> None:
        w = self.sim.world
        b = w.bodies
        tick = np.full(b.n, w.tick, dtype=np.int64)
        if self.traj is not None:
            cols = {"run": b.run, "tick": tick, "robot": b.robot_id,
                    "group": self._group_index, "x": b.x, "y": b.y, "z": b.z, "yaw": b.yaw}
            if self.velocities:
                v = b.velocity(w.dt)
                cols.update(vx=v[0], vy=v[1], vz=v[2])
            self.traj.append(cols)
        for g in self.sim.groups:
            entry = self.sensor_tables.get(g.slice.name)
            if entry is None:
                continue
            names, table = entry
            sl = g.slice.slice
            cols = {"run": b.run[sl], "tick": tick[sl], "robot": b.robot_id[sl]}
            for name in names:
                cols.update(flatten_readings(name, g.readings[name]))
            table.append(cols)

    def close(self) -> None:
        if self.traj is not None:
            self.traj.flush()
        for _, table in self.sensor_tables.values():
            table.flush()

    def files(self) -> list[str]:
        return sorted(str(p.relative_to(self.out_dir)) for p in self.out_dir.rglob("*.parquet"))


def read_table(folder: Path):
    """All parts of a chunked table as a dict of NumPy arrays, sorted by (run, tick, robot)."""
    con = duckdb.connect()
    try:
        rel = con.sql(f"SELECT * FROM read_parquet('{Path(folder)}/*.parquet') "
                      "ORDER BY run, tick, robot")
        return {k: v for k, v in rel.fetchnumpy().items()}
    finally:
        con.close()
