"""Run studies: chunks of games on this process, local processes or a Dask cluster.

A study (:class:`fastmach.study.Study`) is cut into chunks: one cell, one rotation, a range
of replicates (``chunk`` games, 200 by default). A chunk is one task and one parquet file::

    DIR/_study.json                                   manifest (study text, version, times,
                                                      each chunk's file sizes and SHA-256)
    DIR/_checksums.jsonl                              the same records while a run goes on
    DIR/chunks/<cell-hash>-<start>-<stop>-<rot>.parquet   one tidy row per game
    DIR/_hands/<cell-hash>-<start>-<stop>-<rot>.parquet   one tidy row per hand played
    DIR/_logs/<cell-hash>-<rot>.jsonl                  with ``log_games = N``: the first N
                                                      games of the cell as a game log

Files are written atomically (hidden temporary file, then rename) as chunks finish, the
hand file first, so ``pandas.read_parquet(DIR)`` reads every finished game and nothing
else (the leading underscore hides ``_hands``), :func:`read_hands` the hand rows, and
re-running the same study on DIR plays only the missing chunks: a chunk whose files (game
rows and hand rows) do not match their recorded size and checksum (or that has no record)
is played again (see :mod:`fastmach.study.store`). The plan is a generator: memory does not grow
with the number of games, and a study beyond :data:`MAX_CHUNKS` chunks or
:data:`MAX_GAMES` games is refused. The worker builds and serialises the
tidy table; the driver only writes bytes, so remote Dask workers need no shared disk.

Every game is a pure function of (rules, seats, root seed, replicate), so the table is the
same whatever the backend, the worker count or the interruptions; :func:`read_results`
sorts it by cell (study order), replicate and rotation.

Backends: ``workers=0`` in this process; ``workers=N`` (default: all cores) local worker
processes (``concurrent.futures.ProcessPoolExecutor``, spawn); ``scheduler="tcp://host:8786"``
an existing Dask cluster; ``scheduler="local"`` a ``distributed.LocalCluster`` with
``workers`` single-threaded worker processes.
"""
from __future__ import annotations

import concurrent.futures as cf
import datetime as _dt
import difflib
import json
import multiprocessing
import os
import re
import shlex
import sys
import tempfile
import time
import warnings
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

import numpy as np

from fastmach.study import store as integrity
from fastmach.core import __version__
from fastmach.errors import FastmachError
from fastmach.study import Study

__all__ = ["Chunk", "ChunkSpec", "SweepError", "plan", "play_chunk", "run_study", "execute",
           "read_results", "read_hands", "Store", "format_summary", "bench_driver",
           "format_bench", "MANIFEST"]

MANIFEST = "_study.json"
CHUNKS = "chunks"
HANDS = "_hands"
_SEAT_RE = re.compile(r"(.+)_(\d+)")
_CHUNK_RE = re.compile(r"([0-9a-f]{12})-(\d+)-(\d+)-(\d+)\.parquet")

#: Most chunks a study may have (each has a record in the manifest; raise ``chunk``).
MAX_CHUNKS = 250_000
#: Most games a study may play (10**10 games: months of a 2-core machine).
MAX_GAMES = 10**10
#: Most games in one chunk (a chunk's table is built in a worker's memory).
MAX_CHUNK = 100_000


class SweepError(RuntimeError):
    """Chunks that kept failing after their retries (the message names cell and seed)."""


# ----------------------------------------------------------------------------- planning

@dataclass(frozen=True, order=True)
class Chunk:
    """A task: cell ``cell`` (index), replicates ``start .. stop-1``, seat rotation ``rotation``."""

    cell: int
    start: int
    stop: int
    rotation: int

    @property
    def games(self) -> int:
        return self.stop - self.start


