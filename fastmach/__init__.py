"""fastmach: fast, exact simulation of Machiavelli, the Italian table-manipulation rummy.

Public API: cards (``parse_cards``, ``format_cards``), rules (``Rules``, ``PRESETS``),
the exact solver (``solve``, ``partition``, ``opening``), games (``play_games``, ``Game``),
studies (``Study``) and reports (``build_report``).
"""
from __future__ import annotations

__version__ = "0.1.0"

from ._check_build import raise_build_error

try:
    from . import _solver  # noqa: F401  (compiled core)
except ImportError as _err:  # pragma: no cover - exercised by hand, see README
    raise_build_error(_err)

from .cards import card_str, format_cards, parse_cards, pretty
from .errors import FastmachError
from .rules import PRESETS, Rules
from .solver import Solution, opening, partition, solve

__all__ = [
    "FastmachError",
    "PRESETS",
    "Rules",
    "Solution",
    "card_str",
    "format_cards",
    "opening",
    "parse_cards",
    "partition",
    "pretty",
    "solve",
]
