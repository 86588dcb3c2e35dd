"""fastmach: fast, exact simulation of Machiavelli, the Italian table-manipulation rummy.

Public API: cards (``parse_cards``, ``format_cards``), rules (``Rules``, ``PRESETS``),
the exact solver (``solve``, ``solve_many``, ``partition``, ``opening``), games
(``play_games``, ``Game``, ``State``), Python bots (``Bot``: ``act(Observation) -> Play | Draw | Pass``),
studies (``Study``, ``read_results``, ``read_hands``), comparisons (``compare``), ratings (``rate``), rule
searches (``tune``) and reports (``build_report``).
"""
from __future__ import annotations

from fastmach.core import __version__  # noqa: F401 (fastmach.__version__)

import importlib
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


_word = _command_word(getattr(sys, "orig_argv", []), sys.argv[0] if sys.argv else "")
if _word is not None and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
    signal.signal(signal.SIGINT, _interrupted_while_starting)  # cli.main restores it
_quiet_blas(_word)

#: Modules of the flat layout -> where they live now. ``import fastmach.stats`` (and
#: ``fastmach.stats`` as an attribute) gives the module itself, the same object as
#: ``fastmach.analysis.stats``; nothing is imported before it is asked for.
MOVED = {
    "fastmach.cards": "fastmach.core.cards",
    "fastmach._cardset": "fastmach.core._cardset",
    "fastmach._solver": "fastmach.core._solver",
    "fastmach._batch": "fastmach.core._batch",
    "fastmach._check_build": "fastmach.core._check_build",
    "fastmach.validate": "fastmach.core.validate",
    "fastmach.batch": "fastmach.solver.batch",
    "fastmach.rules_doc": "fastmach.rules.doc",
    "fastmach.actions": "fastmach.game.actions",
    "fastmach.gamelog": "fastmach.game.gamelog",
    "fastmach.engine.log": "fastmach.game.log",
    "fastmach.sweep": "fastmach.study.sweep",
    "fastmach.store": "fastmach.study.store",
    "fastmach.precision": "fastmach.study.precision",
    "fastmach.stats": "fastmach.analysis.stats",
    "fastmach.plots": "fastmach.report.plots",
    "fastmach.showcase": "fastmach.report.showcase",
    "fastmach.bench": "fastmach.tools.bench",
    "fastmach.comparison": "fastmach.tools.comparison",
}


class _Moved:
    """Import hook (finder and loader) for the old names: the import of an old name puts
    the module of its new name in ``sys.modules`` under the old one too, so both names
    are one module object (its ``__name__`` and ``__spec__`` stay the new name's)."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        if name not in MOVED:
            return None
        from importlib.machinery import ModuleSpec

        return ModuleSpec(name, _Moved)

    @staticmethod
    def create_module(spec):
        return None  # a placeholder module, replaced in exec_module

    @staticmethod
    def exec_module(module):
        sys.modules[module.__name__] = importlib.import_module(MOVED[module.__name__])


if _Moved not in sys.meta_path:
    # first: it answers only for the old names, before a finder of an installed copy would
    sys.meta_path.insert(0, _Moved)


#: Public names imported on first use (a command that plays games never needs them).
LAZY = {
    "SolveBatch": "fastmach.solver.batch",
    "solve_many": "fastmach.solver.batch",
    "to_counts": "fastmach.solver.batch",
    "read_hands": "fastmach.study.sweep",
    "read_results": "fastmach.study.sweep",
    "run_study": "fastmach.study.sweep",
}


def __getattr__(name: str):
    """``fastmach.stats`` and the other old module names, and the names of ``LAZY``,
    imported on first use."""
    if f"fastmach.{name}" in MOVED:
        return importlib.import_module(f"fastmach.{name}")
    if name in LAZY:
        value = getattr(importlib.import_module(LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'fastmach' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(LAZY))


from fastmach.core._check_build import raise_build_error

try:
    from fastmach.core import _solver  # type: ignore[attr-defined]  # noqa: F401  (compiled core)
except ImportError as _err:  # pragma: no cover - exercised by hand, see README
    _e: BaseException | None = _err
    while _e is not None:  # Ctrl-C while numpy loads surfaces as an ImportError
        if isinstance(_e, KeyboardInterrupt):
            raise KeyboardInterrupt from None
        _e = _e.__cause__ or _e.__context__
    raise_build_error(_err)

from fastmach.core._cardset import CardSet
from fastmach.game.actions import Draw, Pass, Play
from fastmach.core.cards import NCARD, card_str, format_cards, parse_cards, pretty
from fastmach.engine import play_games
from fastmach.errors import FastmachError
from fastmach.game import Game, State
from fastmach.rules import PRESETS, Rules
from fastmach.solver import Solution, opening, partition, solve
from fastmach.strategies import Bot, Observation
from fastmach.study import Study


def _solution_html(solution: Solution) -> str:
    """Jupyter's HTML of a Solution, by the viewer (imported on first use)."""
    from fastmach.view import solution_html

    return solution_html(solution)


# the solver's HTML hook, filled here so that the solver does not import the viewer above it
import fastmach.solver as _solver_api  # noqa: E402

_solver_api.html_renderer = _solution_html


def _state_html(state: State) -> str:
    """Jupyter's HTML of a State, by the viewer (imported on first use)."""
    from fastmach.view import state_html

    return state_html(state)


import fastmach.game as _game_api  # noqa: E402

_game_api.html_renderer = _state_html


def build_report(results_dir, out_dir=None):
    """Build the balance report of a study's results (see fastmach.report)."""
    from fastmach.report import build_report as _build  # matplotlib is imported only here

    return _build(results_dir, out_dir)


def tune(space, out, *, max_games, workers=0, scheduler=None, progress=False):
    """Search a rule space for targets (see fastmach.tools.tune.tune):
    ``fastmach.tune("simulations/tune-example.toml", "tune-out", max_games=3000).best``."""
    from fastmach.tools.tune import tune as _tune  # optuna is imported only here

    return _tune(space, out, max_games=max_games, workers=workers, scheduler=scheduler,
                 progress=progress)


def compare(rules, players=None, lineups=None, **kwargs):
    """Play rule sets on the same deals and compare each with the first (see
    fastmach.tools.comparison.compare): ``fastmach.compare(["classic", "classic(jokers=2)"],
    players=[4], games=2000).effects``."""
    from fastmach.tools.comparison import compare as _compare  # the statistics are imported only here

    return _compare(rules, players, lineups, **kwargs)


def rate(strategies, rules="classic", players=4, **kwargs):
    """Rate strategies by a round-robin on common deals (see fastmach.tools.rate.rate):
    ``fastmach.rate(["beginner", "expert", "patient"], players=4, games=100).ratings``."""
    from .tools.rate import rate as _rate  # the statistics are imported only here

    return _rate(strategies, rules, players, **kwargs)


__all__ = [
    "Bot",
    "CardSet",
    "Draw",
    "NCARD",
    "FastmachError",
    "Game",
    "Observation",
    "Pass",
    "Play",
    "Study",
    "build_report",
    "compare",
    "play_games",
    "rate",
    "PRESETS",
    "Rules",
    "Solution",
    "State",
    "SolveBatch",
    "card_str",
    "format_cards",
    "opening",
    "parse_cards",
    "partition",
    "pretty",
    "read_hands",
    "read_results",
    "run_study",
    "solve",
    "solve_many",
    "to_counts",
    "tune",
]
