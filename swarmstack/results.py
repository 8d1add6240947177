"""The catalogue of a study folder, queried with DuckDB.

    import swarmstack.results
    con = swarmstack.results.open("runs/study")
    con.sql('select "robots.0.count", avg(wall_time_s) from runs group by all').show()

Views (one in-memory DuckDB connection per call; the folder is only read):

* ``runs`` — one row per planned run: ``run_id``, ``seed``, ``status`` (planned, running,
  done, failed), ``attempts``, ``error``, a column per swept key path named as the path
  (``"robots.0.count"``; also the path's last part, ``count``, when that name is free), and
  the run's summary numbers (``ticks_done``, ``wall_time_s``, ``robot_ticks_per_s``,
  ``messages_sent`` …, drive counters as ``<group>.<counter>``);
* ``trajectories`` — every run's trajectory parts, with ``run_id``;
* ``sensors`` — every run's sensor parts (all groups, columns united by name), with
  ``run_id`` and ``group_name``.

Parquet columns are whatever the runs wrote (``group_name`` included); the views add ``run_id``
from the file names, so they follow new columns without change.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import duckdb

from swarmstack.studies.batch import RUNS_DIR
from swarmstack.studies.ledger import LEDGER, open_readonly

_SUMMARY_SKIP = {"status", "run_id", "seed", "params", "runs_status", "files", "error",
                 "experiment", "runs", "host", "pid", "per_run"}


class CatalogueError(ValueError):
    """Not a study folder, or a query that failed."""


def _sql_str(text: str) -> str:
    return "'" + str(text).replace("'", "''") + "'"


def _flat(summary: dict) -> dict:
    out = {}
    for k, v in summary.items():
        if k in _SUMMARY_SKIP:
            continue
        if k == "drive_counters" and isinstance(v, dict):
            out.update({f"{g}.{c}": n for g, counters in v.items() for c, n in counters.items()})
        elif isinstance(v, (int, float, str, bool)) or v is None:
            out[k] = v
    return out


def _runs_table(study: Path) -> tuple[list[str], list[tuple], list[str]]:
    con = open_readonly(study)
    try:
        row = con.execute("SELECT value FROM study WHERE key = 'identity'").fetchone()
        if row is None:
            raise CatalogueError(f"{study}: the study was never planned (run the sweep again)")
        ident = json.loads(row[0])
        rows = con.execute("SELECT run_id, point, seed, status, attempts, error, summary "
                           "FROM runs ORDER BY idx").fetchall()
    finally:
        con.close()
    paths = [p for p, _ in ident["params"]]
    fixed = ["run_id", "seed", "status", "attempts", "error"]
    summaries = [_flat(json.loads(s)) if s else {} for *_, s in rows]
    extra = [k for k in dict.fromkeys(k for s in summaries for k in s)
             if k not in fixed and k not in paths]
    taken = set(fixed) | set(paths) | set(extra)
    lasts = [p.rsplit(".", 1)[-1] for p in paths]
    aliases = [(last, p) for p, last in zip(paths, lasts)
               if lasts.count(last) == 1 and last not in taken]
    cols = fixed + paths + [a for a, _ in aliases] + extra
    table = []
    for (rid, point, seed, status, attempts, error, _), s in zip(rows, summaries):
        point = json.loads(point)
        err = json.loads(error) if error else None
        msg = err.get("message") if isinstance(err, dict) else err
        table.append((rid, seed, status, attempts, msg, *[point.get(p) for p in paths],
                      *[point.get(p) for _, p in aliases], *[s.get(k) for k in extra]))
    return cols, table, paths


def _columns(cols: list[str], table: list[tuple]) -> dict:
    import numpy as np

    out = {}
    for j, name in enumerate(cols):
        values = [row[j] for row in table]
        kinds = {type(v) for v in values if v is not None}
        if kinds and kinds <= {int} and None not in values:
            out[name] = np.array(values, dtype=np.int64)
        elif kinds and kinds <= {int, float}:
            out[name] = np.array([np.nan if v is None else float(v) for v in values])
        elif kinds == {bool} and None not in values:
            out[name] = np.array(values, dtype=bool)
        else:
            out[name] = np.array([None if v is None else
                                  (v if isinstance(v, str) else json.dumps(v))
                                  for v in values], dtype=object)
    return out


def open(study_dir) -> duckdb.DuckDBPyConnection:   # noqa: A001 - the module's verb
    """A DuckDB connection with the views ``runs``, ``trajectories`` and ``sensors`` of the
    study in ``study_dir``; ``con.sql(...)`` gives DuckDB relations."""
    study = Path(study_dir)
    if not (study / LEDGER).is_file():
        raise CatalogueError(f"{study}: not a study folder (no {LEDGER}; make one with "
                             "swarmstack sweep)")
    cols, table, _ = _runs_table(study)
    con = duckdb.connect()
    data = _columns(cols, table)
    if table:
        con.register("_runs", data)
        select = ", ".join(f'"{c}"' for c in cols)
        con.execute(f"CREATE TABLE runs AS SELECT {select} FROM _runs")
        con.unregister("_runs")
    else:
        con.execute("CREATE TABLE runs (run_id VARCHAR, seed BIGINT, status VARCHAR, "
                    "attempts BIGINT, error VARCHAR)")
    runs = study / RUNS_DIR
    traj = sorted(runs.glob("r*/trajectories/part-*.parquet"))
    _view(con, "trajectories", runs / "r*" / "trajectories" / "*.parquet", bool(traj),
          r"'/(r[0-9]+)/trajectories/'")
    sens = sorted(runs.glob("r*/sensors/*/part-*.parquet"))
    _view(con, "sensors", runs / "r*" / "sensors" / "*" / "*.parquet", bool(sens),
          r"'/(r[0-9]+)/sensors/'", group=True)
    return con


def _view(con, name: str, glob: Path, any_files: bool, run_re: str, group: bool = False):
    if not any_files:
        con.execute(f"CREATE VIEW {name} AS SELECT NULL::VARCHAR AS run_id "
                    + ("" if not group else ", NULL::VARCHAR AS group_name ") + "WHERE false")
        return
    con.execute(   # the files carry group_name themselves (results.TickRows)
        f"CREATE VIEW {name} AS SELECT regexp_extract(filename, {run_re}, 1) AS run_id, "
        f"* EXCLUDE (filename) FROM read_parquet({_sql_str(glob)}, filename = true, "
        "union_by_name = true)")


def query(study_dir, sql: str):
    """``(column names, rows)`` of ``sql`` over the catalogue; raises CatalogueError."""
    try:
        con = open(study_dir)
    except duckdb.Error as exc:     # e.g. a Parquet file that is not one
        raise CatalogueError(_first_line(exc)) from None
    except sqlite3.Error as exc:
        raise CatalogueError(f"{study_dir}: cannot read the ledger ({exc})") from None
    try:
        rel = con.sql(sql)
        return ([], []) if rel is None else (list(rel.columns), rel.fetchall())
    except duckdb.Error as exc:
        raise CatalogueError(_first_line(exc)) from None
    finally:
        con.close()


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


__all__ = ["open", "query", "CatalogueError"]