def check_size(study: Study) -> int:
    """The study's number of chunks; FastmachError when the study is too large to run."""
    per_deal = sum(len(c.rotations) for c in study.cells)
    chunks = -(-study.games // study.chunk) * per_deal
    total = study.games * per_deal
    if total > MAX_GAMES:
        raise FastmachError(
            f"study {study.name!r}: {total:.3g} games (games={study.games} x {per_deal} "
            f"cell rotations) is beyond the {MAX_GAMES:.0e} a study may play; lower [study] "
            f"games")
    if study.chunk > MAX_CHUNK:
        raise FastmachError(f"study {study.name!r}: chunk={study.chunk} games per chunk; at "
                            f"most {MAX_CHUNK}")
    if chunks > MAX_CHUNKS:
        need = -(-total // (MAX_CHUNKS))
        raise FastmachError(
            f"study {study.name!r}: {chunks} chunks of {study.chunk} games; at most "
            f"{MAX_CHUNKS} (each is a file with a record in the manifest): raise [study] "
            f"chunk to {max(need, study.chunk + 1)} or more")
    return chunks


def iter_plan(study: Study) -> Iterator[Chunk]:
    """Every chunk of the study, lazily, ordered so that every cell advances together."""
    check_size(study)
    for start in range(0, study.games, study.chunk):
        stop = min(start + study.chunk, study.games)
        for cell in study.cells:
            for rot in cell.rotations:
                yield Chunk(cell.index, start, stop, rot)


def plan(study: Study) -> list[Chunk]:
    """Every chunk of the study as a list (:func:`iter_plan` for large studies)."""
    return list(iter_plan(study))


def chunk_name(study: Study, c: Chunk) -> str:
    return f"{study.cells[c.cell].hash}-{c.start}-{c.stop}-{c.rotation}.parquet"


def parse_chunk_name(study: Study, name: str, cells: dict | None = None) -> Chunk | None:
    """The chunk of ``study`` a file name stands for, or None (not one of its chunks).

    ``cells``: ``{cell.hash: cell}`` when the caller parses many names.
    """
    m = _CHUNK_RE.fullmatch(name)
    if m is None:
        return None
    if cells is None:
        cells = {c.hash: c for c in study.cells}
    cell = cells.get(m.group(1))
    start, stop, rot = int(m.group(2)), int(m.group(3)), int(m.group(4))
    if (cell is None or start % study.chunk or not 0 <= start < study.games
            or stop != min(start + study.chunk, study.games) or rot not in cell.rotations):
        return None
    return Chunk(cell.index, start, stop, rot)


def describe(study: Study, c: Chunk) -> str:
    """Human name of a chunk: cell, root seed, replicates, rotation."""
    return (f"cell {study.cells[c.cell].key!r} (root seed {study.seed}, replicates "
            f"{c.start}..{c.stop - 1}, rotation {c.rotation})")


# ----------------------------------------------------------------------------- worker side

@dataclass(frozen=True)
class ChunkSpec:
    """Everything a worker needs to play one chunk and return its parquet bytes."""

    rules: Any
    seats: tuple[str, ...]
    seed: int
    start: int
    stop: int
    rotation: int
    columns: dict  # constant columns of the cell
    max_seats: int
    engine: Callable | None = None


def make_spec(study: Study, c: Chunk, engine: Callable | None = None) -> ChunkSpec:
    cell = study.cells[c.cell]
    return ChunkSpec(cell.rules, tuple(cell.seats(c.rotation)), study.seed, c.start, c.stop,
                     c.rotation, cell.columns(), study.max_players, engine)


def default_engine() -> Callable:
    from fastmach.engine import play_games
    return play_games


def _const_type(v: Any):
    import pyarrow as pa
    if isinstance(v, (bool, np.bool_)):
        return pa.bool_()
    if isinstance(v, (int, np.integer)):
        return pa.int64()
    if isinstance(v, (float, np.floating)):
        return pa.float64()
    return pa.string()


def _engine_array(s):
    """An engine column as an arrow array of a canonical type (int64/float64/bool/string)."""
    import pandas as pd
    import pyarrow as pa
    dt = s.dtype
    if isinstance(dt, np.dtype):  # plain numpy columns: no missing values to look for
        if dt.kind == "b":
            return pa.array(s.to_numpy(), type=pa.bool_())
        if dt.kind in "iu":
            return pa.array(s.to_numpy().astype(np.int64, copy=False), type=pa.int64())
        if dt.kind == "f":
            return pa.array(s.to_numpy().astype(np.float64, copy=False), type=pa.float64())
    if pd.api.types.is_bool_dtype(dt):
        return pa.array(s, type=pa.bool_(), from_pandas=True)
    if pd.api.types.is_integer_dtype(dt):
        return pa.array(s, type=pa.int64(), from_pandas=True)
    if pd.api.types.is_float_dtype(dt):
        return pa.array(s, type=pa.float64(), from_pandas=True)
    vals = [None if (x is None or (isinstance(x, float) and np.isnan(x))) else str(x)
            for x in s.astype(object)]
    return pa.array(vals, type=pa.string())


def tidy_table(games, spec: ChunkSpec, *, hands: bool = False):
    """Arrow table of a chunk: cell columns, rotation, rules parameters, engine columns.

    Per-seat engine columns (``name_i``) are padded with nulls up to the study's largest
    player count, so that every chunk of a study has the same schema. ``hands``: ``games``
    holds the chunk's hand rows (any number of rows) and the table leads with ``seed``,
    ``replicate``, ``hand`` before the cell columns.
    """
    import pyarrow as pa
    n = spec.stop - spec.start
    cols: dict[str, Any] = {}
    if hands:
        n = len(games)
        for k in ("seed", "replicate", "hand"):
            cols[k] = _engine_array(games[k])
    elif len(games) != n:
        raise RuntimeError(f"engine returned {len(games)} rows for {n} replicates")
    elif "replicate" in games.columns and not np.array_equal(
            games["replicate"].to_numpy(), np.arange(spec.start, spec.stop)):
        raise RuntimeError("engine returned rows out of replicate order")
    const = dict(spec.columns)
    head = ["cell", "rules", "preset", "players", "lineup"]
    for k in head:
        cols[k] = pa.array([const[k]] * n, type=_const_type(const[k]))
    cols["rotation"] = pa.array(np.full(n, spec.rotation, dtype=np.int64))
    for k, v in const.items():
        if k not in cols:
            cols[k] = pa.array([v] * n, type=_const_type(v))
    seat: dict[str, dict[int, Any]] = {}
    for name in games.columns:
        m = _SEAT_RE.fullmatch(str(name))
        if m:
            seat.setdefault(m.group(1), {})[int(m.group(2))] = _engine_array(games[name])
        elif name not in cols:
            cols[str(name)] = _engine_array(games[name])
    for prefix, arrays in seat.items():
        typ = arrays[min(arrays)].type
        for i in range(spec.max_seats):
            cols[f"{prefix}_{i}"] = arrays.get(i, pa.nulls(n, type=typ))
    return pa.table(cols)


def _parquet_bytes(table) -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)
    return sink.getvalue().to_pybytes()


def play_chunk(spec: ChunkSpec) -> tuple[bytes, bytes]:
    """Play one chunk (worker side): the parquet bytes of its game rows and hand rows."""
    engine = spec.engine or default_engine()
    games, hands = engine(spec.rules, list(spec.seats), spec.seed,
                          np.arange(spec.start, spec.stop, dtype=np.int64), hands=True)
    return (_parquet_bytes(tidy_table(games, spec)),
            _parquet_bytes(tidy_table(hands, spec, hands=True)))


def _ignore_sigint() -> None:
    """Local workers leave Ctrl-C to the driver, which stops them (no traceback per worker)."""
    import signal
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _worker_init(driver: int) -> None:
    """A local worker ignores Ctrl-C and exits when its driver (pid ``driver``) dies.

    On Linux the kernel kills the worker when the driver's process dies (PR_SET_PDEATHSIG);
    everywhere a daemon thread checks every 0.5 s that the parent is still the driver (a
    dead parent's children are re-parented), for the moment the engine holds the GIL.
    """
    import threading
    _ignore_sigint()
    try:
        import ctypes
        import signal
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        pass
    if os.getppid() != driver:  # the driver died before prctl
        os._exit(1)

    def watch() -> None:
        while True:
            time.sleep(0.5)
            if os.getppid() != driver:
                os._exit(1)
    threading.Thread(target=watch, name="fastmach-driver-watch", daemon=True).start()


def _warm_up(engine: Callable | None = None) -> str:
    """Import the engine in a worker (start-up is not playing time); fastmach's version."""
    if engine is None:
        default_engine()
    return _version()


# ----------------------------------------------------------------------------- the store

def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def _version() -> str:
    return __version__


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _lock(root: Path):
    """Hold DIR/.lock exclusively while a sweep writes DIR (one sweep per directory)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: no lock
        return None
    f = open(root / ".lock", "a+")
    try:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        f.close()
        raise FastmachError(f"--out {str(root)!r}: another sweep is writing this directory "
                            f"(wait for it, or stop it and resume)") from None
    return f


class Store:
    """A study's result directory: manifest plus one parquet file per finished chunk.

    Every finished chunk has a record of its files' sizes and checksums
    (:mod:`fastmach.study.store`); on opening, a chunk whose files do not match it, or that has
    none, is removed (and so played again).
    """

    def __init__(self, root: str | Path, study: Study, command: str | None = None):
        from fastmach.outputs import probe_dir

        self.root = Path(root)
        self.study = study
        self.dir = self.root / CHUNKS
        check_size(study)
        self.hands_dir = self.root / HANDS
        text = study.to_toml()
        mpath = self.root / MANIFEST
        if mpath.exists():
            try:
                manifest = json.loads(mpath.read_bytes().decode("utf-8"))
            except (OSError, ValueError) as e:
                raise FastmachError(f"{mpath}: unreadable manifest ({e})") from None
            if not isinstance(manifest, dict):
                raise FastmachError(f"{mpath}: the manifest is not a JSON object: not a "
                                    f"fastmach study directory")
            if manifest.get("fastmach_version") != _version():
                warnings.warn(f"{mpath}: the study was started with fastmach "
                              f"{manifest.get('fastmach_version')}, this is {_version()}; "
                              f"resumed chunks may differ if the engine changed", stacklevel=3)
            if manifest.get("study") != text and not _grown(manifest.get("study"), study):
                diff = "\n".join(list(difflib.unified_diff(
                    str(manifest.get("study", "")).splitlines(), text.splitlines(),
                    "in " + str(mpath), "requested", lineterm="", n=0))[2:12])
                raise FastmachError(
                    f"--out {str(self.root)!r} holds a different study "
                    f"({manifest.get('name')!r}); use another directory or the same study "
                    f"file and --games:\n{diff}")
        elif self.root.is_dir() and any(self.root.iterdir()):
            raise FastmachError(f"--out {str(self.root)!r} is not empty and holds no "
                                f"{MANIFEST}: not a fastmach study directory")
        else:
            manifest = {"name": study.name, "seed": study.seed, "study": text,
                        "fastmach_version": _version(), "started": _now(), "finished": None,
                        "command": None, "runs": [], "chunks": {}}
        manifest["study"] = text  # a grown study (precision) records its new size
        probe_dir(self.root, "--out")
        self.manifest = manifest
        self.dir.mkdir(parents=True, exist_ok=True)
        self.hands_dir.mkdir(exist_ok=True)
        self._lock = _lock(self.root)
        manifest["command"] = command or manifest.get("command")
        manifest["finished"] = None
        manifest.setdefault("runs", []).append(
            {"started": _now(), "finished": None, "command": command,
             "fastmach_version": _version()})
        self.put_games = 0  # games stored by this run
        try:
            self._save_manifest()
            self.existing = self._scan()
        except BaseException:
            self._lock.close() if self._lock is not None else None
            raise

    def _scan(self) -> set[str]:
        """Finished chunks whose files (game rows and hand rows) match their records (stale
        temporary files, and chunks with a missing, altered or unrecorded file, are removed;
        foreign files refused)."""
        import pyarrow.parquet as pq
        records = integrity.load_records(self.root, self.manifest)
        legacy = records is None
        records = records or {}
        cells = {c.hash: c for c in self.study.cells}
        hands = set()
        for p in self.hands_dir.iterdir():
            if p.name.startswith("."):
                p.unlink(missing_ok=True)
            elif parse_chunk_name(self.study, p.name, cells) is None:
                raise FastmachError(f"{p}: not a chunk of study {self.study.name!r}; "
                                    f"remove it or use another directory")
            else:
                hands.add(p.name)
        found = set()
        self.games_done = 0
        for p in sorted(self.dir.iterdir()):
            if p.name.startswith("."):
                p.unlink(missing_ok=True)  # a temporary file of an interrupted run
                continue
            c = parse_chunk_name(self.study, p.name, cells)
            if c is None:
                raise FastmachError(f"{p}: not a chunk of study {self.study.name!r}; "
                                    f"remove it or use another directory")
            rec = records.get(p.name)
            if legacy:  # written before checksums: trusted only if both files read whole
                try:
                    ok = (p.name in hands and pq.read_table(p).num_rows == c.games
                          and pq.read_table(self.hands_dir / p.name).num_rows > 0)
                except Exception:
                    ok = False
                rec = {f"{CHUNKS}/{p.name}": integrity.file_record(p),
                       f"{HANDS}/{p.name}": integrity.file_record(self.hands_dir / p.name)} \
                    if ok else None
            if rec is not None and {f"{CHUNKS}/{p.name}", f"{HANDS}/{p.name}"} <= set(rec) and \
                    integrity.check_record(self.root, rec) is None:
                found.add(p.name)
                records[p.name] = rec
                self.games_done += c.games
            else:  # replayed: remove every file of the chunk
                for rel in (rec or {}):
                    (self.root / rel).unlink(missing_ok=True)
                p.unlink(missing_ok=True)
                records.pop(p.name, None)
        for name in hands - found:  # a hand file without its game file
            (self.hands_dir / name).unlink(missing_ok=True)
        self.manifest["chunks"] = {k: records[k] for k in sorted(found)}
        self._save_manifest()
        (self.root / integrity.JOURNAL).unlink(missing_ok=True)
        return found

    def done(self, c: Chunk) -> bool:
        return chunk_name(self.study, c) in self.existing

    def put(self, c: Chunk, data: tuple[bytes, bytes]) -> None:
        """Store a chunk's (game rows, hand rows) parquet bytes, the hand rows first."""
        name = chunk_name(self.study, c)
        games, hands = data
        self.put_files(c, {f"{HANDS}/{name}": hands, f"{CHUNKS}/{name}": games})

    def put_files(self, c: Chunk, files: dict[str, bytes]) -> None:
        """Store every file of a finished chunk (paths relative to the result directory,
        in the order given), then its record: the chunk counts as done only when all are
        written."""
        name = chunk_name(self.study, c)
        record = {}
        for rel, data in files.items():
            path = self.root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            _write_atomic(path, data)
            record[rel] = integrity.bytes_record(data)
        integrity.append_record(self.root, name, record)
        self.manifest["chunks"][name] = record
        self.existing.add(name)
        self.put_games += c.games

    def _save_manifest(self) -> None:
        _write_atomic(self.root / MANIFEST,
                      (json.dumps(self.manifest, indent=1) + "\n").encode())

    def close(self, finished: bool) -> None:
        self.manifest["runs"][-1]["finished"] = _now() if finished else None
        if finished:
            self.manifest["finished"] = _now()
        self._save_manifest()  # the records are in the manifest: the journal goes
        (self.root / integrity.JOURNAL).unlink(missing_ok=True)
        if self._lock is not None:
            self._lock.close()  # releases the lock
            self._lock = None


def _grown(stored: Any, study: Study) -> bool:
    """True when ``study`` has a ``max_games`` (a precision, or a tune's race) and
    ``stored`` (a manifest's study text) is ``study`` with fewer deals ending on a chunk
    boundary: its chunks are then chunks of ``study`` (same seeds), so the result
    directory grows (:mod:`fastmach.study.precision`, :mod:`fastmach.tools.tune`)."""
    if study.max_games is None:
        return False
    try:
        old = Study.from_toml(str(stored))
    except FastmachError:
        return False
    return (old.games < study.games and old.games % study.chunk == 0
            and old.replace(games=study.games).to_toml() == study.to_toml())


def read_results(out: str | Path, study: Study | None = None):
    """The tidy table of a result directory, sorted by cell (study order), replicate, rotation."""
    return _read_rows(Path(out), study, CHUNKS, ["replicate", "rotation"])


def read_hands(out: str | Path, study: Study | None = None):
    """The hand rows of a result directory (one per hand played, with the cell columns),
    sorted by cell (study order), replicate, rotation and hand; every file verified
    against its record, as :func:`read_results` does."""
    return _read_rows(Path(out), study, HANDS, ["replicate", "rotation", "hand"])


def _read_rows(root: Path, study: Study | None, subdir: str, keys: list[str]):
    """The rows of ``root/subdir``'s chunk files (verified, see :mod:`fastmach.study.store`),
    sorted by cell (study order), then ``keys``."""
    manifest = _manifest(root)
    if study is None:
        study = Study.from_toml(manifest["study"])
    if not any((root / subdir).glob("*.parquet")):
        raise FastmachError(f"{root}: no finished chunk yet")
    df = integrity.read_table(root, manifest, subdir=None if subdir == CHUNKS else subdir)
    return _sorted(df, root, study, keys)


def _manifest(root: Path) -> dict:
    """The study manifest of a result directory (a FastmachError naming it if unreadable)."""
    mpath = root / MANIFEST
    try:
        manifest = json.loads(mpath.read_bytes().decode("utf-8"))
    except (OSError, ValueError) as e:
        raise FastmachError(f"{mpath}: cannot read the study manifest ({e})") from None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("study"), str):
        raise FastmachError(f"{mpath}: the manifest is not a JSON object with the study")
    return manifest


