"""The parser of every subcommand and the ``fastmach`` entry point: bad input
(FastmachError) is a message on stderr and exit status 2, a failed run 1, Ctrl-C 130.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
from typing import Sequence

from fastmach.cli.common import as_flags, os_message
from fastmach.cli.games import add_play, add_replay, add_strategies, add_view
from fastmach.cli.rules import add_rules
from fastmach.cli.solve import add_bench, add_solve
from fastmach.cli.start import _interrupted_while_starting, exit_now, leave_at_once, resume_gc
from fastmach.cli.studies import add_compare, add_rate, add_report, add_sweep, add_tune
from fastmach.cli.training import add_edge, add_exploit, add_train
from fastmach.core import __version__
from fastmach.errors import BotError, FastmachError
from fastmach.study.plan import SweepError

#: the subcommands in the order of ``fastmach --help``
SUBCOMMANDS = (add_solve, add_bench, add_play, add_replay, add_strategies, add_sweep,
               add_compare, add_rate, add_tune, add_train, add_exploit, add_edge, add_report, add_view,
               add_rules)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The ``fastmach`` parser; ``only``: a subcommand's name, whose parser alone is built
    (a command line that starts with it parses as with every subcommand: about 3 ms
    less of a ``fastmach play``); any other word builds them all."""
    parser = argparse.ArgumentParser(
        prog="fastmach", description="Fast, exact simulation of Machiavelli (table-manipulation rummy).")
    parser.add_argument("--version", action="version", version=_version())
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    chosen = [add for add in SUBCOMMANDS if add.__name__ == f"add_{only}"]
    for add in chosen or SUBCOMMANDS:
        add(sub)
    return parser


def _version() -> str:
    return f"fastmach {__version__}"


class RunFailed(RuntimeError):
    """A run that could not finish (exit status 1), with the message for stderr."""


def console() -> None:
    """The ``fastmach`` command (and ``python -m fastmach``): :func:`main`, then exit.

    An interrupted run (130) has stopped its workers and said so; it leaves at once, so
    that the exit hooks of concurrent.futures and multiprocessing, racing the pool just
    stopped, add no traceback to the message."""
    rc = main()
    if rc == 130:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(130)
    exit_now(rc)   # (where the command allows it: fastmach.cli.start.leave_at_once)
    sys.exit(rc)


@contextlib.contextmanager
def _warnings_as_messages():
    """A library warning during a command is one line on stderr, ``fastmach: warning:``
    and its text (not Python's form, with the file, line and source that raised it)."""
    import warnings

    def show(message, category, filename, lineno, file=None, line=None):
        print(f"fastmach: warning: {as_flags(str(message))}", file=sys.stderr)

    with warnings.catch_warnings():
        warnings.showwarning = show
        yield


def main(argv: Sequence[str] | None = None) -> int:
    leave_at_once(False)   # (a command says so as it finishes)
    try:
        return _main(argv)
    finally:
        resume_gc()   # (play resumes it as its games start; any other way out, here)


def _main(argv: Sequence[str] | None) -> int:
    if signal.getsignal(signal.SIGINT) is _interrupted_while_starting:
        signal.signal(signal.SIGINT, signal.default_int_handler)  # Ctrl-C: KeyboardInterrupt
    words = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(words[0] if words else None)
    try:
        args = parser.parse_args(words)
        try:
            with _warnings_as_messages():
                return int(args.func(args) or 0)
        except SystemExit as e:  # a bot (or other user code) called sys.exit in the run
            raise RunFailed(f"the run called sys.exit({e.code!r}) (a bot or engine must "
                            f"return or raise, not exit); nothing was written") from None
    except FastmachError as e:
        print(f"fastmach: error: {as_flags(str(e))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("fastmach: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except (RunFailed, SweepError, BotError) as e:  # a bot raised or overran its time limit
        print(f"fastmach: error: {e}", file=sys.stderr)
        return 1
    except OSError as e:  # a full disk, a lost mount: every output is written atomically
        print(f"fastmach: error: {os_message(e)}", file=sys.stderr)
        return 1

