"""The process set-up of the ``fastmach`` command, run first (``fastmach.cli`` imports it
before anything else; ``import fastmach`` loads nothing): a Ctrl-C while the package's
modules load is a message and status 130, and ``fastmach play`` loads NumPy with one BLAS
thread and without the cyclic garbage collector until its games start."""
from __future__ import annotations

import gc
import os
import signal
import sys
from typing import Sequence


def _interrupted_while_starting(signum, frame) -> None:  # pragma: no cover - timing
    """Ctrl-C before the command runs (the package's imports): a message and 130."""
    os.write(2, b"fastmach: interrupted\n")
    os._exit(130)


def _command_word(argv: Sequence[str], script: str) -> str | None:
    """The subcommand of a ``fastmach`` command line (``orig_argv``, ``argv[0]``): the
    word after ``-m fastmach`` or after the ``fastmach`` script; "" for the command with
    no subcommand (or an option first); None if this process is not the command."""
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
    return rest[0] if rest and not rest[0].startswith("-") else ""


#: the variables OpenBLAS reads for its thread count (the first one set wins)
_BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")


def _quiet_blas(word: str | None) -> None:
    """``fastmach play`` (no linear algebra on its path): import NumPy with one BLAS
    thread, unless NumPy is loaded or the user set a thread count; the environment is put
    back afterwards, so the processes the command starts see the user's settings.
    NumPy's bundled OpenBLAS otherwise starts a thread per core that spins before it
    sleeps: about a twentieth of a second of CPU a process."""
    if word != "play" or "numpy" in sys.modules or any(v in os.environ for v in _BLAS_THREADS):
        return
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    try:
        import numpy  # noqa: F401  (OpenBLAS reads its thread count as it loads)
    finally:
        del os.environ["OPENBLAS_NUM_THREADS"]


#: True while this module holds the collector off (``fastmach play``'s imports)
_GC_PAUSED = False


def _pause_gc(word: str | None) -> None:
    """``fastmach play``: no collection while the package's modules load (they outlive the
    games, and the collector's passes over them cost about a hundredth of a second); the
    command turns it back on as its games start (:func:`resume_gc`). Left alone where the
    caller turned it off."""
    global _GC_PAUSED
    if word == "play" and gc.isenabled():
        gc.disable()
        _GC_PAUSED = True


def resume_gc() -> None:
    """The collector back on, if :func:`_pause_gc` turned it off (once: later calls do
    nothing)."""
    global _GC_PAUSED
    if _GC_PAUSED:
        _GC_PAUSED = False
        gc.enable()


#: set by a command whose process may leave without the interpreter's teardown
#: (:func:`leave_at_once`)
_LEAVE_AT_ONCE = False


def leave_at_once(ok: bool = True) -> None:
    """Whether the command just run may end its process at once (:func:`exit_now`): its
    outputs are written and closed, and it ran no user code (a Python bot) that may hold
    an open file or a process of its own."""
    global _LEAVE_AT_ONCE
    _LEAVE_AT_ONCE = ok


def exit_now(rc: int) -> None:
    """End the process with status ``rc`` after the exit hooks (``atexit``) and the
    flushed standard streams, without the interpreter's teardown (its last collection
    and the freeing of every module: about 0.02 s of CPU after ``fastmach play``); where
    :func:`leave_at_once` was not said, a thread other than the main one still runs, or
    a stream cannot be flushed, returns and lets the caller exit as usual."""
    import atexit
    import threading

    if not _LEAVE_AT_ONCE or any(t is not threading.main_thread() and not t.daemon
                                 for t in threading.enumerate()):
        return
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):   # a closed pipe: the usual exit reports it
        return
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(rc)


_WORD = _command_word(getattr(sys, "orig_argv", []), sys.argv[0] if sys.argv else "")
if _WORD is not None and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
    signal.signal(signal.SIGINT, _interrupted_while_starting)  # cli.main restores it
_pause_gc(_WORD)
_quiet_blas(_WORD)