def _sorted(df, root: Path, study: Study, keys: list[str]):
    """Rows in study order of their cells, then by ``keys``."""
    order = {c.key: c.index for c in study.cells}
    key = df["cell"].map(order)
    if key.isna().any():
        raise FastmachError(f"{root}: rows of a cell that is not in study {study.name!r}")
    return (df.assign(_cell=key.astype(np.int64))
              .sort_values(["_cell", *keys], kind="mergesort")
              .drop(columns="_cell").reset_index(drop=True))


# ----------------------------------------------------------------------------- backends

class _Backend:
    """submit(spec) -> future; wait(futures) -> done futures; close()."""

    where = ""
    limit = 1

    def submit(self, spec: ChunkSpec):  # pragma: no cover - interface
        raise NotImplementedError

    def wait(self, futures) -> Iterable:  # pragma: no cover - interface
        raise NotImplementedError

    def broken(self, exc: BaseException) -> bool:
        return False

    def restart(self) -> None:  # pragma: no cover - only process pools break
        pass

    def close(self, cancel: bool = False) -> None:
        pass


class _Processes(_Backend):
    def __init__(self, workers: int, engine: Callable | None):
        self.workers, self.engine = workers, engine
        self.limit = 2 * workers
        self.where = f"{workers} local process{'es' if workers != 1 else ''}"
        self._start()

    def _start(self) -> None:
        ctx = multiprocessing.get_context("spawn")
        self.pool = cf.ProcessPoolExecutor(self.workers, mp_context=ctx,
                                           initializer=_worker_init, initargs=(os.getpid(),))
        for f in [self.pool.submit(_warm_up, self.engine) for _ in range(self.workers)]:
            f.result()

    def submit(self, spec):
        return self.pool.submit(play_chunk, spec)

    def wait(self, futures):
        return cf.wait(futures, return_when=cf.FIRST_COMPLETED).done

    def broken(self, exc):
        from concurrent.futures.process import BrokenProcessPool
        return isinstance(exc, BrokenProcessPool)

    def restart(self):
        self.close(cancel=True)
        self._start()

    def close(self, cancel=False):
        procs = list(getattr(self.pool, "_processes", {}).values()) if cancel else []
        self.pool.shutdown(wait=not cancel, cancel_futures=cancel)
        for p in procs:  # our own workers, still busy with cancelled work
            if p.is_alive():
                p.terminate()
        for p in procs:
            p.join(5)


