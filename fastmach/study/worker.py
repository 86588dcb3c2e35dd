"""The worker side of a sweep: play one chunk and return its tidy table as parquet bytes
(the driver only writes bytes, so remote Dask workers need no shared disk)."""
from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from fastmach.core import __version__
from fastmach.engine.arrow import constant_array, plain_array, string_array
from fastmach.study import Study
from fastmach.study.plan import Chunk

__all__ = ["ChunkSpec", "make_spec", "default_engine", "tidy_table", "play_chunk"]

_SEAT_RE = re.compile(r"(.+)_(\d+)")

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
    """The engine's rows as columns (``fastmach.engine.play_columns``: no pandas)."""
    from fastmach.engine import play_columns
    return play_columns


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
    """An engine column (a Series, or a NumPy array of the engine's columns) as an arrow
    array of a canonical type (int64/float64/bool/string)."""
    import pyarrow as pa
    dt = s.dtype
    if isinstance(dt, np.dtype):  # plain numpy columns: no missing values to look for
        v = s if isinstance(s, np.ndarray) else s.to_numpy()
        if dt.kind == "b":
            return plain_array(v)
        if dt.kind in "iu":
            return plain_array(v.astype(np.int64, copy=False))
        if dt.kind == "f":
            return plain_array(v.astype(np.float64, copy=False))
    if isinstance(s, np.ndarray):
        return string_array([None if x is None or (isinstance(x, float) and np.isnan(x))
                             else str(x) for x in s.tolist()])
    import pandas as pd
    if pd.api.types.is_bool_dtype(dt):
        return pa.array(s, type=pa.bool_(), from_pandas=True)
    if pd.api.types.is_integer_dtype(dt):
        return pa.array(s, type=pa.int64(), from_pandas=True)
    if pd.api.types.is_float_dtype(dt):
        return pa.array(s, type=pa.float64(), from_pandas=True)
    vals = [None if (x is None or (isinstance(x, float) and np.isnan(x))) else str(x)
            for x in s.astype(object)]
    return pa.array(vals, type=pa.string())


def _engine_columns(games) -> tuple[int, list, Callable[[Any], Any]]:
    """An engine's rows, a DataFrame or columns (``fastmach.engine.columns``): their
    count, the column names and a getter of one column."""
    if isinstance(games, dict):
        from fastmach.engine.columns import column, length
        n = length(games)
        return n, list(games), lambda name: column(games, name, n)
    return len(games), list(games.columns), lambda name: games[name]


def tidy_table(games, spec: ChunkSpec, *, hands: bool = False):
    """Arrow table of a chunk: cell columns, rotation, rules parameters, engine columns.

    Per-seat engine columns (``name_i``) are padded with nulls up to the study's largest
    player count, so that every chunk of a study has the same schema. ``hands``: ``games``
    holds the chunk's hand rows (any number of rows) and the table leads with ``seed``,
    ``replicate``, ``hand`` before the cell columns.
    """
    import pyarrow as pa
    n = spec.stop - spec.start
    rows, names, column = _engine_columns(games)
    cols: dict[str, Any] = {}
    if hands:
        n = rows
        for k in ("seed", "replicate", "hand"):
            cols[k] = _engine_array(column(k))
    elif rows != n:
        raise RuntimeError(f"engine returned {rows} rows for {n} replicates")
    elif "replicate" in names and not np.array_equal(
            np.asarray(column("replicate")), np.arange(spec.start, spec.stop)):
        raise RuntimeError("engine returned rows out of replicate order")
    const = dict(spec.columns)
    head = ["cell", "rules", "preset", "players", "lineup"]
    for k in head:
        cols[k] = constant_array(const[k], n, _const_type(const[k]))
    cols["rotation"] = plain_array(np.full(n, spec.rotation, dtype=np.int64))
    for k, v in const.items():
        if k not in cols:
            cols[k] = constant_array(v, n, _const_type(v))
    seat: dict[str, dict[int, Any]] = {}
    for name in names:
        m = _SEAT_RE.fullmatch(str(name))
        if m:
            seat.setdefault(m.group(1), {})[int(m.group(2))] = _engine_array(column(name))
        elif name not in cols:
            cols[str(name)] = _engine_array(column(name))
    for prefix, arrays in seat.items():
        typ = arrays[min(arrays)].type
        for i in range(spec.max_seats):
            cols[f"{prefix}_{i}"] = arrays.get(i, pa.nulls(n, type=typ))
    return pa.Table.from_arrays(list(cols.values()), names=list(cols))


def _parquet_bytes(table) -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)
    return sink.getvalue().to_pybytes()


def play_chunk(spec: ChunkSpec) -> tuple[bytes, bytes]:
    """Play one chunk (worker side): the parquet bytes of its game rows and hand rows."""
    engine = spec.engine or default_engine()
    try:
        games, hands = engine(spec.rules, list(spec.seats), spec.seed,
                              np.arange(spec.start, spec.stop, dtype=np.int64), hands=True)
    except SystemExit as e:  # a bot's sys.exit: a failed chunk (retried, then named)
        raise RuntimeError(f"the engine or a bot called sys.exit({e.code!r})") from None
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
    import signal
    import threading
    _ignore_sigint()
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # blocked by the driver
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


def _version() -> str:
    return __version__
