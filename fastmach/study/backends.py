"""Where chunks run: local worker processes (spawn) or a Dask cluster, behind one small
interface (submit, wait, broken, restart, close)."""
from __future__ import annotations

import concurrent.futures as cf
import contextlib
import logging
import multiprocessing
import os
import signal
import sys
import threading
import time
from concurrent.futures.process import BrokenProcessPool
from typing import Callable, Iterable

from fastmach.core.workers import cpu_count as _cpu_count  # noqa: F401 (its importers')
from fastmach.core.workers import max_local_workers  # noqa: F401
from fastmach.errors import FastmachError
from fastmach.study.plan import SweepError
from fastmach.study.worker import ChunkSpec, _version, _warm_up, _worker_init, play_chunk


class _Backend:
    """submit(spec) -> future; wait(futures) -> done futures; close()."""

    where = ""
    _limit = 1

    @property
    def limit(self) -> int:
        """Chunks to keep in flight."""
        return self._limit

    def submit(self, spec: ChunkSpec):  # pragma: no cover - interface
        raise NotImplementedError

    def wait(self, futures) -> Iterable:  # pragma: no cover - interface
        raise NotImplementedError

    def broken(self, exc: BaseException) -> bool:
        return False

    def result(self, fut):
        """A finished future's result (its exception raised)."""
        return fut.result()

    def restart(self) -> None:  # pragma: no cover - only process pools break
        pass

    def close(self, cancel: bool = False) -> None:
        pass


class WorkerStartError(SweepError):
    """The workers could not start (a process died, or the Dask cluster went away)."""


class SchedulerLost(SweepError):
    """The Dask scheduler (or the connection to it) was lost during a run."""


@contextlib.contextmanager
def _sigint_held():
    """Hold Ctrl-C back for the block; it arrives when the block ends.

    SIGINT is blocked in this thread (the processes it starts inherit the mask, so none
    dies with a traceback in its start-up) and caught by a handler that only notes it:
    threads this interpreter did not start (OpenBLAS's workers) do not block it, and the
    kernel may deliver it to one of them, which would raise KeyboardInterrupt here in
    the middle of a worker's launch (the worker then reads half its start-up data). A
    Ctrl-C noted is raised again once the mask and the handler are back."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    noted: list[int] = []
    handler = signal.signal(signal.SIGINT, lambda signum, frame: noted.append(signum))
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)
        # (a pending one runs the noting handler first; None: a handler not set from Python)
        signal.signal(signal.SIGINT, signal.SIG_DFL if handler is None else handler)
        if noted:
            signal.raise_signal(signal.SIGINT)


def _start_resource_tracker() -> None:
    """Start multiprocessing's resource tracker now, before SIGINT is held: started on a
    pool's first lock, it unblocks SIGINT in the calling thread
    (resource_tracker.ensure_running), which would undo the mask for the workers spawned
    after it. An interrupted run leaves with os._exit (fastmach.cli.console) and the
    tracker then frees the pool's semaphores itself; its warning that it did is silenced
    in its process (a -W option it inherits from sys.warnoptions)."""
    from multiprocessing import resource_tracker
    quiet = "ignore:resource_tracker:UserWarning"
    if quiet not in sys.warnoptions:
        sys.warnoptions.append(quiet)
    resource_tracker.ensure_running()


def _start_hint() -> str:
    """What to check when a worker dies at start: a script run as the main module is
    imported again by each worker (the spawn start method), so its work must sit under
    ``if __name__ == "__main__":``; else memory and the engine's imports."""
    script = getattr(sys.modules.get("__main__"), "__file__", None)
    if script and not str(script).endswith(("__main__.py", "fastmach")):
        return (f"{script} is imported again by each worker process: run its work under "
                f"'if __name__ == \"__main__\":' (else check memory and the engine's imports)")
    return "check memory and the engine's imports"


class _Processes(_Backend):
    def __init__(self, workers: int, engine: Callable | None):
        self.workers, self.engine = workers, engine
        self._limit = 2 * workers
        self.where = f"{workers} local process{'es' if workers != 1 else ''}"
        self._start()

    def _start(self) -> None:
        ctx = multiprocessing.get_context("spawn")
        self._before = {p.pid for p in multiprocessing.active_children()}
        _start_resource_tracker()
        # Ctrl-C is held back while workers start (they inherit the mask, so none prints
        # a traceback from its imports) and delivered to the driver right after
        with _sigint_held():
            self.pool = cf.ProcessPoolExecutor(self.workers, mp_context=ctx,
                                               initializer=_worker_init,
                                               initargs=(os.getpid(),))
            try:
                for f in [self.pool.submit(_warm_up, self.engine)
                          for _ in range(self.workers)]:
                    f.result()
            except BrokenProcessPool as e:
                self.close(cancel=True)
                raise WorkerStartError(
                    f"a worker process died while the pool of {self.workers} started "
                    f"({e}); nothing was played in this attempt: {_start_hint()}, then run "
                    f"again (finished chunks are kept)") from None

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

    def _workers(self) -> list:
        """The pool's worker processes: the children this process started since the pool
        began (``multiprocessing.active_children``; the pool starts its workers with its
        context's Process, which registers them as our children)."""
        return [p for p in multiprocessing.active_children() if p.pid not in self._before]

    def close(self, cancel=False):
        procs = self._workers() if cancel else []
        self.pool.shutdown(wait=not cancel, cancel_futures=cancel)
        for p in procs:  # our own workers, still busy with cancelled work
            if p.is_alive():
                p.terminate()
        for p in procs:
            p.join(5)