class _Dask(_Backend):
    def __init__(self, scheduler: str, workers: int, engine: Callable | None):
        try:
            from distributed import Client, LocalCluster
        except ImportError as e:  # pragma: no cover - dask[distributed] is a dependency
            raise FastmachError(f"--scheduler needs dask.distributed: {e}") from None
        self.cluster = None
        if scheduler == "local":
            self.cluster = LocalCluster(n_workers=workers, threads_per_worker=1,
                                        processes=True, dashboard_address=None)
            self.client = Client(self.cluster)
            self.where = f"a Dask LocalCluster of {workers} workers"
        else:
            try:
                self.client = Client(scheduler, timeout="20s")
            except (OSError, TimeoutError) as e:
                raise FastmachError(f"--scheduler {scheduler!r}: cannot connect ({e})") from None
            self.where = f"the Dask cluster at {scheduler}"
        try:
            self.client.wait_for_workers(1, timeout=120)
        except TimeoutError:
            self.close()
            raise FastmachError(f"--scheduler {scheduler!r}: no worker joined within 120 s; "
                                f"start some with: dask worker {scheduler}") from None
        try:
            versions = self.client.run(_warm_up, engine)
        except Exception as e:
            self.close()
            raise FastmachError(f"--scheduler {scheduler!r}: a worker cannot load fastmach's "
                                f"engine ({type(e).__name__}: {e}); install fastmach on "
                                f"every worker host") from None
        mine = _version()
        other = {w: v for w, v in versions.items() if v != mine}
        if other:
            self.close()
            raise FastmachError(f"--scheduler {scheduler!r}: workers run another fastmach "
                                f"version than this driver ({mine}): {other}")
        self._n = 0
        self._limit, self._checked = 4, 0.0

    @property
    def limit(self) -> int:
        """Chunks in flight: twice the cluster's threads (re-read every 5 s as workers join)."""
        now = time.monotonic()
        if now - self._checked > 5.0:
            self._checked = now
            self._limit = max(2 * sum(self.client.nthreads().values()), 4)
        return self._limit

    def submit(self, spec):
        self._n += 1
        return self.client.submit(play_chunk, spec, pure=False,
                                  key=f"fastmach-chunk-{os.getpid()}-{self._n}")

    def wait(self, futures):
        from distributed import wait
        return wait(list(futures), return_when="FIRST_COMPLETED").done

    def close(self, cancel=False):
        try:
            self.client.close()
        finally:
            if self.cluster is not None:
                self.cluster.close()


