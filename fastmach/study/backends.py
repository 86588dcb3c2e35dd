"""Where chunks run: local worker processes (spawn) or a Dask cluster, behind one small
interface (submit, wait, broken, restart, close)."""
from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import os
import time
from typing import Callable, Iterable

from fastmach.errors import FastmachError
from fastmach.study.worker import ChunkSpec, _version, _warm_up, _worker_init, play_chunk


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
        self._before = {p.pid for p in multiprocessing.active_children()}
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
