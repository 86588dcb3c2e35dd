"""How many workers a run may start on this machine: the one cap on the worker processes
of sweep, compare, rate and tune and on the threads of ``solve_many``."""
from __future__ import annotations

import os

from fastmach.errors import FastmachError

__all__ = ["cpu_count", "max_local_workers", "check_local_workers"]


def cpu_count() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def max_local_workers() -> int:
    """The most workers a run starts on this machine: 4 x its cores, at least 64 (more
    only queue for the cores, and each costs a process's or a thread's start and memory)."""
    return max(64, 4 * cpu_count())


def check_local_workers(workers: int, kind: str = "worker processes") -> None:
    """FastmachError naming ``workers`` if it is more than :func:`max_local_workers`."""
    if workers > max_local_workers():
        raise FastmachError(f"workers={workers}: more {kind} than this machine runs "
                            f"usefully; at most {max_local_workers()} here (4 x its "
                            f"{cpu_count()} cores, at least 64)")