def _cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


# ----------------------------------------------------------------------------- the driver

def run_study(study: Study, out: str | Path | None = None, *, workers: int | None = None,
              scheduler: str | None = None, engine: Callable | None = None,
              retries: int = 2, progress: bool = True, command: str | None = None):
    """Play the study's missing chunks and return its whole tidy table (sorted).

    ``out``: result directory (resumed when it holds the same study; None: a temporary
    directory, removed after reading). ``workers``: 0 = this process, N = N local worker
    processes (default: all cores), or the LocalCluster size with ``scheduler="local"``.
    ``scheduler``: ``"local"`` or a Dask scheduler address. ``engine``: a picklable
    ``play_games``-compatible callable (default :func:`fastmach.engine.play_games`).
    A chunk that raises is retried ``retries`` times, then reported in a
    :class:`SweepError` after every other chunk has run. The returned DataFrame carries
    the run summary (:func:`execute`) in ``df.attrs["summary"]``.
    """
    kw = dict(workers=workers, scheduler=scheduler, engine=engine, retries=retries,
              progress=progress, command=command)
    if out is None:
        with tempfile.TemporaryDirectory(prefix="fastmach-sweep-") as tmp:
            summary = execute(study, Path(tmp) / "study", **kw)
            df = read_results(Path(tmp) / "study", study)
        summary["out"] = None
    else:
        summary = execute(study, out, **kw)
        df = read_results(out, study)
    df.attrs["summary"] = summary
    if progress:
        print(format_summary(summary), file=sys.stderr)
    return df


