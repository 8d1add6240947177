"""The study's ledger: which runs are planned, running, done or failed (SQLite, in the study
folder as ``study.sqlite``).

Only the driver writes it, one transaction per change (WAL journal, synchronous writes), so a
driver killed at any moment leaves a consistent ledger: runs marked ``running`` then were not
finished by anyone the ledger knows of and are planned again when the study resumes. The
study's identity (experiment, swept values, seeds, ticks) is stored with it, so a different
study is never continued in the same folder.
"""

from __future__ import annotations

import json
import sqlite3
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterable, Optional

LEDGER = "study.sqlite"
PLANNED, RUNNING, DONE, FAILED = "planned", "running", "done", "failed"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS study (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY,
    idx INTEGER NOT NULL,
    point TEXT NOT NULL,
    seed INTEGER NOT NULL,
    status TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    error TEXT,
    summary TEXT,
    started_at TEXT,
    finished_at TEXT
);
"""


class StudyMismatch(ValueError):
    """The folder holds another study."""


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


class Ledger:
    def __init__(self, path: Path):
        self.path = Path(path)
        self.con = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
        self.con.execute("PRAGMA journal_mode=WAL")
        self.con.execute("PRAGMA synchronous=FULL")
        self.con.executescript(_SCHEMA)

    @staticmethod
    def exists(study_dir: Path) -> bool:
        return (Path(study_dir) / LEDGER).is_file()

    @contextmanager
    def transaction(self):
        self.con.execute("BEGIN IMMEDIATE")
        try:
            yield self.con
        except BaseException:
            self.con.execute("ROLLBACK")
            raise
        self.con.execute("COMMIT")

    def close(self) -> None:
        self.con.close()

    # ---------------------------------------------------------------- the study itself
    def identity(self) -> Optional[dict]:
        row = self.con.execute("SELECT value FROM study WHERE key = 'identity'").fetchone()
        return json.loads(row[0]) if row else None

    def get(self, key: str) -> Optional[str]:
        row = self.con.execute("SELECT value FROM study WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def create(self, identity: dict, source: str, runs: Iterable) -> None:
        """Record the study and all its planned runs (one transaction)."""
        with self.transaction() as con:
            con.execute("INSERT INTO study VALUES ('identity', ?)",
                        (json.dumps(identity, sort_keys=True, default=str),))
            con.execute("INSERT INTO study VALUES ('source', ?)", (source,))
            con.execute("INSERT INTO study VALUES ('created_at', ?)", (_now(),))
            con.executemany(
                "INSERT INTO runs (run_id, idx, point, seed, status) VALUES (?, ?, ?, ?, ?)",
                [(r.run_id, r.index, json.dumps(r.point), r.seed, PLANNED) for r in runs])

    def add_elapsed(self, seconds: float) -> None:
        """Add a driver's wall time to the study's (``elapsed_s``: all sittings together)."""
        with self.transaction() as con:
            row = con.execute("SELECT value FROM study WHERE key = 'elapsed_s'").fetchone()
            total = float(row[0]) + seconds if row else seconds
            con.execute("INSERT OR REPLACE INTO study VALUES ('elapsed_s', ?)", (repr(total),))

    def check_same(self, identity: dict) -> None:
        stored = self.identity()
        mine = json.loads(json.dumps(identity, sort_keys=True, default=str))
        if stored == mine:
            return
        what = [k for k in ("experiment", "base_dir", "params", "seeds", "ticks")
                if (stored or {}).get(k) != mine.get(k)]
        raise StudyMismatch(
            f"{self.path.parent} holds a different study (it differs in: "
            f"{', '.join(what) or 'everything'}): resume it with the same command, or "
            "choose another --out folder")

    # ---------------------------------------------------------------- runs
    def recover(self) -> int:
        """Runs left ``running`` by a driver that stopped: planned again. Returns how many."""
        with self.transaction() as con:
            return con.execute("UPDATE runs SET status = ? WHERE status = ?",
                               (PLANNED, RUNNING)).rowcount

    def pending(self) -> list[str]:
        return [r[0] for r in self.con.execute(
            "SELECT run_id FROM runs WHERE status = ? ORDER BY idx", (PLANNED,))]

    def start(self, run_ids: list[str]) -> None:
        with self.transaction() as con:
            con.executemany("UPDATE runs SET status = ?, attempts = attempts + 1, "
                            "started_at = ? WHERE run_id = ?",
                            [(RUNNING, _now(), r) for r in run_ids])

    def replan(self, run_ids: list[str], error: Optional[str] = None) -> None:
        with self.transaction() as con:
            con.executemany("UPDATE runs SET status = ?, error = ? WHERE run_id = ?",
                            [(PLANNED, error, r) for r in run_ids])

    def finish(self, results: list[dict]) -> None:
        """Record a batch's results at once: ``done`` or ``failed`` with the error."""
        with self.transaction() as con:
            con.executemany(
                "UPDATE runs SET status = ?, error = ?, summary = ?, finished_at = ? "
                "WHERE run_id = ?",
                [(DONE if r["status"] == "completed" else FAILED,
                  json.dumps(r["error"]) if r.get("error") else None,
                  json.dumps(r.get("summary")), _now(), r["run_id"]) for r in results])

    def fail(self, run_ids: list[str], error: dict) -> None:
        with self.transaction() as con:
            con.executemany("UPDATE runs SET status = ?, error = ?, finished_at = ? "
                            "WHERE run_id = ?",
                            [(FAILED, json.dumps(error), _now(), r) for r in run_ids])

    def attempts(self, run_id: str) -> int:
        return self.con.execute("SELECT attempts FROM runs WHERE run_id = ?",
                                (run_id,)).fetchone()[0]

    def counts(self) -> dict:
        return dict(self.con.execute("SELECT status, count(*) FROM runs GROUP BY status"))


def open_readonly(study_dir: Path) -> sqlite3.Connection:
    """A read-only connection (a catalogue reader never takes the writer's lock)."""
    path = Path(study_dir) / LEDGER
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30.0)
