"""The ``fastmach`` command: one module per command group, each holding its subcommands'
parsers (``add_NAME``) and command functions (``NAME_command``): ``solve`` (solve, bench),
``games`` (play, replay, strategies, view), ``studies`` (sweep, compare, rate, tune,
report), ``training`` (train, exploit), ``rules``; ``main`` builds the parser in the order
of ``fastmach --help`` and runs a command; ``common`` holds what they share. The library
modules keep plain functions with typed arguments; these modules read the arguments, call
them, and turn bad input (FastmachError) into a message on stderr and exit status 2.
"""
from __future__ import annotations

from fastmach.cli import start  # noqa: F401  (first: the process set-up, before NumPy loads)
from fastmach.cli.common import as_flags, os_message
from fastmach.cli.games import add_play, add_replay, add_strategies, add_view
from fastmach.cli.main import SUBCOMMANDS, RunFailed, build_parser, console, main
from fastmach.cli.rules import add_rules
from fastmach.cli.solve import add_bench, add_solve
from fastmach.cli.studies import add_compare, add_rate, add_report, add_sweep, add_tune
from fastmach.cli.training import add_exploit, add_train

__all__ = ["main", "console", "build_parser", "SUBCOMMANDS", "RunFailed", "as_flags",
           "os_message", "add_solve", "add_bench", "add_play", "add_replay", "add_strategies",
           "add_view", "add_sweep", "add_compare", "add_rate", "add_tune", "add_report",
           "add_train", "add_exploit", "add_rules"]
