"""Step-by-step games (OpenSpiel style): ``Game`` -> ``State`` -> actions -> records.

``state`` holds the reference ``Game`` and ``State`` (the turn flow in Python, checked by
the independent validator), ``actions`` the actions, ``flow`` the turn rules written once,
``log_writer`` the game log and ``log_reader`` its one reader (and the replay), ``deal``
and ``history`` the deal and the public record. The rules are in docs/rules.md.

Each name is imported from its module on first use: the engine's batches (``fastmach
play``) never load the reference ``State``.
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fastmach.game.actions import Action, Draw, Fail, Pass, Play, meld_points, meld_stands
    from fastmach.game.state import Game, HandResult, State, TurnRecord

#: each public name -> the module that defines it
_HOMES = {**dict.fromkeys(("Action", "Draw", "Fail", "Pass", "Play", "meld_points",
                           "meld_stands"), "fastmach.game.actions"),
          **dict.fromkeys(("Game", "HandResult", "State", "TurnRecord"), "fastmach.game.state")}


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        value = getattr(importlib.import_module(_HOMES[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'fastmach.game' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOMES))


__all__ = ["Game", "State", "Play", "Draw", "Pass", "Fail", "TurnRecord", "HandResult",
           "meld_points", "meld_stands", "Action"]
