"""Results on disk: Parquet written in parts, a JSON summary written atomically.

Rows accumulate in memory and every table (trajectories and each group's sensors) is written as
a new numbered part (``part-00000.parquet``, …) at the same moment: after ``chunk_ticks`` logged
ticks, or as soon as one table holds :data:`PART_ROWS` rows or all of them :data:`PART_BYTES`
bytes, whichever comes first — so memory stays bounded whatever the swarm size — and whenever
the runner asks (heartbeat, end of the run). Each part is written to a temporary name that the
``*.parquet`` globs of readers never match (``.part-00000.parquet.<pid>.tmp``) and renamed, so
a run that is interrupted, killed or fails leaves only complete, readable parts, and every
table ends at the same logged tick.

A write that fails (disk full, read-only folder, name too long) raises
:class:`ResultsWriteError`, naming the file and the cause. The parts of one round are all
written under their temporary names before any is renamed, so a failure leaves nothing of that
round visible; earlier parts are kept. DuckDB writes the Parquet straight from
NumPy arrays and reads ``DIR/trajectories/*.parquet`` back as one table.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
from pathlib import Path
from typing import Optional

import numpy as np

from swarmstack.cli.process import host_name

PART_ROWS = 1_000_000      # at most this many rows in one part of one table …
PART_BYTES = 64 << 20      # … and at most this many bytes buffered over all tables
PART_TICKS = 1000          # logged ticks per part unless the experiment says (chunk_ticks) …
PART_ROWS_TARGET = 100_000  # … or more, so that a part holds about this many rows
SPARE_BYTES = 64 << 20     # memory held while the run goes and let go for its last writes


def part_ticks(chunk_ticks: Optional[int], rows_per_tick: int) -> int:
    """Logged ticks per part: ``chunk_ticks`` when the experiment sets it; otherwise
    :data:`PART_TICKS`, or more for a small swarm, whose parts would be so small that writing
    them (a few milliseconds each) would cost more than simulating them."""
    return max(1, int(chunk_ticks)) if chunk_ticks is not None else \
        max(PART_TICKS, -(-PART_ROWS_TARGET // max(1, int(rows_per_tick))))


class ResultsWriteError(OSError):
    """A results file could not be written: ``path`` and ``cause`` (e.g. "No space left on
    device")."""

    def __init__(self, path, cause: str):
        super().__init__(f"cannot write {path}: {cause}")
        self.path = str(path)
        self.cause = cause


class OutputFolderError(ValueError):
    """The results folder cannot be used: it holds another run, or files that are not a run's."""


def _cause(exc: BaseException) -> str:
    """The reason of an OSError or a DuckDB error, without paths or prefixes."""
    if isinstance(exc, ResultsWriteError):
        return exc.cause
    if isinstance(exc, MemoryError):
        return "out of memory"
    if isinstance(exc, OSError) and (exc.strerror or exc.errno):
        return exc.strerror or os.strerror(exc.errno)
    text = str(exc).strip()
    line = text.splitlines()[0] if text else type(exc).__name__
    detail = re.search(r"\{.*\}\s*$", line)  # DuckDB: '…: {"exception_message": …, "errno": …}'
    if detail:
        try:
            info = json.loads(detail.group(0))
        except ValueError:
            info = None
        if isinstance(info, dict):
            if str(info.get("errno", "")).isdigit():
                return os.strerror(int(info["errno"]))
            line = str(info.get("exception_message") or line)
    quoted = re.search(r'"[^"]*":\s*(.+)$', line)  # 'Cannot open file "…": Permission denied'
    return quoted.group(1) if quoted else \
        re.sub(r"^[A-Za-z ]*Error:\s*", "", line) or type(exc).__name__


def _unlink_quietly(path: Path) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


def write_file_atomic(path: Path, data) -> None:
    """Write ``data`` (bytes, or any buffer of contiguous bytes) to ``path`` through a temporary
    file (``.NAME.<pid>.<random>.tmp``) and a rename: readers see the old or the new file,
    never part of one. A failure removes the temporary file, leaves ``path`` as it was and
    raises :class:`ResultsWriteError`. The file gets the mode new files get (0666 less the
    umask), as the Parquet parts do."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        try:
            rest = memoryview(data).cast("B")
            while rest:
                rest = rest[os.write(fd, rest):]
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException as exc:
        _unlink_quietly(tmp)
        if isinstance(exc, OSError):
            raise ResultsWriteError(path, _cause(exc)) from None
        raise


def write_json_atomic(path: Path, data: dict) -> None:
    """Write ``data`` as JSON to ``path`` with :func:`write_file_atomic`."""
    write_file_atomic(path, (json.dumps(data, indent=2, default=_jsonable) + "\n").encode())


class SummaryFile:
    """A run's ``summary.json``: :meth:`write` while the run goes (heartbeats), :meth:`write_last`
    once with how it ended. Room for that last write is set aside on the disk when the run
    starts (a hidden file, ``.summary.json.<pid>.reserve.tmp``, of 1 MiB and 4 KiB a run) and
    given back just before it, so that a run that filled the disk still says so."""

    def __init__(self, path: Path, runs: int = 1):
        self.path = Path(path)
        reserve_bytes = (1 << 20) + 4096 * int(runs)
        self._reserve: Optional[Path] = self.path.with_name(
            f".{self.path.name}.{os.getpid()}.reserve.tmp")
        try:
            fd = os.open(self._reserve, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
            try:
                os.posix_fallocate(fd, 0, int(reserve_bytes))
            finally:
                os.close(fd)
        except (OSError, AttributeError):  # no room even for that, or no posix_fallocate
            self.release()

    def write(self, data: dict) -> None:
        write_json_atomic(self.path, data)

    def write_last(self, data: dict) -> None:
        self.release()
        self.write(data)

    def release(self) -> None:
        """Give the room set aside back (when the run ends without a last write)."""
        if self._reserve is not None:
            _unlink_quietly(self._reserve)
            self._reserve = None


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


def _sql_path(path: Path) -> str:
    return "'" + str(path).replace("'", "''") + "'"


# the in-memory database every part of this process is written through: a ResultsWriter holds it
# open for its run (DuckDB's threads and its memory are taken then), and each part only adds a
# light connection to it
_PARTS_DB = ":memory:swarmstack-parts"


def write_part(path: Path, columns: dict[str, np.ndarray]) -> Path:
    """Write one part under its temporary name (``.NAME.<pid>.tmp``, which ``*.parquet`` does
    not match) and return that name; the caller renames it to ``path``. A failure removes the
    temporary file and raises :class:`ResultsWriteError`."""
    import duckdb  # 0.04 s to import: a run that writes nothing yet does not wait for it

    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        con = duckdb.connect(_PARTS_DB)
        try:
            con.register("chunk", {k: np.ascontiguousarray(v) for k, v in columns.items()})
            con.execute(f"COPY (SELECT * FROM chunk) TO {_sql_path(tmp)} (FORMAT PARQUET)")
        finally:
            con.close()
    except (OSError, MemoryError, duckdb.Error) as exc:
        _unlink_quietly(tmp)
        raise ResultsWriteError(path, _cause(exc)) from None
    return tmp


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


class TickBuffer:
    """The logged ticks of one table until its next part: what never changes (run, robot,
    group) is kept once and repeated when the part is written; each tick adds its number and
    one copy of every block that changes (the poses, a device's readings), so logging a tick
    costs a few copies whatever the number of columns.

    ``static``: columns of one tick's rows (length ``n``), in file order, split around the
    ``tick``/``time_s`` pair by ``leading`` (how many come before it). ``names``: for a 2-D
    block (n, k), the column names of its k columns; other blocks are named by
    :func:`flatten_readings`. A tick's ``keep`` (bool[n] or None) drops rows of stopped runs.
    """

    def __init__(self, static: dict[str, np.ndarray], dt: float, leading: int = 1,
                 names: Optional[dict[str, list[str]]] = None):
        self.static = static
        self.dt = dt
        self.leading = leading
        self.names = names or {}
        self.n = len(next(iter(static.values())))
        self.static_bytes = sum(v.itemsize for v in static.values())
        self.clear()

    def clear(self) -> None:
        self.ticks: list[int] = []
        self.blocks: dict[str, list[np.ndarray]] = {}
        self.keeps: list[Optional[np.ndarray]] = []
        self.rows = 0
        self.nbytes = 0

    def add(self, tick: int, values: dict[str, np.ndarray],
            keep: Optional[np.ndarray] = None, fresh: bool = False) -> None:
        """Buffer one tick; ``values`` are copied unless ``fresh`` (made for this call)."""
        kept = self.n if keep is None else int(np.count_nonzero(keep))
        if kept == 0:
            return
        copies = values if fresh else {name: np.array(v, copy=True) for name, v in values.items()}
        self.ticks.append(tick)
        self.keeps.append(keep)
        for name, a in copies.items():
            self.blocks.setdefault(name, []).append(a)
            self.nbytes += a.nbytes
        self.rows += kept
        self.nbytes += kept * (self.static_bytes + 16)

    def drop(self, tick: int) -> None:
        """Forget ``tick`` if it is the last tick buffered."""
        if not self.ticks or self.ticks[-1] != tick:
            return
        self.ticks.pop()
        keep = self.keeps.pop()
        kept = self.n if keep is None else int(np.count_nonzero(keep))
        for blocks in self.blocks.values():
            self.nbytes -= blocks.pop().nbytes
        self.rows -= kept
        self.nbytes -= kept * (self.static_bytes + 16)

    def columns(self) -> dict[str, np.ndarray]:
        """The buffered rows as columns, tick after tick, in file order."""
        t = len(self.ticks)
        ticks = np.asarray(self.ticks, dtype=np.int64)
        keep = None
        if any(k is not None for k in self.keeps):
            keep = np.concatenate([np.ones(self.n, dtype=bool) if k is None else k
                                   for k in self.keeps])
        cols: dict[str, np.ndarray] = {}
        items = list(self.static.items())
        for k, v in items[:self.leading]:
            cols[k] = np.tile(v, t)
        cols["tick"] = np.repeat(ticks, self.n)
        cols["time_s"] = np.repeat(ticks * self.dt, self.n)
        for k, v in items[self.leading:]:
            cols[k] = np.tile(v, t)
        for name, blocks in self.blocks.items():
            stacked = np.concatenate(blocks) if len(blocks) > 1 else blocks[0]
            if name in self.names:
                cols.update(zip(self.names[name], stacked.T))
            else:
                cols.update(flatten_readings(name, stacked))
        if keep is not None:
            cols = {k: v[keep] for k, v in cols.items()}
        return cols


class ChunkedTable:
    """A table written as numbered Parquet parts in one folder, its rows buffered in a
    :class:`TickBuffer`: :meth:`stage` writes what is buffered as the next part under a
    temporary name, :meth:`commit` makes it visible (the owner decides when, for all its
    tables at once)."""

    def __init__(self, folder: Path, buffer: TickBuffer):
        self.folder = Path(folder)
        self.buffer = buffer
        self.parts = 0
        self.written: list[Path] = []

    def stage(self) -> Optional[tuple[Path, Path]]:
        """Write the buffered rows as the next part under its temporary name: ``(path, tmp)``
        (None if nothing was buffered). The buffer is emptied even when the write fails."""
        if not self.buffer.rows:
            return None
        import duckdb

        path = self.folder / f"part-{self.parts:05d}.parquet"
        try:
            cols = self.buffer.columns()
            self.discard()
            tmp = write_part(path, cols)
        except ResultsWriteError:
            raise
        except (OSError, MemoryError, duckdb.Error) as exc:
            self.discard()
            raise ResultsWriteError(path, _cause(exc)) from None
        return path, tmp

    def commit(self, path: Path, tmp: Path) -> None:
        """Give a staged part its name: from now on readers see it."""
        os.replace(tmp, path)
        self.parts += 1
        self.written.append(path)

    def discard(self) -> None:
        self.buffer.clear()

    def unwrite(self, path: Path) -> None:
        """Remove the last part written (a round that failed in another table)."""
        _unlink_quietly(path)
        self.written.remove(path)
        self.parts -= 1


def flatten_readings(name: str, arr: np.ndarray) -> dict[str, np.ndarray]:
    """(n,) → {name}; (n, k) → {name_0 … name_k-1}; (n, a, b) → {name_i_j}; a record
    (structured array) → the columns of each field, named ``name_field…``."""
    if arr.dtype.names:
        out = {}
        for field in arr.dtype.names:
            out.update(flatten_readings(f"{name}_{field}", arr[field]))
        return out
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


POSE_ROWS = [0, 1, 2, 5]   # x, y, z, yaw in ``Bodies.pose``


class TickRows:
    """The rows a logged tick adds: every robot's trajectory row and, per group that logs
    sensors, its sensor rows — one column layout for a run's folder and for a study's run
    folders. Rows of a run the simulation stopped are dropped after its stop tick."""

    def __init__(self, sim, sensors: list[str], velocities: bool = False):
        self.sim = sim
        self.velocities = velocities
        self.sensor_names = {}   # group name -> reading names it logs
        for g in sim.groups:
            names = [g.devices[s].name for s in sensors if s in g.devices]
            if names:
                self.sensor_names[g.slice.name] = names
        self.group_index = np.concatenate(
            [np.full(g.slice.n, k, dtype=np.int16) for k, g in enumerate(sim.groups)])
        # the group of every row by name too (Parquet stores it dictionary-encoded)
        self.group_name = np.array([g.slice.name for g in sim.groups])[self.group_index]

    def _keep(self):
        w = self.sim.world
        return self.sim.stop_tick[w.bodies.run] >= w.tick if self.sim.stopped_any else None

    # buffers: what stays, kept once
    def trajectory_buffer(self) -> TickBuffer:
        b = self.sim.world.bodies
        names = {"pose": ["x", "y", "z", "yaw"]}
        if self.velocities:
            names["velocity"] = ["vx", "vy", "vz"]
        return TickBuffer({"run": b.run, "robot": b.robot_id, "group_name": self.group_name,
                           "group_index": self.group_index}, self.sim.world.dt, names=names)

    def sensor_buffers(self) -> dict[str, TickBuffer]:
        """Group name -> the buffer of its sensor rows, for the groups that log sensors."""
        b = self.sim.world.bodies
        return {g.slice.name: TickBuffer({"run": b.run[sl], "robot": b.robot_id[sl],
                                          "group_name": self.group_name[sl]}, self.sim.world.dt)
                for g in self.sim.groups if g.slice.name in self.sensor_names
                for sl in [g.slice.slice]}

    # this tick's values
    def add_trajectories(self, buffer: TickBuffer) -> None:
        w = self.sim.world
        b = w.bodies
        values = {"pose": b.pose[POSE_ROWS, :].T}   # one copy of the four rows
        if self.velocities:
            values["velocity"] = b.velocity(w.dt).T
        buffer.add(w.tick, values, self._keep(), fresh=True)

    def add_sensors(self, buffers: dict[str, TickBuffer]) -> None:
        keep = self._keep()
        tick = self.sim.world.tick
        for g in self.sim.groups:
            buffer = buffers.get(g.slice.name)
            if buffer is not None:
                buffer.add(tick, {name: g.readings[name]
                                  for name in self.sensor_names[g.slice.name]},
                           None if keep is None else keep[g.slice.slice])

    # one tick as columns
    def trajectories(self) -> dict[str, np.ndarray]:
        buffer = self.trajectory_buffer()
        self.add_trajectories(buffer)
        return buffer.columns()

    def sensors(self) -> dict[str, dict[str, np.ndarray]]:
        """Group name -> its sensor rows, for the groups that log sensors."""
        buffers = self.sensor_buffers()
        self.add_sensors(buffers)
        return {name: buf.columns() for name, buf in buffers.items()}


class ResultsWriter:
    """Trajectories of all robots and the sensor logs the experiment asks for.

    Rows of a run the simulation stopped (``sim.stop_tick``) are logged up to the tick it
    stopped at and no further. ``saved_tick`` is the last logged tick whose rows are all on
    disk (None before the first part).

    What the last part needs is in place before the first tick: DuckDB is loaded and its
    database open, and :data:`SPARE_BYTES` of address space are held (never touched: no memory
    is used) and let go by :meth:`close`, so that a run that ran out of memory still writes
    what it logged.
    """

    def __init__(self, out_dir: Path, sim, chunk_ticks: Optional[int], sensors: list[str],
                 trajectories: bool = True, velocities: bool = False):
        self.out_dir = Path(out_dir)
        self.sim = sim
        self.rows = TickRows(sim, sensors, velocities)
        self.chunk_ticks = part_ticks(chunk_ticks, sim.world.bodies.n)
        self.traj = ChunkedTable(self.out_dir / "trajectories", self.rows.trajectory_buffer()) \
            if trajectories else None
        self.sensor_tables = {name: ChunkedTable(self.out_dir / "sensors" / name, buffer)
                              for name, buffer in self.rows.sensor_buffers().items()}
        self._sensor_buffers = {name: t.buffer for name, t in self.sensor_tables.items()}
        self._tables = self.tables()
        self._ticks = 0           # logged ticks in the buffers
        self.last_tick: Optional[int] = None
        self.saved_tick: Optional[int] = None
        self._db = None
        if self._tables:  # with memory short, loading DuckDB or starting its threads fails
            import duckdb

            self._db = duckdb.connect(_PARTS_DB)
        self._spare: Optional[np.ndarray] = np.empty(SPARE_BYTES, dtype=np.uint8)
        for table in self.tables():  # a folder that cannot be made fails before tick 0
            try:
                table.folder.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise ResultsWriteError(table.folder, _cause(exc)) from None

    def tables(self) -> list[ChunkedTable]:
        return ([self.traj] if self.traj is not None else []) + \
            list(self.sensor_tables.values())

    def log(self) -> bool:
        """Buffer this tick's rows; writes a part of every table when the buffers are full.
        Returns True when parts were written."""
        tick = int(self.sim.world.tick)
        try:
            if self.traj is not None:
                self.rows.add_trajectories(self.traj.buffer)
            if self._sensor_buffers:
                self.rows.add_sensors(self._sensor_buffers)
        except BaseException:  # (out of memory) no table keeps part of the tick
            for t in self._tables:
                t.buffer.drop(tick)
            raise
        self._ticks += 1
        self.last_tick = tick
        return self.flush() if self._ticks >= self.chunk_ticks or self.full() else False

    def full(self) -> bool:
        nbytes = 0
        for t in self._tables:
            if t.buffer.rows >= PART_ROWS:
                return True
            nbytes += t.buffer.nbytes
        return nbytes >= PART_BYTES

    def flush(self) -> bool:
        """Write every table's buffered rows as its next part; all or none: every part is
        written under its temporary name first, then all are renamed, and a failure removes
        what this round wrote and raises ResultsWriteError. Returns True if anything was
        written."""
        tables = self.tables()
        self._ticks = 0
        staged = []
        try:
            for t in tables:
                part = t.stage()
                if part is not None:
                    staged.append((t, *part))
        except ResultsWriteError:
            for _, _, tmp in staged:
                _unlink_quietly(tmp)
            self._lost(tables)
            raise
        for k, (t, path, tmp) in enumerate(staged):
            try:
                t.commit(path, tmp)
            except OSError as exc:
                for t_, path_, _ in staged[:k]:
                    t_.unwrite(path_)
                for _, _, tmp_ in staged[k:]:
                    _unlink_quietly(tmp_)
                self._lost(tables)
                raise ResultsWriteError(path, _cause(exc)) from None
        if self.last_tick is not None:
            self.saved_tick = self.last_tick
        return bool(staged)

    def _lost(self, tables) -> None:
        for t in tables:
            t.discard()
        self.last_tick = self.saved_tick  # what was buffered is lost

    def saved(self, done: int) -> int:
        """Of ``done`` ticks simulated, up to which one the rows are all on disk: ``done``
        when nothing is logged, else ``saved_tick`` (0 before the first part)."""
        return min(done, self.saved_tick or 0) if self._tables else done

    def close(self) -> None:
        self._spare = None
        try:
            self.flush()
        finally:
            if self._db is not None:
                self._db.close()
                self._db = None

    def files(self) -> list[str]:
        """The parts this writer wrote, relative to the results folder."""
        return sorted(str(p.relative_to(self.out_dir)) for t in self.tables() for p in t.written)


def read_table(folder: Path):
    """All parts of a chunked table as a dict of NumPy arrays, sorted by (run, tick, robot)."""
    import duckdb

    con = duckdb.connect()
    try:
        rel = con.sql(f"SELECT * FROM read_parquet({_sql_path(Path(folder) / '*.parquet')}) "
                      "ORDER BY run, tick, robot")
        return {k: v for k, v in rel.fetchnumpy().items()}
    finally:
        con.close()


# ---------------------------------------------------------------------------------------------
# the results folder

_PARTS = re.compile(r"part-\d{5,}\.parquet|\.part-\d{5,}\.parquet(\.[0-9]+)?\.tmp")
_SUMMARY_TMP = re.compile(r"\.summary\.json\..*\.tmp")
_LOG = re.compile(r"run-\d{5,}\.log")
# the files of a run's recording for the viewer (swarmstack.viewer.recording writes them)
_RECORDING = re.compile(r"header\.json|end\.json|floor\.png|(chunk|links)-\d{6,}\.bin|"
                        r"text-\d{6,}\.json|\..+\.tmp")
_FLAT_FOLDERS = {"trajectories": _PARTS, "recording": _RECORDING, "logs": _LOG}


def _flat_folder(folder: Path, rel: str, pattern, files: list, dirs: list,
                 foreign: list) -> None:
    """A folder of a run whose files all match ``pattern``; anything else is foreign."""
    for entry in os.scandir(folder):
        if entry.is_file(follow_symlinks=False) and pattern.fullmatch(entry.name):
            files.append(Path(entry.path))
        else:
            foreign.append(f"{rel}/{entry.name}")
    dirs.append(folder)


def _scan_run(out_dir: Path) -> tuple[list[Path], list[Path], list[str]]:
    """What a run writes in ``out_dir`` (files, folders) and everything else (names)."""
    files: list[Path] = []
    dirs: list[Path] = []
    foreign: list[str] = []
    for entry in os.scandir(out_dir):
        name, path = entry.name, Path(entry.path)
        is_dir = entry.is_dir(follow_symlinks=False)
        if entry.is_file(follow_symlinks=False) and (name == "summary.json"
                                                     or _SUMMARY_TMP.fullmatch(name)):
            files.append(path)
        elif is_dir and name in _FLAT_FOLDERS:   # trajectories/, recording/, logs/
            _flat_folder(path, name, _FLAT_FOLDERS[name], files, dirs, foreign)
        elif is_dir and name == "sensors":
            for sub in os.scandir(path):
                if sub.is_dir(follow_symlinks=False):
                    _flat_folder(Path(sub.path), f"sensors/{sub.name}", _PARTS, files, dirs,
                                 foreign)
                else:
                    foreign.append(f"sensors/{sub.name}")
            dirs.append(path)
        else:
            foreign.append(name + ("/" if is_dir else ""))
    return files, dirs, sorted(foreign)


def run_alive(summary: dict, stale_after_s: float = 600.0) -> Optional[bool]:
    """Whether the run a summary describes is still running: False once it ended (any status
    but ``running``), when its heartbeat (``updated_at``, rewritten at least every few
    seconds while the run goes) is older than ``stale_after_s`` — even if a process now has
    its id — or, on the same host, when no process has its id. True on the same host when its
    process is there and its heartbeat recent; None when it cannot be told (another host,
    recent heartbeat)."""
    if summary.get("status") != "running":
        return False
    updated = summary.get("updated_at")
    if updated:
        from datetime import datetime, timezone

        try:
            age = (datetime.now(timezone.utc) - datetime.fromisoformat(updated)).total_seconds()
        except (TypeError, ValueError):
            age = None
        if age is not None and age > stale_after_s:
            return False
    pid, host = summary.get("pid"), summary.get("host")
    if pid is not None and host == host_name():
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True  # someone else's process with that id
        return _not_zombie(int(pid))
    return None


def _not_zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
            return fh.read().rsplit(")", 1)[-1].split()[0] != "Z"
    except OSError:
        return True


def read_summary(out_dir: Path) -> Optional[dict]:
    try:
        return json.loads((Path(out_dir) / "summary.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def prepare_output(out_dir: Path, overwrite: bool = False) -> None:
    """Make sure ``out_dir`` can take a new run: created if missing; refused if it holds a run
    (unless ``overwrite``: the old run's files are removed first) or anything a run does not
    write (never removed); refused while the run it holds is still alive."""
    out_dir = Path(out_dir)
    try:
        if out_dir.exists() and not out_dir.is_dir():
            raise OutputFolderError(f"{out_dir} is a file, not a folder")
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ResultsWriteError(out_dir, _cause(exc)) from None
    try:
        files, dirs, foreign = _scan_run(out_dir)
    except OSError as exc:
        raise OutputFolderError(f"cannot read {out_dir}: {_cause(exc)}") from None
    if foreign:
        shown = ", ".join(foreign[:5]) + (f" and {len(foreign) - 5} more"
                                          if len(foreign) > 5 else "")
        raise OutputFolderError(
            f"{out_dir} is not empty and holds files a run does not write ({shown}): choose an "
            "empty or new folder" + (" (overwrite only replaces a run's own files)"
                                     if overwrite else ""))
    if files and not overwrite:
        raise OutputFolderError(
            f"{out_dir} already holds a run (summary.json, trajectories/, sensors/ or logs/): "
            "choose another folder, or replace that run with --overwrite")
    if files:
        summary = read_summary(out_dir) or {}
        alive = run_alive(summary)
        if alive or (alive is None and summary.get("updated_at")):
            raise OutputFolderError(
                f"{out_dir} holds a run that may still be running (pid {summary.get('pid')} on "
                f"{summary.get('host')}, last heartbeat {summary.get('updated_at')}): stop it "
                "first")
    try:
        for path in files:
            path.unlink()
        for folder in sorted(dirs, key=lambda p: len(p.parts), reverse=True):
            folder.rmdir()
    except OSError as exc:
        raise OutputFolderError(f"cannot remove the old run in {out_dir}: "
                                f"{exc.filename}: {_cause(exc)}") from None