def execute(study: Study, out: str | Path, *, workers: int | None = None,
            scheduler: str | None = None, engine: Callable | None = None,
            retries: int = 2, progress: bool = True, command: str | None = None) -> dict:
    """Play the study's missing chunks into ``out`` without loading the table (the CLI).

    Returns the run summary: ``games`` (in the store), ``played`` (this run), ``cells``,
    ``chunks``, ``resumed_chunks``, ``wall`` (s), ``games_per_s``, ``where``, ``out``.
    Arguments as :func:`run_study`.
    """
    if workers is None:
        workers = _cpu_count()
    if not isinstance(workers, int) or workers < 0:
        raise FastmachError(f"--workers must be an integer >= 0, got {workers!r}")
    if scheduler is not None and workers == 0:
        workers = _cpu_count()
    if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
        raise FastmachError(f"--retries must be an integer >= 0, got {retries!r}")
    if scheduler is not None and scheduler != "local" and not re.match(
            r"^(tcp|tls|ucx|inproc|ws|wss)://\S+$", scheduler):
        raise FastmachError(f"--scheduler {scheduler!r}: expected 'local' or an address "
                            f"like tcp://host:8786")
    if command is None:
        command = shlex.join(sys.argv) if sys.argv and sys.argv[0] else "python"
    store = Store(out, study, command)
    n_chunks = check_size(study)
    todo = (c for c in iter_plan(study) if not store.done(c))  # lazy: no list of chunks
    resumed = len(store.existing)
    total = study.total_games
    done_games = store.games_done
    bar = None
    if progress:
        from tqdm.auto import tqdm
        bar = tqdm(total=total, initial=done_games, unit="games", unit_scale=total >= 10**5,
                   dynamic_ncols=True, desc=study.name, file=sys.stderr, smoothing=0.05)
    t0 = time.perf_counter()
    failures: list[tuple[Chunk, BaseException]] = []
    finished = False
    backend: _Backend | None = None
    try:
        if resumed == n_chunks:
            where = "nothing to run"
        elif scheduler is None and workers == 0:
            where = "this process"
            _run_inline(study, todo, store, engine, retries, failures, bar)
        else:
            backend = (_Dask(scheduler, workers, engine) if scheduler is not None
                       else _Processes(workers, engine))
            where = backend.where
            _run_pool(study, todo, store, engine, retries, failures, bar, backend)
        finished = not failures
    except BaseException:
        if backend is not None:
            backend.close(cancel=True)
            backend = None
        raise
    finally:
        if backend is not None:
            backend.close()
        if bar is not None:
            bar.close()
        store.close(finished)
    wall = time.perf_counter() - t0
    played = store.put_games
    if failures:
        lines = [f"  {describe(study, c)}: {type(e).__name__}: {e}" for c, e in failures]
        raise SweepError(
            f"{len(failures)} chunk(s) of study {study.name!r} failed after "
            f"{retries + 1} attempts (the other chunks are saved in {out}; rerun to retry "
            f"only these):\n" + "\n".join(lines))
    summary = {"games": total, "played": played, "cells": len(study.cells),
               "chunks": n_chunks, "resumed_chunks": resumed, "wall": wall,
               "games_per_s": played / wall if wall > 0 else float("nan"), "where": where,
               "out": str(out)}
    if study.log_games:
        summary["logs"] = len(write_logs(study, out))
    return summary


