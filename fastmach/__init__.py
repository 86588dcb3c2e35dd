"""fastmach: fast, exact simulation of Machiavelli, the Italian table-manipulation rummy.

Public API: cards (``parse_cards``, ``format_cards``), rules (``Rules``, ``PRESETS``),
the exact solver (``solve``, ``solve_many``, ``partition``, ``opening``), games
(``play_games``, ``Game``, ``State``), Python bots (``Bot``: ``act(Observation) -> Play | Draw | Pass``),
studies (``Study``, ``read_results``, ``read_hands``), comparisons (``compare``), ratings (``rate``), rule
searches (``tune``) and reports (``build_report``).

Each name is imported from its module on first use: ``import fastmach`` loads nothing
else, so a command sets up its process (``fastmach.cli``) before NumPy and the compiled
core load.
"""
from __future__ import annotations

import importlib

from fastmach.core import __version__  # noqa: F401 (fastmach.__version__)
from fastmach.core._check_build import check_build
from fastmach.core.providers import PROVIDERS

check_build()  # the compiled core is there (found, not loaded): else a clear ImportError
# what the lower layers ask of the layers above them
PROVIDERS.update(engine_factory="fastmach.engine.play:make_engine",
                 solution_html="fastmach.view:solution_html",
                 state_html="fastmach.view:state_html")

#: Each public name -> the module that defines it.
API = {
    "Bot": "fastmach.strategies",
    "CardSet": "fastmach.core._cardset",
    "Draw": "fastmach.game.actions",
    "FastmachError": "fastmach.errors",
    "Game": "fastmach.game.state",
    "NCARD": "fastmach.core.cards",
    "Observation": "fastmach.strategies",
    "PRESETS": "fastmach.rules",
    "Pass": "fastmach.game.actions",
    "Play": "fastmach.game.actions",
    "Rules": "fastmach.rules",
    "Solution": "fastmach.solver",
    "SolveBatch": "fastmach.solver.batch",
    "State": "fastmach.game.state",
    "Study": "fastmach.study",
    "build_report": "fastmach.report",
    "card_str": "fastmach.core.cards",
    "compare": "fastmach.tools.comparison",
    "format_cards": "fastmach.core.cards",
    "opening": "fastmach.solver",
    "parse_cards": "fastmach.core.cards",
    "partition": "fastmach.solver",
    "play_games": "fastmach.engine",
    "pretty": "fastmach.core.cards",
    "rate": "fastmach.tools.rate",
    "read_hands": "fastmach.study.results",
    "read_results": "fastmach.study.results",
    "run_study": "fastmach.study.driver",
    "solve": "fastmach.solver",
    "solve_many": "fastmach.solver.batch",
    "to_counts": "fastmach.solver.batch",
    "tune": "fastmach.tools.tune",
}

__all__ = sorted(API)

#: The subpackages, attributes of the package on first use too (``fastmach.engine``).
SUBPACKAGES = ("analysis", "core", "engine", "env", "game", "report", "rules", "solver",
               "strategies", "study", "tools", "training", "view")


def __getattr__(name: str):
    """A public name of ``API``, or a subpackage, imported on first use."""
    if name in SUBPACKAGES:
        return importlib.import_module(f"fastmach.{name}")
    if name in API:
        value = getattr(importlib.import_module(API[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'fastmach' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(API))
