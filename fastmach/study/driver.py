"""The driver of a sweep: plan the missing chunks, submit them (bounded, with retries), store
what comes back, summarise the run."""
from __future__ import annotations

import re
import shlex
import sys
import tempfile
import time
from collections import deque
from pathlib import Path
from typing import Any, Callable, Iterable

from fastmach.core.workers import check_local_workers, cpu_count
from fastmach.errors import FastmachError
from fastmach.rules import is_integer
from fastmach.study import Study
from fastmach.study.backends import SchedulerLost, _Backend, _Dask, _Processes
from fastmach.study.logs import write_logs
from fastmach.study.plan import Chunk, SweepError, check_size, describe, iter_plan
from fastmach.study.results import Store, read_results
from fastmach.study.worker import make_spec, play_chunk

__all__ = ["SweepError", "run_study", "execute", "open_backend", "format_summary"]


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
    if not isinstance(study, Study):
        raise FastmachError(f"study: expected a Study (fastmach.Study.from_toml(path) reads a "
                            f"study file), got {type(study).__name__}")
    kw: dict[str, Any] = dict(workers=workers, scheduler=scheduler, engine=engine, retries=retries,
              progress=progress, command=command)
    if out is None:
        with tempfile.TemporaryDirectory(prefix="fastmach-sweep-") as tmp:
            summary = execute(study, Path(tmp) / "study", kept=False, **kw)
            df = read_results(Path(tmp) / "study", study)
        summary["out"] = None
    else:
        summary = execute(study, out, **kw)
        df = read_results(out, study)
    df.attrs["summary"] = summary
    if progress:
        print(format_summary(summary), file=sys.stderr)
    return df


def open_backend(workers: int | None = None, scheduler: str | None = None,
                 engine: Callable | None = None) -> _Backend | None:
    """The worker pool :func:`execute` would start (None: play in this process), for a
    caller that runs several studies on one pool (``execute(..., backend=...)``)."""
    workers, scheduler = check_run(workers, scheduler)
    if scheduler is None and workers == 0:
        return None
    return (_Dask(scheduler, workers, engine) if scheduler is not None
            else _Processes(workers, engine))


def check_run(workers: int | None, scheduler: str | None) -> tuple[int, str | None]:
    """The worker count and scheduler of a run, checked (None: every core), or
    FastmachError naming the bad one."""
    if workers is None:
        workers = cpu_count()
    if not is_integer(workers) or workers < 0:
        raise FastmachError(f"workers={workers!r}: must be an integer >= 0")
    workers = int(workers)
    if scheduler is not None and workers == 0:
        workers = cpu_count()
    if scheduler in (None, "local"):
        check_local_workers(workers)
    if scheduler is not None and not isinstance(scheduler, str):
        raise FastmachError(f"scheduler={scheduler!r}: expected 'local' or an address like "
                            f"tcp://host:8786")
    if scheduler is not None and scheduler != "local" and not re.match(
            r"^(tcp|tls|ucx|inproc|ws|wss)://\S+$", scheduler):
        raise FastmachError(f"scheduler={scheduler!r}: expected 'local' or an address "
                            f"like tcp://host:8786")
    return workers, scheduler


def execute(study: Study, out: str | Path, *, workers: int | None = None,
            scheduler: str | None = None, engine: Callable | None = None,
            retries: int = 2, progress: bool = True, command: str | None = None,
            backend: _Backend | None = None, kept: bool = True) -> dict:
    """Play the study's missing chunks into ``out`` without loading the table (the CLI).

    Returns the run summary: ``games`` (in the store), ``played`` (this run), ``cells``,
    ``chunks``, ``resumed_chunks``, ``wall`` (s), ``games_per_s``, ``where``, ``out``.
    Arguments as :func:`run_study`; ``backend``: a pool from :func:`open_backend` to run
    on instead of starting one (``workers`` and ``scheduler`` are then its own; the
    caller closes it). ``kept``: False where ``out`` is a temporary directory removed with
    the run (a failure then says nothing was kept, not where to rerun).
    """
    workers, scheduler = check_run(workers, scheduler)
    if not is_integer(retries) or retries < 0:
        raise FastmachError(f"retries={retries!r}: must be an integer >= 0")
    retries = int(retries)
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
                   dynamic_ncols=True, desc=study.name, file=sys.stderr,
                   smoothing=0)   # the rate: the run's games over its time, not a recent burst
    t0 = time.perf_counter()
    failures: list[tuple[Chunk, BaseException]] = []
    finished = False
    own = backend is None  # a pool this run starts, and closes
    try:
        if resumed == n_chunks:
            where = "nothing to run" if backend is None else backend.where
        elif backend is None and scheduler is None and workers == 0:
            where = "this process"
            _run_inline(study, todo, store, engine, retries, failures, bar)
        else:
            if backend is None:   # (no more processes than chunks to play)
                backend = open_backend(min(workers, max(1, n_chunks - resumed)) if scheduler is None
                                       else workers, scheduler, engine)
            if backend is None:   # pragma: no cover - workers 0 without a scheduler ran inline
                raise FastmachError("no worker pool for this run")
            where = backend.where
            _run_pool(study, todo, store, engine, retries, failures, bar, backend)
        finished = not failures
    except BaseException:
        if own and backend is not None:
            backend.close(cancel=True)
            backend = None
        raise
    finally:
        if own and backend is not None:
            backend.close()
        if bar is not None:
            bar.close()
        store.close(finished)
    wall = time.perf_counter() - t0
    played = store.put_games
    if failures:
        lines = [f"  {describe(study, c)}: {type(e).__name__}: {e}" for c, e in failures]
        where = (f"the other chunks are saved in {out}; rerun to retry only these" if kept
                 else "nothing was kept: the other chunks were played into a temporary "
                      "directory, removed with the run; give out=DIR (--out DIR) to keep "
                      "them and retry only these")
        raise SweepError(
            f"{len(failures)} chunk(s) of study {study.name!r} failed after "
            f"{retries + 1} attempts ({where}):\n" + "\n".join(lines))
    summary = {"games": total, "played": played, "cells": len(study.cells),
               "chunks": n_chunks, "resumed_chunks": resumed, "wall": wall,
               "games_per_s": played / wall if wall > 0 else float("nan"), "where": where,
               "out": str(out)}
    if study.log_games:
        summary["logs"] = len(write_logs(study, out))
    return summary


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

    def charge(c: Chunk, e: BaseException, queue: "deque[Chunk] | _Pending") -> None:
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
                data = backend.result(fut)
            except SchedulerLost:
                raise
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