LOGS = "_logs"


def log_path(study: Study, out: str | Path, cell: int, rotation: int) -> Path:
    """The log of a cell's first ``log_games`` games under ``rotation``."""
    return Path(out) / LOGS / f"{study.cells[cell].hash}-{rotation}.jsonl"


def write_logs(study: Study, out: str | Path) -> list[Path]:
    """Log the first ``study.log_games`` games of every cell and rotation (same seeds as the
    chunks; written from the engine's record of the games) unless their log is already
    there."""
    n = min(study.log_games, study.games)
    paths = []
    for cell in study.cells:
        for rot in cell.rotations:
            path = log_path(study, out, cell.index, rot)
            if not path.exists():
                path.parent.mkdir(parents=True, exist_ok=True)
                tmp = path.with_name("." + path.name)
                tmp.unlink(missing_ok=True)
                default_engine()(cell.rules, cell.seats(rot), study.seed, np.arange(n), log=tmp)
                os.replace(tmp, path)
            paths.append(path)
    return paths


def format_summary(s: dict) -> str:
    """The one-line summary of a run."""
    resumed = f", {s['resumed_chunks']} of {s['chunks']} chunks resumed" if s[
        "resumed_chunks"] else ""
    where = f" -> {s['out']}" if s.get("out") else ""
    cells = f"{s['cells']} cell{'s' if s['cells'] != 1 else ''}"
    return (f"{s['games']} games in {cells}: played {s['played']} in "
            f"{s['wall']:.1f} s ({s['games_per_s']:.0f} games/s) on {s['where']}"
            f"{resumed}{where}")


def _run_inline(study, todo, store, engine, retries, failures, bar) -> None:
    for c in todo:
        for attempt in range(retries + 1):
            try:
                data = play_chunk(make_spec(study, c, engine))
            except Exception as e:  # retried, then reported
                if attempt == retries:
                    failures.append((c, e))
                continue
            store.put(c, data)
            if bar is not None:
                bar.update(c.games)
            break


class _Pending:
    """The chunks still to submit: a deque in front of a (lazy) iterator of chunks."""

    def __init__(self, chunks: Iterable[Chunk]):
        self._it = iter(chunks)
        self._front: deque[Chunk] = deque()

    def __bool__(self) -> bool:
        if not self._front:
            nxt = next(self._it, None)
            if nxt is None:
                return False
            self._front.append(nxt)
        return True

    def popleft(self) -> Chunk:
        if not self:
            raise IndexError("no chunk left")
        return self._front.popleft()

    def appendleft(self, c: Chunk) -> None:
        self._front.appendleft(c)


def _run_pool(study, todo, store, engine, retries, failures, bar, backend: _Backend) -> None:
    """Bounded submission with retries.

    When a local worker process dies, every chunk then in flight fails with
    BrokenProcessPool; those chunks become suspects and run alone, one at a time, so that
    only the chunk that kills its worker is charged an attempt.
    """
    pending = _Pending(todo)
    suspects: deque[Chunk] = deque()
    attempts: dict[Chunk, int] = {}
    inflight: dict[Any, Chunk] = {}
    alone: set = set()  # futures submitted with nothing else in flight

    def charge(c: Chunk, e: BaseException, queue: deque) -> None:
        attempts[c] = attempts.get(c, 0) + 1
        if attempts[c] > retries:
            failures.append((c, e))
        else:
            queue.appendleft(c)

    while pending or suspects or inflight:
        restart = False
        queue = suspects if suspects else pending
        try:
            if suspects:
                if not inflight:
                    c = suspects.popleft()
                    fut = backend.submit(make_spec(study, c, engine))
                    inflight[fut] = c
                    alone.add(fut)
            else:
                while pending and len(inflight) < backend.limit:
                    c = pending.popleft()
                    inflight[backend.submit(make_spec(study, c, engine))] = c
        except Exception as e:  # the pool broke since the last wait: c never ran
            if not backend.broken(e):
                raise
            queue.appendleft(c)
            restart = True
        for fut in (backend.wait(list(inflight)) if inflight else ()):
            c = inflight.pop(fut)
            try:
                data = fut.result()
            except Exception as e:
                if backend.broken(e):
                    restart = True
                    if fut in alone:  # alone in flight: this chunk killed its worker
                        charge(c, e, suspects)
                    else:
                        suspects.append(c)
                else:
                    charge(c, e, pending)
                continue
            finally:
                alone.discard(fut)
            store.put(c, data)
            if bar is not None:
                bar.update(c.games)
        if restart:
            suspects.extend(inflight.values())
            inflight.clear()
            alone.clear()
            backend.restart()


# ----------------------------------------------------------------------------- benchmark

