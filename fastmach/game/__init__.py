"""Step-by-step games (OpenSpiel style): ``Game`` -> ``State`` -> actions -> records.

``state`` holds the reference ``Game`` and ``State`` (the turn flow in Python, checked by
the independent validator), ``actions`` the actions, ``flow`` the turn rules written once,
``log_writer`` the game log and ``log_reader`` its one reader (and the replay), ``deal``
and ``history`` the deal and the public record. The rules are in docs/rules.md.
"""
from fastmach.game.actions import Action, Draw, Fail, Pass, Play, meld_points, meld_stands
from fastmach.game.state import Game, HandResult, State, TurnRecord

__all__ = ["Game", "State", "Play", "Draw", "Pass", "Fail", "TurnRecord", "HandResult",
           "meld_points", "meld_stands", "Action"]