_DASK_LOGGERS = ("distributed", "distributed.client", "distributed.batched",
                 "distributed.core", "distributed.comm", "distributed.worker",
                 "distributed.scheduler", "distributed.nanny")


class _Dask(_Backend):
    def __init__(self, scheduler: str, workers: int, engine: Callable | None):
        try:
            from distributed import Client, LocalCluster
        except ImportError as e:  # pragma: no cover - dask[distributed] is a dependency
            raise FastmachError(f"scheduler={scheduler!r}: needs dask.distributed: {e}") from None
        # the client and its comms log reconnection attempts and closed connections with
        # tracebacks (``distributed.batched`` at INFO, ``distributed.client`` at WARNING); a
        # lost scheduler is reported once, by :meth:`lost`
        self._quiet = {name: logging.getLogger(name) for name in _DASK_LOGGERS}
        self._levels = {name: log.level for name, log in self._quiet.items()}
        for log in self._quiet.values():
            log.setLevel(logging.CRITICAL)
        self.cluster = None
        self.address = "local" if scheduler == "local" else repr(scheduler)
        if scheduler == "local":
            # as for local processes (_Processes._start): the workers start with Ctrl-C
            # held back (the cluster's event-loop thread, and the worker processes it
            # spawns, inherit the mask), and an interrupt delivered after the start
            # closes the cluster before it propagates
            _start_resource_tracker()
            try:
                with _sigint_held():
                    self.cluster = LocalCluster(n_workers=workers, threads_per_worker=1,
                                                processes=True, dashboard_address=None)
                    self.client = Client(self.cluster)
            except BaseException:
                if self.cluster is not None:
                    with contextlib.suppress(Exception):
                        self.cluster.close()
                self._restore_logs()
                raise
            self.where = f"a Dask LocalCluster of {workers} workers"
        else:
            try:
                self.client = Client(scheduler, timeout="20s")
            except (OSError, TimeoutError) as e:
                raise FastmachError(f"scheduler={scheduler!r}: cannot connect ({e})") from None
            self.where = f"the Dask cluster at {scheduler}"
        try:
            self.client.wait_for_workers(1, timeout=120)
        except TimeoutError:
            self.close()
            raise FastmachError(f"scheduler={scheduler!r}: no worker joined within 120 s; "
                                f"start some with: dask worker {scheduler}") from None
        try:
            versions = self.client.run(_warm_up, engine)
        except Exception as e:
            self.close()
            raise FastmachError(f"scheduler={scheduler!r}: a worker cannot load fastmach's "
                                f"engine ({type(e).__name__}: {e}); install fastmach on "
                                f"every worker host") from None
        mine = _version()
        other = {w: v for w, v in versions.items() if v != mine}
        if other:
            self.close()
            raise FastmachError(f"scheduler={scheduler!r}: workers run another fastmach "
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

    def _submit(self, spec):
        self._n += 1
        return self.client.submit(play_chunk, spec, pure=False,
                                  key=f"fastmach-chunk-{os.getpid()}-{self._n}")

    def wait(self, futures):
        from distributed import wait
        try:
            return wait(list(futures), return_when="FIRST_COMPLETED").done
        except Exception as e:  # CancelledError, CommClosedError, ...: the scheduler went
            raise self.lost(e) from None

    def submit(self, spec):
        if self.client.status not in ("running", "connecting"):
            raise self.lost(None)
        return self._submit(spec)

    def lost(self, e: BaseException | None) -> SchedulerLost:
        first = str(e).strip().splitlines()[0] if e is not None and str(e).strip() else ""
        why = f" ({type(e).__name__}: {first})" if e is not None else ""
        return SchedulerLost(f"lost the Dask scheduler {self.address}{why}; the finished "
                             f"chunks are saved: run the same command again to resume")

    def result(self, fut):
        """A finished future's bytes; a future cancelled because the scheduler went away is
        the scheduler's loss, not the chunk's."""
        from distributed.client import FutureCancelledError
        try:
            return fut.result()
        except (FutureCancelledError, OSError) as e:
            raise self.lost(e) from None

    def close(self, cancel=False):
        try:
            with contextlib.suppress(Exception):  # a lost scheduler cannot be told
                self.client.close(timeout=10)
        finally:
            if self.cluster is not None:
                self.cluster.close()
            self._restore_logs()

    def _restore_logs(self) -> None:
        for name, log in self._quiet.items():
            log.setLevel(self._levels[name])
