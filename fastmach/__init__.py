"""fastmach: fast, exact simulation of Machiavelli, the Italian table-manipulation rummy.

Public API: cards (``parse_cards``, ``format_cards``), rules (``Rules``, ``PRESETS``),
the exact solver (``solve``, ``solve_many``, ``partition``, ``opening``), games
(``play_games``, ``Game``, ``State``), Python bots (``Bot``: ``act(Observation) -> Play | Draw | Pass``),
studies (``Study``, ``read_hands``), comparisons (``compare``) and reports (``build_report``).
"""
from __future__ import annotations

__version__ = "0.1.0"

from ._check_build import raise_build_error

try:
    from . import _solver  # noqa: F401  (compiled core)
except ImportError as _err:  # pragma: no cover - exercised by hand, see README
    raise_build_error(_err)

from ._cardset import CardSet
from .actions import Draw, Pass, Play
from .batch import SolveBatch, solve_many, to_counts
from .cards import NCARD, card_str, format_cards, parse_cards, pretty
from .engine import play_games
from .errors import FastmachError
from .game import Game, State
from .rules import PRESETS, Rules
from .solver import Solution, opening, partition, solve
from .strategies import Bot, Observation
from .study import Study
from .sweep import read_hands, run_study


def build_report(results_dir, out_dir=None):
    """Build the balance report of a study's results (see fastmach.report)."""
    from .report import build_report as _build  # matplotlib is imported only here

    return _build(results_dir, out_dir)


def compare(rules, players=None, lineups=None, **kwargs):
    """Play rule sets on the same deals and compare each with the first (see
    fastmach.comparison.compare): ``fastmach.compare(["classic", "classic(jokers=2)"],
    players=[4], games=2000).effects``."""
    from .comparison import compare as _compare  # the statistics are imported only here

    return _compare(rules, players, lineups, **kwargs)


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
    "run_study",
    "solve",
    "solve_many",
    "to_counts",
]
