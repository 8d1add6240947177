"""The design's ledger: every evaluation (PFSM string, instance seed → score) in SQLite.

A design that is killed and started again with ``--resume`` replays its (deterministic) race
from the beginning; every evaluation already in the ledger is read instead of simulated, so it
reaches the same result as an uninterrupted design with the same seed. Each batch's results are
committed together, as soon as they arrive.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path


class LedgerMismatch(ValueError):
    pass


class Ledger:
    def __init__(self, path: Path, settings: dict):
        self.path = Path(path)
        self.db = sqlite3.connect(self.path)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("CREATE TABLE IF NOT EXISTS settings (id INTEGER PRIMARY KEY CHECK "
                        "(id = 0), json TEXT NOT NULL)")
        self.db.execute("CREATE TABLE IF NOT EXISTS evaluations (pfsm TEXT NOT NULL, seed "
                        "INTEGER NOT NULL, score REAL NOT NULL, PRIMARY KEY (pfsm, seed))")
        row = self.db.execute("SELECT json FROM settings").fetchone()
        text = json.dumps(settings, sort_keys=True)
        if row is None:
            self.db.execute("INSERT INTO settings VALUES (0, ?)", (text,))
            self.db.commit()
        elif row[0] != text:
            old = json.loads(row[0])
            diff = sorted(k for k in set(old) | set(settings) if old.get(k) != settings.get(k))
            raise LedgerMismatch(f"{self.path} belongs to another design (it differs in "
                                 f"{', '.join(diff)}: {', '.join(f'{k}={old.get(k)!r}' for k in diff)})")

    def __len__(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM evaluations").fetchone()[0]

    def lookup(self, pairs: list[tuple[str, int]]) -> dict:
        found = {}
        for text, seed in pairs:
            row = self.db.execute("SELECT score FROM evaluations WHERE pfsm = ? AND seed = ?",
                                  (text, int(seed))).fetchone()
            if row is not None:
                found[(text, int(seed))] = row[0]
        return found

    def record(self, rows: list[tuple[str, int, float]]) -> None:
        with self.db:
            self.db.executemany("INSERT OR REPLACE INTO evaluations VALUES (?, ?, ?)",
                                [(t, int(s), float(v)) for t, s, v in rows])

    def close(self) -> None:
        self.db.close()