def bench_driver(*, rules: str = "ace-low(match=single)", players: int = 2,
                 lineup: Sequence[str] = ("expert",), games: int = 2000, chunk: int = 200,
                 workers: Sequence[int] = (1, 2), repeats: int = 3,
                 engine: Callable | None = None, seed: int = 1) -> dict:
    """Driver overhead and scaling: raw engine games/s vs the sweep's, 1 and 2 workers.

    ``raw``: the engine called directly in this process, chunk by chunk; ``inline``: the
    whole driver as ``fastmach sweep`` runs it (tidy table, parquet bytes, atomic writes,
    manifest; the final table is not loaded) in this process, also in CPU
    seconds (``*_per_cpu_s``: immune to other load on a shared machine); ``workers_N``:
    N local worker processes, timed after their start-up (reported apart). Each figure is
    the best of ``repeats`` runs. Returns a dict;
    :func:`format_bench` prints it.
    """
    eng = engine or default_engine()
    study = Study(name="bench", seed=seed, games=games, chunk=chunk, rules=(rules,),
                  players=(players,), lineup=(tuple(lineup),))
    cell = study.cells[0]
    seats, r = cell.seats(0), cell.rules
    eng(r, seats, seed, np.arange(0, min(chunk, 10)))  # warm-up (imports, caches)
    best: dict[str, float] = {}

    def keep(key: str, seconds: float) -> None:
        best[key] = max(best.get(key, 0.0), games / seconds)

    backends = {}
    result: dict[str, Any] = {"rules": str(r), "seats": seats, "games": games,
                              "chunk": chunk, "repeats": repeats}
    try:
        for w in workers:
            t = time.perf_counter()
            backends[w] = _Processes(w, engine)
            result[f"workers_{w}_startup_s"] = time.perf_counter() - t
        with tempfile.TemporaryDirectory(prefix="fastmach-bench-") as tmp:
            for rep in range(repeats):
                t, cpu = time.perf_counter(), time.process_time()
                for start in range(0, games, chunk):
                    eng(r, seats, seed, np.arange(start, min(start + chunk, games)))
                keep("raw_games_per_s", time.perf_counter() - t)
                keep("raw_games_per_cpu_s", time.process_time() - cpu)
                t, cpu = time.perf_counter(), time.process_time()
                execute(study, Path(tmp) / f"inline{rep}", workers=0, engine=engine,
                        progress=False, command="bench")
                keep("inline_games_per_s", time.perf_counter() - t)
                keep("inline_games_per_cpu_s", time.process_time() - cpu)
                for w, backend in backends.items():
                    store = Store(Path(tmp) / f"w{w}-{rep}", study, "bench")
                    failures: list = []
                    t, cpu = time.perf_counter(), time.process_time()
                    _run_pool(study, plan(study), store, engine, 0, failures, None, backend)
                    keep(f"workers_{w}_games_per_s", time.perf_counter() - t)
                    keep(f"workers_{w}_driver_games_per_cpu_s", time.process_time() - cpu)
                    store.close(not failures)
                    if failures:
                        raise SweepError(f"bench: {failures[0][1]}")
    finally:
        for backend in backends.values():
            backend.close()
    result.update(best)
    result["inline_overhead"] = best["raw_games_per_s"] / best["inline_games_per_s"] - 1.0
    result["inline_cpu_overhead"] = (best["raw_games_per_cpu_s"]
                                     / best["inline_games_per_cpu_s"] - 1.0)
    if 1 in backends:
        result["workers_1_overhead"] = (best["raw_games_per_s"]
                                        / best["workers_1_games_per_s"] - 1.0)
        for w in backends:
            result[f"speedup_{w}"] = (best[f"workers_{w}_games_per_s"]
                                      / best["workers_1_games_per_s"])
    for w in backends:  # the driver's serial CPU work per game, relative to the engine's
        result[f"workers_{w}_driver_cpu_share"] = (
            best["raw_games_per_cpu_s"] / best[f"workers_{w}_driver_games_per_cpu_s"])
    return result


def format_bench(b: dict) -> str:
    """Human text of :func:`bench_driver`'s result."""
    lines = [f"sweep driver benchmark: {b['rules']} seats={','.join(b['seats'])}, "
             f"{b['games']} games in chunks of {b['chunk']}, best of {b['repeats']}",
             f"  raw engine (this process)    {b['raw_games_per_s']:10.1f} games/s",
             f"  driver, this process         {b['inline_games_per_s']:10.1f} games/s "
             f"(overhead {100 * b['inline_overhead']:+.1f}%; in CPU time "
             f"{100 * b['inline_cpu_overhead']:+.1f}%, which a busy machine does not skew)"]
    for k in sorted(k for k in b if re.fullmatch(r"workers_\d+_games_per_s", k)):
        w = int(k.split("_")[1])
        extra = f"  x{b[f'speedup_{w}']:.2f} vs 1 worker" if f"speedup_{w}" in b else ""
        if w == 1 and "workers_1_overhead" in b:
            extra += f"  (overhead vs raw {100 * b['workers_1_overhead']:+.1f}%)"
        lines.append(f"  driver, {w} worker process{'es' if w > 1 else '  '}  "
                     f"{b[k]:10.1f} games/s{extra}  [start-up "
                     f"{b[f'workers_{w}_startup_s']:.1f} s; driver CPU "
                     f"{100 * b[f'workers_{w}_driver_cpu_share']:.1f}% of the engine's]")
    return "\n".join(lines)
