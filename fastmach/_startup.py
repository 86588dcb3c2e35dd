"""Start-up of the ``fastmach play`` command: NumPy loaded without BLAS worker threads.

NumPy's bundled OpenBLAS starts one worker thread per core when it loads, and the threads
spin for a while before they sleep: CPU time that a command playing games (no linear
algebra anywhere on its path) pays for nothing, about a twentieth of a second a process.
``quiet_blas`` loads NumPy with ``OPENBLAS_NUM_THREADS=1`` and then puts the environment
back as it was, so that the processes the command starts see the user's settings. A
thread count the user set (any of the variables OpenBLAS reads) is left alone.
"""
from __future__ import annotations

import os
import sys
from typing import Sequence

__all__ = ["command_word", "quiet_blas"]

#: the variables OpenBLAS reads for its thread count (the first one set wins)
BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")

#: the commands that run no linear algebra
QUIET = frozenset(("play",))


def command_word(argv: Sequence[str], script: str) -> str | None:
    """The subcommand of a ``fastmach`` command line (``orig_argv``, ``argv[0]``): the
    word after ``-m fastmach`` or after the ``fastmach`` script; None if this process is
    not the command, or the word is an option."""
    args = list(argv)
    if "-m" in args:
        i = args.index("-m")
        if args[i + 1: i + 2] != ["fastmach"]:
            return None
        rest = args[i + 2:]
    elif os.path.basename(script) == "fastmach":
        rest = args[1:] if args else []
        # the console script: orig_argv holds the interpreter and the script's path first
        for k, a in enumerate(args):
            if os.path.basename(a) == "fastmach":
                rest = args[k + 1:]
                break
    else:
        return None
    if not rest or rest[0].startswith("-"):
        return None
    return rest[0]


def quiet_blas() -> None:
    """Import NumPy with one BLAS thread when this process is a command of ``QUIET`` and
    NumPy is not loaded yet; the environment is restored afterwards."""
    word = command_word(getattr(sys, "orig_argv", []), sys.argv[0] if sys.argv else "")
    if word not in QUIET or "numpy" in sys.modules or any(v in os.environ for v in BLAS_THREADS):
        return
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    try:
        import numpy  # noqa: F401  (OpenBLAS reads its thread count as it loads)
    finally:
        del os.environ["OPENBLAS_NUM_THREADS"]
